package playview

import (
	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/game"
)

// shown is one entity's render position over the last two game frames.
type shown struct {
	prev, cur [3]float32
	frame     game.Frame // the frame cur belongs to
}

// Smoother keeps the render positions of the last two game frames of
// every moving entity (a client.Positioner) in the client's PVS: the
// predicted position plus the render correction (client.VisualOffset) at
// each frame, so that a window drawing faster than 60 Hz draws between
// them (DOOM III §2). Nothing is allocated after NewSmoother.
type Smoother struct {
	shown     *[game.MaxEntities]shown
	lastFrame game.Frame
}

// NewSmoother returns an empty Smoother.
func NewSmoother() *Smoother { return &Smoother{shown: new([game.MaxEntities]shown)} }

// Update records the positions of the client's current frame, once per
// frame (calls within the same frame do nothing).
func (s *Smoother) Update(cl *client.Client) {
	f := cl.Frame()
	if f == s.lastFrame || cl.State() != client.Connected {
		return
	}
	for n := range cl.Visible() {
		e, _, _ := cl.Entity(n)
		ps, ok := e.(client.Positioner)
		if !ok {
			continue
		}
		x, y, z := ps.Position()
		dx, dy, dz := cl.VisualOffset(n)
		p := [3]float32{x + dx, y + dy, z + dz}
		sh := &s.shown[n]
		if sh.frame == s.lastFrame && s.lastFrame != 0 {
			sh.prev = sh.cur
		} else {
			sh.prev = p
		}
		sh.cur, sh.frame = p, f
	}
	s.lastFrame = f
}

// Position is where to draw entity n now: its render positions of the
// last two game frames blended by how far the clock is into the next frame
// (client.FrameFraction). An entity not recorded at the client's last
// frame is drawn at its position plus the correction; ok is false when n
// is not in the client's world or has no position.
func (s *Smoother) Position(cl *client.Client, n game.EntityNum) (x, y, z float32, ok bool) {
	if int(n) >= len(s.shown) {
		return 0, 0, 0, false
	}
	sh := &s.shown[n]
	if sh.frame != cl.Frame() || sh.frame == 0 {
		e, _, _ := cl.Entity(n)
		ps, ok := e.(client.Positioner)
		if !ok {
			return 0, 0, 0, false
		}
		x, y, z = ps.Position()
		dx, dy, dz := cl.VisualOffset(n)
		return x + dx, y + dy, z + dz, true
	}
	t := cl.FrameFraction()
	return sh.prev[0] + t*(sh.cur[0]-sh.prev[0]), sh.prev[1] + t*(sh.cur[1]-sh.prev[1]), sh.prev[2] + t*(sh.cur[2]-sh.prev[2]), true
}
