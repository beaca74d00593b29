package snapshot

import (
	"testing"

	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/game"
)

// varEnt has a state whose length changes.
type varEnt struct{ n int }

func (v *varEnt) WriteSnapshot(w *bitmsg.DeltaWriter) {
	w.WriteBits(uint32(v.n), 8)
	for i := range v.n {
		w.WriteUint8(uint8(i + v.n))
	}
	w.WriteBits(1, 3) // an odd total length
}

func (v *varEnt) ReadSnapshot(r *bitmsg.DeltaReader) {
	v.n = int(r.ReadBits(8))
	for range v.n {
		r.ReadUint8()
	}
	r.ReadBits(3)
}

// TestBaseGrowAndCompact applies states that grow and shrink until the
// arena is compacted, and checks the base always equals one built afresh
// from the same states.
func TestBaseGrowAndCompact(t *testing.T) {
	reg := game.NewRegistry()
	typ := reg.MustRegister(game.EntityType{Name: "var", New: func() game.Entity { return &varEnt{} }})
	world := game.NewEntityTable(reg)
	for i := range 2000 {
		e, _ := world.Spawn(game.EntityNum(i*2), typ)
		e.(*varEnt).n = i % 5
	}
	base := NewCommonBase(0)
	if err := base.Init(world, nil); err != nil {
		t.Fatal(err)
	}
	codec := NewStateCodec()
	p := pending{pvs: new(PVS)}
	compactions := 0
	for round := 1; round <= 30; round++ {
		p.reset(0) // seq 0 so the hash compares with a fresh Init
		for n, e := range world.Entities() {
			v := e.(*varEnt)
			v.n = (int(n) + round*37) % 120
			st, nb, err := codec.Save(v)
			if err != nil {
				t.Fatal(err)
			}
			p.addEnt(n, typ, st, nb, 0)
		}
		before := base.garbage
		base.apply(&p)
		if base.garbage < before {
			compactions++
		}
		ref := NewCommonBase(0)
		if err := ref.Init(world, nil); err != nil {
			t.Fatal(err)
		}
		if ref.Hash() != base.Hash() {
			t.Fatalf("round %d: applied base differs from a fresh one", round)
		}
	}
	if compactions == 0 {
		t.Fatal("the arena was never compacted")
	}
	if live := 2000 * 122; base.MemoryBytes() > game.MaxEntities*16+4*live {
		t.Fatalf("base holds %d bytes for %d live", base.MemoryBytes(), live)
	}
}
