package soak

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/snapwire/snapwire/internal/acceptance"
)

// envDuration reads a duration from the environment, or def.
func envDuration(t *testing.T, name string, def time.Duration) time.Duration {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		t.Fatalf("%s=%q: %v", name, v, err)
	}
	return d
}

// Acceptance (issue: secure sessions): during a flood of at least 100,000
// malformed packets per second from four other hosts, 16 bots keep
// playing: no disconnect, each receives at least 95% of the snapshots it
// received in the baseline before the flood, and the process's memory
// stays bounded. .ci/run sets SNAPWIRE_FLOOD_DURATION=60s; a plain
// "go test" floods for 10 s.
//
// Guards against: a server that stalls or drops sessions under garbage
// (the reader pool and every decoder rejecting cheaply), and unbounded
// state per unauthenticated packet.
func TestFlood(t *testing.T) {
	acceptance.Require(t, "flood")
	if testing.Short() {
		t.Skip("flood: skipped in -short mode")
	}
	const target = 105000 // a little over the acceptance's 100,000/s, to stay above it
	res, err := Run(context.Background(), Options{
		Clients: 16, Duration: envDuration(t, "SNAPWIRE_FLOOD_DURATION", 10*time.Second), Interval: 2 * time.Second,
		Baseline: 5 * time.Second, FloodRate: target, FloodSenders: 4,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(res.Summary())
	if res.Disconnects != 0 {
		t.Errorf("%d clients disconnected during the flood", res.Disconnects)
	}
	if res.MinRatio < 0.95 {
		t.Errorf("a client received %.1f%% of its baseline snapshot rate during the flood", 100*res.MinRatio)
	}
	if res.FloodRate < 100000 {
		t.Errorf("the flood reached only %.0f packets/s", res.FloodRate)
	}
	var maxRSS uint64
	for _, s := range res.Samples {
		maxRSS = max(maxRSS, s.RSSBytes)
	}
	if maxRSS > 512<<20 {
		t.Errorf("resident memory reached %.0f MB", mb(maxRSS))
	}
	if res.Server.BadPackets+res.Server.UnknownConn == 0 {
		t.Error("the server saw none of the flood")
	}
}

// Acceptance (soak): 64 clients play against a secure server; none
// disconnects, goroutines stay put, and (on runs of two minutes or more:
// .ci/run sets SNAPWIRE_SOAK_DURATION=2m) resident memory after the
// warm-up stays within ±10%.
//
// Guards against: leaks of goroutines or memory per packet or per client.
func TestSoak(t *testing.T) {
	acceptance.Require(t, "soak")
	if testing.Short() {
		t.Skip("soak: skipped in -short mode")
	}
	d := envDuration(t, "SNAPWIRE_SOAK_DURATION", 15*time.Second)
	res, err := Run(context.Background(), Options{Clients: 64, Duration: d, Interval: d / 10, Warmup: min(time.Minute, d/2)})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(res.Summary())
	if res.Disconnects != 0 {
		t.Errorf("%d clients disconnected", res.Disconnects)
	}
	first, last := res.Samples[1], res.Samples[len(res.Samples)-1]
	if last.Goroutines > first.Goroutines {
		t.Errorf("goroutines grew from %d to %d", first.Goroutines, last.Goroutines)
	}
	if d >= 2*time.Minute && res.RSSDeviation > 0.10 {
		t.Errorf("resident memory moved %.1f%% after the warm-up", 100*res.RSSDeviation)
	}
	for i, r := range res.MeasuredRate {
		if r < 18 {
			t.Errorf("client %d received %.1f snapshots/s (20 sent per second)", i, r)
		}
	}
}
