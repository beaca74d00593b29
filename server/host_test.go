package server_test

// Many matches on one socket (issue 25 part 2): a server.Host in virtual
// time over netsim, with the tag game of hostgame_test.go.

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/clienthook"
	"github.com/snapwire/snapwire/internal/serverhook"
	"github.com/snapwire/snapwire/internal/session"
	"github.com/snapwire/snapwire/netsim"
	"github.com/snapwire/snapwire/server"
)

// hostAddr is client i's address: one IP address each.
func hostAddr(i int) netip.AddrPort {
	return netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 7, byte(i / 200), byte(1 + i%200)}), 40000)
}

// refusedWith reports whether c's handshake was refused, or its session
// ended, with reason.
func refusedWith(c *client.Client, reason client.Reason) bool {
	var re *client.RefusedError
	return errors.As(c.Err(), &re) && re.Reason == reason
}

// Routing basics: matches created and ended while the host runs; a
// connect to a match the host does not have is refused with "no such
// match" (insecure: the connect names it; secure: the token does); a
// token naming match A joins A whatever the connect's own Match says; End
// drops the match's clients (they see the shutdown) and frees their
// connection ids; Create refuses a duplicate or malformed name; NumClients
// and Matches follow.
//
// Guards against: a connect routed to the default match whatever it
// names, a connect's Match preferred to its sealed token's, clients of an
// ended match left connected or their ids still routed to it.
func TestHostRouting(t *testing.T) {
	for _, secure := range []bool{false, true} {
		t.Run(fmt.Sprintf("secure=%v", secure), func(t *testing.T) { hostRouting(t, secure) })
	}
}

func hostRouting(t *testing.T, secure bool) {
	r := newHostRig(t, 41, secure)
	a := r.create("a", 1, 0)
	r.run(time.Second)
	b := r.create("b", 2, 1) // created while the host runs
	if _, err := r.h.Create(r.now, "b", server.Config{}, newTagGame(0), tagSettings(3, 0)); !errors.Is(err, server.ErrMatchExists) {
		t.Errorf("a second match b: %v", err)
	}
	for _, bad := range []string{"two words", "é", strings.Repeat("x", 33)} {
		if _, err := r.h.Create(r.now, bad, server.Config{}, newTagGame(0), tagSettings(3, 0)); !errors.Is(err, server.ErrConfig) {
			t.Errorf("a match named %q: %v", bad, err)
		}
	}
	if got := r.h.Matches(); len(got) != 2 || got[0] != "a" || got[1] != "b" {
		t.Errorf("matches %q", got)
	}
	ca := r.join(hostAddr(0), "a", 1, client.Config{})
	cb := r.join(hostAddr(1), "b", 2, client.Config{})
	cb2 := r.join(hostAddr(2), "b", 2, client.Config{})
	none := r.join(hostAddr(3), "nowhere", 9, client.Config{})
	// The token names a, the connect b: the token wins (insecure: there is
	// no token, and the connect's b is where it goes).
	var mixed *tagClient
	if secure {
		mixed = r.join(hostAddr(4), "a", 1, client.Config{Match: "b"})
	}
	r.run(r.now + 2*time.Second)
	if !refusedWith(none.c, client.ReasonNoSuchMatch) {
		t.Errorf("a connect to no match: %v %v", none.c.State(), none.c.Err())
	}
	wantA := 1
	if mixed != nil {
		wantA++
		if mixed.c.State() != client.Connected || mixed.c.GameID() != a.srv.GameID() {
			t.Errorf("token for a, connect naming b: %v %v, game %x (a %x, b %x)", mixed.c.State(), mixed.c.Err(),
				mixed.c.GameID(), a.srv.GameID(), b.srv.GameID())
		}
	}
	for _, tc := range []*tagClient{ca, cb, cb2} {
		want := a.srv.GameID()
		if tc.match == "b" {
			want = b.srv.GameID()
		}
		if tc.c.State() != client.Connected || tc.c.GameID() != want {
			t.Fatalf("client of %s: %v %v, game %x want %x", tc.match, tc.c.State(), tc.c.Err(), tc.c.GameID(), want)
		}
	}
	if a.srv.NumClients() != wantA || b.srv.NumClients() != 2 || r.h.NumClients() != wantA+2 {
		t.Errorf("clients: a %d, b %d, host %d", a.srv.NumClients(), b.srv.NumClients(), r.h.NumClients())
	}
	// End b: its clients see the shutdown; their connection ids route to
	// no match any more (a's counts them as unknown).
	ids := serverhook.Clients(b.srv)
	if err := r.h.End(r.now, "b"); err != nil {
		t.Fatal(err)
	}
	if err := r.h.End(r.now, "b"); !errors.Is(err, server.ErrNoMatch) {
		t.Errorf("ending b twice: %v", err)
	}
	r.run(r.now + time.Second)
	for _, tc := range []*tagClient{cb, cb2} {
		if tc.c.State() != client.Disconnected || !refusedWith(tc.c, client.ReasonShutdown) {
			t.Errorf("client of the ended match: %v %v", tc.c.State(), tc.c.Err())
		}
	}
	if r.h.NumClients() != wantA || len(r.h.Matches()) != 1 || r.h.Match("b") != nil {
		t.Errorf("after End: %d clients, matches %q", r.h.NumClients(), r.h.Matches())
	}
	unknown := serverhook.ServerStats(a.srv).UnknownConn
	for _, cs := range ids {
		// An idle packet on b's old connection (type 0, sequence 1).
		pkt := []byte{0, byte(session.TypeIdle), byte(cs.ConnID), byte(cs.ConnID >> 8), 1, 0, 0, 0}
		r.h.HandlePacket(r.now, hostAddr(1), pkt)
	}
	if got := serverhook.ServerStats(a.srv).UnknownConn - unknown; got != uint64(len(ids)) || len(ids) != 2 {
		t.Errorf("%d packets on the %d ended connections counted unknown by a", got, len(ids))
	}
	// A match of the same name again: new clients join it, a's go on.
	b2 := r.create("b", 5, 2)
	cb3 := r.join(hostAddr(5), "b", 5, client.Config{})
	r.run(r.now + 2*time.Second)
	if cb3.c.State() != client.Connected || cb3.c.GameID() != b2.srv.GameID() || ca.c.State() != client.Connected {
		t.Errorf("new b's client: %v %v; a's: %v", cb3.c.State(), cb3.c.Err(), ca.c.State())
	}
	if r.h.NumClients() != wantA+1 {
		t.Errorf("%d clients, want %d", r.h.NumClients(), wantA+1)
	}
}

