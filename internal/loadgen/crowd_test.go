package loadgen

import (
	"net/netip"
	"testing"
	"time"

	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/crowdgame"
	"github.com/snapwire/snapwire/internal/session"
	"github.com/snapwire/snapwire/netsim"
	"github.com/snapwire/snapwire/server"
)

// Light clients play the crowd game (`snapwire serve --game crowd`, `snapwire
// load --game crowd`) in virtual time, 300 of them so that client numbers
// pass 255: each needs only the crowd's registry and map base (Bases), no
// other code of the game, and every one connects, receives its 20
// snapshots a second with its common base equal to the server's, and
// commands frames before the server runs them (checkClients).
func TestLightClientsCrowd(t *testing.T) {
	const n = 300
	s := &lightSim{t: t, net: netsim.New(6), buf: make([]byte, 65536)}
	s.net.SetDefault(netsim.LinkConfig{Latency: 20 * time.Millisecond, Jitter: 2 * time.Millisecond})
	sep, err := s.net.Listen(serverAddr)
	if err != nil {
		t.Fatal(err)
	}
	cfg := server.Config{MaxClients: n, Advanced: server.Advanced{MaxClientsPerIP: 1, VerifyBase: true}}
	s.srv, err = server.New(cfg, crowdgame.New(), crowdgame.Settings, server.SendFunc(func(to netip.AddrPort, p []byte) { sep.WriteTo(p, to) }))
	if err != nil {
		t.Fatal(err)
	}
	s.nodes = append(s.nodes, netsim.Node{Endpoint: sep, Receive: s.srv.HandlePacket, Advance: s.srv.Advance, Next: s.srv.Next})
	b := NewBases(func() game.Game { return crowdgame.New() })
	for i := range n {
		// One address each (lightAddr holds 255).
		ep, err := s.net.Listen(netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 1, byte(i / 200), byte(i%200 + 1)}), 40000))
		if err != nil {
			t.Fatal(err)
		}
		c, err := New(Config{Name: "crowd", Seed: uint32(i)}, b, session.SendFunc(func(to netip.AddrPort, p []byte) { ep.WriteTo(p, to) }))
		if err != nil {
			t.Fatal(err)
		}
		c.Connect(s.now, serverAddr)
		s.cls = append(s.cls, c)
		s.nodes = append(s.nodes, netsim.Node{
			Endpoint: ep, Receive: func(now time.Duration, _ netip.AddrPort, p []byte) { c.HandlePacket(now, p) },
			Advance: c.Advance, Next: c.Next,
		})
	}
	s.run(4 * time.Second)
	checkClients(t, s, 0)
	high := 0
	for _, c := range s.cls {
		if c.ClientNum() > 255 {
			high++
		}
	}
	if high != n-256 {
		t.Errorf("%d clients numbered above 255, want %d", high, n-256)
	}
}
