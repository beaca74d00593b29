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
	return func(in client.Input) game.UserCmd {
		right := int8(60)
		if (int(in.Frame)/120+seed)%2 == 0 {
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
	srv, err := server.New(server.Config{OnMessage: srvGame.ServerMessage}, srvGame, "", server.SendFunc(func(to netip.AddrPort, p []byte) { srvEP.WriteTo(p, to) }))
	if err != nil {
		t.Fatal(err)
	}
	srvGame.Announce = srv.BroadcastMessage
	type bot struct {
		ep  *netsim.Endpoint
		cli *client.Client
		g   *tanks.Game
	}
	var bots []bot
	var heard [3]struct {
		chat  []string
		kills int
	}
	for i := range 3 {
		ep, _ := net.Listen(netip.MustParseAddrPort(fmt.Sprintf("10.0.0.%d:50000", i+2)))
		g := tanks.New()
		input := client.InputFunc(g.BotCommand)
		if i == 0 {
			input = driver(i)
		}
		heard := &heard[i]
		onMessage := func(m game.Message) {
			switch m := m.(type) {
			case *tanks.ChatLine:
				heard.chat = append(heard.chat, fmt.Sprintf("%d: %s", m.From, m.Text))
			case *tanks.KillFeed:
				heard.kills++
			}
			g.ClientMessage(m)
		}
		cli, err := client.New(client.Config{OnMessage: onMessage}, g, input, client.SendFunc(func(to netip.AddrPort, p []byte) { ep.WriteTo(p, to) }))
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
		if now == 10*time.Second {
			if err := bots[1].cli.SendMessage(&tanks.Chat{Text: "good game"}); err != nil {
				t.Fatal(err)
			}
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
		t.Logf("bot %d: %d snapshots, self error %+v, feed %q", i, st.SnapshotsReceived, st.Self, b.g.Feed)
	}
	t.Logf("server: %d shells in flight, %d kills", shells, score)
	if score == 0 {
		t.Error("no tank was destroyed: the bots should hunt each other")
	}
	// Every client heard the chat line once, and every kill (messages are
	// reliable and in order, over the 5% loss).
	want := fmt.Sprintf("%d: good game", bots[1].cli.ClientNum())
	for i, h := range heard {
		if len(h.chat) != 1 || h.chat[0] != want {
			t.Errorf("bot %d heard chat %q, want [%q]", i, h.chat, want)
		}
		if h.kills != int(score) {
			t.Errorf("bot %d heard %d kills, the server counted %d", i, h.kills, score)
		}
	}
}
