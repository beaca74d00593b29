package refgame

import "github.com/snapwire/snapwire/game"

// Position implements client.Positioner for the entities that move: the
// client uses it for its prediction-error statistics and render smoothing
// (DOOM III §2: the snapshot overwrites a predicted state, and the jump is
// what the player would see). The arena is flat, so z is always 0.

// Position returns the player's position.
func (p *Player) Position() (x, y, z float32) { return p.X, p.Y, 0 }

// Position returns the rocket's position.
func (k *Rocket) Position() (x, y, z float32) { return k.X, k.Y, 0 }

// Interpolate implements client.Interpolator, for clients that show other players interpolated
// between snapshots (Quake 3 style; DOOM III §8 "the prediction of the position of opponents could
// be disabled and instead interpolation could be used"): the position frac of the way from from to
// to, everything else from to. A player that respawned or teleported (more than a room's width
// apart) jumps to to. The server never runs this: it only changes what a client shows.
func (p *Player) Interpolate(from, to game.Entity, frac float32) {
	a, okA := from.(*Player)
	b, okB := to.(*Player)
	if !okB {
		return
	}
	*p = *b
	if !okA || !a.Alive() || !b.Alive() || abs32(b.X-a.X)+abs32(b.Y-a.Y) > 8*TileSize {
		return
	}
	p.X = a.X + float32(frac*float32(b.X-a.X))
	p.Y = a.Y + float32(frac*float32(b.Y-a.Y))
}
