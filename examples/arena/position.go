package arena

// Position implements client.Positioner for the entities that move: the
// client uses it for its prediction-error statistics and render smoothing
// (DOOM III §2: the snapshot overwrites a predicted state, and the jump is
// what the player would see). The arena is flat, so z is always 0.

// Position returns the player's position.
func (p *Player) Position() (x, y, z float32) { return p.X, p.Y, 0 }

// Position returns the rocket's position.
func (k *Rocket) Position() (x, y, z float32) { return k.X, k.Y, 0 }
