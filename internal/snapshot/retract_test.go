package snapshot

import (
	"testing"

	"github.com/snapwire/snapwire/game"
)

// TestRetract: a retracted snapshot leaves nothing pending, its sequence
// number goes to the next Build, an acknowledgement of it is refused, and
// the bases of both ends still agree after the next snapshot is applied;
// only the last Build can be retracted.
//
// Guards against: a retracted snapshot's states reaching the server's base
// (a base mismatch), a sequence gap the client would count as a loss.
func TestRetract(t *testing.T) {
	reg := newRegistry()
	world := mapWorld(reg, 4, 1)
	states := newStates()
	enc, dec := newPair(t, reg, world, states)
	pvs := new(PVS)
	for n := range game.EntityNum(4) {
		pvs.Add(n)
	}
	in := &Input{Frame: 1, PVS: pvs, World: world, States: states}
	e, _ := world.Entity(1)
	e.(*testEnt).X = 100
	buildBits(t, enc, in)
	hdr := Header{Seq: enc.NextSeq() - 1}
	if !enc.Retract(hdr) {
		t.Fatal("the last build not retracted")
	}
	if enc.Pending() != 0 || enc.NextSeq() != hdr.Seq {
		t.Fatalf("after retract: %d pending, next seq %d (want 0, %d)", enc.Pending(), enc.NextSeq(), hdr.Seq)
	}
	if _, ok := enc.Ack(hdr.Seq); ok {
		t.Fatal("a retracted snapshot acknowledged")
	}
	if enc.Retract(hdr) {
		t.Fatal("retracted twice")
	}
	e.(*testEnt).X = 200
	in.Frame = 2
	data, nbits := buildBits(t, enc, in)
	s := decode(t, dec, data, nbits)
	if s.Header.Seq != hdr.Seq {
		t.Fatalf("next snapshot numbered %d, want %d", s.Header.Seq, hdr.Seq)
	}
	in.Frame = 3
	buildBits(t, enc, in)
	if enc.Retract(Header{Seq: s.Header.Seq}) {
		t.Fatal("a build that is not the last retracted")
	}
	m, ok := enc.Ack(s.Header.Seq)
	if !ok {
		t.Fatal("ack")
	}
	if err := dec.Apply(m); err != nil {
		t.Fatal(err)
	}
	if enc.Base().Hash() != dec.Base().Hash() {
		t.Fatal("bases differ after a retract")
	}
}
