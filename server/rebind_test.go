package server_test

// Rebinding and address validation (issue 22, item 2), in virtual time
// over netsim.

import (
	"net/netip"
	"testing"
	"time"

	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/serverhook"
	"github.com/snapwire/snapwire/internal/testgame"
	"github.com/snapwire/snapwire/netsim"
	"github.com/snapwire/snapwire/server"
	"github.com/snapwire/snapwire/token"
)

// Acceptance (issue 22, item 2): a token holder plays for 3 s, then sends
// its session's packets with a victim's address as their source, one every
// 2 s (a keepalive), for 30 s. The server moves the session to the victim
// but sends the victim at most 3 times the bytes it received "from" it,
// since the victim never echoes the path challenge sent to it; the
// session, whose address is never validated, times out.
//
// Guards against: a session that moves to any address two authenticated
// packets came from (a token holder forges both) and is then sent full,
// uncompressed snapshots, unacknowledged, for as long as a keepalive
// arrives every few seconds: 35x overall, unbounded in time.
func TestRebindReflectionValidated(t *testing.T) {
	r := newSimRig(t, 41, server.Config{}, true)
	home := netip.MustParseAddrPort("10.0.1.1:40000")
	victim := netip.MustParseAddrPort("10.9.9.9:53")
	raw := netip.MustParseAddrPort("10.6.6.6:1") // the token holder's raw socket
	r.spoof[raw] = victim
	homeEP, err := r.net.Listen(home)
	if err != nil {
		t.Fatal(err)
	}
	rawEP, err := r.net.Listen(raw)
	if err != nil {
		t.Fatal(err)
	}
	victimEP, err := r.net.Listen(victim)
	if err != nil {
		t.Fatal(err)
	}
	toVictim := 0
	r.nodes = append(r.nodes, netsim.Node{Endpoint: victimEP,
		Receive: func(_ time.Duration, _ netip.AddrPort, p []byte) { toVictim += len(p) },
		Advance: func(time.Duration) {}, Next: func() time.Duration { return 1 << 62 }})
	spoofing, spoofed, lastKeep := false, 0, time.Duration(-1<<62)
	c, err := client.New(client.Config{Token: r.token(token.Params{}), Timeout: time.Hour}, testgame.New(),
		client.InputFunc(func(client.Input) game.UserCmd { return game.UserCmd{Forward: 30} }),
		client.SendFunc(func(to netip.AddrPort, p []byte) {
			switch {
			case !spoofing:
				homeEP.WriteTo(p, to)
			case r.now-lastKeep >= 2*time.Second:
				lastKeep = r.now
				spoofed += len(p)
				rawEP.WriteTo(p, to)
			}
		}))
	if err != nil {
		t.Fatal(err)
	}
	c.Connect(0, simServer)
	r.nodes = append(r.nodes, netsim.Node{Endpoint: homeEP,
		Receive: func(now time.Duration, _ netip.AddrPort, p []byte) { c.HandlePacket(now, p) },
		Advance: c.Advance, Next: c.Next})
	r.run(3 * time.Second)
	if c.State() != client.Connected || c.Stats().SnapshotsReceived < 40 {
		t.Fatalf("token holder: %v %v, %d snapshots", c.State(), c.Err(), c.Stats().SnapshotsReceived)
	}
	spoofing = true
	moved, timedOut := false, time.Duration(0)
	for r.now < 33*time.Second {
		r.run(r.now + 100*time.Millisecond)
		cs, ok := serverhook.Client(r.srv, 0)
		moved = moved || (ok && cs.Addr == victim)
		if !ok && timedOut == 0 {
			timedOut = r.now
		}
	}
	st := serverhook.ServerStats(r.srv)
	t.Logf("victim received %d bytes for %d forged bytes (%.1fx); session moved %v, gone at %v; %d packets held back, %d challenges",
		toVictim, spoofed, float64(toVictim)/float64(max(spoofed, 1)), moved, timedOut, st.UnconfirmedDrops, st.PathChallenges)
	if !moved || spoofed == 0 {
		t.Fatalf("the forged packets did not move the session (moved %v, %d bytes forged)", moved, spoofed)
	}
	if toVictim > 3*spoofed {
		t.Errorf("reflection: the victim got %d bytes for %d received from its address (more than 3x)", toVictim, spoofed)
	}
	if timedOut == 0 || timedOut > 3*time.Second+11*time.Second {
		t.Errorf("the session with an unvalidated address lived on (gone at %v)", timedOut)
	}
}

// A genuine NAT rebinding: the new address echoes the path challenge
// within a round trip, the session moves there at full rate and plays on.
func TestRebindValidatedNAT(t *testing.T) {
	r := newSimRig(t, 42, server.Config{}, true)
	first := netip.MustParseAddrPort("10.0.1.1:40000")
	c := r.addClient(first, client.Config{Token: r.token(token.Params{})})
	r.run(3 * time.Second)
	next := netip.MustParseAddrPort("10.0.7.7:51000")
	if err := r.eps[first].Rebind(next); err != nil {
		t.Fatal(err)
	}
	at := r.now
	for r.now < at+time.Second {
		r.run(r.now + 10*time.Millisecond)
		if cs, _ := serverhook.Client(r.srv, 0); cs.Addr == next && !cs.AddrPending {
			break
		}
	}
	t.Logf("new address validated %v after the rebinding (round trip 40 ms)", r.now-at)
	if cs, _ := serverhook.Client(r.srv, 0); cs.Addr != next || cs.AddrPending || r.now-at > 150*time.Millisecond {
		t.Fatalf("after %v: server sees %v (pending %v)", r.now-at, cs.Addr, cs.AddrPending)
	}
	before := c.Stats().SnapshotsReceived
	r.run(r.now + 5*time.Second)
	if got := c.Stats().SnapshotsReceived - before; c.State() != client.Connected || got < 90 {
		t.Errorf("after the rebinding: %v, %d snapshots in 5 s", c.State(), got)
	}
}
