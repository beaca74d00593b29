package client_test

import (
	"context"
	"fmt"
	"time"

	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/examples/guide"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/server"
)

// drawn is what a renderer copies out of the client for one picture.
type drawn struct {
	state     client.State
	snapshots uint64
	dots      []int32 // the visible dots' positions
	mine      int32   // the local player's dot
}

// A renderer on its own goroutine reads a running client through
// Runner.Do, over real UDP on 127.0.0.1: each picture's closure runs on
// the goroutine that owns the client (between its frames and packets) and
// copies what the picture shows (positions, statistics) into the
// renderer's own buffer, which is drawn after Do returns. The input
// callback runs on the owner too and may read the world directly; here it
// holds "right 2", so the player's dot moves ahead.
func ExampleRunner_Do() {
	srv, err := server.Listen("127.0.0.1:0", server.Config{}, guide.New(), "")
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go srv.Run(ctx)
	right := client.InputFunc(func(in client.Input) game.UserCmd { return game.UserCmd{Right: 2} })
	r, err := client.Dial(srv.Addr().String(), client.Config{Name: "viewer"}, guide.New(), right)
	if err != nil {
		fmt.Println(err)
		return
	}
	go r.Run(ctx)

	var pic drawn
	copyOut := func(now time.Duration, c *client.Client) {
		st := c.Stats()
		pic.state, pic.snapshots, pic.dots = st.State, st.SnapshotsReceived, pic.dots[:0]
		for n := range c.Visible() {
			if e, _, _ := c.Entity(n); e != nil {
				pic.dots = append(pic.dots, e.(*guide.Dot).X)
			}
		}
		if e, _, _ := c.Entity(game.EntityNum(c.ClientNum())); e != nil {
			pic.mine = e.(*guide.Dot).X
		}
	}
	tick := time.NewTicker(time.Second / 60) // the renderer's frame rate
	defer tick.Stop()
	for end := time.Now().Add(time.Minute); time.Now().Before(end); <-tick.C {
		if !r.Do(ctx, copyOut) {
			break // Run has returned
		}
		// Draw pic here: it is the renderer's own copy.
		if pic.snapshots >= 20 && pic.mine > 0 {
			break
		}
	}
	fmt.Printf("%v, %d dot visible, mine moved ahead: %v\n", pic.state, len(pic.dots), pic.mine > 0)
	// Output:
	// connected, 1 dot visible, mine moved ahead: true
}
