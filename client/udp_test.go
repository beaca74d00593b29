package client_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/clienthook"
	"github.com/snapwire/snapwire/internal/testgame"
	"github.com/snapwire/snapwire/internal/testwait"
	"github.com/snapwire/snapwire/server"
)

// Real sockets on 127.0.0.1: a server runner and two client runners play
// for about a second, then the clients leave cleanly.
func TestUDPRunners(t *testing.T) {
	srv, err := server.Listen("127.0.0.1:0", server.Config{Advanced: server.Advanced{VerifyBase: true}}, testgame.New(), testgame.DefaultSettings)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*testwait.Hang)
	defer cancel()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); srv.Run(ctx) }()
	cctx, ccancel := context.WithCancel(ctx)
	var runners []*client.Runner
	errs := make(chan error, 2)
	for range 2 {
		r, err := client.Dial(srv.Addr().String(), client.Config{}, testgame.New(),
			client.InputFunc(func(in client.Input) game.UserCmd { return game.UserCmd{Forward: 40} }))
		if err != nil {
			t.Fatal(err)
		}
		runners = append(runners, r)
		wg.Add(1)
		go func() { defer wg.Done(); errs <- r.Run(cctx) }()
	}
	for _, r := range runners {
		var st clienthook.Counters
		if !testwait.Until(testwait.Hang, func() bool {
			r.Do(ctx, func(now time.Duration, c *client.Client) { st = clienthook.CountersOf(c) })
			return st.SnapshotsReceived >= 20
		}) {
			t.Fatalf("client stuck: %+v", st)
		}
		if st.BaseMismatches != 0 || st.DecodeErrors != 0 {
			t.Errorf("stats %+v", st)
		}
	}
	n := 0
	srv.Do(ctx, func(now time.Duration, s *server.Server) { n = s.NumClients() })
	if n != 2 {
		t.Errorf("%d clients on the server", n)
	}
	ccancel()
	for range 2 {
		if err := <-errs; err != nil {
			t.Errorf("client run: %v", err)
		}
	}
	testwait.Until(testwait.Hang, func() bool {
		srv.Do(ctx, func(now time.Duration, s *server.Server) { n = s.NumClients() })
		return n == 0
	})
	if n != 0 {
		t.Errorf("%d clients left after clean disconnects", n)
	}
	cancel()
	wg.Wait()
}
