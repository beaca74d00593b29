package soak

import (
	"context"
	"encoding/json"
	"math"
	"regexp"
	"testing"
	"time"

	"github.com/snapwire/snapwire/internal/acceptance"
)

// "snapwire soak --json": every key is snake_case, at every depth, and
// times are in seconds.
//
// Guards against: at_s in nanoseconds, and Go field names
// (RSSAfterWarmup, BaselineRate, the server's Frames) beside snake_case
// keys (issue 21).
func TestResultJSONKeysAndUnits(t *testing.T) {
	r := &Result{Clients: 2, Duration: 12.5, Stopped: true,
		Samples:        []Sample{{At: 1500 * time.Millisecond, RSSBytes: 1, HeapBytes: 2, Goroutines: 3, Connected: 2, Snapshots: 4, FloodSent: 5}},
		RSSAfterWarmup: 10, RSSMin: 9, RSSMax: 11, RSSDeviation: 0.1,
		BaselineRate: []float64{20, 20}, MeasuredRate: []float64{19.5, 20}, MinRatio: 0.975,
		Disconnects: 1, Server: ServerCounters{Frames: 600, BadPackets: 3}, FloodPackets: 7, FloodRate: 1, ReaderDrops: 2}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	snake := regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)
	var walk func(path string, x any)
	walk = func(path string, x any) {
		switch x := x.(type) {
		case map[string]any:
			for k, e := range x {
				if !snake.MatchString(k) {
					t.Errorf("key %s%q is not snake_case", path, k)
				}
				walk(path+k+".", e)
			}
		case []any:
			for _, e := range x {
				walk(path, e)
			}
		}
	}
	walk("", v)
	s0 := v["samples"].([]any)[0].(map[string]any) // one sample: set above
	if s0["at_s"] != 1.5 || s0["rss_bytes"] != 1.0 {
		t.Errorf("sample: %v, want at_s 1.5 (seconds)", s0)
	}
	for k, want := range map[string]any{"duration_s": 12.5, "stopped": true, "rss_after_warmup_bytes": 10.0,
		"rss_min_bytes": 9.0, "rss_max_bytes": 11.0, "min_snapshot_ratio": 0.975} {
		if v[k] != want {
			t.Errorf("%s: %v, want %v", k, v[k], want)
		}
	}
	if srv, _ := v["server"].(map[string]any); srv["frames"] != 600.0 || srv["bad_packets"] != 3.0 {
		t.Errorf("server: %v", srv)
	}
	if rates, _ := v["snapshots_per_s"].([]any); len(rates) != 2 || rates[0] != 19.5 {
		t.Errorf("snapshots_per_s: %v", rates)
	}
}

// The rates of a period cut short: a count read as smaller than before
// (a client that could not be read) or an empty period gives 0, never
// the 1.8e19 of an unsigned wrap-around or a division by zero.
//
// Guards against: "snapshots/s per client 6292490677555976192.0" after a
// Ctrl-C (issue 21).
func TestRatesOfACutPeriod(t *testing.T) {
	got := rates([]uint64{100, 100, 100}, []uint64{0, 100, 140}, 2*time.Second)
	if got[0] != 0 || got[1] != 0 || got[2] != 20 {
		t.Errorf("rates %v, want [0 0 20]", got)
	}
	for _, r := range rates([]uint64{1}, []uint64{5}, 0) {
		if r != 0 {
			t.Errorf("empty period: %v", r)
		}
	}
}

// A soak whose context ends during the measured period (what SIGINT does
// to "snapwire soak") returns a result marked stopped, with the rates of
// the time played: finite, not negative, not a wrap-around.
//
// Real loopback UDP and real time: acceptance run "soak-stop". The
// assertions do not depend on timing.
func TestRunStoppedEarly(t *testing.T) {
	acceptance.Require(t, "soak-stop")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n := 0
	res, err := Run(ctx, Options{Clients: 2, Duration: time.Hour, Interval: 200 * time.Millisecond, Warmup: time.Minute,
		OnSample: func(Sample) {
			if n++; n == 2 { // the first sample of the measured period
				cancel()
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(res.Summary())
	if !res.Stopped || res.Duration <= 0 || res.Duration > 60 || len(res.MeasuredRate) != 2 {
		t.Fatalf("result %+v", res)
	}
	for i, r := range res.MeasuredRate {
		if math.IsNaN(r) || math.IsInf(r, 0) || r < 0 || r > 1e6 {
			t.Errorf("client %d: %v snapshots/s", i, r)
		}
	}
	if res.Disconnects != 0 {
		t.Errorf("%d disconnects", res.Disconnects)
	}
}
