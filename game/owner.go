package game

// Owned is implemented by the entities of PredictOwner types: Owner is the
// client that owns the entity (ok false: nobody, and every client
// interpolates it). The owner must be one of the entity's networked
// fields, written by WriteSnapshot and read by ReadSnapshot, so that each
// client learns it from the snapshot; the server's game sets it (a
// player's vehicle, the projectile a player fired, a pet).
//
// A client predicts the entities it owns with the game code and its own
// commands, as it predicts its player (DOOM III §2), and shows the others'
// between the last two snapshots (DOOM III §8, Quake 3 style), as for
// Interpolate types: Netcode for Entities' owner-predicted ghosts.
type Owned interface {
	Owner() (c ClientNum, ok bool)
}

// isOwned reports whether e implements Owned (RegisterAs checks a new
// entity of each PredictOwner type).
func isOwned(e Entity) bool {
	_, ok := e.(Owned)
	return ok
}
