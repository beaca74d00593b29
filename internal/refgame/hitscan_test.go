package refgame

import (
	"testing"

	"github.com/snapwire/snapwire/game"
)

// hitscanWorld is a 3x3 map with players 0 (the shooter) and 1 in room 0.
func hitscanWorld(t *testing.T) *World {
	t.Helper()
	w, err := NewWorld(Config{Seed: 1, MaxPlayers: 4})
	if err != nil {
		t.Fatal(err)
	}
	for c := range 3 {
		if err := w.ClientConnected(game.ClientNum(c)); err != nil {
			t.Fatal(err)
		}
	}
	r := w.Map.Rooms[0]
	w.Players[0].X, w.Players[0].Y = r.MinX+40, r.MinY+40
	w.Players[1].X, w.Players[1].Y = r.MinX+240, r.MinY+40
	w.Players[2].X, w.Players[2].Y = 8000, 8000 // out of the way
	w.Players[2].Health = 0
	return w
}

// Acceptance: a hitscan shot hits the first player box on its ray, misses
// one it passes beside, stops at walls and closed doors, passes dead
// players, and takes the players where at places them.
//
// Guards against: a trace that ignored walls (lag compensation's "behind
// cover" cases would vanish), that hit the shooter, or that ignored the
// placement (a rewound check would test the present).
func TestHitscan(t *testing.T) {
	w := hitscanWorld(t)
	p0, p1 := &w.Players[0], &w.Players[1]
	aim := YawTo(p0.X, p0.Y, p1.X, p1.Y)
	if hit, ok := w.Hitscan(0, p0.X, p0.Y, aim, nil); !ok || hit != 1 {
		t.Errorf("aimed at player 1: %v %v", hit, ok)
	}
	// 13 units off the centre passes beside a box of half-size 12.
	if _, ok := w.Hitscan(0, p0.X, p0.Y, YawTo(p0.X, p0.Y, p1.X, p1.Y+PlayerRadius+1), nil); ok {
		t.Error("a shot passing beside the box hit")
	}
	if _, ok := w.Hitscan(0, p0.X, p0.Y, YawTo(p0.X, p0.Y, p1.X, p1.Y+PlayerRadius-1), nil); !ok {
		t.Error("a shot grazing the box missed")
	}
	// Placed elsewhere, player 1 is not on the ray any more; placed on it
	// from elsewhere, it is.
	away := func(n game.EntityNum) (x, y, z float32, ok bool) { return p1.X, p1.Y + 100, 0, true }
	if _, ok := w.Hitscan(0, p0.X, p0.Y, aim, away); ok {
		t.Error("the placement was ignored")
	}
	// Behind the wall: the same player in room 1, whose doors are closed.
	r1 := w.Map.Rooms[1]
	p1.X, p1.Y = r1.MinX+40, p0.Y
	if _, ok := w.Hitscan(0, p0.X, p0.Y, YawTo(p0.X, p0.Y, p1.X, p1.Y), nil); ok {
		t.Error("a shot went through a wall")
	}
	if w.ClearLine(p0.X, p0.Y, p1.X, p1.Y) {
		t.Error("a line of sight through a wall")
	}
	p1.X = w.Map.Rooms[0].MaxX - 20
	if !w.ClearLine(p0.X, p0.Y, p1.X, p1.Y) {
		t.Error("no line of sight inside a room")
	}
	// A dead player stops nothing; the shooter never hits itself.
	p1.Health = 0
	if _, ok := w.Hitscan(0, p0.X, p0.Y, aim, nil); ok {
		t.Error("hit a dead player")
	}
	p1.Health = SpawnHealth
	if hit, ok := w.Hitscan(1, p1.X, p1.Y, YawTo(p1.X, p1.Y, p0.X, p0.Y), nil); !ok || hit != 0 {
		t.Errorf("shooter 1 from inside its own box at player 0: %v %v", hit, ok)
	}
}

// Acceptance: YawTo aims within a hundredth of a unit per 100 units.
//
// Guards against: an aim whose quantisation alone would miss a far target.
func TestYawTo(t *testing.T) {
	for _, d := range [][2]float32{{100, 0}, {0, 100}, {-70, 70}, {3, -4000}, {-2500, -1}} {
		dir := yawDir(YawTo(10, 10, 10+d[0], 10+d[1]))
		l := vec2{d[0], d[1]}.length()
		// Perpendicular miss at the target's distance.
		miss := abs32(float32(dir.X*d[1]) - float32(dir.Y*d[0]))
		if miss > l*2e-4 {
			t.Errorf("aim at %v misses by %v", d, miss)
		}
	}
}
