package client

import "github.com/snapwire/snapwire/game"

// repredict re-runs the frames from+1..c.cf after a snapshot of frame
// from has been written into the world (DOOM III §2, fig. 5).
//
// With Config.CoarseStep k >= 2, a game that implements
// game.CoarseStepper and more than clienthook.Hooks.CoarseAfter frames to re-run, it
// takes larger steps through time (DOOM III §8: "multiple frames could be
// merged to step through time more quickly ... on a per entity basis"):
// the local player's entity runs every frame with its own command of that
// frame, the other entities advance k frames at once at the last frame of
// each step (the remainder at c.cf), so every entity is at c.cf when the
// re-prediction ends. Only the predicted world changes: the common base
// is the decoder's, and the frames the client reaches for the first time
// (stepFrame) always run one by one.
func (c *Client) repredict(from game.Frame) {
	n := int(c.cf - from)
	ents := uint64(c.pvs.Len())
	cs, ok := c.g.(game.CoarseStepper)
	k := c.cfg.CoarseStep
	if !ok || k < 2 || n <= c.cfg.hooks.CoarseAfter {
		for f := from + 1; f <= c.cf; f++ {
			c.predict(f)
		}
		c.stats.Repredicted += uint64(n)
		c.stats.RepredictedSteps += uint64(n) * ents
		return
	}
	mine, hasMine := c.g.PlayerEntity(c.me)
	hasMine = hasMine && c.pvs.Has(mine)
	step := game.CoarseStep{Exact: mine, HasExact: hasMine}
	for f := from + 1; f <= c.cf; f++ {
		i := int(f - from)
		step.Frames = 0
		if i%k == 0 {
			step.Frames = k
		} else if f == c.cf {
			step.Frames = i % k
		}
		c.prepareTick(f)
		cs.RunCoarseFrame(&c.tick, step)
		c.interpolate(f)
		switch {
		case step.Frames > 0:
			c.stats.RepredictedSteps += ents
		case hasMine:
			c.stats.RepredictedSteps++
		}
	}
	c.stats.Repredicted += uint64(n)
	c.stats.CoarseRepredictions++
}
