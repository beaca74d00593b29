package main

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/snapwire/snapwire/netsim"
)

// TestProxiesShareLinkFlags: proxy and q3 proxy read the same link flags
// to the same link configurations: --latency is the round trip, --loss
// takes 5% or 0.05.
func TestProxiesShareLinkFlags(t *testing.T) {
	for _, flags := range []string{
		"--latency 100ms --loss 5%",
		"--latency 101ms --jitter 10ms --loss 0.05 --dup 1% --reorder 0.02 --reorder-delay 7ms --bandwidth 8000 --mtu 1200 --seed 7",
		"",
	} {
		addrs := " --listen 127.0.0.1:27961 --to 127.0.0.1:27960"
		p, err := parseProxyFlags(strings.Fields(flags+addrs), io.Discard)
		if err != nil {
			t.Fatalf("proxy %s: %v", flags, err)
		}
		q, err := parseQ3ProxyFlags(strings.Fields(flags + addrs))
		if err != nil {
			t.Fatalf("q3 proxy %s: %v", flags, err)
		}
		if p.cfg.Up != q.cfg.Up || p.cfg.Down != q.cfg.Down || p.cfg.Seed != q.cfg.Seed {
			t.Errorf("%q:\nproxy    up %+v down %+v seed %d\nq3 proxy up %+v down %+v seed %d",
				flags, p.cfg.Up, p.cfg.Down, p.cfg.Seed, q.cfg.Up, q.cfg.Down, q.cfg.Seed)
		}
		if p.cfg.Listen != q.listen || p.cfg.Target != q.cfg.Target {
			t.Errorf("%q: addresses %v %v / %v %v", flags, p.cfg.Listen, p.cfg.Target, q.listen, q.cfg.Target)
		}
	}
	q, err := parseQ3ProxyFlags(strings.Fields("--latency 100ms --loss 5%"))
	if err != nil {
		t.Fatal(err)
	}
	want := netsim.LinkConfig{Latency: 50 * time.Millisecond, Loss: 0.05, ReorderDelay: netsim.DefaultReorderDelay}
	if q.cfg.Up != want || q.cfg.Down != want {
		t.Errorf("q3 proxy --latency 100ms --loss 5%%: up %+v down %+v, want %+v each way", q.cfg.Up, q.cfg.Down, want)
	}
	for _, bad := range []string{"--loss 5", "--loss 101%", "--latency -1ms", "--mtu -1"} {
		if _, err := parseQ3ProxyFlags(strings.Fields(bad)); err == nil {
			t.Errorf("q3 proxy %s accepted", bad)
		}
	}
}

// TestQ3ProxyLinkFlagsCLI runs q3 proxy as a person types it: --loss 5%
// is accepted and --latency 100ms adds 50 ms each way.
func TestQ3ProxyLinkFlagsCLI(t *testing.T) {
	var code int
	var out bytes.Buffer
	errOut := captureStderr(t, func(stderr *bytes.Buffer) {
		code = run([]string{"q3", "proxy", "-q", "--listen", "127.0.0.1:0", "--to", "127.0.0.1:9", "--duration", "1ms", "--latency", "100ms", "--loss", "5%"}, &out, stderr)
	})
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	for _, want := range []string{"up:   latency 50ms", "down: latency 50ms", "loss 5%"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
}
