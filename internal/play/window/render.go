//go:build play

package window

import (
	"slices"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/ebitenutil"
	"github.com/hajimehoshi/ebiten/v2/vector"

	"github.com/snapwire/snapwire/internal/play"
)

// Render draws sc on dst: the background, the shapes in order, then the
// text. Shapes are drawn without anti-aliasing, so their pixels keep the
// Scene's colours exactly (the screenshot checks read them).
func Render(dst *ebiten.Image, sc *play.Scene) {
	renderShapes(dst, sc)
	for _, t := range sc.Texts {
		ebitenutil.DebugPrintAt(dst, t.S, t.X, t.Y)
	}
}

func renderShapes(dst *ebiten.Image, sc *play.Scene) {
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
}

// textCache renders like Render, but draws the text (the debug font, a
// draw per glyph: most of a frame's drawing commands) into a layer of its
// own only when it changes, which the Session does a few times a second,
// and composes the layer over the shapes every frame.
type textCache struct {
	layer *ebiten.Image
	texts []play.Text
}

func (c *textCache) Render(dst *ebiten.Image, sc *play.Scene) {
	renderShapes(dst, sc)
	if c.layer == nil || !slices.Equal(c.texts, sc.Texts) {
		if c.layer == nil {
			b := dst.Bounds()
			c.layer = ebiten.NewImage(b.Dx(), b.Dy())
		}
		c.layer.Clear()
		for _, t := range sc.Texts {
			ebitenutil.DebugPrintAt(c.layer, t.S, t.X, t.Y)
		}
		c.texts = append(c.texts[:0], sc.Texts...)
	}
	dst.DrawImage(c.layer, nil)
}
