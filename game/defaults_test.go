package game

import (
	"slices"
	"testing"
)

// minimalGame is the least a game embedding *EntityTable writes to be a
// Game: ClientConnected and RunFrame.
type minimalGame struct{ *EntityTable }

func (minimalGame) ClientConnected(ClientNum) error { return nil }
func (minimalGame) RunFrame(*Tick)                  {}

var _ Game = minimalGame{}

// numberList is an EntitySet that keeps what it is given, in order.
type numberList []EntityNum

func (l *numberList) Add(n EntityNum) { *l = append(*l, n) }

// defaultsTable is a table (and its owned type) of owned and unowned entities: 0 owned by
// client 3, 1 unowned, 2 owned by client 5, 3 owned by client 3.
func defaultsTable(t *testing.T) (*EntityTable, TypeID) {
	t.Helper()
	r := NewRegistry()
	owned := r.MustRegister(EntityType{Name: "pet", New: func() Entity { return &ownedProbe{} }})
	rock := r.MustRegister(EntityType{Name: "rock", New: func() Entity { return unownedProbe{} }})
	tab := NewEntityTable(r)
	for _, c := range []ClientNum{3, 9, 5, 3} {
		typ := owned
		if c == 9 {
			typ = rock
		}
		_, e, err := tab.Add(typ)
		if err != nil {
			t.Fatal(err)
		}
		if o, ok := e.(*ownedProbe); ok {
			o.owner = c
		}
	}
	return tab, owned
}

// TestEntityTableDefaults: the Game methods EntityTable gives a game that
// embeds it.
func TestEntityTableDefaults(t *testing.T) {
	tab, owned := defaultsTable(t)
	for _, c := range []struct {
		client ClientNum
		want   EntityNum
		ok     bool
	}{{3, 0, true}, {5, 2, true}, {9, 0, false}, {0, 0, false}} {
		if n, ok := tab.PlayerEntity(c.client); n != c.want || ok != c.ok {
			t.Errorf("PlayerEntity(%d) = %d, %v; want %d, %v", c.client, n, ok, c.want, c.ok)
		}
	}
	var seen numberList
	tab.Visible(1, &seen)
	if !slices.Equal(seen, numberList{0, 1, 2, 3}) {
		t.Errorf("Visible added %v, want every entity", seen)
	}
	if s := tab.State(3, 0); s != nil {
		t.Errorf("State = %v, want nil", s)
	}

	tab.ClientDisconnected(3)
	seen = seen[:0]
	tab.Visible(1, &seen)
	if !slices.Equal(seen, numberList{1, 2}) {
		t.Errorf("after client 3 left: %v, want 1 and 2 (client 5's and the unowned)", seen)
	}
	if _, ok := tab.PlayerEntity(3); ok {
		t.Error("client 3 still has a player entity")
	}
	if n, _, _ := tab.Add(owned); n != 4 {
		t.Errorf("Add after ClientDisconnected = %d, want 4 (0 and 3 are held until Recycle)", n)
	}

	if err := tab.Load("any"); err != nil {
		t.Fatal(err)
	}
	if tab.Len() != 0 || tab.Registry() == nil {
		t.Fatalf("after Load: %d entities, registry %v; want none and the registry kept", tab.Len(), tab.Registry())
	}
	if n, _, err := tab.Add(owned); n != 0 || err != nil {
		t.Errorf("Add after Load = %d, %v; want 0 (a new match holds no number)", n, err)
	}
}

// TestAddEntity: AddEntity stores the entity given at the lowest free
// number, skips held numbers as Add does, and refuses an unknown type or
// a nil entity without taking a number.
func TestAddEntity(t *testing.T) {
	tab, owned := defaultsTable(t) // 0..3 live
	tab.Remove(1)                  // held until Recycle
	pet := &ownedProbe{owner: 7}
	if n, err := tab.AddEntity(owned, pet); n != 4 || err != nil {
		t.Fatalf("AddEntity = %d, %v; want 4 (1 is held)", n, err)
	}
	if e, typ := tab.Entity(4); e != pet || typ != owned {
		t.Errorf("entity 4 is %v of type %d, want the one given of type %d", e, typ, owned)
	}
	if n, ok := tab.PlayerEntity(7); n != 4 || !ok {
		t.Errorf("PlayerEntity(7) = %d, %v; want 4", n, ok)
	}
	if _, err := tab.AddEntity(99, pet); err == nil {
		t.Error("an unknown type: no error")
	}
	if _, err := tab.AddEntity(owned, nil); err == nil {
		t.Error("a nil entity: no error")
	}
	if n, _, _ := tab.Add(owned); n != 5 {
		t.Errorf("Add after the refusals = %d, want 5 (they took no number)", n)
	}
}
