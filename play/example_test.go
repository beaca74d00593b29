//go:build play

// The example links Ebitengine, and a test binary that links it stops at
// start-up without a display: it is compiled with the build tag play
// ("go vet -tags play ./play/...", .ci/run), and the window is tested in
// a child process under Xvfb (play/internal/windowtest).

package play_test

import (
	"image/color"
	"log"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/vector"

	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/examples/guide"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/play"
)

// dotsDrawing draws the guide's game (docs/GUIDE.md) by x alone: a dot
// per player on a line across the screen (Example_guide draws the field).
type dotsDrawing struct{}

func (dotsDrawing) Draw(screen *ebiten.Image, v *play.View) {
	cl := v.Client()
	for n := range cl.Visible() {
		e, _, _ := cl.Entity(n)
		dot, ok := e.(*guide.Dot)
		if !ok {
			continue
		}
		// An entity that is a client.Positioner is drawn at
		// v.Position(n) instead: blended between game frames, with the
		// render correction.
		c := color.RGBA{235, 70, 60, 255}
		if n == game.EntityNum(cl.ClientNum()) {
			c = color.RGBA{60, 230, 90, 255}
		}
		vector.DrawFilledCircle(screen, 640+float32(dot.X%4096)/8, 400, 10, c, false)
	}
}

// The guide's game in a window: a server in this process over the link
// simulator, the player's client holding "right", the net graph and
// the knobs over the game's drawing. Run returns when the window closes.
func Example() {
	right := client.InputFunc(func(in client.Input) game.UserCmd { return game.UserCmd{Frame: in.Frame, Right: 3} })
	s, err := play.Local(guide.New(), guide.New(), "", right)
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	if err := play.Run(dotsDrawing{}, s, play.Options{Title: "guide"}); err != nil {
		log.Fatal(err)
	}
}
