package game

// Coarse re-prediction (DOOM III network architecture, van Waveren 2006,
// §8): "if this re-prediction turns out to be expensive at times the
// entity states can be advanced by taking larger steps through time.
// Instead of advancing the states one frame at a time at 60Hz, multiple
// frames could be merged to step through time more quickly. Obviously
// this will affect the accuracy of the prediction. However, taking larger
// steps through time can be done on a per entity basis".

// CoarseStep says how one client frame of a coarse re-prediction advances
// the world: the Exact entity runs the frame as RunFrame would, every
// other entity the game steps coarsely advances Frames frames at once.
type CoarseStep struct {
	// Exact is the entity that still runs every frame (the local
	// player's: its commands are per frame); HasExact is false when the
	// client has no entity of its own.
	Exact    EntityNum
	HasExact bool
	// Frames is how far the other entities advance in this call: 0 holds
	// them (the frame lies inside a step, they stay at the state of an
	// earlier frame), k > 0 advances them k frames, from their state of
	// frame Tick.Frame-k to Tick.Frame, in one step.
	Frames int
}

// CoarseStepper is implemented by games that can advance entities
// several frames in one step. A client whose Config.CoarseStep is on calls
// RunCoarseFrame instead of RunFrame for the frames it re-predicts after a
// snapshot (never for the frames it reaches for the first time, and the
// server never calls it): for every frame of a step a call with Frames 0,
// then one with the step's length at its last frame, so after the last
// frame of the re-prediction every entity is at that frame.
//
// The result need not equal Frames ordinary frames: a prediction is a
// guess that the next snapshot overwrites, and the common base is never
// touched by it. It should stay plausible (an entity must not pass
// through a wall it could not pass frame by frame), and the Exact entity
// must run exactly as in RunFrame, except for what it meets of the others
// (they stand where their last step left them).
type CoarseStepper interface {
	RunCoarseFrame(t *Tick, step CoarseStep)
}
