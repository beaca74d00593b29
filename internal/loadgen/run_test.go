package loadgen

import (
	"bytes"
	"context"
	"net/netip"
	"testing"
	"time"

	"github.com/snapwire/snapwire/internal/acceptance"
	"github.com/snapwire/snapwire/internal/refgame"
	"github.com/snapwire/snapwire/internal/serverhook"
	"github.com/snapwire/snapwire/server"
)

func TestSourceAddr(t *testing.T) {
	for _, c := range []struct {
		server string
		i      int
		want   string
	}{
		{"127.0.0.1", 0, "127.1.0.1"},
		{"127.0.0.1", 249, "127.1.0.250"},
		{"127.0.0.1", 250, "127.1.1.1"},
		{"127.0.0.1", 1023, "127.1.4.24"},
		{"127.0.0.1", 65535, "127.2.6.36"},
		{"::ffff:127.0.0.1", 3, "127.1.0.4"},
		{"::1", 7, "::1"},
		{"192.0.2.1", 7, "0.0.0.0"},
		{"2001:db8::1", 7, "::"},
	} {
		if got := SourceAddr(netip.MustParseAddr(c.server), c.i); got.String() != c.want {
			t.Errorf("SourceAddr(%s, %d) = %s, want %s", c.server, c.i, got, c.want)
		}
	}
}

// Acceptance (issue 25, the load generator): 32 light clients over real
// UDP on loopback, each from its own address of 127.0.0.0/8, against an
// in-process arena server on port 0 for 5 s: every one connects and
// receives its 20 snapshots a second, and every base hash is the
// server's.
func TestRunRealUDP(t *testing.T) {
	acceptance.Require(t, "load-udp")
	const n = 32
	srv, err := server.Listen("127.0.0.1:0", server.Config{MaxClients: n, Advanced: server.Advanced{MaxClientsPerIP: 1, VerifyBase: true}},
		refgame.NewGame(), refgame.Config{MaxPlayers: n}.String())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	// The server's clients, counted a second before the run ends.
	addrs := map[netip.Addr]bool{}
	counted := make(chan struct{})
	go func() {
		defer close(counted)
		time.Sleep(4 * time.Second)
		srv.Do(ctx, func(_ time.Duration, s *server.Server) {
			for _, c := range serverhook.Clients(s) {
				addrs[c.Addr.Addr()] = true
			}
		})
	}()
	res, err := Run(context.Background(), RunConfig{
		Server: srv.Addr(), Clients: n, Duration: 5 * time.Second, Bases: arenaBases(),
		Config: func(i int) (Config, error) { return Config{Name: "light", Seed: uint32(i)}, nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	sum := Summarize(srv.Addr().String(), res)
	var text bytes.Buffer
	sum.WriteText(&text)
	t.Log(text.String())
	if sum.Connected != n || sum.SnapshotRateMin < 19 || sum.BaseChecks == 0 {
		t.Errorf("%d of %d connected, snapshot rate min %.1f, %d base checks", sum.Connected, n, sum.SnapshotRateMin, sum.BaseChecks)
	}
	if err := sum.Invariants(); err != nil {
		t.Error(err)
	}
	<-counted
	if len(addrs) != n {
		t.Errorf("the server's clients came from %d addresses, want %d", len(addrs), n)
	}
}