// A match created at time T runs its frame 1 at T + one frame, not the
// frames since the host started in a burst; the host's Next is the
// earliest of its matches'.
//
// Guards against: a match's frames counted from the host's epoch.
func TestHostMatchEpoch(t *testing.T) {
	r := newHostRig(t, 42, false)
	a := r.create("a", 1, 0)
	r.run(10 * time.Second)
	frame := a.srv.FrameDuration()
	created := r.now + frame/3 // between two of a's frames
	r.now = created
	b := r.create("b", 2, 0)
	r.h.Advance(created + frame - 1)
	if b.g.frames != 0 {
		t.Fatalf("%d frames run before the first was due", b.g.frames)
	}
	if next := r.h.Next(); next > created+frame {
		t.Errorf("host's next frame at %v, b's first due at %v", next, created+frame)
	}
	r.h.Advance(created + frame)
	if b.g.frames != 1 {
		t.Fatalf("%d frames run at the first one's time, want 1", b.g.frames)
	}
	r.h.Advance(created + 10*frame)
	if b.g.frames != 10 || a.g.frames < 600 {
		t.Errorf("b ran %d frames in 10, a %d", b.g.frames, a.g.frames)
	}
}

// Acceptance (issue 25 part 2: "each match isolated: no entity, event or
// message of one match reaches another's clients"). 16 matches of 8
// clients, a fifth of the clients over a lossy link, each match running
// the tag game with its own tag and map (so its game id and map base
// differ): every entity state, event (unreliable, reliable, and saved for
// the late joiners) and message (the server's broadcasts, and the echoes
// of the clients' own) carries the match's tag. Each client must receive
// its match's (none missing) and nothing of another's, and hold its
// match's game id. Midway two clients of each match join late, one match
// changes map, and one match ends and another of the same name is created
// with a new tag and new clients.
//
// Guards against: a channel packet or a connect routed to the wrong
// match, a broadcast or event sent through the shared socket to another
// match's clients, and a recreated match's name reaching the old match's
// clients or state.
func TestHostIsolation(t *testing.T) {
	for _, secure := range []bool{false, true} {
		t.Run(fmt.Sprintf("secure=%v", secure), func(t *testing.T) { hostIsolation(t, secure) })
	}
}

