package refgame

import (
	"slices"
	"testing"

	"github.com/snapwire/snapwire/game"
)

func TestPVS(t *testing.T) {
	// Three rooms in a row: 0 | 1 | 2, door 0 joins 0-1, door 1 joins 1-2.
	cfg := Config{RoomsX: 3, RoomsY: 1, RoomTiles: 8, MaxPlayers: 4}
	m := newMatch(t, cfg, 4, BotDeathmatch)
	w := m.w
	mp := w.Map
	if len(mp.Doors) != 2 || mp.Doors[0].Rooms != [2]int{0, 1} || mp.Doors[1].Rooms != [2]int{1, 2} {
		t.Fatalf("doors %+v", mp.Doors)
	}
	center := func(r int) (float32, float32) { return mp.Rooms[r].Center() }
	x0, y0 := center(0)
	x1, y1 := center(1)
	x2, y2 := center(2)
	place(w, 0, x0, y0)
	place(w, 1, x1, y1)
	place(w, 2, x2, y2)
	place(w, 3, x2+40, y2)
	// A rocket in room 1.
	rk := game.EntityNum(mp.FirstRocket + 3*RocketSlots)
	if _, err := w.Spawn(rk, TypeRocket); err != nil {
		t.Fatal(err)
	}
	w.Rockets[3*RocketSlots] = Rocket{X: x1 + 50, Y: y1, Expire: 1000}
	door := func(i int) game.EntityNum { return game.EntityNum(mp.FirstDoor + i) }
	light := func(r int) game.EntityNum { return game.EntityNum(mp.FirstLight + r) }
	pick := func(r int) []game.EntityNum {
		return []game.EntityNum{game.EntityNum(mp.FirstPickup + 2*r), game.EntityNum(mp.FirstPickup + 2*r + 1)}
	}
	room := func(r int) []game.EntityNum { return append([]game.EntityNum{light(r)}, pick(r)...) }
	set := func(ns ...[]game.EntityNum) []game.EntityNum {
		var out []game.EntityNum
		for _, n := range ns {
			out = append(out, n...)
		}
		slices.Sort(out)
		return out
	}
	one := func(n ...game.EntityNum) []game.EntityNum { return n }
	visible := func(c game.ClientNum) []game.EntityNum {
		var s entitySet
		w.Visible(c, &s)
		return s.list()
	}
	check := func(name string, c game.ClientNum, want []game.EntityNum) {
		t.Helper()
		if got := visible(c); !slices.Equal(got, want) {
			t.Fatalf("%s: client %d sees %v, want %v", name, c, got, want)
		}
	}
	check("all closed", 0, set(one(0, door(0)), room(0)))
	check("all closed, middle", 1, set(one(1, rk, door(0), door(1)), room(1)))
	w.Doors[1].State = DoorOpen
	check("far door open", 0, set(one(0, door(0)), room(0)))
	w.Doors[1].State = DoorClosed
	w.Doors[0].State = DoorOpening
	check("near door opening", 0, set(one(0, 1, rk, door(0), door(1)), room(0), room(1)))
	w.Doors[1].State = DoorClosing
	check("two doors in line", 0, set(one(0, 1, 2, 3, rk, door(0), door(1)), room(0), room(1), room(2)))
	w.Doors[0].State = DoorClosed
	check("from room 2", 2, set(one(1, 2, 3, rk, door(0), door(1)), room(1), room(2)))
	// Standing in doorway 0 (open) sees both rooms and, through door 1, room 2.
	w.Doors[0].State = DoorOpen
	place(w, 0, mp.Doors[0].CX, mp.Doors[0].CY)
	if r, d := mp.RoomAt(w.Players[0].X, w.Players[0].Y); r != -1 || d != 0 {
		t.Fatalf("doorway is room %d door %d", r, d)
	}
	check("in the doorway", 0, set(one(0, 1, 2, 3, rk, door(0), door(1)), room(0), room(1), room(2)))
	// Player 0 in the doorway is seen from room 1 and from room 0, not from room 2 with door 1 shut.
	w.Doors[1].State = DoorClosed
	check("seen in the doorway", 1, set(one(0, 1, rk, door(0), door(1)), room(0), room(1)))
	check("hidden behind door 1", 2, set(one(2, 3, door(1)), room(2)))
	// A client without a player sees nothing.
	w.Remove(3)
	check("no player", 3, nil)
}

// Two hops only straight on: on a 3x3 grid, looking east into room 1 does not show room 4, north
// of it, even with both doors open.
func TestPVSNoCorners(t *testing.T) {
	cfg := Config{RoomsX: 3, RoomsY: 3, RoomTiles: 8, MaxPlayers: 1}
	w, err := NewWorld(cfg)
	if err != nil {
		t.Fatal(err)
	}
	mp := w.Map
	for _, pair := range [][2]int{{0, 1}, {1, 4}, {1, 2}, {0, 3}, {3, 6}} {
		w.Doors[mp.doorBetween(pair[0], pair[1])].State = DoorOpen
	}
	x, y := mp.Rooms[0].Center()
	s := w.VisibleRooms(x, y)
	var got []int
	for r := range mp.Rooms {
		if s.Has(r) {
			got = append(got, r)
		}
	}
	if want := []int{0, 1, 2, 3, 6}; !slices.Equal(got, want) {
		t.Fatalf("visible rooms %v, want %v", got, want)
	}
}

// Building a client's PVS and walking the entity list allocate nothing (the server does both for
// every client at every snapshot).
func TestVisibleAllocs(t *testing.T) {
	m := newMatch(t, Config{Seed: 1, Entities: 4096}, 16, BotDeathmatch)
	for i := 0; i < 300; i++ {
		m.step()
	}
	var s entitySet
	allocs := testing.AllocsPerRun(100, func() {
		for c := game.ClientNum(0); c < 16; c++ {
			m.w.Visible(c, &s)
		}
		for n, e := range m.w.Entities() {
			if e == nil {
				t.Fatalf("entity %d is nil", n)
			}
		}
	})
	if allocs != 0 {
		t.Fatalf("%v allocations", allocs)
	}
}

func BenchmarkVisible(b *testing.B) {
	m := newMatch(b, Config{Seed: 1, Entities: 4096}, 16, BotDeathmatch)
	for i := 0; i < 300; i++ {
		m.step()
	}
	var s entitySet
	b.ReportAllocs()
	for b.Loop() {
		s = entitySet{}
		m.w.Visible(5, &s)
	}
	b.ReportMetric(float64(len(s.list())), "entities")
}
