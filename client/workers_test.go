package client_test

import (
	"testing"
	"time"

	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/internal/serverhook"
	"github.com/snapwire/snapwire/netsim"
	"github.com/snapwire/snapwire/server"
)

// A server that builds its snapshots on several goroutines (server.Config.SnapshotWorkers)
// sends exactly the bytes of one that builds them on one: the same match (8 clients, 20%
// loss, deterministic server) run with 1, 2 and 4 workers, every packet the server sent
// hashed in order (one worker twice: the match is deterministic). Guards against: the option
// ignored (no frame built in parallel); a view of the frame cache missing an entity or a state
// (the builds fail and the clients see no snapshot), and a parallel path that orders or
// assembles the packets differently. Run with -race, it shows the workers share nothing
// writable.
func TestSnapshotWorkersSameBytes(t *testing.T) {
	run := func(workers int) (uint64, uint64) {
		t.Helper()
		link := netsim.LinkConfig{Latency: 50 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.2}
		s := newSim(t, 11, link, serverhook.With(server.Config{Advanced: server.Advanced{SnapshotWorkers: workers}}, serverhook.Hooks{Deterministic: true}))
		for i := range 8 {
			s.addClient(i, botWander, client.Config{})
		}
		s.run(10 * time.Second)
		checkInvariants(t, s)
		if par := serverhook.ServerStats(s.srv).ParallelSnapshotFrames; (workers > 1) != (par > 100) {
			t.Fatalf("%d workers: %d frames built in parallel", workers, par)
		}
		return s.sent.Sum64(), s.srv.Totals().SnapshotsSent
	}
	h1, n1 := run(1)
	if n1 < 8*10*20/2 {
		t.Fatalf("one worker: %d snapshots sent", n1)
	}
	for _, w := range []int{1, 2, 4} {
		if h, n := run(w); h != h1 || n != n1 {
			t.Errorf("%d workers: %d snapshots sent, packets hash %x; one worker: %d, %x", w, n, h, n1, h1)
		}
	}
	t.Logf("%d snapshots sent, the same bytes with 1 (twice), 2 and 4 workers", n1)
}
