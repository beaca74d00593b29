package playview

import (
	"fmt"
	"time"

	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/clienthook"
	"github.com/snapwire/snapwire/netsim"
)

// textEvery is how often, in built scenes, the overlay's text is
// formatted again (formatting allocates: a few strings four times a
// second at 60 frames a second); a knob or the client's state changing
// formats it at once (a browser drawing 2 frames a second would otherwise
// show "challenging" for seconds after it connected).
const textEvery = 15

// Overlay is what a window adds to a game, without the window: the knobs,
// the net graph's data, the blending between frames, and the overlay's
// display list (the status band and the net graph). Package play's window
// steps it with the client once per drawn frame and draws its Scene over
// the game's drawing. Stepping and building the scene allocate nothing
// but the text, formatted every textEvery frames.
type Overlay struct {
	Knobs  Knobs
	Graph  Graph
	Smooth *Smoother
	// Title starts the status line; Keys is its second line.
	Title, Keys string
	// Interpolate are the types the interpolation knob switches.
	Interpolate []game.TypeID
	// SetLink applies the link knobs (nil: the session has none).
	SetLink func(netsim.LinkConfig) error

	sc        Scene
	built     uint64
	textAt    uint64
	textKnobs Knobs
	textState client.State
	status    string
	graphText []string
}

// Step records the client's state after it was stepped to now: the net
// graph's sample and the render positions of its frame.
func (o *Overlay) Step(now time.Duration, cl *client.Client) {
	st, ctr := cl.Stats(), clienthook.CountersOf(cl)
	o.Graph.Add(now, &st, &ctr)
	if o.Smooth == nil {
		o.Smooth = NewSmoother()
	}
	o.Smooth.Update(cl)
}

// Do applies a knob action to the knobs, the link and the client's modes.
func (o *Overlay) Do(a Action, cl *client.Client) error {
	var err error
	if o.Knobs.Apply(a) && o.SetLink != nil {
		err = o.SetLink(o.Knobs.Link())
	}
	if a == ToggleInterp {
		m := game.Predict
		if o.Knobs.Interpolate {
			m = game.Interpolate
		}
		for _, t := range o.Interpolate {
			cl.SetTypeMode(t, m)
		}
	}
	return err
}

// Scene builds the overlay of a w by h frame.
func (o *Overlay) Scene(cl *client.Client, w, h int) *Scene {
	sc := &o.sc
	sc.Reset(w, h)
	if o.textAt == 0 || o.built >= o.textAt+textEvery || o.Knobs != o.textKnobs || cl.State() != o.textState {
		o.textAt, o.textKnobs, o.textState = max(o.built, 1), o.Knobs, cl.State()
		o.status = fmt.Sprintf("%s  client %d %s  |  %s", o.Title, cl.ClientNum(), cl.State(), LinkText(&o.Knobs, o.SetLink != nil))
		o.graphText = GraphText(o.graphText, o.Graph.Figures(), clienthook.CountersOf(cl).BaseMismatches)
	}
	o.built++
	DrawHUD(sc, o.status, o.Keys)
	if o.Knobs.NetGraph {
		DrawGraph(sc, &o.Graph, o.graphText)
	}
	return sc
}
