package netsimhook_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/snapwire/snapwire/internal/netsimhook"
	"github.com/snapwire/snapwire/netsim"
)

// TestNewLinkIsNetsimsModel: the planner netsim registers applies the
// LinkConfig it was given and counts in the Stats it was given.
func TestNewLinkIsNetsimsModel(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var st netsim.Stats

	lat := netsimhook.NewLink(netsim.LinkConfig{Latency: 30 * time.Millisecond}, &st)
	if n, at := lat(r, time.Second, 100); n != 1 || at[0] != time.Second+30*time.Millisecond {
		t.Errorf("latency 30 ms at 1 s: %d copies at %v", n, at)
	}
	if n, _ := netsimhook.NewLink(netsim.LinkConfig{Loss: 1}, &st)(r, 0, 100); n != 0 || st.Lost != 1 {
		t.Errorf("loss 1: %d copies, Lost %d", n, st.Lost)
	}
	if n, _ := netsimhook.NewLink(netsim.LinkConfig{MTU: 50}, &st)(r, 0, 100); n != 0 || st.DroppedMTU != 1 {
		t.Errorf("MTU 50, 100 bytes: %d copies, DroppedMTU %d", n, st.DroppedMTU)
	}
	if n, _ := netsimhook.NewLink(netsim.LinkConfig{Duplicate: 1}, &st)(r, 0, 100); n != 2 || st.Duplicated != 1 {
		t.Errorf("duplicate 1: %d copies, Duplicated %d", n, st.Duplicated)
	}

	// The planner keeps its link's state: at 1000 bytes/s a second
	// 100-byte packet waits for the first to be serialized.
	bw := netsimhook.NewLink(netsim.LinkConfig{Bandwidth: 1000}, &st)
	_, a := bw(r, 0, 100)
	_, b := bw(r, 0, 100)
	if a[0] != 100*time.Millisecond || b[0] != 200*time.Millisecond {
		t.Errorf("1000 bytes/s: arrivals %v and %v, want 100ms and 200ms", a[0], b[0])
	}
}

// TestScheduleOrder: packets leave the schedule by arrival time, and in
// push order (Seq) for equal times.
func TestScheduleOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var s netsimhook.Schedule
	for seq := range uint64(500) {
		s.Push(&netsimhook.Packet{At: time.Duration(r.IntN(50)), Seq: seq})
	}
	var last *netsimhook.Packet
	for range 500 {
		p, ok := s.Peek()
		if !ok {
			t.Fatal("schedule empty too early")
		}
		if got := s.Pop(); got != p {
			t.Fatal("Pop returned another packet than Peek")
		}
		if last != nil && (p.At < last.At || p.At == last.At && p.Seq < last.Seq) {
			t.Fatalf("packet (%v, %d) after (%v, %d)", p.At, p.Seq, last.At, last.Seq)
		}
		last = p
	}
	if _, ok := s.Peek(); ok || len(s) != 0 {
		t.Errorf("%d packets left", len(s))
	}
}
