package main

import (
	"errors"
	"io"
	"net/netip"
	"strings"
	"testing"
	"time"
)

func TestParsePercent(t *testing.T) {
	for _, c := range []struct {
		in   string
		want float64
	}{
		{"5%", 0.05}, {"0.05", 0.05}, {"0%", 0}, {"0", 0}, {"100%", 1}, {"1", 1},
		{"12.5%", 0.125}, {" 5 % ", 0.05},
	} {
		got, err := parsePercent(c.in)
		if err != nil || got < c.want-1e-12 || got > c.want+1e-12 {
			t.Errorf("parsePercent(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	for _, in := range []string{"", "%", "5", "101%", "-1%", "1.5", "abc", "NaN", "5%%"} {
		if got, err := parsePercent(in); err == nil {
			t.Errorf("parsePercent(%q) = %v, want an error", in, got)
		}
	}
}

func TestParseProxyFlags(t *testing.T) {
	opt, err := parseProxyFlags(strings.Fields(
		"--listen 127.0.0.1:27961 --to 127.0.0.1:27960 --latency 101ms --jitter 10ms "+
			"--loss 5% --dup 0.01 --reorder 2% --seed 7 --stats 500ms --bandwidth 8000"), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	c := opt.cfg
	if c.Listen != netip.MustParseAddrPort("127.0.0.1:27961") || c.Target != netip.MustParseAddrPort("127.0.0.1:27960") {
		t.Errorf("addresses %v %v", c.Listen, c.Target)
	}
	// --latency is the round trip, split between the directions
	if c.Up.Latency+c.Down.Latency != 101*time.Millisecond || c.Up.Latency != 50500*time.Microsecond {
		t.Errorf("latency up %v down %v", c.Up.Latency, c.Down.Latency)
	}
	for i, l := range []struct {
		jitter             time.Duration
		loss, dup, reorder float64
		bandwidth          int
	}{
		{c.Up.Jitter, c.Up.Loss, c.Up.Duplicate, c.Up.Reorder, c.Up.Bandwidth},
		{c.Down.Jitter, c.Down.Loss, c.Down.Duplicate, c.Down.Reorder, c.Down.Bandwidth},
	} {
		if l.jitter != 10*time.Millisecond || l.loss != 0.05 || l.dup != 0.01 || l.reorder != 0.02 || l.bandwidth != 8000 {
			t.Errorf("direction %d: %+v", i, l)
		}
	}
	if c.Seed != 7 || opt.stats != 500*time.Millisecond {
		t.Errorf("seed %d stats %v", c.Seed, opt.stats)
	}

	for _, args := range []string{
		"--to 127.0.0.1:1",
		"--listen 127.0.0.1:1",
		"--listen 0.0.0.0:1 --to 127.0.0.1:2",
		"--listen 192.168.1.1:1 --to 127.0.0.1:2",
		"--listen 127.0.0.1 --to 127.0.0.1:2",
		"--listen 127.0.0.1:1 --to 127.0.0.1:2 --loss 5",
		"--listen 127.0.0.1:1 --to 127.0.0.1:2 --latency -5ms",
		"--listen 127.0.0.1:1 --to 127.0.0.1:2 --latency 100",
		"--listen 127.0.0.1:1 --to 127.0.0.1:2 extra",
	} {
		if _, err := parseProxyFlags(strings.Fields(args), io.Discard); err == nil {
			t.Errorf("%q accepted", args)
		}
	}
	if _, err := parseProxyFlags(strings.Fields("--listen 0.0.0.0:1 --to 127.0.0.1:2 --allow-nonlocal"), io.Discard); err != nil {
		t.Errorf("--allow-nonlocal refused: %v", err)
	}
	if _, err := parseProxyFlags(strings.Fields("--listen 127.0.0.1:1"), io.Discard); !errors.Is(err, errUsage) {
		t.Errorf("missing --to: %v, want errUsage", err)
	}
}
