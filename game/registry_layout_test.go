package game

import "testing"

// declaredDummy stands for a generated codec: its SnapFields is written
// by hand here, as the generator would write it.
type declaredDummy struct {
	dummy
	layout string
}

func (d *declaredDummy) SnapFields() string { return d.layout }

func TestRegistryHashLayout(t *testing.T) {
	build := func(entity, state string) *Registry {
		r := NewRegistry()
		r.MustRegister(EntityType{Name: "player", New: func() Entity { return &declaredDummy{layout: entity} }})
		r.MustRegister(EntityType{Name: "door", New: newDummy})
		r.MustRegisterState(StateType{Name: "game", New: func() Snapshotter { return &declaredDummy{layout: state} }})
		return r
	}
	a := build("X float[-4096,4096]/0.125;Health int[0,100]", "Time uint32")
	if a.Hash() != build("X float[-4096,4096]/0.125;Health int[0,100]", "Time uint32").Hash() {
		t.Fatal("equal layouts hash differently")
	}
	for _, c := range []struct{ entity, state string }{
		{"X float[-4096,4096]/0.125;Health int[0,200]", "Time uint32"}, // a width
		{"Health int[0,100];X float[-4096,4096]/0.125", "Time uint32"}, // the order
		{"X float[-4096,4096]/0.125;HP int[0,100]", "Time uint32"},     // a name
		{"X float[-4096,4096]/0.125", "Time uint32"},                   // a field less
		{"X float[-4096,4096]/0.125;Health int[0,100]", "Time uint16"}, // a state's
	} {
		if build(c.entity, c.state).Hash() == a.Hash() {
			t.Errorf("layout %q / %q hashes as %q / %q", c.entity, c.state, "X float[-4096,4096]/0.125;Health int[0,100]", "Time uint32")
		}
	}
	// The layout section cannot be confused with a neighbour's: a layout
	// moved from the entity to the state changes the hash.
	if build("", "X float[-4096,4096]/0.125;Health int[0,100]").Hash() == build("X float[-4096,4096]/0.125;Health int[0,100]", "").Hash() {
		t.Error("a layout moved between types hashes the same")
	}
}

// A registry of hand-written codecs hashes by names and modes only, as it
// did before layouts were hashed: the figure below is that hash.
func TestRegistryHashHandWrittenUnchanged(t *testing.T) {
	r := NewRegistry()
	r.MustRegister(EntityType{Name: "player", New: newDummy})
	r.MustRegister(EntityType{Name: "corpse", New: newDummy, Mode: Interpolate})
	r.MustRegisterState(StateType{Name: "game", New: newDummyState})
	if got := r.Hash(); got != handWrittenHash {
		t.Fatalf("hash %#x, want %#x", got, handWrittenHash)
	}
	// An empty layout is a hand-written codec.
	r2 := NewRegistry()
	r2.MustRegister(EntityType{Name: "player", New: func() Entity { return &declaredDummy{} }})
	r2.MustRegister(EntityType{Name: "corpse", New: newDummy, Mode: Interpolate})
	r2.MustRegisterState(StateType{Name: "game", New: newDummyState})
	if r2.Hash() != handWrittenHash {
		t.Fatal("an empty SnapFields changes the hash")
	}
}

// handWrittenHash is the hash of TestRegistryHashHandWrittenUnchanged's
// registry before layouts were hashed (measured at commit 3c22218).
const handWrittenHash = 0x5c206fd41ba54aee
