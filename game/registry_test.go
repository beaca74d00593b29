package game

import (
	"errors"
	"testing"

	"github.com/snapwire/snapwire/bitmsg"
)

type dummy struct{ v uint32 }

func (d *dummy) WriteSnapshot(w *bitmsg.DeltaWriter) { w.WriteBits(d.v, 8) }
func (d *dummy) ReadSnapshot(r *bitmsg.DeltaReader)  { d.v = r.ReadBits(8) }

func newDummy() Entity           { return &dummy{} }
func newDummyState() Snapshotter { return &dummy{} }

func TestRegistryOrderAndHash(t *testing.T) {
	build := func(names ...string) *Registry {
		r := NewRegistry()
		for _, n := range names {
			r.MustRegister(EntityType{Name: n, New: newDummy})
		}
		r.MustRegisterState(StateType{Name: "game", New: newDummyState})
		return r
	}
	a, b := build("player", "rocket", "door"), build("player", "rocket", "door")
	if a.Hash() != b.Hash() {
		t.Fatal("equal registries hash differently")
	}
	if id, _ := a.TypeByName("door"); id != 3 {
		t.Fatalf("door = %d, want 3 (registration order from 1)", id)
	}
	if a.maxID() != 3 || a.NumStates() != 1 {
		t.Fatalf("maxID %d NumStates %d", a.maxID(), a.NumStates())
	}
	if c := build("player", "door", "rocket"); c.Hash() == a.Hash() {
		t.Fatal("order change not in hash")
	}
	d := build("player", "rocket", "door")
	d.MustRegister(EntityType{Name: "corpse", New: newDummy, Mode: Interpolate})
	if d.Hash() == a.Hash() || d.Mode(4) != Interpolate || d.Mode(1) != Predict {
		t.Fatal("mode or extra type not in hash")
	}
	e := build("player", "rocket", "door")
	e.MustRegisterState(StateType{Name: "player", New: newDummyState})
	if e.Hash() == a.Hash() {
		t.Fatal("state not in hash")
	}
}

func TestRegistryExplicitAndErrors(t *testing.T) {
	r := NewRegistry()
	if err := r.RegisterAs(10, EntityType{Name: "ten", New: newDummy}); err != nil {
		t.Fatal(err)
	}
	if id, err := r.Register(EntityType{Name: "eleven", New: newDummy}); err != nil || id != 11 {
		t.Fatalf("next after explicit 10 = %d, %v", id, err)
	}
	if r.known(5) || !r.known(10) || r.known(0) {
		t.Fatal("known wrong")
	}
	if _, err := r.New(5); !errors.Is(err, ErrUnknownType) {
		t.Fatalf("New(5) err %v", err)
	}
	for name, err := range map[string]error{
		"dup id":   r.RegisterAs(10, EntityType{Name: "x", New: newDummy}),
		"dup name": r.RegisterAs(12, EntityType{Name: "ten", New: newDummy}),
		"zero id":  r.RegisterAs(0, EntityType{Name: "y", New: newDummy}),
		"too big":  r.RegisterAs(MaxTypeID+1, EntityType{Name: "z", New: newDummy}),
		"no new":   r.RegisterAs(13, EntityType{Name: "w"}),
		"no name":  r.RegisterAs(14, EntityType{New: newDummy}),
	} {
		if err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	for i := 0; i < MaxStates; i++ {
		if _, err := r.RegisterState(StateType{Name: string(rune('a' + i)), New: newDummyState}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := r.RegisterState(StateType{Name: "overflow", New: newDummyState}); err == nil {
		t.Fatal("more than MaxStates accepted")
	}
}

func TestEntityTable(t *testing.T) {
	r := NewRegistry()
	p := r.MustRegister(EntityType{Name: "p", New: newDummy})
	tab := NewEntityTable(r)
	for _, n := range []EntityNum{9, 2, 4000} {
		if _, err := tab.Spawn(n, p); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tab.Spawn(3, 99); err == nil {
		t.Fatal("unknown type spawned")
	}
	if _, err := tab.Spawn(MaxEntities, p); err == nil {
		t.Fatal("entity number out of range spawned")
	}
	var got []EntityNum
	for n := range tab.Entities() {
		got = append(got, n)
	}
	if len(got) != 3 || got[0] != 2 || got[1] != 9 || got[2] != 4000 || tab.Len() != 3 {
		t.Fatalf("Entities = %v, Len %d", got, tab.Len())
	}
	tab.Remove(9)
	tab.Remove(9)
	if e, typ := tab.Entity(9); e != nil || typ != NoType || tab.Len() != 2 {
		t.Fatal("Remove")
	}
}
