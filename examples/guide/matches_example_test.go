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

// Many matches in one process on one UDP socket: a Host with the matches
// "red" and "blue", each its own game. The backend issues each player a
// token naming its match; three players join red, two blue. Each sees
// the dots of its own match only.
func Example_matches() {
	const protocol = 0x6775696465
	key, err := token.NewKey()
	if err != nil {
		fmt.Println(err)
		return
	}
	// Every player here comes from 127.0.0.1: the host's limit of
	// clients per IP address, which holds across its matches, must let
	// five in.
	hcfg := server.Config{TokenKey: &key, ProtocolID: protocol, Advanced: server.Advanced{MaxClientsPerIP: 8}}
	host, err := server.ListenHost("127.0.0.1:0", hcfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	go host.Run(ctx)
	host.DoHost(ctx, func(now time.Duration, h *server.Host) {
		for _, name := range []string{"red", "blue"} {
			if _, err := h.Create(now, name, server.Config{MaxClients: 8}, guide.New(), ""); err != nil {
				fmt.Println(err)
			}
		}
	})

	matchOf := []string{"red", "red", "red", "blue", "blue"}
	stand := client.InputFunc(func(client.Input) game.UserCmd { return game.UserCmd{} })
	var players []*client.Runner
	for i, match := range matchOf {
		tok, err := token.Issue(key, token.Params{ProtocolID: protocol, ClientID: uint64(i), Match: match,
			Servers: []netip.AddrPort{host.Addr()}}, time.Now())
		if err != nil {
			fmt.Println(err)
			return
		}
		r, err := client.Dial(host.Addr().String(), client.Config{Token: tok}, guide.New(), stand)
		if err != nil {
			fmt.Println(err)
			return
		}
		go r.Run(ctx)
		players = append(players, r)
	}
	// Wait until every player sees as many dots as its match has players.
	for i, r := range players {
		want := 0
		for _, m := range matchOf {
			if m == matchOf[i] {
				want++
			}
		}
		dots := 0
		for ; dots != want && ctx.Err() == nil; time.Sleep(time.Second / 60) {
			r.Do(ctx, func(_ time.Duration, c *client.Client) {
				dots = 0
				for range c.Visible() {
					dots++
				}
			})
		}
		fmt.Printf("player %d in %s sees %d dots\n", i, matchOf[i], dots)
	}
	host.DoHost(ctx, func(now time.Duration, h *server.Host) {
		for _, name := range h.Matches() {
			fmt.Printf("match %s: %d players\n", name, h.Match(name).NumClients())
		}
	})
	// Output:
	// player 0 in red sees 3 dots
	// player 1 in red sees 3 dots
	// player 2 in red sees 3 dots
	// player 3 in blue sees 2 dots
	// player 4 in blue sees 2 dots
	// match red: 3 players
	// match blue: 2 players
}
