package refgame

import "github.com/snapwire/snapwire/game"

// Coarse re-prediction (DOOM III §8, game.CoarseStepper): a client re-predicting many frames
// after a snapshot may advance every entity but its own player several frames at once. Inside a
// step only the exact player runs; at the step's last frame the other players integrate friction,
// acceleration and the move over the whole step (their command is the latest known one, which the
// frame-by-frame prediction repeats too), rockets fly the step with every frame's position tested
// against walls and a swept test against players, doors and pickups run their frame checks once
// (their transitions compare frames with >=, so none is missed, only dated at the step's end),
// props spin the step's angle. The server never runs this.

var _ game.CoarseStepper = (*World)(nil)

// RunCoarseFrame implements game.CoarseStepper.
func (w *World) RunCoarseFrame(t *game.Tick, s game.CoarseStep) {
	if s.Frames < 0 {
		s.Frames = 0
	}
	w.runFrame(t, s)
}

// moveBoxLong is moveBox for a move that may be longer than a tile (moveAxis tests at most two
// tiles ahead): the move is split into parts of at most one tile, so no wall is skipped.
func (w *World) moveBoxLong(p, d vec2, h float32) (vec2, bool, bool) {
	parts := int(max(abs32(d.X), abs32(d.Y))/TileSize) + 1
	part := d.scale(float32(1 / float32(parts)))
	var bx, by bool
	for range parts {
		var x, y bool
		p, x, y = w.moveBox(p, part, h)
		if x {
			part.X = 0
		}
		if y {
			part.Y = 0
		}
		bx, by = bx || x, by || y
	}
	return p, bx, by
}

// rocketSteps flies rocket n the frames f-steps+1..f in one step: each frame's position is tested
// against walls (a tile lookup), and only players whose box the whole step's path comes near are
// tested frame by frame. It explodes where and when the frame-by-frame flight would, against the
// players where this step left them.
func (w *World) rocketSteps(n game.EntityNum, k *Rocket, f game.Frame, steps int, ev game.EventSink) {
	if k.Exploded != 0 {
		return // inert until the server removes it
	}
	pos, v := vec2{k.X, k.Y}, vec2{k.VX, k.VY}
	end := pos.add(v.scale(float32(dt * float32(steps))))
	owner := w.rocketOwner(n)
	const hit = PlayerRadius + RocketRadius
	var near [MaxPlayersLimit]int
	nn := 0
	for j := range w.Players {
		o := &w.Players[j]
		if game.EntityNum(j) == owner || !o.Alive() || !w.isPresent(game.EntityNum(j)) {
			continue
		}
		if segDistSq(pos, end, vec2{o.X, o.Y}) < hit*hit {
			near[nn] = j
			nn++
		}
	}
	prev := pos
	for s := 1; s <= steps; s++ {
		fs := f - game.Frame(steps-s)
		np := pos.add(v.scale(float32(dt * float32(s))))
		for _, j := range near[:nn] {
			o := &w.Players[j]
			if np.sub(vec2{o.X, o.Y}).lenSq() < hit*hit {
				w.explode(n, k, np, j, fs, ev)
				return
			}
		}
		if w.solidTile(tileCoord(np.X), tileCoord(np.Y)) {
			w.explode(n, k, prev, -1, fs, ev)
			return
		}
		prev = np
		if fs >= k.Expire {
			k.X, k.Y = np.X, np.Y
			w.explode(n, k, np, -1, fs, ev)
			return
		}
	}
	k.X, k.Y = prev.X, prev.Y
}

// segDistSq is the squared distance from c to the segment a-b.
func segDistSq(a, b, c vec2) float32 {
	ab, ac := b.sub(a), c.sub(a)
	l := ab.lenSq()
	t := float32(0)
	if l > 0 {
		t = min(max(float32(ac.dot(ab)/l), 0), 1)
	}
	return ac.sub(ab.scale(t)).lenSq()
}
