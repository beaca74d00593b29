package refgame

import (
	"testing"

	"github.com/snapwire/snapwire/game"
)

// Guards against: the coarse path leaking into ordinary frames. A coarse
// frame of one frame is an ordinary frame, bit for bit, over a whole
// deathmatch (rockets, deaths, respawns, doors, pickups).
func TestCoarseFrameOfOneIsRunFrame(t *testing.T) {
	cfg := Config{Seed: 5, MaxPlayers: 16}
	a := newMatch(t, cfg, 12, BotDeathmatch)
	b := newMatch(t, cfg, 12, BotDeathmatch)
	for f := game.Frame(1); f <= 3000; f++ {
		a.run(f, a.commands(f))
		b.ev.Reset()
		b.ev.Frame = f
		b.tick = game.Tick{Frame: f, Cmds: b.commands(f), Events: &b.ev}
		b.w.RunCoarseFrame(&b.tick, game.CoarseStep{Exact: 3, HasExact: true, Frames: 1})
		if f%100 == 0 {
			if ha, hb := hashWorld(t, a.w), hashWorld(t, b.w); ha != hb {
				t.Fatalf("frame %d: world %x run frame by frame, %x in coarse frames of one", f, ha, hb)
			}
		}
	}
}

// coarseCase predicts k frames from a copy of m's world twice, as a client
// does (the latest commands repeated): frame by frame, and with player me
// exact and every other entity in one step of k frames.
func coarseCase(t *testing.T, m *match, me game.EntityNum, k int) (exact, coarse *World) {
	t.Helper()
	cfg := m.w.Map.Config()
	exact, _ = NewWorld(cfg)
	coarse, _ = NewWorld(cfg)
	copyWorld(t, exact, m.w, nil)
	copyWorld(t, coarse, m.w, nil)
	f0 := m.w.Frame()
	cmds := append([]game.PlayerCmd(nil), m.commands(f0+1)...)
	for i := 1; i <= k; i++ {
		f := f0 + game.Frame(i)
		for j := range cmds {
			cmds[j].Cmd.Frame = f
		}
		tk := game.Tick{Frame: f, Cmds: cmds, Events: game.Discard, Predicting: true}
		exact.RunFrame(&tk)
		step := game.CoarseStep{Exact: me, HasExact: true}
		if i == k {
			step.Frames = k
		}
		coarse.RunCoarseFrame(&tk, step)
	}
	return exact, coarse
}

// Acceptance (DOOM III §8, re-prediction in larger steps): from every
// 20th frame of a 16-player deathmatch, 4 frames predicted with the
// others in one step land the other players and rockets near where 4
// frames one by one put them (measured: 0.55 units on average, the worst 19;
// the largest gaps come from rockets exploding a frame apart and the
// knockback they give), never inside a wall, and a player respawning
// inside the step at the spawn point of the frame-by-frame run.
//
// Guards against: a step that ignores its length (the others would lag k-1
// frames: about 16 units at running speed), a long move that skips a wall,
// a respawn dated at the step's end (another spawn point: hundreds of
// units), an exact player that is not run every frame.
func TestCoarseStepsFollowFrameByFrame(t *testing.T) {
	const k = 4
	m := newMatch(t, Config{Seed: 7, MaxPlayers: 16}, 16, BotDeathmatch)
	var cases, moved, far, respawns int
	var sum, worst float64
	for f := 1; f <= 2400; f++ {
		m.step()
		if f%20 != 0 || f < 120 {
			continue
		}
		me := game.EntityNum(f / 20 % 16)
		exact, coarse := coarseCase(t, m, me, k)
		cases++
		for i := range exact.Players {
			pe, pc := &exact.Players[i], &coarse.Players[i]
			if !pe.Alive() && !pc.Alive() {
				continue
			}
			if pc.Alive() && !coarse.boxClear(vec2{pc.X, pc.Y}, PlayerRadius) && exact.boxClear(vec2{pe.X, pe.Y}, PlayerRadius) {
				t.Errorf("frame %d: player %d stepped into a wall at (%.1f, %.1f)", f, i, pc.X, pc.Y)
			}
			if !m.w.Players[i].Alive() && pe.Alive() {
				respawns++
			}
			d := float64(vec2{pe.X - pc.X, pe.Y - pc.Y}.length())
			if game.EntityNum(i) == me {
				continue
			}
			moved++
			sum += d
			worst = max(worst, d)
			if d > 2*TileSize {
				far++
			}
		}
	}
	mean := sum / float64(moved)
	t.Logf("%d cases, %d players compared (%d respawns): mean gap %.3f units, worst %.1f, %d beyond two tiles", cases, moved, respawns, mean, worst, far)
	if cases < 100 || moved < 1000 || respawns == 0 {
		t.Fatalf("%d cases, %d players, %d respawns: the match did not exercise the step", cases, moved, respawns)
	}
	if mean > 1 || far > moved/100 {
		t.Errorf("coarse steps %.3f units from frame by frame on average, %d of %d beyond two tiles", mean, far, moved)
	}
}