func hostIsolation(t *testing.T, secure bool) {
	const matches, early, late = 16, 6, 2
	r := newHostRig(t, 43, secure)
	lossy := netsim.LinkConfig{Latency: 30 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.1}
	ms := make([]*tagMatch, matches)
	var cls []*tagClient
	n := 0
	join := func(m *tagMatch) {
		addr := hostAddr(n)
		if n%5 == 0 {
			r.net.SetLink(addr, simServer, lossy)
			r.net.SetLink(simServer, addr, lossy)
		}
		n++
		cls = append(cls, r.join(addr, m.name, m.tag, client.Config{}))
	}
	for i := range ms {
		ms[i] = r.create(fmt.Sprintf("m%d", i), uint16(i+1), i%4)
		for range early {
			join(ms[i])
		}
	}
	say := func(until time.Duration) {
		for r.now < until {
			r.run(r.now + 250*time.Millisecond)
			for _, tc := range cls {
				tc.say()
			}
		}
	}
	say(3 * time.Second)
	for _, m := range ms {
		for range late {
			join(m)
		}
	}
	say(4 * time.Second)
	if err := ms[5].srv.ChangeMap(tagSettings(ms[5].tag, 7)); err != nil {
		t.Fatal(err)
	}
	say(5 * time.Second)
	// m9 ends; a new m9 with another tag takes its name.
	ended := cls[9*early : 9*early+early]
	ended = append(ended, cls[matches*early+9*late:matches*early+9*late+late]...)
	if err := r.h.End(r.now, "m9"); err != nil {
		t.Fatal(err)
	}
	ms[9] = r.create("m9", 109, 3)
	for range early + late {
		join(ms[9])
	}
	say(9 * time.Second)

	ids := map[game.GameID]string{}
	for _, m := range ms {
		if prev, dup := ids[m.srv.GameID()]; dup {
			t.Errorf("matches %s and %s have game id %x", prev, m.name, m.srv.GameID())
		}
		ids[m.srv.GameID()] = m.name
		if m.wrong != 0 || m.got == 0 || m.srv.NumClients() != early+late {
			t.Errorf("match %s: %d client messages with its tag, %d without; %d clients", m.name, m.got, m.wrong, m.srv.NumClients())
		}
	}
	byName := map[string]*tagMatch{}
	for _, m := range ms {
		byName[m.name] = m
	}
	var totals [8]uint64
	for i, tc := range cls {
		name := fmt.Sprintf("client %d of %s", i, tc.match)
		if isIn(ended, tc) {
			if tc.c.State() != client.Disconnected || !refusedWith(tc.c, client.ReasonShutdown) {
				t.Errorf("%s (ended): %v %v", name, tc.c.State(), tc.c.Err())
			}
			tc.check(t, name)
			continue
		}
		m := byName[tc.match]
		if tc.c.State() != client.Connected || tc.c.GameID() != m.srv.GameID() {
			t.Errorf("%s: %v %v, game %x, its match's %x", name, tc.c.State(), tc.c.Err(), tc.c.GameID(), m.srv.GameID())
			continue
		}
		tc.check(t, name)
		totals[0] += tc.g.states
		totals[1] += tc.events[kindUnreliable]
		totals[2] += tc.events[kindReliable]
		totals[3] += tc.events[kindSaved]
		totals[4] += tc.msgs[msgBroadcast]
		totals[5] += tc.msgs[msgEcho]
		totals[6] += clienthook.CountersOf(tc.c).BaseChecks
	}
	t.Logf("%d clients in %d matches: %d entity states, events %d unreliable, %d reliable, %d saved; messages %d broadcast, %d echoed; %d base checks; 0 of another match",
		len(cls), matches, totals[0], totals[1], totals[2], totals[3], totals[4], totals[5], totals[6])
}

func isIn(set []*tagClient, tc *tagClient) bool {
	for _, x := range set {
		if x == tc {
			return true
		}
	}
	return false
}

// The per-address limit holds for the host as a whole, and End gives an
// ended match's clients' places back: four clients of one IP address in
// match b fill Advanced.MaxClientsPerIP, so a fifth from it is refused
// (throttled) in match a too, and keeps retrying (the refusal is
// transient); once b ends, it gets in.
//
// Guards against: a per-match count (one address taking four slots in
// each of a hundred matches), and counts that End leaves behind (an
// address locked out after its match ended).
func TestHostPerIPAcrossMatches(t *testing.T) {
	r := newHostRig(t, 46, false)
	a := r.create("a", 1, 0)
	r.create("b", 2, 0)
	ip := netip.MustParseAddr("10.8.0.1")
	for i := range 4 {
		r.join(netip.AddrPortFrom(ip, uint16(40000+i)), "b", 2, client.Config{})
	}
	r.run(2 * time.Second)
	fifth := r.join(netip.AddrPortFrom(ip, 40004), "a", 1, client.Config{})
	r.run(r.now + 2*time.Second)
	throttled := serverhook.ServerStats(a.srv).Throttled
	if fifth.c.State() == client.Connected || throttled == 0 || r.h.Match("b").NumClients() != 4 {
		t.Fatalf("a fifth client of one address in another match: %v, %d throttled (b has %d)", fifth.c.State(), throttled, r.h.Match("b").NumClients())
	}
	if err := r.h.End(r.now, "b"); err != nil {
		t.Fatal(err)
	}
	r.run(r.now + 2*time.Second)
	if fifth.c.State() != client.Connected || r.h.NumClients() != 1 {
		t.Errorf("after b ended: %v %v; %d clients", fifth.c.State(), fifth.c.Err(), r.h.NumClients())
	}
	t.Logf("the fifth client throttled %d times while b held four", throttled)
}
