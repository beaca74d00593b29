package client_test

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

// A client of the guide game (package examples/guide) plays 5 s against a
// server over a simulated link (30 ms ± 10 ms, 10% loss) in virtual time,
// jumping from one thing to do to the next. It predicts its dot with the
// game's own RunFrame, and each snapshot overwrites the dot and
// re-predicts (DOOM III §2). It holds "right 2" for 2 s, then lets go,
// and its dot settles where the server's is. Every "apply S" leaves its
// common base equal to the server's (§4.2), which Config.VerifyBase checks.
func Example() {
	net := netsim.New(7)
	net.SetDefault(netsim.LinkConfig{Latency: 30 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.1})
	srvEP, _ := net.Listen(netip.MustParseAddrPort("10.0.0.1:27960"))
	cliEP, _ := net.Listen(netip.MustParseAddrPort("10.0.0.2:50000"))
	world := guide.New()
	srv, _ := server.New(server.Config{Advanced: server.Advanced{VerifyBase: true}}, world, "",
		server.SendFunc(func(to netip.AddrPort, p []byte) { srvEP.WriteTo(p, to) }))
	right := int8(2)
	input := client.InputFunc(func(client.Input) game.UserCmd { return game.UserCmd{Right: right} })
	cli, _ := client.New(client.Config{Name: "ranger"}, guide.New(), input,
		client.SendFunc(func(to netip.AddrPort, p []byte) { cliEP.WriteTo(p, to) }))
	cli.Connect(0, srvEP.Addr())
	buf := make([]byte, 2048)
	for now := time.Duration(0); now <= 5*time.Second; {
		net.AdvanceTo(now)
		for n, _, ok := cliEP.ReadFrom(buf); ok; n, _, ok = cliEP.ReadFrom(buf) {
			cli.HandlePacket(now, buf[:n])
		}
		if now >= 2*time.Second {
			right = 0
		}
		cli.Advance(now)
		for n, from, ok := srvEP.ReadFrom(buf); ok; n, from, ok = srvEP.ReadFrom(buf) {
			srv.HandlePacket(now, from, buf[:n])
		}
		srv.Advance(now)
		now = min(srv.Next(), cli.Next()) // the next frame or send of either core
		if t, ok := net.NextDelivery(); ok && t < now {
			now = t // or a packet's arrival
		}
	}
	mine, _, _ := cli.Entity(game.EntityNum(cli.ClientNum()))
	theirs, _ := world.Entity(game.EntityNum(cli.ClientNum()))
	st := cli.Stats()
	fmt.Printf("%v: %d snapshots, %d lost\ndot: %d, server's %d\n", st.State, st.SnapshotsReceived,
		st.SnapshotsLost, mine.(*guide.Dot).X, theirs.(*guide.Dot).X)
	// Output:
	// connected: 64 snapshots, 13 lost
	// dot: 68, server's 68
}
