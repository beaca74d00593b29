//go:build play

package window

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

	"github.com/snapwire/snapwire/cmd/internal/play"
	"github.com/snapwire/snapwire/internal/refgame"
)

// shotWait bounds how long past the duration a screenshot waits for the
// player to respawn.
const shotWait = 5 * time.Second

// The logical screen the Scene is laid out in, in pixels.
const (
	ScreenW = play.ScreenW
	ScreenH = play.ScreenH
)

// window is the ebiten.Game: Update steps the session at the display's
// rate (TPS synced with the frame rate) and applies the keys; Draw renders
// the session's Scene.
type window struct {
	s     *play.Session
	opt   play.WindowOptions
	start time.Time
	sc    play.Scene
	done  bool
	shot  *ebiten.Image
	off   *ebiten.Image // the frame is drawn offscreen, then shown
	step  time.Duration // CPU time of this frame's Update
	cpu   play.CPUStopwatch
	text  textCache
	err   error
	// mu guards the session: Update and Draw hold it, and so does the
	// browser's network pump (pump_js.go) between frames.
	mu sync.Mutex
	in play.Input // the last input read, which the pump reuses
}

// knobKeys binds keys to knob actions (Keys describes them).
var knobKeys = []struct {
	k ebiten.Key
	a play.Action
}{
	{ebiten.KeyN, play.ToggleNetGraph}, {ebiten.KeyF3, play.ToggleNetGraph},
	{ebiten.KeyI, play.ToggleInterp}, {ebiten.KeyG, play.ToggleGhost},
	{ebiten.KeyBracketRight, play.LatencyUp}, {ebiten.KeyBracketLeft, play.LatencyDown},
	{ebiten.KeyEqual, play.JitterUp}, {ebiten.KeyMinus, play.JitterDown},
	{ebiten.Key0, play.LossUp}, {ebiten.Key9, play.LossDown},
}

func (w *window) input() play.Input {
	in := play.Input{
		Up:    ebiten.IsKeyPressed(ebiten.KeyW) || ebiten.IsKeyPressed(ebiten.KeyArrowUp),
		Down:  ebiten.IsKeyPressed(ebiten.KeyS) || ebiten.IsKeyPressed(ebiten.KeyArrowDown),
		Left:  ebiten.IsKeyPressed(ebiten.KeyA) || ebiten.IsKeyPressed(ebiten.KeyArrowLeft),
		Right: ebiten.IsKeyPressed(ebiten.KeyD) || ebiten.IsKeyPressed(ebiten.KeyArrowRight),
		Fire:  ebiten.IsMouseButtonPressed(ebiten.MouseButtonLeft),
		Use:   ebiten.IsKeyPressed(ebiten.KeyE) || ebiten.IsMouseButtonPressed(ebiten.MouseButtonRight),
	}
	if m := w.s.World().Map; m != nil {
		cx, cy := ebiten.CursorPosition()
		ox, oy, k := play.MapRect(m, ScreenW, ScreenH)
		x, y := (float32(cx)-ox)/k, (float32(cy)-oy)/k
		if x >= 0 && y >= 0 && x < float32(m.W*refgame.TileSize) && y < float32(m.H*refgame.TileSize) {
			in.AimX, in.AimY, in.Aim = x, y, true
		}
	}
	return in
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
			w.s.Do(kk.a)
		}
	}
	t0 := w.cpu.Now()
	now := time.Since(w.start)
	w.in = w.input()
	w.s.Step(now, w.in)
	w.step = w.cpu.Now() - t0
	if w.opt.Duration > 0 && now >= w.opt.Duration {
		// A screenshot waits, at most shotWait, for the player to be
		// alive, so that it shows the player (and its ghost: the server
		// runs behind the prediction).
		p, ok := w.s.Player()
		alive := ok && p.Alive()
		if w.s.Knobs().Ghost {
			_, _, ghost := w.s.Ghost()
			alive = alive && ghost
		}
		w.done = w.opt.Screenshot == "" || alive || now >= w.opt.Duration+shotWait
	}
	if err := w.s.Err(); err != nil && now > 2*time.Second {
		w.err, w.done = err, true
	}
	return nil
}

func (w *window) Draw(screen *ebiten.Image) {
	w.mu.Lock()
	defer w.mu.Unlock()
	t0 := w.cpu.Now()
	w.s.Scene(&w.sc, ScreenW, ScreenH)
	if w.off == nil {
		w.off = ebiten.NewImage(ScreenW, ScreenH)
	}
	w.text.Render(w.off, &w.sc)
	screen.DrawImage(w.off, nil)
	w.s.Drawn()
	// The frame's CPU time: the game, the prediction and the drawing
	// commands (the GPU, or Mesa's software rasteriser on its own threads,
	// runs them after Draw returns), on Ebitengine's game goroutine, which
	// the stopwatch locks to its thread.
	w.s.FrameTime(w.step + w.cpu.Now() - t0)
	if w.done && w.opt.Screenshot != "" && w.shot == nil {
		// The last frame, read back.
		w.shot = w.off
		w.err = errors.Join(w.err, writePNG(w.opt.Screenshot, w.shot))
	}
}

func (w *window) Layout(int, int) (int, int) { return ScreenW, ScreenH }

func writePNG(path string, img *ebiten.Image) error {
	b := img.Bounds()
	rgba := image.NewRGBA(b)
	img.ReadPixels(rgba.Pix)
	var buf bytes.Buffer
	if err := png.Encode(&buf, rgba); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// Run opens the window and plays s in it until the duration has passed,
// the window is closed or Esc is pressed. It must be called from the main
// goroutine (Ebitengine's rule).
func Run(s *play.Session, opt play.WindowOptions) error {
	ebiten.SetWindowSize(ScreenW, ScreenH)
	ebiten.SetWindowTitle("snapwire play")
	ebiten.SetWindowResizingMode(ebiten.WindowResizingModeEnabled)
	ebiten.SetTPS(ebiten.SyncWithFPS) // one Update per drawn frame: the client's clock gives the 60 Hz
	w := &window{s: s, opt: opt, start: time.Now()}
	stop := startPump(w)
	err := ebiten.RunGame(w)
	stop()
	if err != nil {
		return err
	}
	return w.err
}
