package refgame

import (
	"errors"
	"testing"

	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/game"
)

func TestConfigString(t *testing.T) {
	for _, c := range []Config{
		{},
		{Seed: 42, RoomsX: 4, RoomsY: 2, RoomTiles: 10, MaxPlayers: 8, Entities: 500},
		{Entities: 4096, StaticFill: true, MaxPlayers: 64},
	} {
		s := c.String()
		got, err := ParseConfig(s)
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		if got != c.withDefaults() || got.String() != s {
			t.Fatalf("%q parsed as %+v", s, got)
		}
	}
	if got, err := ParseConfig("arena"); err != nil || got != (Config{}).withDefaults() {
		t.Fatalf("bare arena: %+v %v", got, err)
	}
	for _, bad := range []string{"", "quake", "arena rooms=3", "arena rooms=ax3", "arena tiles=5", "arena players=65",
		"arena entities=4097", "arena color=red", "arena seed", "arena seed=-1", "arena rooms=17x1"} {
		if _, err := ParseConfig(bad); !errors.Is(err, ErrConfig) {
			t.Errorf("%q: err %v", bad, err)
		}
	}
	var w World
	if err := w.Load("arena rooms=2x2"); err != nil || len(w.Map.Rooms) != 4 {
		t.Fatalf("Load: %v", err)
	}
	if NewGame().Load("arena tiles=2") == nil {
		t.Fatal("Load accepts a bad map")
	}
}

// The fill reaches the asked entity count exactly, and StaticFill props never change.
func TestMapFill(t *testing.T) {
	for _, n := range []int{100, 500, 4096} {
		for _, static := range []bool{false, true} {
			// 16 players take 80 numbers with their rockets; the 3x3 map's doors, lights and
			// pickups 39 more: ask for 8 players to fit in 100.
			w, err := NewWorld(Config{Seed: 2, Entities: n, StaticFill: static, MaxPlayers: 8})
			if err != nil {
				t.Fatal(err)
			}
			m := w.Map
			if m.NumEntities != n {
				t.Fatalf("%d: map has %d entities", n, m.NumEntities)
			}
			count := 0
			for range w.Entities() {
				count++
			}
			if want := n - m.FirstDoor; count != want {
				t.Fatalf("%d: %d present, want %d", n, count, want)
			}
			fixed := 9 + 9*2 // one light and two pickups per room
			if static {
				if len(m.lights)+len(m.pickups) != fixed {
					t.Fatalf("static fill added lights or pickups")
				}
				for _, p := range m.props {
					if p.Spin != 0 {
						t.Fatal("a static prop spins")
					}
				}
				before := hashWorld(t, w)
				for f := game.Frame(1); f <= 100; f++ {
					w.RunFrame(&game.Tick{Frame: f, Events: game.Discard})
				}
				if after := hashWorld(t, w); after != before {
					t.Fatal("a static map changed with nobody in it")
				}
			} else if n == 4096 && (len(m.lights) <= 9 || len(m.pickups) <= 18 || len(m.props) == 0) {
				t.Fatalf("fill mix: %d lights %d pickups %d props", len(m.lights), len(m.pickups), len(m.props))
			}
			// Every map entity lies on its room's floor.
			for i, l := range m.lights {
				if r, _ := m.RoomAt(l.Pos.X, l.Pos.Y); r != l.Room {
					t.Fatalf("light %d in room %d, not %d", i, r, l.Room)
				}
			}
			for i, p := range m.pickups {
				if r, _ := m.RoomAt(p.Pos.X, p.Pos.Y); r != p.Room {
					t.Fatalf("pickup %d in room %d, not %d", i, r, p.Room)
				}
			}
		}
	}
	// Fewer entities than the map's own: no fill.
	if m, err := NewMap(Config{Entities: 100}); err != nil || m.NumEntities != 119 || len(m.props) != 0 {
		t.Fatalf("small fill: %v", err)
	}
}

func TestMapGeometry(t *testing.T) {
	m, err := NewMap(Config{})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Rooms) != 9 || len(m.Doors) != 12 || len(m.Spawns) != 36 {
		t.Fatalf("%d rooms %d doors %d spawns", len(m.Rooms), len(m.Doors), len(m.Spawns))
	}
	for i, d := range m.Doors {
		// The door centre is in the doorway, between its two rooms.
		if r, dd := m.RoomAt(d.CX, d.CY); r != -1 || dd != i {
			t.Fatalf("door %d centre in room %d door %d", i, r, dd)
		}
		if m.roomDist(d.Rooms[0], d.Rooms[1]) != 1 {
			t.Fatalf("door %d joins rooms %v", i, d.Rooms)
		}
		for _, r := range d.Rooms {
			a := m.doorApproach(i, r)
			if got, _ := m.RoomAt(a.X, a.Y); got != r {
				t.Fatalf("door %d approach from %d is in room %d", i, r, got)
			}
		}
	}
	var w World
	w.Map = m
	w.Doors = make([]Door, len(m.Doors))
	for i, s := range m.Spawns {
		if !w.boxClear(s, 2*PlayerRadius) {
			t.Fatalf("spawn %d at %v is near a wall", i, s)
		}
	}
}

