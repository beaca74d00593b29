package game

import (
	"errors"
	"testing"

	"github.com/snapwire/snapwire/bitmsg"
)

type numEnt struct{}

func (numEnt) WriteSnapshot(w *bitmsg.DeltaWriter) {}
func (numEnt) ReadSnapshot(r *bitmsg.DeltaReader)  {}

func numTable(t testing.TB) (*EntityTable, TypeID) {
	r := NewRegistry()
	typ, err := r.Register(EntityType{Name: "num", New: func() Entity { return numEnt{} }})
	if err != nil {
		t.Fatal(err)
	}
	return NewEntityTable(r), typ
}

func mustAdd(t *testing.T, tab *EntityTable, typ TypeID, want EntityNum) {
	t.Helper()
	n, e, err := tab.Add(typ)
	if err != nil || e == nil || n != want {
		t.Fatalf("Add = %d, %v, %v; want %d", n, e, err, want)
	}
	if got, gt := tab.Entity(n); got == nil || gt != typ {
		t.Fatalf("entity %d not in the table after Add", n)
	}
}

// TestAddHoldsRemovedNumbers: Add hands out the lowest free number; a
// removed number stays out of reach until a Recycle whose applied frame
// is after the frame started when it was removed, and numbers come back
// in removal order.
func TestAddHoldsRemovedNumbers(t *testing.T) {
	tab, typ := numTable(t)
	if _, err := tab.Spawn(1, typ); err != nil { // a number the game chose
		t.Fatal(err)
	}
	mustAdd(t, tab, typ, 0)
	mustAdd(t, tab, typ, 2)
	mustAdd(t, tab, typ, 3)

	tab.Recycle(10, 0) // frame 10 starts; no client holds anything older than 0
	tab.Remove(2)      // removed while frame 10 is the last started
	tab.Recycle(11, 5)
	tab.Remove(0) // removed while frame 11 is the last started
	mustAdd(t, tab, typ, 4)

	tab.Recycle(12, 10) // a base still holds frame 10: 2 stays held
	mustAdd(t, tab, typ, 5)
	tab.Recycle(13, 11) // every base holds frame 11 or later: 2 returns, 0 not yet
	mustAdd(t, tab, typ, 2)
	mustAdd(t, tab, typ, 6)
	tab.Recycle(14, 14)
	mustAdd(t, tab, typ, 0)
	mustAdd(t, tab, typ, 7)
	if tab.Len() != 8 {
		t.Fatalf("Len = %d, want 8", tab.Len())
	}

	// A removal of a number that holds nothing changes nothing.
	tab.Remove(100)
	tab.Remove(MaxEntities + 5)
	tab.Recycle(15, 15)
	mustAdd(t, tab, typ, 8)
}

// TestSpawnTakesHeldNumber: a number the game chooses (Spawn, Put) leaves
// the held list at once, and a later removal holds it again from that
// frame: the client's dormant entity coming back (client.Config's world
// with Put) does not disturb the list.
func TestSpawnTakesHeldNumber(t *testing.T) {
	tab, typ := numTable(t)
	for want := EntityNum(0); want < 4; want++ {
		mustAdd(t, tab, typ, want)
	}
	tab.Recycle(1, 0)
	tab.Remove(1)
	tab.Remove(2)
	tab.Remove(3)
	if err := tab.Put(2, typ, numEnt{}); err != nil { // the middle of the list
		t.Fatal(err)
	}
	tab.Recycle(2, 0)
	tab.Remove(2) // held again, now from frame 2
	tab.Recycle(3, 2)
	mustAdd(t, tab, typ, 1)
	mustAdd(t, tab, typ, 3)
	mustAdd(t, tab, typ, 4) // 2 is still held
	tab.Recycle(4, 3)
	mustAdd(t, tab, typ, 2)

	// Head and tail of the list taken back.
	tab.Remove(0)
	tab.Remove(4)
	tab.Remove(1)
	if _, err := tab.Spawn(0, typ); err != nil {
		t.Fatal(err)
	}
	if _, err := tab.Spawn(1, typ); err != nil {
		t.Fatal(err)
	}
	tab.Recycle(5, 5)
	mustAdd(t, tab, typ, 4)
	mustAdd(t, tab, typ, 5)
}

// TestAddFull: with every number live or held, Add fails with ErrRange and
// changes nothing; a recycled number makes it succeed again.
func TestAddFull(t *testing.T) {
	tab, typ := numTable(t)
	for i := range MaxEntities {
		if n, _, err := tab.Add(typ); err != nil || n != EntityNum(i) {
			t.Fatalf("Add %d = %d, %v", i, n, err)
		}
	}
	tab.Remove(77)
	if _, _, err := tab.Add(typ); !errors.Is(err, ErrRange) {
		t.Fatalf("Add on a full table: %v, want ErrRange", err)
	}
	if tab.Len() != MaxEntities-1 {
		t.Fatalf("Len = %d", tab.Len())
	}
	tab.Recycle(1, 1)
	mustAdd(t, tab, typ, 77)
	if _, _, err := tab.Add(NoType + 99); err == nil {
		t.Fatal("Add of an unregistered type succeeded")
	}
}

// TestRecycleAllocs: removing, recycling and re-adding allocate nothing
// (the server calls Recycle every frame; the client removes and puts
// entities as they leave and re-enter its PVS).
func TestRecycleAllocs(t *testing.T) {
	tab, typ := numTable(t)
	for range 64 {
		if _, _, err := tab.Add(typ); err != nil {
			t.Fatal(err)
		}
	}
	f := Frame(1)
	allocs := testing.AllocsPerRun(100, func() {
		for n := EntityNum(0); n < 64; n += 3 {
			tab.Remove(n)
		}
		tab.Put(3, typ, numEnt{})
		tab.Recycle(f, f)
		f++
		for {
			n, ok := tab.nums.free()
			if !ok || n >= 64 {
				break
			}
			tab.Put(n, typ, numEnt{})
		}
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per frame", allocs)
	}
}

// BenchmarkAddRemove: one spawn and one despawn per frame with 256
// entities live, numbers held for 10 frames (the server's Recycle each
// frame).
func BenchmarkAddRemove(b *testing.B) {
	tab, typ := numTable(b)
	var live [256]EntityNum
	for i := range live {
		live[i], _, _ = tab.Add(typ)
	}
	f := Frame(1)
	b.ReportAllocs()
	for b.Loop() {
		tab.Recycle(f, f-10)
		i := int(f) % len(live)
		tab.Remove(live[i])
		n, _, err := tab.Add(typ)
		if err != nil {
			b.Fatal(err)
		}
		live[i] = n
		f++
	}
}
