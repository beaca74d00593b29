package servermetrics

import (
	"context"
	"maps"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/serverhook"
	"github.com/snapwire/snapwire/internal/testgame"
	"github.com/snapwire/snapwire/internal/testwait"
	"github.com/snapwire/snapwire/server"
)

// scrape gathers the collector's metrics: name (with its label values
// appended after a space) to value; a histogram gives its sample count.
func scrape(t *testing.T, reg *prometheus.Registry) map[string]float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			key := mf.GetName()
			for _, l := range m.GetLabel() {
				key += " " + l.GetValue()
			}
			switch mf.GetType() {
			case dto.MetricType_COUNTER:
				out[key] = m.GetCounter().GetValue()
			case dto.MetricType_GAUGE:
				out[key] = m.GetGauge().GetValue()
			case dto.MetricType_HISTOGRAM:
				out[key] = float64(m.GetHistogram().GetSampleCount())
			}
		}
	}
	return out
}

// Acceptance (metrics): with clients playing over real UDP, every metric
// of the match moves between two scrapes, and once the clients have left
// the scraped values equal the server's own counters (server.Stats and
// server.Totals read on its goroutine).
//
// Guards against: a metric wired to the wrong counter or to none (swapping
// two Totals fields in Collect fails the equality check), and counters
// that lose the clients that left.
func TestCollectorAgainstServerCounters(t *testing.T) {
	t0 := time.Now()
	r, err := server.Listen("127.0.0.1:0", serverhook.With(server.Config{}, serverhook.Hooks{Stopwatch: func() time.Duration { return time.Since(t0) }}),
		testgame.New(), testgame.DefaultSettings)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*testwait.Hang)
	defer cancel()
	srvCtx, stopSrv := context.WithCancel(ctx)
	srvDone := make(chan error, 1)
	go func() { srvDone <- r.Run(srvCtx) }()
	defer func() { stopSrv(); <-srvDone }()

	reg := prometheus.NewRegistry()
	reg.MustRegister(New(r))

	// Three clients play until the counters have moved.
	var wg sync.WaitGroup
	cliCtx, stopClients := context.WithCancel(ctx)
	defer stopClients()
	for i := range 3 {
		c, err := client.Dial(r.Addr().String(), client.Config{Name: "m"}, testgame.New(),
			client.InputFunc(func(in client.Input) game.UserCmd { return game.UserCmd{Forward: int8(20 + i)} }))
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() { defer wg.Done(); c.Run(cliCtx) }()
	}
	var first map[string]float64
	if !testwait.Until(testwait.Hang, func() bool {
		first = scrape(t, reg)
		return first["snapwire_clients in_game"] == 3 && first["snapwire_client_rtt_seconds"] == 3 && first["snapwire_commands_in_time_total"] > 0
	}) {
		t.Fatalf("the three clients did not join: %v", first)
	}
	// Garbage from a stranger, to move the rejection counters: a packet
	// too short for a header, and one for a connection that does not exist.
	junk, err := net.DialUDP("udp4", nil, net.UDPAddrFromAddrPort(r.Addr()))
	if err != nil {
		t.Fatal(err)
	}
	defer junk.Close()
	junk.Write([]byte{1, 2, 3})
	junk.Write([]byte{0, 1, 0xee, 0xee, 5, 0, 0, 0, 9, 9, 9, 9})
	names := []string{
		"snapwire_frames_total", "snapwire_frame_duration_seconds", "snapwire_snapshot_build_duration_seconds",
		"snapwire_snapshots_sent_total", "snapwire_snapshot_bytes_total", "snapwire_base_applies_total",
		"snapwire_channel_bytes_total in", "snapwire_channel_bytes_total out",
		"snapwire_channel_packets_total in", "snapwire_channel_packets_total out", "snapwire_commands_in_time_total",
		"snapwire_packets_rejected_total malformed", "snapwire_packets_rejected_total unknown_connection",
	}
	var second map[string]float64
	testwait.Until(testwait.Hang, func() bool {
		second = scrape(t, reg)
		if second["snapwire_snapshots_sent_total"] < 3*30 {
			return false
		}
		for _, name := range names {
			if second[name] <= first[name] {
				return false
			}
		}
		return true
	})
	for _, name := range names {
		if second[name] <= first[name] {
			t.Errorf("%s did not move: %v then %v", name, first[name], second[name])
		}
	}
	if first["snapwire_clients in_game"] != 3 || first["snapwire_connects_total"] != 3 || first["snapwire_up"] != 1 ||
		first["snapwire_client_rtt_seconds"] != 3 || first["snapwire_client_loss_ratio"] != 3 {
		t.Errorf("first scrape: %v", first)
	}

	// The clients leave (they send their disconnect); then nothing but
	// frames moves, and the scrape must equal the server's counters.
	stopClients()
	wg.Wait()
	testwait.Until(testwait.Hang, func() bool {
		n := -1
		r.Do(ctx, func(_ time.Duration, s *server.Server) { n = s.NumClients() })
		return n == 0
	})
	// Late datagrams (a client's redundant disconnects) may still move a
	// rejection counter between a scrape and the server's reading, so the
	// comparison takes a scrape that sits between two equal readings.
	counters := func() map[string]uint64 {
		var st serverhook.Stats
		var tot server.Totals
		r.Do(ctx, func(_ time.Duration, s *server.Server) { st, tot = serverhook.ServerStats(s), s.Totals() })
		m := map[string]uint64{
			"snapwire_snapshots_sent_total": tot.SnapshotsSent, "snapwire_snapshots_skipped_total": tot.SnapshotsSkipped,
			"snapwire_snapshot_bytes_total": tot.SnapshotBytes, "snapwire_base_applies_total": tot.AcksApplied,
			"snapwire_channel_bytes_total in": tot.BytesIn, "snapwire_channel_bytes_total out": tot.BytesOut,
			"snapwire_channel_packets_total in": tot.PacketsIn, "snapwire_channel_packets_total out": tot.PacketsOut,
			"snapwire_commands_in_time_total": tot.CmdsEarly, "snapwire_commands_duplicated_total": tot.DuplicatedCmds,
			"snapwire_commands_late_total": tot.LateCmds, "snapwire_client_messages_lost_total": tot.MessagesLostIn,
			"snapwire_load_game_sent_total": tot.LoadGameSent, "snapwire_reliable_resends_total": tot.ReliableResends,
			"snapwire_connects_total": st.Connects, "snapwire_disconnects_total": st.Disconnects,
			"snapwire_connects_refused_total": st.Refused, "snapwire_timeouts_total": st.Timeouts,
			"snapwire_packets_rejected_total malformed": st.BadPackets, "snapwire_packets_rejected_total unknown_connection": st.UnknownConn,
			"snapwire_packets_rejected_total unauthenticated": st.AuthFailures, "snapwire_packets_rejected_total rate_limited": st.Throttled,
			"snapwire_snapshot_build_duration_seconds": st.SnapshotBuildTime.Count,
		}
		m["snapwire_slot_reservations_total"], m["snapwire_resumes_total"] = st.Reservations, st.Resumes
		m["snapwire_clients reserved"] = uint64(st.Reserved)
		return m
	}
	var final map[string]float64
	var want map[string]uint64
	testwait.Until(testwait.Hang, func() bool {
		before := counters()
		final = scrape(t, reg)
		want = counters()
		return maps.Equal(before, want)
	})
	for name, v := range want {
		if got, ok := final[name]; !ok || got != float64(v) {
			t.Errorf("%s = %v (present %v), the server says %d", name, got, ok, v)
		}
	}
	if final["snapwire_disconnects_total"] != 3 || final["snapwire_clients in_game"] != 0 || final["snapwire_snapshots_sent_total"] < 3*30 {
		t.Errorf("after the clients left: %v", final)
	}
	t.Logf("3 clients: %v snapshots, %v bytes out, %v base applies, %v frames",
		final["snapwire_snapshots_sent_total"], final["snapwire_channel_bytes_total out"], final["snapwire_base_applies_total"], final["snapwire_frames_total"])
}

// A server whose loop no longer runs is reported down, not waited for.
func TestCollectorServerGone(t *testing.T) {
	r, err := server.Listen("127.0.0.1:0", server.Config{}, testgame.New(), testgame.DefaultSettings)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	cancel()
	<-done
	reg := prometheus.NewRegistry()
	reg.MustRegister(New(r))
	start := time.Now()
	m := scrape(t, reg)
	if m["snapwire_up"] != 0 || len(m) != 1 || time.Since(start) > Timeout+time.Second {
		t.Errorf("scrape of a stopped server after %v: %v", time.Since(start), m)
	}
}
