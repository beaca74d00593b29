package play

import (
	"time"

	"github.com/hajimehoshi/ebiten/v2"

	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/playview"
	"github.com/snapwire/snapwire/netsim"
)

// Game is what a game supplies to the window: its drawing.
type Game interface {
	// Draw draws the world as the client shows it on screen, the logical
	// screen (Options.Width by Height pixels), cleared to black. v gives each
	// entity's position for this drawn frame (View.Position: blended
	// between the last two game frames, with the render correction) and
	// the ghost. The overlay is drawn over it afterwards: the status band
	// (the top 40 pixels) and, when shown, the net graph (the bottom
	// left, 740 by 132 pixels, 8 from the edges). Draw runs on the
	// window's goroutine, the one that steps the client: it may read the
	// client's world directly.
	Draw(screen *ebiten.Image, v *View)
}

// Session is a client the window plays: Local (a server in process, over
// the link simulator) and Dial (a remote server) make one, and a game may
// bring its own. Step moves the client (and a session's own server) to
// now, the time since the window opened; the window calls it once per
// drawn frame, on its goroutine (in a browser also from a 60 Hz timer
// between frames, which a slow renderer would otherwise hold back, under
// the same lock as Update and Draw), and the client samples the game's
// InputSource for every game frame that becomes due (an InputSource may
// read Ebitengine's keyboard and mouse there). Close leaves the server.
//
// A Session may also have the methods
//
//	SetLink(netsim.LinkConfig) error    // the link knobs: the latency, jitter and loss of each direction
//	Ghost() (x, y, z float32, ok bool) // the server's position of the player's entity (View.Ghost)
//
// which Local's has and Dial's has not.
type Session interface {
	Client() *client.Client
	Step(now time.Duration)
	Close() error
}

// Options configure the window.
type Options struct {
	// Title names the game in the status band and the window's title.
	Title string
	// Keys describes the game's own keys, shown before the knob keys
	// (N or F3, I, G, [ ], - =, 9 0 and Esc are the window's).
	Keys string
	// Link starts the link knobs of a session that has SetLink; the zero
	// value is a perfect link.
	Link netsim.LinkConfig
	// Interpolate lists the entity types the I knob switches between
	// predicted (DOOM III) and interpolated (Quake 3); it starts as the
	// client has the first of them. Empty: the knob does nothing.
	Interpolate []game.TypeID
	// Ghost starts with the ghost shown, HideNetGraph with the net graph
	// hidden (keys G and N).
	Ghost, HideNetGraph bool
	// Duration ends the game after this long (0: when the window is
	// closed or Esc is pressed).
	Duration time.Duration
	// Screenshot, if set, is a PNG file written with the last frame
	// drawn. With the ghost shown, the last frame waits up to 5 s past
	// Duration for the ghost.
	Screenshot string
	// Width and Height are the logical screen Game.Draw draws on, in
	// pixels [1280 by 800]; the window scales it to its own size.
	Width, Height int
}

// View is what Game.Draw is given: the player's client and where to draw
// each entity in this frame.
type View struct {
	w *window
}

// Client is the player's client: its world (Client.Entity, Visible), its
// number and its statistics.
func (v *View) Client() *client.Client { return v.w.s.Client() }

// Position is where to draw entity n (a client.Positioner) in this frame:
// its predicted (or interpolated) positions of the last two game frames,
// each plus the render correction that hides prediction errors
// (client.Client.VisualOffset), blended by how far the clock is into the
// next game frame (client.Client.FrameFraction; DOOM III §2: the game runs
// at 60 Hz, the window at the display's rate). ok is false when the client
// has no such entity or it has no position.
func (v *View) Position(n game.EntityNum) (x, y, z float32, ok bool) {
	return v.w.ov.Smooth.Position(v.w.s.Client(), n)
}

// Ghost is the server's position of the player's entity, where the
// authoritative game has it now (behind the prediction by the client's
// lead over the server): ok only while the ghost knob (G) is on and the
// session knows it (Local's does).
func (v *View) Ghost() (x, y, z float32, ok bool) {
	if !v.w.ov.Knobs.Ghost || v.w.ghost == nil {
		return 0, 0, 0, false
	}
	return v.w.ghost.Ghost()
}

// The optional Session methods.
type (
	linkSetter interface {
		SetLink(netsim.LinkConfig) error
	}
	ghoster interface {
		Ghost() (x, y, z float32, ok bool)
	}
)

// The logical screen's default size, in pixels.
const (
	defaultWidth  = 1280
	defaultHeight = 800
)

// newKnobs starts the knobs from opt and the client's modes.
func newKnobs(s Session, opt *Options) playview.Knobs {
	k := playview.Knobs{Latency: 2 * opt.Link.Latency, Jitter: opt.Link.Jitter, Loss: opt.Link.Loss,
		Ghost: opt.Ghost, NetGraph: !opt.HideNetGraph}
	if len(opt.Interpolate) > 0 {
		k.Interpolate = s.Client().TypeMode(opt.Interpolate[0]) == game.Interpolate
	}
	return k
}
