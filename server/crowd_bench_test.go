package server

import (
	"fmt"
	"net/netip"
	"runtime"
	"testing"
	"time"

	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/crowdgame"
	"github.com/snapwire/snapwire/internal/netchan"
	"github.com/snapwire/snapwire/internal/serverhook"
	"github.com/snapwire/snapwire/internal/session"
)

// crowdServer connects n fake clients (bench_test.go's fakeClient) to a
// server of n slots running internal/crowdgame, and delivers packets
// synchronously both ways, as steadyServer does for the test game.
func crowdServer(tb testing.TB, n int) (*Server, []*fakeClient) {
	tb.Helper()
	r := &rec{}
	s, err := New(serverhook.With(Config{MaxClients: n}, serverhook.Hooks{Seed: 1}), crowdgame.New(), crowdgame.Settings, r)
	if err != nil {
		tb.Fatal(err)
	}
	hash := crowdgame.NewRegistry().Hash()
	byAddr := map[netip.AddrPort]*fakeClient{}
	var fakes []*fakeClient
	for i := range n {
		a := netip.AddrPortFrom(netip.AddrFrom4([4]byte{198, 18, byte(i >> 8), byte(i)}), uint16(1000+i))
		m := session.Connect{Nonce: uint64(i + 1), Version: session.Version, RegistryHash: hash, Name: "x"}
		acc, err := session.ParseAccept(handshake(tb, s, r, 0, a, m))
		if err != nil {
			tb.Fatal(err)
		}
		if acc.Client != game.ClientNum(i) {
			tb.Fatalf("connect %d: client %d", i, acc.Client)
		}
		fc := &fakeClient{s: s, ch: netchan.New(netchan.Config{}, acc.ConnID), addr: a, buf: make([]byte, 512)}
		fc.h.fc = fc
		fc.emit = func(p []byte) { fc.s.HandlePacket(fc.now, fc.addr, p) }
		fc.msg.Cmds = make([]game.UserCmd, 1)
		fakes = append(fakes, fc)
		byAddr[a] = fc
	}
	s.send = SendFunc(func(to netip.AddrPort, p []byte) {
		if fc := byAddr[to]; fc != nil {
			fc.ch.Receive(fc.now, p, &fc.h)
		}
	})
	return s, fakes
}

// snapshotTotals returns the snapshots sent and their bits, summed over
// the server's clients.
func snapshotTotals(s *Server) (snaps, bits uint64) {
	for n := range s.slots {
		if c, ok := s.clientFull(game.ClientNum(n)); ok {
			snaps += c.SnapshotsSent
			bits += c.SnapshotBits
		}
	}
	return snaps, bits
}

// Project rule at scale (issue 25): a server frame of a 512-player crowd,
// commands coming in and snapshots going out, allocates nothing in steady
// state, and a client's snapshot stays the size of its neighbourhood: the
// bytes per client-snapshot and player in its PVS at 512 players are
// within 10% of those at 64 (a client at the grid's edge sees fewer
// players, and 64 players are two rows: all edge).
//
// Guards against: per-client or per-frame allocations that grow with the
// slots, and snapshots (or relayed commands) that grow with the match.
func TestCrowdSteadyState(t *testing.T) {
	if testing.Short() {
		t.Skip("600 frames of a 512-player crowd")
	}
	perSnap := map[int]float64{}
	for _, n := range []int{64, 512} {
		s, fakes := crowdServer(t, n)
		for range 600 {
			steadyFrame(s, fakes)
		}
		snaps0, bits0 := snapshotTotals(s)
		allocs := testing.AllocsPerRun(120, func() { steadyFrame(s, fakes) })
		snaps, bits := snapshotTotals(s)
		if allocs != 0 {
			t.Errorf("%d clients: %v allocations per frame", n, allocs)
		}
		if want := uint64(n) * 121 / 3; snaps-snaps0 < want-uint64(n) {
			t.Errorf("%d clients: %d snapshots in 121 frames, want about %d", n, snaps-snaps0, want)
		}
		pvs := meanPVS(s)
		perSnap[n] = float64(bits-bits0) / 8 / float64(snaps-snaps0) / pvs
		t.Logf("%d clients: %.1f bytes per client-snapshot, %.1f players in a PVS", n, perSnap[n]*pvs, pvs)
	}
	if perSnap[512] > perSnap[64]*1.1 {
		t.Errorf("%.2f bytes per client-snapshot and player in its PVS at 512 players, %.2f at 64", perSnap[512], perSnap[64])
	}
}

// BenchmarkCrowdFrame: one server frame (60 Hz) of the crowd with N
// players sending a command message a frame and acknowledging snapshots
// (20 Hz). Reports the bytes of a client-snapshot, the time per
// client-snapshot (the whole frame's time divided by the snapshots it
// sent: game, commands and fake clients included) and the heap the
// server holds per client after the connects.
func BenchmarkCrowdFrame(b *testing.B) {
	for _, n := range []int{64, 512} {
		b.Run(fmt.Sprintf("clients=%d", n), func(b *testing.B) {
			var m0, m1 runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&m0)
			s, fakes := crowdServer(b, n)
			for range 600 {
				steadyFrame(s, fakes)
			}
			runtime.GC()
			runtime.ReadMemStats(&m1)
			snaps0, bits0 := snapshotTotals(s)
			start := time.Duration(0)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				steadyFrame(s, fakes)
			}
			start = b.Elapsed()
			snaps, bits := snapshotTotals(s)
			b.ReportMetric(float64(bits-bits0)/8/float64(snaps-snaps0), "B/client-snapshot")
			b.ReportMetric(float64(start.Nanoseconds())/float64(snaps-snaps0), "ns/client-snapshot")
			b.ReportMetric(float64(m1.HeapAlloc-m0.HeapAlloc)/float64(n), "heap-B/client")
			runtime.KeepAlive(fakes)
		})
	}
}

// pvsCount is a game.EntitySet that counts.
type pvsCount int

func (c *pvsCount) Add(game.EntityNum) { *c++ }

// meanPVS returns the mean size of the server's clients' PVSs now.
func meanPVS(s *Server) float64 {
	var total pvsCount
	for n := range s.slots {
		s.g.Visible(game.ClientNum(n), &total)
	}
	return float64(total) / float64(len(s.slots))
}
