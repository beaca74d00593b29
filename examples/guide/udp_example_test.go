package guide_test

import (
	"context"
	"fmt"
	"net/netip"
	"time"

	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/examples/guide"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/server"
	"github.com/snapwire/snapwire/token"
)

// The guide's game over real UDP on 127.0.0.1 (port 0: any free port),
// secure: the server holds a key and accepts only clients with a connect
// token sealed with it, which a backend issues (token.Issue); every packet
// is then authenticated and encrypted. Each Runner owns its core on its
// Run goroutine; this goroutine reads them through Runner.Do. The game is
// NewChat's, with its messages (messages.go). The second player joins
// once the first is in and walks up into it; the first hears the server
// announce the tag.
func Example_udp() {
	const protocol = 0x6775696465 // the game's protocol id: "guide"
	key, err := token.NewKey()    // shared by the backend and the servers, never sent to clients
	if err != nil {
		fmt.Println(err)
		return
	}
	world := guide.NewChat()
	cfg := server.Config{TokenKey: &key, ProtocolID: protocol, OnMessage: world.Relay}
	srv, err := server.Listen("127.0.0.1:0", cfg, world, "")
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	go srv.Run(ctx)
	srv.Do(ctx, func(_ time.Duration, s *server.Server) { world.Announce = s.BroadcastMessage })

	// Client n walks up at n units a frame, as in the netsim program.
	walk := client.InputFunc(func(in client.Input) game.UserCmd { return game.UserCmd{Forward: int8(in.Client)} })
	heard := make(chan guide.Say, 16)
	var players []*client.Runner
	for i := range 2 {
		// The backend issues each player a token for this server.
		tok, err := token.Issue(key, token.Params{ProtocolID: protocol, ClientID: uint64(i), Servers: []netip.AddrPort{srv.Addr()}}, time.Now())
		if err != nil {
			fmt.Println(err)
			return
		}
		ccfg := client.Config{Name: fmt.Sprint("player", i), Token: tok, OnMessage: func(m game.Message) {
			if i == 0 {
				heard <- *m.(*guide.Say) // a copy: m is reused
			}
		}}
		r, err := client.Dial(srv.Addr().String(), ccfg, guide.NewChat(), walk)
		if err != nil {
			fmt.Println(err)
			return
		}
		go r.Run(ctx)
		players = append(players, r)
		for connected := false; !connected; time.Sleep(time.Second / 60) {
			if !r.Do(ctx, func(_ time.Duration, c *client.Client) { connected = c.State() == client.Connected }) {
				fmt.Println("player", i, "did not connect")
				return
			}
		}
	}
	select {
	case say := <-heard:
		fmt.Printf("player0 hears: client %d is %s\n", say.From, say.Text)
	case <-ctx.Done():
		fmt.Println("no tag")
		return
	}

	// What a renderer or a status page does: copy the state out on the
	// client's goroutine, use it after Do returns.
	var dots []guide.Dot
	players[0].Do(ctx, func(_ time.Duration, c *client.Client) {
		for n := range c.Visible() {
			if e, _, _ := c.Entity(n); e != nil {
				dots = append(dots, *e.(*guide.Dot))
			}
		}
	})
	for _, d := range dots {
		fmt.Printf("player0 sees client %d's dot, it: %v\n", d.Client, d.It)
	}
	// Output:
	// player0 hears: client 1 is it
	// player0 sees client 0's dot, it: false
	// player0 sees client 1's dot, it: true
}
