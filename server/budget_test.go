package server

import (
	"fmt"
	"net/netip"
	"testing"

	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/netchan"
	"github.com/snapwire/snapwire/internal/serverhook"
	"github.com/snapwire/snapwire/internal/session"
	"github.com/snapwire/snapwire/internal/testgame"
)

// steadyServerRate is steadyServer with each client's byte rate set.
func steadyServerRate(tb testing.TB, n, rate int) (*Server, []*fakeClient) {
	tb.Helper()
	r := &rec{}
	s, err := New(serverhook.With(Config{MaxClients: n, Rate: rate}, serverhook.Hooks{Seed: 1}), testgame.New(), steadySettings, r)
	if err != nil {
		tb.Fatal(err)
	}
	byAddr := map[netip.AddrPort]*fakeClient{}
	var fakes []*fakeClient
	for i := range n {
		a := netip.AddrPortFrom(netip.AddrFrom4([4]byte{192, 0, 2, byte(i + 1)}), uint16(1000+i))
		acc, err := session.ParseAccept(handshake(tb, s, r, 0, a, goodConnect(uint64(i+1))))
		if err != nil {
			tb.Fatal(err)
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

// BenchmarkFrameWithinRate is BenchmarkFrame with a byte rate per client:
// unlimited (no budget), one the snapshots fit in (the budget's cost when
// it holds nothing back), and one a third of the entities' changes fit in
// (trimmed snapshots, rebuilds after an overflow).
func BenchmarkFrameWithinRate(b *testing.B) {
	for _, rate := range []int{0, 100000, 3000} {
		b.Run(fmt.Sprintf("rate=%d", rate), func(b *testing.B) {
			const n = 16
			s, fakes := steadyServerRate(b, n, rate)
			for range 600 {
				steadyFrame(s, fakes)
			}
			c0, _ := s.clientFull(0)
			b.ReportAllocs()
			for b.Loop() {
				steadyFrame(s, fakes)
			}
			c, _ := s.clientFull(0)
			snaps := float64(c.SnapshotsSent - c0.SnapshotsSent)
			b.ReportMetric(float64(c.SnapshotBits-c0.SnapshotBits)/8/snaps, "snapbytes")
			b.ReportMetric(float64(c.SnapshotsTrimmed-c0.SnapshotsTrimmed)/snaps, "trimmed/snap")
			b.ReportMetric(float64(c.BudgetRebuilds-c0.BudgetRebuilds)/snaps, "rebuilds/snap")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/client")
		})
	}
}
