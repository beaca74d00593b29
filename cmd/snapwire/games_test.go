package main

import (
	"strings"
	"testing"

	"github.com/snapwire/snapwire/internal/crowdgame"
)

// serve --game crowd holds a match of 1,024 players; the arena, the
// default, stays capped at 64 and says where a larger match is; the crowd
// takes no arena settings; load takes the same --game.
func TestServeGameFlag(t *testing.T) {
	o, err := parseServeFlags([]string{"--insecure", "--game", "crowd", "--max-clients", "1024"})
	if err != nil {
		t.Fatal(err)
	}
	if s, err := serveSettings(o); err != nil || s != crowdgame.Settings {
		t.Errorf("crowd settings %q, %v", s, err)
	}
	o, err = parseServeFlags([]string{"--insecure", "--max-clients", "512"})
	if err != nil {
		t.Fatal(err)
	}
	if o.game != gameArena {
		t.Errorf("default game %q", o.game)
	}
	if _, err := serveSettings(o); err == nil || !strings.Contains(err.Error(), "--game crowd") {
		t.Errorf("arena of 512: %v", err)
	}
	for _, args := range [][]string{
		{"--insecure", "--game", "crowd", "--map", "arena rooms=4x4"},
		{"--insecure", "--game", "quake"},
	} {
		if _, err := parseServeFlags(args); err == nil {
			t.Errorf("%q accepted", args)
		}
	}
	if lo, err := parseLoadFlags([]string{"--game", "crowd"}); err != nil || lo.game != gameCrowd {
		t.Errorf("load --game crowd: %+v, %v", lo, err)
	}
	if _, err := parseLoadFlags([]string{"--game", "quake"}); err == nil {
		t.Error("load --game quake accepted")
	}
	if g, w := serveGame(gameCrowd); w != nil || g.Registry().Hash() != crowdgame.NewRegistry().Hash() {
		t.Errorf("serveGame(crowd): %T, arena world %v", g, w != nil)
	}
}
