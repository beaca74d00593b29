package refgame

import (
	"strings"
	"testing"

	"github.com/snapwire/snapwire/game"
)

// TestDeclared: every entity and state type of the arena has declared fields (game.Declared,
// written by snapgen into snap_gen.go); the layouts name the bounds the simulation relies on.
func TestDeclared(t *testing.T) {
	for _, s := range []game.Snapshotter{new(Player), new(Rocket), new(Door), new(Light), new(Pickup), new(Prop), new(Scoreboard), new(PlayerStats)} {
		if _, ok := s.(game.Declared); !ok {
			t.Errorf("%T is not declared (game.Declared)", s)
		}
	}
	for _, tc := range []struct {
		d    game.Declared
		want string
	}{
		{new(Player), "X float[0,65536];Y float[0,65536];VX half[-1200,1200];VY half[-1200,1200];"},
		{new(Door), "State enum[0,3];"},
		{new(Scoreboard), "Slots [64 len=Players]{Frags int[-999,999],Deaths int[0,999]}"},
	} {
		if got := tc.d.SnapFields(); !strings.Contains(got, tc.want) {
			t.Errorf("%T: layout %q lacks %q", tc.d, got, tc.want)
		}
	}
}
