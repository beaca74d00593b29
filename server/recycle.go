package server

import (
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/snapshot"
)

// numberRecycler is the optional method of a Game whose world hands out
// entity numbers itself (game.EntityTable.Recycle, promoted to a Game
// that embeds *game.EntityTable). The server calls it before each frame
// with the oldest frame every client's common base holds, so that a
// number freed by a removal returns only once every client has seen the
// entity leave (DOOM III §4.2).
type numberRecycler interface {
	Recycle(frame, applied game.Frame)
}

// sentSnapshot is a snapshot built for a client: its sequence number and
// the frame it holds.
type sentSnapshot struct {
	seq   snapshot.Seq
	frame game.Frame
}

// recycleNumbers tells the game, before frame f runs, the oldest frame
// whose world every client in the game has in its common base (on the
// server, its copy of the client's base: the client applies the same
// snapshot before it decodes any snapshot built after, DOOM III §4.2). A
// client not in the game has no base to protect: it starts from the map
// base when it enters (resetBase). With no client in the game every
// removal so far is released. One pass over the slots, no allocation.
func (s *Server) recycleNumbers(f game.Frame) {
	if s.recycler == nil {
		return
	}
	applied := f
	for _, c := range s.slots {
		if c != nil && c.inGame && c.baseFrame < applied {
			applied = c.baseFrame
		}
	}
	s.recycler.Recycle(f, applied)
}

// sent records snapshot h as built, for applied.
func (c *client) sent(h snapshot.Header) {
	c.snapFrames[h.Seq%snapshot.RingSize] = sentSnapshot{seq: h.Seq, frame: h.Frame}
}

// applied records that snapshot seq was applied to the client's base: the
// base now holds the world of that snapshot's frame. The encoder applies
// only snapshots still in its ring (snapshot.RingSize), which the built
// snapshots' ring therefore still holds.
func (c *client) applied(seq snapshot.Seq) {
	if sn := c.snapFrames[seq%snapshot.RingSize]; sn.seq == seq {
		c.baseFrame = sn.frame
	}
}

// resetBase records that the client's base is the map base, as it enters
// the game (or leaves it): the first snapshot it can get is of the next
// frame, which lacks every entity removed so far. An entity removed
// before cannot be in its base's PVS, so for recycling its base holds
// that frame.
func (c *client) resetBase() {
	c.baseFrame = c.s.frame + 1
	c.snapFrames = [snapshot.RingSize]sentSnapshot{}
}
