//go:build play

package window

import (
	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/ebitenutil"
	"github.com/hajimehoshi/ebiten/v2/vector"

	"github.com/snapwire/snapwire/internal/play"
)

// Render draws sc on dst: the background, the shapes in order, then the
// text. Shapes are drawn without anti-aliasing, so their pixels keep the
// Scene's colours exactly (the screenshot checks read them).
func Render(dst *ebiten.Image, sc *play.Scene) {
	dst.Fill(play.Background)
	for i := range sc.Shapes {
		sh := &sc.Shapes[i]
		switch sh.Kind {
		case play.Rect:
			vector.DrawFilledRect(dst, sh.X, sh.Y, sh.W, sh.H, sh.Color, false)
		case play.Circle:
			vector.DrawFilledCircle(dst, sh.X, sh.Y, sh.W, sh.Color, false)
		case play.Ring:
			vector.StrokeCircle(dst, sh.X, sh.Y, sh.W, 2, sh.Color, false)
		case play.Line:
			vector.StrokeLine(dst, sh.X, sh.Y, sh.W, sh.H, 2, sh.Color, false)
		}
	}
	for _, t := range sc.Texts {
		ebitenutil.DebugPrintAt(dst, t.S, t.X, t.Y)
	}
}
