package play

import "github.com/snapwire/snapwire/internal/playview"

// The net graph, the knobs and the display list are every game window's
// (internal/playview); the arena's play names them as before.
type (
	Graph   = playview.Graph
	Sample  = playview.Sample
	Figures = playview.Figures
	Action  = playview.Action
	Knobs   = playview.Knobs
	Kind    = playview.Kind
	Shape   = playview.Shape
	Text    = playview.Text
	Scene   = playview.Scene
)

// GraphLen is the number of frames the net graph's strip shows.
const GraphLen = playview.GraphLen

// Knob actions, ranges and steps (playview).
const (
	NoAction       = playview.NoAction
	LatencyUp      = playview.LatencyUp
	LatencyDown    = playview.LatencyDown
	JitterUp       = playview.JitterUp
	JitterDown     = playview.JitterDown
	LossUp         = playview.LossUp
	LossDown       = playview.LossDown
	ToggleInterp   = playview.ToggleInterp
	ToggleGhost    = playview.ToggleGhost
	ToggleNetGraph = playview.ToggleNetGraph
	MaxLatency     = playview.MaxLatency
	LatencyStep    = playview.LatencyStep
	MaxJitter      = playview.MaxJitter
	JitterStep     = playview.JitterStep
	MaxLoss        = playview.MaxLoss
	LossStep       = playview.LossStep
)

// Shape kinds (playview).
const (
	Rect   = playview.Rect
	Circle = playview.Circle
	Ring   = playview.Ring
	Line   = playview.Line
)

// Layout of the status band and the net graph, in pixels (playview).
const (
	HUDHeight   = playview.HUDHeight
	GraphBand   = playview.GraphBand
	GraphHeight = playview.GraphHeight
	GraphStripW = playview.GraphStripW
	GraphTextW  = playview.GraphTextW
	GraphMargin = playview.GraphMargin
)

// GraphRect is the net graph's rectangle in a w by h window.
func GraphRect(w, h int) (x, y, gw, gh int) { return playview.GraphRect(w, h) }

// ArenaKeys lists the arena's own keys, Keys those and the knob keys as
// the window binds them, for the help line and the README.
const (
	ArenaKeys = "WASD/arrows move, mouse aims, left button fires, E/right button uses"
	Keys      = ArenaKeys + "; " + playview.KnobKeys
)
