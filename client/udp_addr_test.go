package client_test

import (
	"context"
	"fmt"
	"strings"
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

// TestUDPRunnersAddressForms: a server listening on IPv6 loopback or on a
// host name, and a client dialing it by the address the server reports, by
// a bracketed IPv6 literal or by name, play: the client's socket is bound
// in the server's address family (a client that bound 127.0.0.1 for any
// loopback server never reached one on ::1).
func TestUDPRunnersAddressForms(t *testing.T) {
	for _, c := range []struct {
		name, listen string
		dial         func(port uint16) string
	}{
		{"ipv6 literal", "[::1]:0", func(p uint16) string { return fmt.Sprintf("[::1]:%d", p) }},
		{"ipv4 by name", "127.0.0.1:0", func(p uint16) string { return fmt.Sprintf("localhost:%d", p) }},
		{"server by name", "localhost:0", func(p uint16) string { return fmt.Sprintf("localhost:%d", p) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv, err := server.Listen(c.listen, server.Config{}, testgame.New(), testgame.DefaultSettings)
			if err != nil {
				if strings.Contains(c.listen, "::1") {
					t.Skipf("no IPv6 loopback here: %v", err)
				}
				t.Fatal(err)
			}
			playOnce(t, srv, c.dial(srv.Addr().Port()))
		})
	}
}

// playOnce runs srv and one client runner dialing addr until the client
// has received 20 snapshots, then disconnects it cleanly.
func playOnce(t *testing.T, srv *server.Runner, addr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*testwait.Hang)
	defer cancel()
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	wg.Add(1)
	go func() { defer wg.Done(); srv.Run(ctx) }()
	r, err := client.Dial(addr, client.Config{}, testgame.New(),
		client.InputFunc(func(in client.Input) game.UserCmd { return game.UserCmd{Forward: 40} }))
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	cctx, ccancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- r.Run(cctx) }()
	var st clienthook.Counters
	if !testwait.Until(testwait.Hang, func() bool {
		r.Do(ctx, func(now time.Duration, c *client.Client) { st = clienthook.CountersOf(c) })
		return st.SnapshotsReceived >= 20
	}) {
		ccancel()
		<-done
		t.Fatalf("client of %s (server on %v) got no snapshots: %+v", addr, srv.Addr(), st)
	}
	if st.BaseMismatches != 0 || st.DecodeErrors != 0 {
		t.Errorf("stats %+v", st)
	}
	ccancel()
	if err := <-done; err != nil {
		t.Errorf("client run: %v", err)
	}
}
