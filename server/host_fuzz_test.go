package server_test

import (
	"net/netip"
	"testing"
	"time"

	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/netchan"
	"github.com/snapwire/snapwire/internal/serverhook"
	"github.com/snapwire/snapwire/internal/session"
	"github.com/snapwire/snapwire/internal/testgame"
	"github.com/snapwire/snapwire/server"
)

// hostFuzz is a Host of three matches (m0, m1, m2) with one client core
// playing in m1, the two pumped by hand in virtual time: the fuzz
// target's setup, the same every time (deterministic hooks).
type hostFuzz struct {
	h        *server.Host
	c        *client.Client
	now      time.Duration
	toClient [][]byte
	toServer [][]byte
	sent     [][]byte // everything the host sent, to any address
}

var (
	fuzzServer = netip.MustParseAddrPort("10.0.0.1:27960")
	fuzzClient = netip.MustParseAddrPort("10.0.0.2:40000")
	fuzzOther  = netip.MustParseAddrPort("10.0.0.3:40000")
)

func newHostFuzz(tb testing.TB) *hostFuzz {
	tb.Helper()
	f := &hostFuzz{}
	cfg := server.Config{}
	serverhook.Set(&cfg, serverhook.Hooks{Seed: 61, Deterministic: true})
	var err error
	f.h, err = server.NewHost(cfg, server.SendFunc(func(to netip.AddrPort, p []byte) {
		f.sent = append(f.sent, append([]byte(nil), p...))
		if to == fuzzClient {
			f.toClient = append(f.toClient, append([]byte(nil), p...))
		}
	}))
	if err != nil {
		tb.Fatal(err)
	}
	for _, name := range []string{"m0", "m1", "m2"} {
		if _, err := f.h.Create(0, name, server.Config{}, testgame.New(), testgame.DefaultSettings); err != nil {
			tb.Fatal(err)
		}
	}
	f.c, err = client.New(client.Config{Match: "m1"}, testgame.New(), client.InputFunc(func(in client.Input) game.UserCmd { return game.UserCmd{Forward: 10} }),
		client.SendFunc(func(to netip.AddrPort, p []byte) { f.toServer = append(f.toServer, append([]byte(nil), p...)) }))
	if err != nil {
		tb.Fatal(err)
	}
	f.c.Connect(0, fuzzServer)
	for f.c.State() != client.Connected && f.now < 500*time.Millisecond {
		f.pump(f.now + 5*time.Millisecond)
	}
	if f.c.State() != client.Connected {
		tb.Fatalf("client: %v %v", f.c.State(), f.c.Err())
	}
	return f
}

// pump runs the host and the client in 5 ms steps until until,
// delivering each one's packets to the other; it returns the client's
// packets it delivered.
func (f *hostFuzz) pump(until time.Duration) [][]byte {
	var all [][]byte
	for f.now < until {
		f.now += 5 * time.Millisecond
		out := f.toServer
		f.toServer = nil
		for _, p := range out {
			f.h.HandlePacket(f.now, fuzzClient, p)
		}
		all = append(all, out...)
		in := f.toClient
		f.toClient = nil
		for _, p := range in {
			f.c.HandlePacket(f.now, p)
		}
		f.h.Advance(f.now)
		f.c.Advance(f.now)
	}
	return all
}

// FuzzHostHandlePacket hands a Host of three matches (one with a
// client) any datagram, from its client's address and from another: the
// host never panics, sends nothing larger than a datagram, keeps its
// matches, and admits at most one client more (a datagram that is a
// valid connect). Seeds: a challenge request; connects naming a match,
// another and none the host has; the client's own channel packets; a
// channel header with its connection id and with another.
func FuzzHostHandlePacket(f *testing.F) {
	oobSeed := func(p []byte) []byte { return netchan.AppendConnectionless(nil, p) }
	seed := newHostFuzz(f)
	f.Add(oobSeed(session.GetChallenge{Nonce: 1}.Append(nil)))
	reg := testgame.New().Registry().Hash()
	seed.sent = nil
	seed.h.HandlePacket(seed.now, fuzzOther, oobSeed(session.GetChallenge{Nonce: 2}.Append(nil)))
	if len(seed.sent) == 1 {
		if ch, err := session.ParseChallenge(seed.sent[0][4:]); err == nil {
			for _, match := range []string{"m0", "m2", "nowhere", ""} {
				f.Add(oobSeed(session.Connect{Nonce: 3, Cookie: ch.Cookie, Version: session.Version, RegistryHash: reg, Match: match}.Append(nil)))
			}
		}
	}
	for _, p := range seed.pump(seed.now + 50*time.Millisecond) {
		f.Add(p)
	}
	if cs := serverhook.Clients(seed.h.Match("m1")); len(cs) == 1 {
		id := cs[0].ConnID
		f.Add([]byte{0, byte(session.TypeIdle), byte(id), byte(id >> 8), 0xFF, 0x7F, 0, 0})
		f.Add([]byte{0, byte(session.TypeIdle), byte(id + 1), byte((id + 1) >> 8), 1, 0, 0, 0})
	}
	f.Fuzz(func(t *testing.T, pkt []byte) {
		r := newHostFuzz(t)
		r.sent = nil
		r.h.HandlePacket(r.now, fuzzClient, pkt)
		r.h.HandlePacket(r.now, fuzzOther, pkt)
		r.pump(r.now + 50*time.Millisecond)
		for _, p := range r.sent {
			if len(p) > 1500 {
				t.Fatalf("sent %d bytes", len(p))
			}
		}
		if got := r.h.Matches(); len(got) != 3 || r.h.NumClients() > 2 {
			t.Fatalf("matches %q, %d clients", got, r.h.NumClients())
		}
	})
}
