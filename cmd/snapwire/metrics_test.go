package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/snapwire/snapwire/internal/acceptance"
	"github.com/snapwire/snapwire/internal/testwait"
)

var metricsRE = regexp.MustCompile(`msg=metrics url=http://(127\.0\.0\.1:\d+)/metrics`)

// metricValues parses the text exposition: series (name and labels) to
// value.
func metricValues(body string) map[string]float64 {
	out := map[string]float64{}
	for _, line := range strings.Split(body, "\n") {
		if line == "" || line[0] == '#' {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		if v, err := strconv.ParseFloat(line[i+1:], 64); err == nil {
			out[line[:i]] = v
		}
	}
	return out
}

func httpGet(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d, %v", url, resp.StatusCode, err)
	}
	return string(b)
}

// Acceptance (metrics): "serve --metrics" with 16 bots playing:
// the exposition passes promtool check metrics (Debian prometheus; the
// test skips that part without it unless SNAPWIRE_REQUIRE_PROMTOOL=1), and
// every metric of the match moves between two scrapes. The values are
// checked against the server's own counters in package servermetrics.
//
// Guards against: metrics that stay flat while the match runs, names or
// units promtool rejects, a --pprof that serves nothing.
func TestServeMetrics(t *testing.T) {
	acceptance.Require(t, "metrics")
	if testing.Short() {
		t.Skip("16 bots for 6 s")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	keyFile := writeKeyFile(t)
	srvCtx, stopSrv := context.WithCancel(ctx)
	var srvOut syncBuffer
	srvDone := make(chan error, 1)
	go func() {
		srvDone <- serve(srvCtx, serveOptions{listen: "127.0.0.1:0", tick: 60, snaps: 20, maxClients: 16, maxPerIP: 16, keyFile: keyFile,
			metrics: "127.0.0.1:0", pprof: true}, &srvOut)
	}()
	defer func() { stopSrv(); <-srvDone }()
	addr := waitMatch(&srvOut, listenRE, 5*time.Second)
	maddr := waitMatch(&srvOut, metricsRE, time.Second)
	if addr == "" || maddr == "" {
		t.Fatalf("server did not start:\n%s", srvOut.String())
	}
	var wg sync.WaitGroup
	errs := make([]error, 16)
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o := botOptions{connect: addr, name: "m" + strconv.Itoa(i), seed: uint64(i + 1), duration: 6 * time.Second, json: true, keyFile: keyFile}
			errs[i] = playBot(ctx, o, io.Discard)
		}()
	}
	// The first scrape once all 16 are in the game (bounded: a loaded
	// machine may take a while to connect them).
	var first string
	testwait.Until(4*time.Second, func() bool {
		first = httpGet(t, "http://"+maddr+"/metrics")
		v := metricValues(first)
		return v[`snapwire_clients{state="in_game"}`] == 16 && v["snapwire_client_rtt_seconds_count"] == 16
	})
	// The second once every metric moved, while the bots still play.
	names := []string{
		"snapwire_frames_total", "snapwire_frame_duration_seconds_count", "snapwire_snapshot_build_duration_seconds_count",
		"snapwire_snapshots_sent_total", "snapwire_snapshot_bytes_total", "snapwire_base_applies_total",
		`snapwire_channel_bytes_total{direction="in"}`, `snapwire_channel_bytes_total{direction="out"}`,
		`snapwire_channel_packets_total{direction="in"}`, `snapwire_channel_packets_total{direction="out"}`,
		"snapwire_commands_in_time_total", "process_cpu_seconds_total",
	}
	var second string
	scraped := time.Now()
	testwait.Until(4*time.Second, func() bool {
		second = httpGet(t, "http://"+maddr+"/metrics")
		a, b := metricValues(first), metricValues(second)
		for _, name := range names {
			if b[name] <= a[name] {
				return false
			}
		}
		return b["snapwire_client_rtt_seconds_sum"] != a["snapwire_client_rtt_seconds_sum"]
	})
	between := time.Since(scraped)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("bot %d: %v", i, err)
		}
	}

	a, b := metricValues(first), metricValues(second)
	for _, name := range names {
		if b[name] <= a[name] {
			t.Errorf("%s did not move: %v then %v", name, a[name], b[name])
		}
	}
	if a[`snapwire_clients{state="in_game"}`] != 16 || a["snapwire_client_rtt_seconds_count"] != 16 {
		t.Errorf("first scrape: %v clients in game, %v RTT samples", a[`snapwire_clients{state="in_game"}`], a["snapwire_client_rtt_seconds_count"])
	}
	if b["snapwire_client_rtt_seconds_sum"] == a["snapwire_client_rtt_seconds_sum"] { // a gauge-like sum: it changes, either way
		t.Errorf("the clients' RTT sum did not change: %v", a["snapwire_client_rtt_seconds_sum"])
	}
	if !strings.Contains(httpGet(t, "http://"+maddr+"/debug/pprof/"), "goroutine") {
		t.Error("/debug/pprof/ lists no profiles")
	}
	t.Logf("16 bots, %.2f s between scrapes: %.0f snapshots, %.0f bytes out, %.0f base applies", between.Seconds(),
		b["snapwire_snapshots_sent_total"]-a["snapwire_snapshots_sent_total"],
		b[`snapwire_channel_bytes_total{direction="out"}`]-a[`snapwire_channel_bytes_total{direction="out"}`],
		b["snapwire_base_applies_total"]-a["snapwire_base_applies_total"])

	promtool, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv("SNAPWIRE_REQUIRE_PROMTOOL") == "1" {
			t.Fatal("promtool not installed (Debian prometheus) and SNAPWIRE_REQUIRE_PROMTOOL=1")
		}
		t.Skip("promtool not installed (apt-get install prometheus): the exposition is not checked")
	}
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = strings.NewReader(second)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Errorf("promtool check metrics: %v\n%s", err, out.String())
	}
}
