//go:build play

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

// tagDrawing draws the guide's tag game (docs/GUIDE.md, "The window"):
// each dot where the view puts it this frame, red if it is it, the
// player's own larger. The field (-1024..1024) fits the 1280 by 800 screen
// at 3/8 of a pixel a unit.
type tagDrawing struct{}

func (tagDrawing) Draw(screen *ebiten.Image, v *play.View) {
	c := v.Client()
	for n := range c.Visible() {
		e, _, _ := c.Entity(n)
		x, y, _, ok := v.Position(n)
		if d, isDot := e.(*guide.Dot); isDot && ok {
			col, r := color.RGBA{80, 140, 255, 255}, float32(6)
			if d.It {
				col = color.RGBA{255, 80, 60, 255}
			}
			if d.Client == c.ClientNum() {
				r = 9
			}
			vector.DrawFilledCircle(screen, 640+x*3/8, 400+y*3/8, r, col, false)
		}
	}
}

// The guide's game in a window: a server in this process over the link
// simulator, the player's client moved by the arrow keys, the net graph
// and the link knobs over the game's drawing. Run returns when the window
// closes.
func Example_guide() {
	keys := client.InputFunc(func(in client.Input) game.UserCmd {
		return game.UserCmd{Right: arrows(ebiten.KeyLeft, ebiten.KeyRight), Forward: arrows(ebiten.KeyDown, ebiten.KeyUp)}
	})
	s, err := play.Local(guide.New(), guide.New(), "", keys)
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	if err := play.Run(tagDrawing{}, s, play.Options{Title: "tag", Keys: "arrows move"}); err != nil {
		log.Fatal(err)
	}
}

// arrows is one axis of the keyboard: 4 units a frame towards the key held.
func arrows(minus, plus ebiten.Key) int8 {
	var v int8
	if ebiten.IsKeyPressed(minus) {
		v -= 4
	}
	if ebiten.IsKeyPressed(plus) {
		v += 4
	}
	return v
}
