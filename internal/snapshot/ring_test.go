package snapshot

import (
	"math/rand/v2"
	"testing"
)

// TestRingReusesBuffers: the pending snapshots' buffers go back to the ring when their
// snapshots are dropped and are taken again, the last given first. With acknowledgements two
// snapshots back, 1000 snapshots use three sets of buffers, not RingSize; under random
// acknowledgements (late, lost, none for longer than the ring) no two held snapshots ever share
// a buffer, the ring never holds more than RingSize sets, and count follows the valid slots.
func TestRingReusesBuffers(t *testing.T) {
	fill := func(r *ring, seq Seq) *pending {
		p := r.start(seq)
		p.addEnt(1, 1, []byte{byte(seq), byte(seq >> 8)}, 16, uint64(seq))
		p.pvs[0] = uint32(seq)
		r.commit(p)
		return p
	}
	var r ring
	seen := map[*PVS]bool{}
	for seq := Seq(1); seq <= 1000; seq++ {
		seen[fill(&r, seq).pvs] = true
		if seq > 2 {
			if r.find(seq-2) == nil {
				t.Fatalf("snapshot %d not held", seq-2)
			}
			r.dropThrough(seq - 2)
		}
	}
	if len(seen) > 3 {
		t.Fatalf("acknowledging two back used %d sets of buffers, want 3", len(seen))
	}

	rng := rand.New(rand.NewPCG(5, 6))
	r = ring{}
	acked := Seq(0)
	for seq := Seq(1); seq <= 20000; seq++ {
		fill(&r, seq)
		if rng.IntN(3) == 0 && seq > acked+1 { // an ack of a random held snapshot, or none
			a := acked + 1 + Seq(rng.IntN(int(seq-acked)))
			if p := r.find(a); p != nil {
				if p.pvs[0] != uint32(a) || p.buf[0] != byte(a) {
					t.Fatalf("snapshot %d holds another's contents", a)
				}
				r.dropThrough(a)
				acked = a
			}
		}
		held, valid := map[*PVS]bool{}, 0
		for i := range r.slots {
			p := &r.slots[i]
			if p.pvs == nil {
				continue
			}
			if held[p.pvs] {
				t.Fatalf("seq %d: two slots share a buffer", seq)
			}
			held[p.pvs] = true
			if p.valid {
				valid++
			}
		}
		for _, b := range r.spare {
			if held[b.pvs] {
				t.Fatalf("seq %d: a spare buffer is held by a slot", seq)
			}
			held[b.pvs] = true
		}
		if len(held) > RingSize {
			t.Fatalf("seq %d: %d sets of buffers", seq, len(held))
		}
		if r.count() != valid {
			t.Fatalf("seq %d: count %d, %d valid slots", seq, r.count(), valid)
		}
	}
	// A snapshot started and never committed (its Build failed) over a held one: neither
	// counts.
	r = ring{}
	for seq := Seq(1); seq <= RingSize; seq++ {
		fill(&r, seq)
	}
	r.start(RingSize + 1)
	if r.count() != RingSize-1 || r.find(1) != nil || r.find(RingSize+1) != nil {
		t.Fatalf("after a start without commit over a held snapshot: count %d, want %d", r.count(), RingSize-1)
	}
}
