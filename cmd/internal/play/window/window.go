//go:build play

package window

import (
	"fmt"
	"image/color"
	"time"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/ebitenutil"
	"github.com/hajimehoshi/ebiten/v2/vector"

	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/cmd/internal/play"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/refgame"
	"github.com/snapwire/snapwire/netsim"
	gamewindow "github.com/snapwire/snapwire/play"
)

// The logical screen the arena is laid out in, in pixels (package play's).
const (
	ScreenW = play.ScreenW
	ScreenH = play.ScreenH
)

// arena is the arena as package play sees it: the Session (the player's
// client, stepped with the keyboard and mouse read as a play.Input) and
// the Game (the arena's drawing).
type arena struct {
	s     *play.Session
	sc    play.Scene
	cpu   play.CPUStopwatch
	step  time.Duration // CPU time of the last Step
	frags int32
	text  string
}

// local is the arena in process: it has the link knobs and the ghost.
type local struct{ *arena }

func (a *arena) Client() *client.Client { return a.s.Client() }
func (a *arena) Close() error           { return a.s.Close() }

// Step reads the controls and plays the session to now.
func (a *arena) Step(now time.Duration) {
	t0 := a.cpu.Now()
	a.s.Step(now, a.input())
	a.step = a.cpu.Now() - t0
}

func (l local) SetLink(cfg netsim.LinkConfig) error { return l.s.SetLink(cfg) }

func (l local) Ghost() (x, y, z float32, ok bool) {
	x, y, ok = l.s.Ghost()
	return x, y, 0, ok
}

func (a *arena) input() play.Input {
	in := play.Input{
		Up:    ebiten.IsKeyPressed(ebiten.KeyW) || ebiten.IsKeyPressed(ebiten.KeyArrowUp),
		Down:  ebiten.IsKeyPressed(ebiten.KeyS) || ebiten.IsKeyPressed(ebiten.KeyArrowDown),
		Left:  ebiten.IsKeyPressed(ebiten.KeyA) || ebiten.IsKeyPressed(ebiten.KeyArrowLeft),
		Right: ebiten.IsKeyPressed(ebiten.KeyD) || ebiten.IsKeyPressed(ebiten.KeyArrowRight),
		Fire:  ebiten.IsMouseButtonPressed(ebiten.MouseButtonLeft),
		Use:   ebiten.IsKeyPressed(ebiten.KeyE) || ebiten.IsMouseButtonPressed(ebiten.MouseButtonRight),
	}
	if m := a.s.World().Map; m != nil {
		cx, cy := ebiten.CursorPosition()
		ox, oy, k := play.MapRect(m, ScreenW, ScreenH)
		x, y := (float32(cx)-ox)/k, (float32(cy)-oy)/k
		if x >= 0 && y >= 0 && x < float32(m.W*refgame.TileSize) && y < float32(m.H*refgame.TileSize) {
			in.AimX, in.AimY, in.Aim = x, y, true
		}
	}
	return in
}

// Draw draws the arena where package play's View puts its entities, and
// the player's frags under the status band.
func (a *arena) Draw(screen *ebiten.Image, v *gamewindow.View) {
	t0 := a.cpu.Now()
	a.sc.Reset(ScreenW, ScreenH)
	gx, gy, _, ghost := v.Ghost()
	a.s.ArenaScene(&a.sc, func(n game.EntityNum, e client.Positioner) (x, y float32) {
		if x, y, _, ok := v.Position(n); ok {
			return x, y
		}
		x, y, _ = e.Position()
		return x, y
	}, gx, gy, ghost)
	render(screen, &a.sc)
	if f := a.s.Frags(); a.text == "" || f != a.frags {
		a.frags, a.text = f, fmt.Sprintf("frags %d", f)
	}
	ebitenutil.DebugPrintAt(screen, a.text, ScreenW-8-6*len(a.text), play.HUDHeight+4)
	a.s.Drawn()
	// The frame's CPU time: the game, the prediction and the arena's
	// drawing commands (the GPU, or Mesa's software rasteriser on its own
	// threads, runs them after Draw returns), on Ebitengine's game
	// goroutine, which the stopwatch locks to its thread.
	a.s.FrameTime(a.step + a.cpu.Now() - t0)
}

// whitePixel is the source of every rectangle: a white pixel scaled and
// tinted, which Ebitengine batches into one draw and which allocates
// nothing.
var (
	whitePixel *ebiten.Image
	rectOpts   ebiten.DrawImageOptions
)

// render draws the arena's shapes over its background, without
// anti-aliasing, so that their pixels keep the Scene's colours exactly (the
// screenshot checks read them).
func render(dst *ebiten.Image, sc *play.Scene) {
	dst.Fill(play.Background)
	if whitePixel == nil {
		whitePixel = ebiten.NewImage(1, 1)
		whitePixel.Fill(color.White)
	}
	for i := range sc.Shapes {
		sh := &sc.Shapes[i]
		switch sh.Kind {
		case play.Rect:
			rectOpts.GeoM.Reset()
			rectOpts.GeoM.Scale(float64(sh.W), float64(sh.H))
			rectOpts.GeoM.Translate(float64(sh.X), float64(sh.Y))
			rectOpts.ColorScale.Reset()
			rectOpts.ColorScale.ScaleWithColor(sh.Color)
			dst.DrawImage(whitePixel, &rectOpts)
		case play.Circle:
			vector.DrawFilledCircle(dst, sh.X, sh.Y, sh.W, sh.Color, false)
		case play.Ring:
			vector.StrokeCircle(dst, sh.X, sh.Y, sh.W, 2, sh.Color, false)
		case play.Line:
			vector.StrokeLine(dst, sh.X, sh.Y, sh.W, sh.H, 2, sh.Color, false)
		}
	}
}

// Run opens the window and plays s in it (package play's window, the
// arena drawing) until the duration has passed, the window is closed or
// Esc is pressed. It must be called from the main goroutine (Ebitengine's
// rule).
func Run(s *play.Session, opt play.WindowOptions) error {
	a := &arena{s: s}
	k := s.Knobs()
	wo := gamewindow.Options{Title: "snapwire play  " + s.Mode(), Keys: play.ArenaKeys, Link: k.Link(),
		Interpolate: []game.TypeID{refgame.TypePlayer}, Ghost: k.Ghost, HideNetGraph: !k.NetGraph,
		Duration: opt.Duration, Screenshot: opt.Screenshot, Width: ScreenW, Height: ScreenH}
	var sess gamewindow.Session = a
	if s.InProcess() {
		sess = local{a}
	}
	return gamewindow.Run(a, sess, wo)
}
