package main

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/examples/tanks"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/serverhook"
	"github.com/snapwire/snapwire/internal/statecheck"
	"github.com/snapwire/snapwire/server"
)

// serveRecordFrames is how many frames of the server's states -serve
// keeps for the state check made when the window closes: 273 s at 60 Hz
// (snapshots of older frames count as unchecked).
const serveRecordFrames = 1 << 14

// served is -serve's tanks server on a UDP socket (insecure: no connect
// tokens) with its bots, which join it over UDP as any other program
// does (-connect); the player's window joins it with play.Dial. It
// records its states after every frame for the player's state check.
type served struct {
	r    *server.Runner
	g    *tanks.Game
	rec  *statecheck.Recorder
	stop context.CancelFunc
	done chan error
	bots sync.WaitGroup
}

// serve starts the server on addr and bots bots.
func serve(addr string, bots int) (*served, error) {
	sv := &served{g: tanks.New(), rec: statecheck.NewRecorder(serveRecordFrames), done: make(chan error, 1)}
	cfg := serverhook.With(server.Config{OnMessage: sv.g.ServerMessage, MaxClients: tanks.MaxPlayers,
		Advanced: server.Advanced{VerifyBase: true}},
		serverhook.Hooks{OnFrame: func(f game.Frame) { sv.rec.Record(f, sv.g) }})
	var err error
	if sv.r, err = server.Listen(addr, cfg, sv.g, ""); err != nil {
		return nil, err
	}
	var ctx context.Context
	ctx, sv.stop = context.WithCancel(context.Background())
	go func() { sv.done <- sv.r.Run(ctx) }()
	sv.r.Do(ctx, func(_ time.Duration, s *server.Server) { sv.g.Announce = s.BroadcastMessage })
	for i := range bots {
		bg := tanks.New()
		br, err := client.Dial(sv.r.Addr().String(), client.Config{Name: fmt.Sprintf("bot%d", i)}, bg, client.InputFunc(bg.BotCommand))
		if err != nil {
			sv.close()
			return nil, err
		}
		sv.bots.Add(1)
		go func() {
			defer sv.bots.Done()
			br.Run(ctx)
		}()
	}
	return sv, nil
}

// check compares the player's samples with the server's record, on the
// server's goroutine.
func (sv *served) check(c *checker) {
	sv.r.Do(context.Background(), func(time.Duration, *server.Server) {
		for _, s := range c.samples {
			if err := c.counts.Add(s, sv.rec.Check(s)); err != nil && c.first == nil {
				c.first = err
			}
		}
	})
	c.samples = nil
}

// close stops the bots and the server.
func (sv *served) close() error {
	sv.stop()
	sv.bots.Wait()
	return <-sv.done
}
