package server_test

import (
	"fmt"
	"net/netip"
	"time"

	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/examples/guide"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/netsim"
	"github.com/snapwire/snapwire/server"
)

// A server of the guide game (package examples/guide) with two players
// over a simulated 50 ms link, for 3 s of virtual time. The caller owns
// the clock: it hands the server core its packets and tells it the time,
// and the core runs 60 frames a second, never waiting for input (DOOM III
// §2), and sends each client's snapshots through its Sender. A command
// that reaches the server after its frame ran is counted late and not
// run, so each dot has moved by exactly its player's commands in time.
func Example() {
	net := netsim.New(1)
	net.SetDefault(netsim.LinkConfig{Latency: 50 * time.Millisecond})
	srvEP, _ := net.Listen(netip.MustParseAddrPort("10.0.0.1:27960"))
	world := guide.New()
	srv, _ := server.New(server.Config{}, world, "",
		server.SendFunc(func(to netip.AddrPort, p []byte) { srvEP.WriteTo(p, to) }))
	var eps []*netsim.Endpoint
	var players []*client.Client
	for i, right := range []int8{3, -1} {
		ep, _ := net.Listen(netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 0, 0, byte(2 + i)}), 50000))
		hold := client.InputFunc(func(client.Input) game.UserCmd { return game.UserCmd{Right: right} })
		c, _ := client.New(client.Config{Name: fmt.Sprint("player", i)}, guide.New(), hold,
			client.SendFunc(func(to netip.AddrPort, p []byte) { ep.WriteTo(p, to) }))
		c.Connect(0, srvEP.Addr())
		eps, players = append(eps, ep), append(players, c)
	}
	buf := make([]byte, 2048)
	for now := time.Duration(0); now <= 3*time.Second; now += time.Millisecond {
		net.AdvanceTo(now)
		for n, from, ok := srvEP.ReadFrom(buf); ok; n, from, ok = srvEP.ReadFrom(buf) {
			srv.HandlePacket(now, from, buf[:n])
		}
		srv.Advance(now)
		for i, c := range players {
			for n, _, ok := eps[i].ReadFrom(buf); ok; n, _, ok = eps[i].ReadFrom(buf) {
				c.HandlePacket(now, buf[:n])
			}
			c.Advance(now)
		}
	}
	fmt.Println("frames:", srv.Frame())
	for _, c := range srv.AppendClients(nil) {
		dot, _ := world.Entity(game.EntityNum(c.Num))
		fmt.Printf("%s: %d snapshots, commands %d late %d duplicated, dot at %d\n",
			c.Name, c.SnapshotsSent, c.LateCmds, c.Duplicated, dot.(*guide.Dot).X)
	}
	// Output:
	// frames: 180
	// player0: 58 snapshots, commands 36 late 0 duplicated, dot at 402
	// player1: 58 snapshots, commands 36 late 0 duplicated, dot at -134
}