func TestYaw(t *testing.T) {
	if sinYaw(0) != 0 || cosYaw(0) != 1 || sinYaw(16384) != 1 || cosYaw(32768) != -1 || sinYaw(49152) != -1 {
		t.Fatal("sine table endpoints")
	}
	for y := 0; y < 65536; y++ {
		d := yawDir(uint16(y))
		if l := d.lenSq(); l < 0.99999 || l > 1.00001 {
			t.Fatalf("yaw %d: |dir|^2 = %v", y, l)
		}
		back := yawOf(d.X, d.Y)
		if diff := int16(back - uint16(y)); diff < -1 || diff > 1 {
			t.Fatalf("yawOf(yawDir(%d)) = %d", y, back)
		}
	}
}

func TestRegistry(t *testing.T) {
	r := NewRegistry()
	for id, name := range map[game.TypeID]string{TypePlayer: "arena.player", TypeRocket: "arena.rocket", TypeDoor: "arena.door",
		TypeLight: "arena.light", TypePickup: "arena.pickup", TypeProp: "arena.prop"} {
		if got, ok := r.TypeByName(name); !ok || got != id {
			t.Fatalf("%s is type %d, want %d", name, got, id)
		}
	}
	if r.NumStates() != 2 || r.Hash() != NewRegistry().Hash() {
		t.Fatal("states or hash")
	}
	w, _ := NewWorld(Config{})
	if _, err := w.Spawn(0, TypeRocket); !errors.Is(err, game.ErrUnknownType) {
		t.Fatalf("rocket at player slot: %v", err)
	}
	if _, err := w.Spawn(game.EntityNum(w.Map.NumEntities), TypeProp); err == nil {
		t.Fatal("spawn past the map's entities")
	}
	if e, typ := w.Entity(0); e != nil || typ != game.NoType {
		t.Fatal("absent player exists")
	}
	if err := w.ClientConnected(16); err == nil {
		t.Fatal("client 16 on a 16-player map")
	}
	if n, ok := w.PlayerEntity(3); !ok || n != 3 {
		t.Fatal("PlayerEntity")
	}
	last := -1
	for n := range w.Entities() {
		if int(n) <= last {
			t.Fatal("Entities not ascending")
		}
		last = int(n)
	}
	if w.State(0, StateScore) != &w.Score || w.State(200, StateStats) == nil || w.State(0, 9) != nil {
		t.Fatal("State")
	}
}

// Every entity state round-trips exactly, field by field (the layouts are fixed: what Write
// writes, Read reads).
func TestStateRoundTrip(t *testing.T) {
	cases := []game.Snapshotter{
		&Player{X: 123.456, Y: 1e-3, VX: bitmsg.QuantizeHalf(-317.3), VY: 1200, Yaw: 65535, Buttons: ButtonUse, Cooldown: RocketCooldown, Health: 200, Armor: 7, ShotSeq: 3, Respawn: 1 << 30},
		&Rocket{X: 5, Y: 33000, VX: -600, VY: bitmsg.QuantizeHalf(0.1), Expire: 99, Exploded: 98},
		&Door{State: DoorClosing, Since: 12345},
		&Light{On: true},
		&Pickup{Respawn: 777},
		&Prop{Yaw: 4242},
		&PlayerStats{DamageGiven: 65535, DamageTaken: 3, Kills: 999, LastAttacker: 63},
	}
	sb := &Scoreboard{Players: 3, FragLimit: 20, Winner: 2, EndFrame: 5000}
	sb.Slots[0].Frags, sb.Slots[1].Frags, sb.Slots[2].Frags, sb.Slots[2].Deaths = -999, 999, 5, 999
	cases = append(cases, sb)
	for _, c := range cases {
		var dst game.Snapshotter
		switch c.(type) {
		case *Player:
			dst = new(Player)
		case *Rocket:
			dst = new(Rocket)
		case *Door:
			dst = new(Door)
		case *Light:
			dst = new(Light)
		case *Pickup:
			dst = new(Pickup)
		case *Prop:
			dst = new(Prop)
		case *PlayerStats:
			dst = new(PlayerStats)
		case *Scoreboard:
			dst = new(Scoreboard)
		}
		roundTrip(t, dst, c)
		b1, n1, _ := stateBits(c, make([]byte, 512))
		b2, n2, _ := stateBits(dst, make([]byte, 512))
		if n1 != n2 || string(b1) != string(b2) {
			t.Fatalf("%T: %+v read back as %+v", c, c, dst)
		}
	}
}
