package refgame

import "testing"

func TestPlayerInterpolate(t *testing.T) {
	from := &Player{X: 100, Y: 200, Health: 50}
	to := &Player{X: 140, Y: 180, VX: 3, Yaw: 77, Health: 40, Armor: 9}
	var p Player
	p.Interpolate(from, to, 0.25)
	if p.X != 110 || p.Y != 195 || p.Yaw != 77 || p.Health != 40 || p.Armor != 9 || p.VX != 3 {
		t.Errorf("quarter way: %+v", p)
	}
	p.Interpolate(from, to, 1)
	if p != *to {
		t.Errorf("at the newer state: %+v", p)
	}
	// A respawn (far away, or dead in one of them) jumps.
	far := &Player{X: 100 + 9*TileSize, Y: 200, Health: 200}
	p.Interpolate(from, far, 0.5)
	if p != *far {
		t.Errorf("teleport interpolated: %+v", p)
	}
	dead := &Player{X: 100, Y: 200}
	p.Interpolate(dead, to, 0.5)
	if p != *to {
		t.Errorf("from a dead state: %+v", p)
	}
}
