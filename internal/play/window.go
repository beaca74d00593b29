//go:build play

package play

import (
	"bytes"
	"errors"
	"image"
	"image/png"
	"os"
	"time"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/inpututil"

	"github.com/snapwire/snapwire/examples/arena"
)

// Window sizes, in pixels: the logical screen the Scene is laid out in.
const (
	ScreenW = 1280
	ScreenH = 800
)

// WindowOptions configure Run.
type WindowOptions struct {
	// Duration ends the game after this long (0: until the window is
	// closed or Esc).
	Duration time.Duration
	// Screenshot, if set, is a PNG file written with the last frame
	// drawn, at the logical size.
	Screenshot string
}

// window is the ebiten.Game: Update steps the session at the display's
// rate (TPS synced with the frame rate) and applies the keys; Draw renders
// the session's Scene.
type window struct {
	s     *Session
	opt   WindowOptions
	start time.Time
	sc    Scene
	done  bool
	shot  *ebiten.Image
	err   error
}

// knobKeys binds keys to knob actions (Keys describes them).
var knobKeys = []struct {
	k ebiten.Key
	a Action
}{
	{ebiten.KeyN, ToggleNetGraph}, {ebiten.KeyF3, ToggleNetGraph},
	{ebiten.KeyI, ToggleInterp}, {ebiten.KeyG, ToggleGhost},
	{ebiten.KeyBracketRight, LatencyUp}, {ebiten.KeyBracketLeft, LatencyDown},
	{ebiten.KeyEqual, JitterUp}, {ebiten.KeyMinus, JitterDown},
	{ebiten.Key0, LossUp}, {ebiten.Key9, LossDown},
}

func (w *window) input() Input {
	in := Input{
		Up:    ebiten.IsKeyPressed(ebiten.KeyW) || ebiten.IsKeyPressed(ebiten.KeyArrowUp),
		Down:  ebiten.IsKeyPressed(ebiten.KeyS) || ebiten.IsKeyPressed(ebiten.KeyArrowDown),
		Left:  ebiten.IsKeyPressed(ebiten.KeyA) || ebiten.IsKeyPressed(ebiten.KeyArrowLeft),
		Right: ebiten.IsKeyPressed(ebiten.KeyD) || ebiten.IsKeyPressed(ebiten.KeyArrowRight),
		Fire:  ebiten.IsMouseButtonPressed(ebiten.MouseButtonLeft),
		Use:   ebiten.IsKeyPressed(ebiten.KeyE) || ebiten.IsMouseButtonPressed(ebiten.MouseButtonRight),
	}
	if m := w.s.World().Map; m != nil {
		cx, cy := ebiten.CursorPosition()
		ox, oy, k := MapRect(m, ScreenW, ScreenH)
		x, y := (float32(cx)-ox)/k, (float32(cy)-oy)/k
		if x >= 0 && y >= 0 && x < float32(m.W*arena.TileSize) && y < float32(m.H*arena.TileSize) {
			in.AimX, in.AimY, in.Aim = x, y, true
		}
	}
	return in
}

func (w *window) Update() error {
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
	now := time.Since(w.start)
	w.s.Step(now, w.input())
	if w.opt.Duration > 0 && now >= w.opt.Duration {
		w.done = true
	}
	if err := w.s.Err(); err != nil && now > 2*time.Second {
		w.err, w.done = err, true
	}
	return nil
}

func (w *window) Draw(screen *ebiten.Image) {
	w.s.Scene(&w.sc, ScreenW, ScreenH)
	Render(screen, &w.sc)
	w.s.Drawn()
	if w.done && w.opt.Screenshot != "" && w.shot == nil {
		// The last frame, drawn again offscreen to be read back.
		w.shot = ebiten.NewImage(ScreenW, ScreenH)
		Render(w.shot, &w.sc)
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
func Run(s *Session, opt WindowOptions) error {
	ebiten.SetWindowSize(ScreenW, ScreenH)
	ebiten.SetWindowTitle("snapwire play")
	ebiten.SetWindowResizingMode(ebiten.WindowResizingModeEnabled)
	ebiten.SetTPS(ebiten.SyncWithFPS) // one Update per drawn frame: the client's clock gives the 60 Hz
	w := &window{s: s, opt: opt, start: time.Now()}
	if err := ebiten.RunGame(w); err != nil {
		return err
	}
	return w.err
}
