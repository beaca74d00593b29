package server

import (
	"reflect"
	"testing"
	"time"

	"github.com/snapwire/snapwire/internal/serverhook"
)

// Totals sum the clients' counters and never go back when a client
// leaves; the stopwatch fills the frame and snapshot build histograms;
// frames run late are counted; none of it allocates.
//
// Guards against: counters that drop when a client leaves (Prometheus
// would see a counter reset; departed.add removed: fails), histograms
// counting something other than frames and builds, FramesLate counting
// frames run on time.
func TestTotalsAndTiming(t *testing.T) {
	s, fakes := steadyServer(t, 4)
	var sw time.Duration
	s.cfg.Stopwatch = func() time.Duration { sw += 7 * time.Microsecond; return sw }
	for range 300 {
		steadyFrame(s, fakes)
	}
	tot := s.Totals()
	var sum Totals
	for _, pub := range s.AppendClients(nil) {
		c, _ := s.clientFull(pub.Num)
		sum.SnapshotsSent += c.SnapshotsSent
		sum.BytesIn += c.Channel.BytesIn
		sum.BytesOut += c.Channel.BytesOut
		sum.AcksApplied += c.AcksApplied
		if pub.SnapshotsSent != c.SnapshotsSent || pub.BytesIn != c.Channel.BytesIn || pub.BytesOut != c.Channel.BytesOut {
			t.Errorf("client %d: public figures %+v differ from the server's %+v", pub.Num, pub, c)
		}
	}
	if tot.SnapshotsSent != sum.SnapshotsSent || tot.BytesIn != sum.BytesIn || tot.BytesOut != sum.BytesOut || tot.AcksApplied != sum.AcksApplied {
		t.Fatalf("totals %+v, sums over clients %+v", tot, sum)
	}
	if tot.SnapshotsSent < 4*90 || tot.SnapshotBytes == 0 || tot.PacketsIn < 4*290 || tot.CmdsEarly < 4*290 {
		t.Fatalf("totals after 300 frames with 4 clients: %+v", tot)
	}
	st := s.fullStats()
	if st.FrameTime.Count != 300 || st.SnapshotBuildTime.Count != tot.SnapshotsSent {
		t.Errorf("frame time: %d observed for 300 frames; build time: %d observed for %d snapshots", st.FrameTime.Count, st.SnapshotBuildTime.Count, tot.SnapshotsSent)
	}
	// A build reads the stopwatch twice (7 µs apart): every build lands
	// in the (0, 10 µs] bucket.
	if st.SnapshotBuildTime.Counts[0] != st.SnapshotBuildTime.Count || st.SnapshotBuildTime.Sum != time.Duration(st.SnapshotBuildTime.Count)*7*time.Microsecond {
		t.Errorf("build histogram %+v", st.SnapshotBuildTime)
	}
	if st.FramesLate != 0 {
		t.Errorf("%d frames late when every frame ran on time", st.FramesLate)
	}

	// A client leaves: no total goes back.
	if err := s.Kick(s.Next(), 1); err != nil {
		t.Fatal(err)
	}
	after := s.Totals()
	a, b := reflect.ValueOf(after), reflect.ValueOf(tot)
	for i := range a.NumField() {
		if a.Field(i).Uint() < b.Field(i).Uint() {
			t.Errorf("%s went back from %d to %d when a client left", a.Type().Field(i).Name, b.Field(i).Uint(), a.Field(i).Uint())
		}
	}

	// The driver wakes four frames after the next one was due: of the five
	// frames it runs, the three due more than a frame before now are late.
	s.Advance(s.Next() + 4*s.FrameDuration())
	if st := s.fullStats(); st.FramesLate != 3 {
		t.Errorf("%d frames late, want 3", st.FramesLate)
	}

	fakes = append(fakes[:1], fakes[2:]...)
	for range 60 {
		steadyFrame(s, fakes)
	}
	buf := make([]ClientStats, 0, 8)
	if n := testing.AllocsPerRun(100, func() {
		steadyFrame(s, fakes)
		_ = s.Totals()
		buf = s.AppendClients(buf[:0])
	}); n != 0 {
		t.Errorf("%v allocations per frame with the stopwatch, Totals and AppendClients", n)
	}
}

func TestDurationHistogramBuckets(t *testing.T) {
	var h serverhook.DurationHistogram
	for _, d := range []time.Duration{0, 10 * time.Microsecond, 11 * time.Microsecond, 17 * time.Millisecond, time.Second} {
		h.Observe(d)
	}
	want := [len(serverhook.DurationBuckets) + 1]uint64{0: 2, 1: 1, 11: 1, 12: 1}
	if h.Counts != want || h.Count != 5 || h.Sum != time.Second+17*time.Millisecond+21*time.Microsecond {
		t.Errorf("histogram %+v", h)
	}
}
