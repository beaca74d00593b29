package tanks

import (
	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/game"
)

//go:generate go run github.com/snapwire/snapwire/snapgen

// The entities' networked fields are declared once, here; snapgen writes
// their snapshot codecs (tanks_snap.go). Fields are listed from the most to
// the least often changing, so unchanged ones form runs of zero bits for
// the zero-run-length compression (DOOM III §4.3).

// Tank is a player's tank, owned by its client: its owner predicts it, the
// other clients show it interpolated between snapshots.
//
//snap:entity
type Tank struct {
	X       float32        `snap:"min=0,max=FieldSize,step=Sixteenth"`
	Y       float32        `snap:"min=0,max=FieldSize,step=Sixteenth"`
	Heading uint8          // 256 headings, counter-clockwise from +X
	Reload  int32          `snap:"min=0,max=ReloadFrames"`
	HP      int32          `snap:"min=0,max=MaxHP"`
	Score   int32          `snap:"min=0,max=999"`
	Respawn game.Frame     // while destroyed: the frame it comes back
	Driver  game.ClientNum `snap:"bits=4"` // the client that owns the tank
}

// Owner implements game.Owned: the tank's driver predicts it.
func (t *Tank) Owner() (game.ClientNum, bool) { return t.Driver, true }

// Alive reports whether the tank is in play.
func (t *Tank) Alive() bool { return t.HP > 0 }

// Position implements client.Positioner (prediction statistics, smoothing).
func (t *Tank) Position() (x, y, z float32) { return t.X, t.Y, 0 }

// Interpolate implements client.Interpolator: how the other clients show a
// tank between two snapshots. A tank that respawned jumps.
func (t *Tank) Interpolate(from, to game.Entity, frac float32) {
	a, okA := from.(*Tank)
	b, okB := to.(*Tank)
	if !okB {
		return
	}
	*t = *b
	if !okA || !a.Alive() || !b.Alive() {
		return
	}
	t.X = a.X + float32(frac*(b.X-a.X))
	t.Y = a.Y + float32(frac*(b.Y-a.Y))
}

// Shell is a tank's round in flight. Shells are spawned by the server
// without a chosen number and despawned when they hit or expire.
//
//snap:entity
type Shell struct {
	X       float32        `snap:"min=0,max=FieldSize,step=Sixteenth"`
	Y       float32        `snap:"min=0,max=FieldSize,step=Sixteenth"`
	VX      int32          `snap:"min=-ShellSpeed,max=ShellSpeed"` // sixteenths per frame
	VY      int32          `snap:"min=-ShellSpeed,max=ShellSpeed"`
	Expire  game.Frame     // the frame it is spent; a spent shell is inert until the server removes it
	FiredBy game.EntityNum `snap:"bits=12"` // the tank that fired it, which it does not hit
}

// Position implements client.Positioner.
func (s *Shell) Position() (x, y, z float32) { return s.X, s.Y, 0 }

// Crate is an obstacle that three hits destroy for a while.
//
//snap:entity
type Crate struct {
	HP      int32      `snap:"min=0,max=MaxHP"`
	Respawn game.Frame // while destroyed: the frame it comes back
	X       float32    `snap:"min=0,max=FieldSize,step=Sixteenth"`
	Y       float32    `snap:"min=0,max=FieldSize,step=Sixteenth"`

	// Sparks counts the hits a client was told of (EventCrateHit), for its
	// drawing; it is not networked.
	Sparks int `snap:"-"`
}

// Solid reports whether the crate blocks tanks and shells.
func (c *Crate) Solid() bool { return c.HP > 0 }

// ReceiveEvent implements game.EventReceiver: a shell hit the crate.
func (c *Crate) ReceiveEvent(ev game.EventID, frame game.Frame, r *bitmsg.Reader) {
	if ev == EventCrateHit {
		c.Sparks++
	}
}

// Chat is a line of chat a client sends to the server.
//
//snap:message
type Chat struct {
	Text string `snap:"max=60"`
}

// ChatLine is a chat line the server relays to every client.
//
//snap:message
type ChatLine struct {
	From game.ClientNum `snap:"bits=4"`
	Text string         `snap:"max=60"`
}

// KillFeed tells every client that one tank destroyed another.
//
//snap:message
type KillFeed struct {
	Killer game.ClientNum `snap:"bits=4"`
	Victim game.ClientNum `snap:"bits=4"`
}
