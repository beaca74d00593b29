package guide_test

import (
	"net/netip"
	"testing"
	"time"

	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/examples/guide"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/netsim"
	"github.com/snapwire/snapwire/server"
)

// The guide's program: a server and a client of the guide game over a
// simulated link (50 ms each way, 5% loss), 5 s of virtual time. The
// client holds "forward 3"; its predicted dot and the server's agree.
func TestGuide(t *testing.T) {
	net := netsim.New(1)
	net.SetDefault(netsim.LinkConfig{Latency: 50 * time.Millisecond, Loss: 0.05})
	srvEP, _ := net.Listen(netip.MustParseAddrPort("10.0.0.1:27960"))
	cliEP, _ := net.Listen(netip.MustParseAddrPort("10.0.0.2:50000"))

	srvGame := guide.New()
	srv, err := server.New(server.Config{}, srvGame, "", server.SendFunc(func(to netip.AddrPort, p []byte) { srvEP.WriteTo(p, to) }))
	if err != nil {
		t.Fatal(err)
	}
	cliGame := guide.New()
	cli, err := client.New(client.Config{}, cliGame,
		client.InputFunc(func(in client.Input) game.UserCmd { return game.UserCmd{Forward: 3} }),
		client.SendFunc(func(to netip.AddrPort, p []byte) { cliEP.WriteTo(p, to) }))
	if err != nil {
		t.Fatal(err)
	}
	cli.Connect(0, srvEP.Addr())

	buf := make([]byte, 2048)
	for now := time.Duration(0); now < 5*time.Second; now += time.Millisecond {
		net.AdvanceTo(now)
		for n, from, ok := srvEP.ReadFrom(buf); ok; n, from, ok = srvEP.ReadFrom(buf) {
			srv.HandlePacket(now, from, buf[:n])
		}
		for n, _, ok := cliEP.ReadFrom(buf); ok; n, _, ok = cliEP.ReadFrom(buf) {
			cli.HandlePacket(now, buf[:n])
		}
		srv.Advance(now)
		cli.Advance(now)
	}

	if cli.State() != client.Connected {
		t.Fatalf("client %v: %v", cli.State(), cli.Err())
	}
	se, _ := srvGame.Entity(0)
	ce, _, _ := cli.Entity(0)
	serverX, clientX := se.(*guide.Dot).X, ce.(*guide.Dot).X
	// 5 s at 60 frames/s, less the handshake, 3 units a frame; the client
	// predicts ahead of the server by its lead (a few frames).
	if serverX < 3*250 || clientX < serverX || clientX-serverX > 3*20 {
		t.Errorf("server's dot at %d, client's predicted dot at %d", serverX, clientX)
	}
	t.Logf("server's dot at %d, client's at %d (ahead by its lead)", serverX, clientX)
}
