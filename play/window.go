package play

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/png"
	"os"
	"sync"
	"time"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/inpututil"

	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/clienthook"
	"github.com/snapwire/snapwire/internal/playview"
)

// shotWait bounds how long past the duration a screenshot waits for the
// ghost.
const shotWait = 5 * time.Second

// textEvery is how often, in drawn frames, the overlay's text is
// formatted again (formatting allocates: a few strings four times a
// second).
const textEvery = 15

// window is the ebiten.Game: Update steps the session at the display's
// rate (TPS synced with the frame rate) and applies the knob keys; Draw
// has the game draw its world, then draws the overlay.
type window struct {
	s      Session
	g      Game
	opt    Options
	link   linkSetter // nil: the session has no link knobs
	ghost  ghoster    // nil: no ghost
	start  time.Time
	knobs  playview.Knobs
	graph  playview.Graph
	smooth *playview.Smoother
	view   View
	sc     playview.Scene // the overlay
	text   textCache
	off    *ebiten.Image // the frame is drawn offscreen, then shown
	done   bool
	shot   bool
	err    error
	drawn  uint64

	// The overlay's text, formatted every textEvery frames.
	textAt    uint64
	textKnobs playview.Knobs
	status    string
	keys      string
	graphText []string

	// mu guards the session: Update and Draw hold it, and so does the
	// browser's network pump (pump_js.go) between frames.
	mu sync.Mutex
}

// knobKeys binds keys to knob actions (playview.KnobKeys describes them).
var knobKeys = []struct {
	k ebiten.Key
	a playview.Action
}{
	{ebiten.KeyN, playview.ToggleNetGraph}, {ebiten.KeyF3, playview.ToggleNetGraph},
	{ebiten.KeyI, playview.ToggleInterp}, {ebiten.KeyG, playview.ToggleGhost},
	{ebiten.KeyBracketRight, playview.LatencyUp}, {ebiten.KeyBracketLeft, playview.LatencyDown},
	{ebiten.KeyEqual, playview.JitterUp}, {ebiten.KeyMinus, playview.JitterDown},
	{ebiten.Key0, playview.LossUp}, {ebiten.Key9, playview.LossDown},
}

// Run opens the window and plays s in it, g drawing the world, until the
// duration has passed, the window is closed or Esc is pressed; it returns
// why the client disconnected, if it did. It must be called from the main
// goroutine (Ebitengine's rule); it does not close s. Built for js/wasm,
// the same program plays in a browser page (Dial a signalling URL there).
func Run(g Game, s Session, opt Options) error {
	w := newWindow(g, s, opt)
	title := "snapwire"
	if opt.Title != "" {
		title = opt.Title + " (snapwire)"
	}
	ebiten.SetWindowSize(screenW, screenH)
	ebiten.SetWindowTitle(title)
	ebiten.SetWindowResizingMode(ebiten.WindowResizingModeEnabled)
	ebiten.SetTPS(ebiten.SyncWithFPS) // one Update per drawn frame: the client's clock gives the 60 Hz
	stop := startPump(w)
	err := ebiten.RunGame(w)
	stop()
	if err != nil {
		return err
	}
	return w.err
}

func newWindow(g Game, s Session, opt Options) *window {
	w := &window{s: s, g: g, opt: opt, start: time.Now(), smooth: playview.NewSmoother()}
	w.view.w = w
	w.link, _ = s.(linkSetter)
	w.ghost, _ = s.(ghoster)
	w.knobs = newKnobs(s, &opt)
	if w.link != nil {
		w.err = w.link.SetLink(w.knobs.Link())
		w.done = w.err != nil
	}
	w.keys = playview.KnobKeys
	if opt.Keys != "" {
		w.keys = opt.Keys + "; " + w.keys
	}
	return w
}

// step plays the session to now and records the frame for the net graph
// and the smoothing.
func (w *window) step(now time.Duration) {
	w.s.Step(now)
	cl := w.s.Client()
	st, ctr := cl.Stats(), clienthook.CountersOf(cl)
	w.graph.Add(now, &st, &ctr)
	w.smooth.Update(cl)
}

// do applies a knob action.
func (w *window) do(a playview.Action) {
	if w.knobs.Apply(a) && w.link != nil {
		// The knobs stay within netsim's ranges.
		_ = w.link.SetLink(w.knobs.Link())
	}
	if a == playview.ToggleInterp {
		m := game.Predict
		if w.knobs.Interpolate {
			m = game.Interpolate
		}
		for _, t := range w.opt.Interpolate {
			w.s.Client().SetTypeMode(t, m)
		}
	}
}

func (w *window) Update() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return ebiten.Termination
	}
	if inpututil.IsKeyJustPressed(ebiten.KeyEscape) {
		w.done = true
	}
	for _, kk := range knobKeys {
		if inpututil.IsKeyJustPressed(kk.k) {
			w.do(kk.a)
		}
	}
	now := time.Since(w.start)
	w.step(now)
	if w.opt.Duration > 0 && now >= w.opt.Duration {
		// A screenshot waits, at most shotWait, for the ghost (the
		// server runs behind the prediction).
		_, _, _, ghost := w.view.Ghost()
		w.done = w.opt.Screenshot == "" || !w.knobs.Ghost || w.ghost == nil || ghost || now >= w.opt.Duration+shotWait
	}
	if cl := w.s.Client(); cl.State() == client.Disconnected && now > 2*time.Second {
		w.err, w.done = cl.Err(), true
		if w.err == nil {
			w.err = errors.New("disconnected")
		}
	}
	return nil
}

func (w *window) Draw(screen *ebiten.Image) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.off == nil {
		w.off = ebiten.NewImage(screenW, screenH)
	}
	w.off.Clear()
	w.g.Draw(w.off, &w.view)
	w.overlay(&w.sc)
	w.text.render(w.off, &w.sc)
	screen.DrawImage(w.off, nil)
	w.drawn++
	if w.done && w.opt.Screenshot != "" && !w.shot {
		// The last frame, read back.
		w.shot = true
		w.err = errors.Join(w.err, writePNG(w.opt.Screenshot, w.off))
	}
}

func (w *window) Layout(int, int) (int, int) { return screenW, screenH }

// overlay builds the overlay of this frame: the status band and the net
// graph.
func (w *window) overlay(sc *playview.Scene) {
	sc.Reset(screenW, screenH)
	if w.textAt == 0 || w.drawn >= w.textAt+textEvery || w.knobs != w.textKnobs {
		w.textAt, w.textKnobs = max(w.drawn, 1), w.knobs
		cl := w.s.Client()
		w.status = fmt.Sprintf("%s  client %d %s  |  %s", w.opt.Title, cl.ClientNum(), cl.State(), playview.LinkText(&w.knobs, w.link != nil))
		w.graphText = playview.GraphText(w.graphText, w.graph.Figures(), clienthook.CountersOf(cl).BaseMismatches)
	}
	playview.DrawHUD(sc, w.status, w.keys)
	if w.knobs.NetGraph {
		playview.DrawGraph(sc, &w.graph, w.graphText)
	}
}

func writePNG(path string, img *ebiten.Image) error {
	rgba := image.NewRGBA(img.Bounds())
	img.ReadPixels(rgba.Pix)
	var buf bytes.Buffer
	if err := png.Encode(&buf, rgba); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}
