package client

// Owner-predicted entities (game.PredictOwner; Netcode for Entities'
// owner-predicted ghosts): the client that owns an entity predicts it with
// its own commands like its player (DOOM III §2), every other client shows
// it between two snapshots (DOOM III §8). The owner is a field of the
// entity's state (game.Owned), so it is known from the snapshot and may
// change hands: resolved again wherever the mode matters.

import "github.com/snapwire/snapwire/game"

// ownerMode is the mode of entity n of a PredictOwner type, e in the world:
// Predict when this client owns it (or it is the local player's), else
// Interpolate (another client's, nobody's, or not an game.Owned entity).
func (c *Client) ownerMode(n game.EntityNum, e game.Entity) game.PredictionMode {
	if o, ok := e.(game.Owned); ok {
		if owner, owned := o.Owner(); owned && owner == c.me {
			return game.Predict
		}
	}
	if me, ok := c.g.PlayerEntity(c.me); ok && me == n {
		return game.Predict
	}
	return game.Interpolate
}

// owns reports whether entity n (e in the world, of type t) is one this
// client predicts as its own: its player, or a PredictOwner entity it
// owns. Stats.Self counts their prediction error.
func (c *Client) owns(n game.EntityNum, t game.TypeID, e game.Entity, mine game.EntityNum, hasMine bool) bool {
	if hasMine && n == mine {
		return true
	}
	if c.TypeMode(t) != game.PredictOwner {
		return false
	}
	o, ok := e.(game.Owned)
	if !ok {
		return false
	}
	owner, owned := o.Owner()
	return owned && owner == c.me
}
