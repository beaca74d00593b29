package play

import (
	"bytes"
	"errors"
	"image"
	"image/png"
	"os"
	"sync"
	"time"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/inpututil"

	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/internal/playview"
)

// shotWait bounds how long past the duration a screenshot waits for the
// ghost.
const shotWait = 5 * time.Second

// window is the ebiten.Game: Update steps the session at the display's
// rate (TPS synced with the frame rate) and applies the knob keys; Draw
// has the game draw its world, then draws the overlay.
type window struct {
	s     Session
	g     Game
	opt   Options
	link  linkSetter // nil: the session has no link knobs
	ghost ghoster    // nil: no ghost
	start time.Time
	ov    playview.Overlay
	view  View
	text  textCache
	off   *ebiten.Image // the frame is drawn offscreen, then shown
	done  bool
	shot  bool
	err   error

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
	ebiten.SetWindowSize(w.opt.Width, w.opt.Height)
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
	if opt.Width <= 0 || opt.Height <= 0 {
		opt.Width, opt.Height = defaultWidth, defaultHeight
	}
	w := &window{s: s, g: g, opt: opt, start: time.Now()}
	w.view.w = w
	w.link, _ = s.(linkSetter)
	w.ghost, _ = s.(ghoster)
	w.ov = playview.Overlay{Knobs: newKnobs(s, &opt), Smooth: playview.NewSmoother(), Title: opt.Title,
		Keys: playview.KnobKeys, Interpolate: opt.Interpolate}
	if opt.Keys != "" {
		w.ov.Keys = opt.Keys + "; " + playview.KnobKeys
	}
	if w.link != nil {
		w.ov.SetLink = w.link.SetLink
		w.err = w.link.SetLink(w.ov.Knobs.Link())
		w.done = w.err != nil
	}
	return w
}

// step plays the session to now and records the frame for the net graph
// and the blending.
func (w *window) step(now time.Duration) {
	w.s.Step(now)
	w.ov.Step(now, w.s.Client())
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
			// The knobs stay within netsim's ranges.
			_ = w.ov.Do(kk.a, w.s.Client())
		}
	}
	now := time.Since(w.start)
	w.step(now)
	if w.opt.Duration > 0 && now >= w.opt.Duration {
		// A screenshot waits, at most shotWait, for the ghost (the
		// server runs behind the prediction).
		_, _, _, ghost := w.view.Ghost()
		w.done = w.opt.Screenshot == "" || !w.ov.Knobs.Ghost || w.ghost == nil || ghost || now >= w.opt.Duration+shotWait
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
		w.off = ebiten.NewImage(w.opt.Width, w.opt.Height)
	}
	w.off.Clear()
	w.g.Draw(w.off, &w.view)
	w.text.render(w.off, w.ov.Scene(w.s.Client(), w.opt.Width, w.opt.Height))
	screen.DrawImage(w.off, nil)
	if w.done && w.opt.Screenshot != "" && !w.shot {
		// The last frame, read back.
		w.shot = true
		w.err = errors.Join(w.err, writePNG(w.opt.Screenshot, w.off))
	}
}

func (w *window) Layout(int, int) (int, int) { return w.opt.Width, w.opt.Height }

func writePNG(path string, img *ebiten.Image) error {
	rgba := image.NewRGBA(img.Bounds())
	img.ReadPixels(rgba.Pix)
	var buf bytes.Buffer
	if err := png.Encode(&buf, rgba); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}
