package guide

import (
	"net/netip"
	"testing"
	"time"

	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/netsim"
	"github.com/snapwire/snapwire/server"
)

// The guide's program: a server and two clients of the tag game over a
// simulated link (50 ms each way, 5% loss), 5 s of virtual time that run
// in a few milliseconds. Both clients play Bot: whoever is it walks up
// (once not alone). The first to join is it and tags the second, 16
// above; the second taunts. Both clients hear the taunt and the tag once each, and
// predict the server's dots (ahead of them by their lead, a few frames).
func TestGuide(t *testing.T) {
	net, world, heard := netsim.New(1), New(), map[Say]int{}
	net.SetDefault(netsim.LinkConfig{Latency: 50 * time.Millisecond, Loss: 0.05})
	at, _ := net.Listen(netip.MustParseAddrPort("10.0.0.1:27960"))
	srv, _ := server.New(server.Config{OnMessage: world.Relay}, world, "", server.SendFunc(func(to netip.AddrPort, p []byte) { at.WriteTo(p, to) }))
	world.Announce = srv.BroadcastMessage
	nodes := []netsim.Node{{Endpoint: at, Receive: srv.HandlePacket, Advance: srv.Advance, Next: srv.Next}}
	clients := make([]*client.Client, 2)
	for i := range clients {
		ep, _ := net.Listen(netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 0, 0, byte(2 + i)}), 50000))
		g := New()
		c, _ := client.New(client.Config{OnMessage: func(m game.Message) { heard[*m.(*Say)]++ }}, g, client.InputFunc(g.Bot), client.SendFunc(func(to netip.AddrPort, p []byte) { ep.WriteTo(p, to) }))
		c.Connect(0, at.Addr())
		clients[i] = c
		nodes = append(nodes, netsim.Node{Endpoint: ep, Receive: func(now time.Duration, _ netip.AddrPort, p []byte) { c.HandlePacket(now, p) }, Advance: c.Advance, Next: c.Next})
	}
	now := net.Run(0, 2*time.Second, nodes, make([]byte, 2048))
	clients[1].SendMessage(&Say{Text: "too slow"})
	net.Run(now, 5*time.Second, nodes, make([]byte, 2048))
	for _, c := range clients {
		n, _ := world.PlayerEntity(c.ClientNum())
		mine, _, _ := c.Entity(n)
		theirs, _ := world.Entity(n)
		if d, s := mine.(*Dot), theirs.(*Dot); c.Err() != nil || d.It != (c.ClientNum() == 1) || d.X != s.X || max(d.Y-s.Y, s.Y-d.Y) > 12 {
			t.Errorf("client %d: %v, predicted %+v, server's %+v", c.ClientNum(), c.Err(), d, s)
		}
	}
	if heard[Say{1, "too slow"}] != 2 || heard[Say{1, "it"}] != 2 {
		t.Errorf("lines heard: %v", heard)
	}
}
