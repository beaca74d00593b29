package snapshot

import (
	"math/rand/v2"
	"testing"

	"github.com/snapwire/snapwire/game"
)

// TestBaseLabelsStayTrue drives cached encoders through everything that could make a base label
// name a state other than the base's bytes, and checks every snapshot bit for bit against an
// encoder without a cache (which reads no labels): entities toggling between two states (the
// same bytes come back under a new version), two FrameCaches used in turn by the same encoders
// (versions of one cache must never match the other's), a change within a frame picked up by
// Invalidate, and bases replaced from outside with CopyFrom from another cached encoder (whose
// labels come along with its bytes) or from the reference (labels 0).
//
// Guards against (tried): apply keeping the old label when it stores new bytes fails at the
// first acknowledged change ("cached snapshot differs"), and so does a FrameCache that keeps an
// entity's version when its bits changed.
func TestBaseLabelsStayTrue(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	reg := newRegistry()
	world := mapWorld(reg, 200, 3)
	const clients = 6
	type cl struct {
		ref, fast *Encoder
		pvs       PVS
		states    []game.Snapshotter
	}
	cls := make([]*cl, clients)
	for i := range cls {
		states := newStates()
		ref, _ := newPair(t, reg, world, states)
		fast := NewEncoder(reg)
		fast.Base().CopyFrom(ref.Base())
		cls[i] = &cl{ref: ref, fast: fast, states: states}
		for n := range world.Entities() {
			if rng.IntN(4) > 0 {
				cls[i].pvs.Add(n)
			}
		}
	}
	var caches [2]FrameCache
	bufA, bufB := make([]byte, 1<<16), make([]byte, 1<<16)
	labelled, copies, invalidated := 0, 0, 0
	build := func(tick int, c *cl, cache *FrameCache, frame game.Frame) {
		t.Helper()
		in := Input{Frame: frame, PVS: &c.pvs, World: world, States: c.states}
		ha, _ := buildBoth(t, tick, c.ref, c.fast, in, cache, bufA, bufB)
		if ha.Seq > 2 && rng.IntN(3) > 0 {
			seq := ha.Seq - Seq(rng.IntN(3))
			_, oka := c.ref.Ack(seq)
			_, okb := c.fast.Ack(seq)
			if oka != okb {
				t.Fatalf("tick %d: ack differs", tick)
			}
		}
		if c.ref.Base().Hash() != c.fast.Base().Hash() {
			t.Fatalf("tick %d: bases differ", tick)
		}
	}
	for tick := range 300 {
		frame := game.Frame(tick + 1)
		for n, e := range world.Entities() {
			v := e.(*testEnt)
			switch {
			case n%7 == 0:
				v.Flags ^= 1 // toggles every frame: A, B, A, ...
			case rng.IntN(4) == 0:
				v.X += float32(rng.IntN(3) - 1)
			}
		}
		for _, c := range cls {
			cache := &caches[rng.IntN(2)]
			build(tick, c, cache, frame)
			if rng.IntN(10) == 0 {
				// A change within the frame, picked up by Invalidate, then the same
				// client built again from the same cache.
				for _, e := range world.Entities() {
					if rng.IntN(10) == 0 {
						e.(*testEnt).Health = int32(rng.IntN(101))
					}
				}
				for i := range caches {
					caches[i].Invalidate() // every cache holding the frame
				}
				invalidated++
				build(tick, c, cache, frame)
			}
		}
		// Bases replaced from outside: from another cached encoder (labels and bytes
		// together) or from the reference (no labels); the reference follows.
		if rng.IntN(15) == 0 {
			a, b := cls[rng.IntN(clients)], cls[rng.IntN(clients)]
			if a != b {
				a.fast.Base().CopyFrom(b.fast.Base())
				a.ref.Base().CopyFrom(b.ref.Base())
				copies++
			}
		}
		for _, c := range cls {
			for n := range c.fast.base.ents {
				if c.fast.base.ents[n].label() != 0 {
					labelled++
				}
			}
		}
	}
	if labelled == 0 || invalidated == 0 {
		t.Fatalf("weak test: %d labels seen, %d invalidations, %d base copies", labelled, invalidated, copies)
	}
	t.Logf("%d labels seen over the run, %d invalidations, %d base copies", labelled, invalidated, copies)
}

// TestVersionsExhausted: with no versions left (newVersion returns 0), every state is compared by
// its bytes and the snapshots are still exactly the reference's.
//
// Guards against (tried): treating a base label of 0 as equal to a cached version of 0 omits
// every entity ("cached snapshot differs").
func TestVersionsExhausted(t *testing.T) {
	saved := versions.Load()
	versions.Store(maxVersion - 100) // the next block does not fit
	defer versions.Store(saved)      // no cache of this test outlives it

	rng := rand.New(rand.NewPCG(7, 8))
	reg := newRegistry()
	world := mapWorld(reg, 100, 2)
	states := newStates()
	ref, _ := newPair(t, reg, world, states)
	fast := NewEncoder(reg)
	fast.Base().CopyFrom(ref.Base())
	var pvs PVS
	for n := range world.Entities() {
		pvs.Add(n)
	}
	var cache FrameCache
	bufA, bufB := make([]byte, 1<<16), make([]byte, 1<<16)
	for tick := range 60 {
		for _, e := range world.Entities() {
			if rng.IntN(3) == 0 {
				e.(*testEnt).X += 1
			}
		}
		h, _ := buildBoth(t, tick, ref, fast, Input{Frame: game.Frame(tick + 1), PVS: &pvs, World: world, States: states}, &cache, bufA, bufB)
		if h.Seq > 2 {
			ref.Ack(h.Seq - 2)
			fast.Ack(h.Seq - 2)
		}
	}
	for n := range cache.ents {
		if cache.ents[n].ver != 0 {
			t.Fatalf("entity %d has version %d with none left", n, cache.ents[n].ver)
		}
	}
}
