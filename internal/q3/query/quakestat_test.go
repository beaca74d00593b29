package query

import (
	"context"
	"net"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/snapwire/snapwire/internal/acceptance"
	"github.com/snapwire/snapwire/internal/oaserver"
)

// TestQuakestat lists a Responder served on a 127.0.0.1 UDP socket with
// the real qstat (Debian's quakestat). It skips without quakestat unless
// SNAPWIRE_REQUIRE_Q3=1.
func TestQuakestat(t *testing.T) {
	acceptance.Require(t, "q3live")
	qs := oaserver.Need(t, "quakestat")
	conn, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	r := NewResponder(SourceFunc(func(st *Status) {
		st.Hostname, st.MapName, st.Protocol, st.MaxClients, st.Game = "snapwire-query-test", "oa_dm4", 71, 12, "baseoa"
		st.Players = append(st.Players,
			Player{Name: "Angelyss", Score: 7, Ping: 0, Bot: true},
			Player{Name: "snapwire", Score: 3, Ping: 42},
			Player{Name: "Major", Score: -1, Ping: 0, Bot: true})
	}), Config{})
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); Serve(ctx, conn, r) }()
	var once sync.Once
	stop := func() { once.Do(func() { cancel(); wg.Wait(); conn.Close() }) }
	defer stop()
	addr := conn.LocalAddr().String()

	run := func(args ...string) string {
		t.Helper()
		c, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		out, err := exec.CommandContext(c, qs, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("quakestat %v: %v\n%s", args, err, out)
		}
		t.Logf("quakestat %s:\n%s", strings.Join(args, " "), out)
		return string(out)
	}
	out := run("-q3s", addr)
	for _, want := range []string{addr, "3/12", "oa_dm4", "snapwire-query-test"} {
		if !strings.Contains(out, want) {
			t.Errorf("quakestat -q3s output lacks %q", want)
		}
	}
	out = run("-q3s", addr, "-R", "-P")
	for _, want := range []string{"3/12", "oa_dm4", "snapwire-query-test", "Angelyss", "snapwire", "Major", "42ms", "sv_hostname=snapwire-query-test"} {
		if !strings.Contains(out, want) {
			t.Errorf("quakestat -R -P output lacks %q", want)
		}
	}
	stop() // Serve owns r while it runs
	if s := r.Stats(); s.Info+s.Status < 2 || s.LimitedAddress+s.LimitedGlobal != 0 {
		t.Errorf("responder stats %+v", s)
	}
}
