package tanks_test

import (
	"fmt"
	"net/netip"
	"testing"
	"time"

	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/examples/tanks"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/netsim"
	"github.com/snapwire/snapwire/server"
)

// driver is a bot's input: full ahead, turning one way then the other,
// firing whenever it can.
func driver(seed int) client.InputFunc {
	return func(f game.Frame) game.UserCmd {
		right := int8(60)
		if (int(f)/120+seed)%2 == 0 {
			right = -60
		}
		return game.UserCmd{Forward: 127, Right: right, Buttons: tanks.ButtonFire}
	}
}

// Three bots over a simulated link (60 ms each way, 5% loss) for 30 s of
// virtual time: they drive, fire, hit crates and each other.
func TestTanksMatch(t *testing.T) {
	net := netsim.New(7)
	net.SetDefault(netsim.LinkConfig{Latency: 60 * time.Millisecond, Loss: 0.05})
	srvEP, _ := net.Listen(netip.MustParseAddrPort("10.0.0.1:27960"))
	srvGame := tanks.New()
	srv, err := server.New(server.Config{}, srvGame, "", server.SendFunc(func(to netip.AddrPort, p []byte) { srvEP.WriteTo(p, to) }))
	if err != nil {
		t.Fatal(err)
	}
	type bot struct {
		ep  *netsim.Endpoint
		cli *client.Client
		g   *tanks.Game
	}
	var bots []bot
	for i := range 3 {
		ep, _ := net.Listen(netip.MustParseAddrPort(fmt.Sprintf("10.0.0.%d:50000", i+2)))
		g := tanks.New()
		var cli *client.Client
		input := client.InputFunc(func(f game.Frame) game.UserCmd {
			if i == 0 {
				return driver(i)(f)
			}
			return g.BotCommand(cli.ClientNum(), f)
		})
		cli, err = client.New(client.Config{}, g, input, client.SendFunc(func(to netip.AddrPort, p []byte) { ep.WriteTo(p, to) }))
		if err != nil {
			t.Fatal(err)
		}
		cli.Connect(0, srvEP.Addr())
		bots = append(bots, bot{ep, cli, g})
	}
	buf := make([]byte, 2048)
	for now := time.Duration(0); now < 30*time.Second; now += time.Millisecond {
		net.AdvanceTo(now)
		for n, from, ok := srvEP.ReadFrom(buf); ok; n, from, ok = srvEP.ReadFrom(buf) {
			srv.HandlePacket(now, from, buf[:n])
		}
		for _, b := range bots {
			for n, _, ok := b.ep.ReadFrom(buf); ok; n, _, ok = b.ep.ReadFrom(buf) {
				b.cli.HandlePacket(now, buf[:n])
			}
		}
		srv.Advance(now)
		for _, b := range bots {
			b.cli.Advance(now)
		}
	}
	shells, score := 0, int32(0)
	for _, e := range srvGame.Entities() {
		switch e := e.(type) {
		case *tanks.Shell:
			shells++
		case *tanks.Tank:
			score += e.Score
		}
	}
	for i, b := range bots {
		st := b.cli.Stats()
		if st.State != client.Connected {
			t.Fatalf("bot %d: %v: %v", i, st.State, b.cli.Err())
		}
		t.Logf("bot %d: %d snapshots, self error %+v", i, st.SnapshotsReceived, st.Self)
	}
	t.Logf("server: %d shells in flight, %d kills", shells, score)
}
