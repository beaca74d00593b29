package snapshot

import (
	"testing"

	"github.com/snapwire/snapwire/game"
)

// Acceptance (Input.Hold, DOOM III §8 "entities written to every other
// or every third snapshot"): a held entity that changed is left out of the
// snapshot and its base state stays when the snapshot is applied on both
// ends; the next snapshot that does not hold it writes it against the
// older base, and both bases agree; a spawn is written even when held; the
// FrameCache path holds the same entities with the same bits.
//
// Guards against: a held entity recorded as pending (the server's base
// would move without the client's, a base mismatch), a hold that dropped a
// new entity (the decoder would fail), the two encoding paths drifting.
func TestHoldLeavesEntitiesOut(t *testing.T) {
	reg := newRegistry()
	world := mapWorld(reg, 4, 1)
	states := newStates()
	enc, dec := newPair(t, reg, world, states)
	cached, _ := newPair(t, reg, world, states)
	var cache FrameCache
	pvs := new(PVS)
	for n := range game.EntityNum(4) {
		pvs.Add(n)
	}
	move := func(n game.EntityNum, x float32) {
		e, _ := world.Entity(n)
		e.(*testEnt).X = x
	}
	step := func(f game.Frame, hold func(game.EntityNum) bool) *Snapshot {
		t.Helper()
		in := &Input{Frame: f, PVS: pvs, World: world, States: states, Hold: hold}
		data, nbits := buildBits(t, enc, in)
		in.Cache = &cache
		cdata, cbits := buildBits(t, cached, in)
		if nbits != cbits || string(data) != string(cdata) {
			t.Fatalf("frame %d: the cached path wrote %d bits, the reference %d", f, cbits, nbits)
		}
		s := decode(t, dec, data, nbits)
		seq := s.Header.Seq
		m, ok := enc.Ack(seq)
		if _, ok2 := cached.Ack(seq); !ok || !ok2 {
			t.Fatalf("ack %d", seq)
		}
		if err := dec.Apply(m); err != nil {
			t.Fatal(err)
		}
		if enc.Base().Hash() != dec.Base().Hash() || cached.Base().Hash() != enc.Base().Hash() {
			t.Fatalf("frame %d: bases differ", f)
		}
		return s
	}
	changed := func(s *Snapshot, n game.EntityNum) bool {
		for _, es := range s.Entities {
			if es.Num == n {
				return es.Changed
			}
		}
		t.Fatalf("entity %d not in the snapshot", n)
		return false
	}
	holdTwo := func(n game.EntityNum) bool { return n == 2 }

	move(1, 100)
	move(2, 200)
	s := step(1, holdTwo)
	if !changed(s, 1) || changed(s, 2) {
		t.Errorf("held entity 2 written (%v) or entity 1 not (%v)", changed(s, 2), changed(s, 1))
	}
	_, st, nb := enc.Base().Entity(2)
	var base testEnt
	if err := NewStateCodec().Load(&base, st, nb); err != nil || base.X != 2 {
		t.Errorf("held entity's base moved to x=%v (%v)", base.X, err)
	}
	// Released: written against the older base.
	s = step(2, nil)
	if !changed(s, 2) {
		t.Error("entity 2 not written once released")
	}
	_, st, nb = enc.Base().Entity(2)
	if err := NewStateCodec().Load(&base, st, nb); err != nil || base.X != 200 {
		t.Errorf("released entity's base x=%v (%v)", base.X, err)
	}
	// A spawn is written whatever Hold says.
	if _, err := world.Spawn(9, projType); err != nil {
		t.Fatal(err)
	}
	pvs.Add(9)
	s = step(3, func(game.EntityNum) bool { return true })
	if !changed(s, 9) {
		t.Error("a held spawn was not written")
	}
}
