package client_test

import (
	"fmt"
	"net/netip"
	"strings"
	"time"

	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/examples/guide"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/netsim"
	"github.com/snapwire/snapwire/server"
)

// Say is a chat line, a game message (game.Message).
type Say struct{ Text string }

func (m *Say) WriteMessage(w *bitmsg.Writer) { w.WriteString(m.Text, 100) }
func (m *Say) ReadMessage(r *bitmsg.Reader)  { m.Text = r.ReadString(100) }

// A client sends chat lines to the server, which relays each to every
// client with the sender's number, over a link that loses 20% of the
// packets each way: the lines arrive once each, in order. Both ends
// register the message type the same way before they start.
func ExampleClient_SendMessage() {
	net := netsim.New(3)
	net.SetDefault(netsim.LinkConfig{Latency: 40 * time.Millisecond, Loss: 0.2})
	srvEP, _ := net.Listen(netip.MustParseAddrPort("10.0.0.1:27960"))
	cliEP, _ := net.Listen(netip.MustParseAddrPort("10.0.0.2:50000"))
	newWorld := func() *guide.Game {
		w := guide.New()
		w.Registry().RegisterMessage("say", func() game.Message { return new(Say) })
		return w
	}
	var srv *server.Server
	scfg := server.Config{OnMessage: func(from game.ClientNum, m game.Message) {
		if say, ok := m.(*Say); ok {
			srv.BroadcastMessage(&Say{Text: fmt.Sprintf("%d: %s", from, say.Text)})
		}
	}}
	srv, _ = server.New(scfg, newWorld(), "", server.SendFunc(func(to netip.AddrPort, p []byte) { srvEP.WriteTo(p, to) }))
	var heard []string
	ccfg := client.Config{Name: "ranger", OnMessage: func(m game.Message) {
		heard = append(heard, m.(*Say).Text) // copy what you keep: m is reused
	}}
	input := client.InputFunc(func(client.Input) game.UserCmd { return game.UserCmd{} })
	cli, _ := client.New(ccfg, newWorld(), input, client.SendFunc(func(to netip.AddrPort, p []byte) { cliEP.WriteTo(p, to) }))
	cli.Connect(0, srvEP.Addr())
	nodes := []netsim.Node{
		{Endpoint: srvEP, Receive: srv.HandlePacket, Advance: srv.Advance, Next: srv.Next},
		{Endpoint: cliEP, Receive: func(now time.Duration, _ netip.AddrPort, p []byte) { cli.HandlePacket(now, p) },
			Advance: cli.Advance, Next: cli.Next},
	}
	buf := make([]byte, 2048)
	now := net.Run(0, time.Second, nodes, buf)
	for _, line := range []string{"hello", "ready", "gg"} {
		if err := cli.SendMessage(&Say{Text: line}); err != nil {
			fmt.Println(err)
		}
		now = net.Run(now, now+50*time.Millisecond, nodes, buf)
	}
	net.Run(now, now+2*time.Second, nodes, buf)
	fmt.Println(strings.Join(heard, " | "))
	// Output:
	// 0: hello | 0: ready | 0: gg
}
