package play

import (
	"image/color"
	"slices"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/ebitenutil"
	"github.com/hajimehoshi/ebiten/v2/vector"

	"github.com/snapwire/snapwire/internal/playview"
)

// whitePixel is the source of every rectangle: a white pixel scaled and
// tinted, which Ebitengine batches into one draw and which allocates
// nothing, where vector.DrawFilledRect builds a path per rectangle (the net
// graph draws hundreds a frame).
var (
	whitePixel *ebiten.Image
	rectOpts   ebiten.DrawImageOptions
)

func drawRect(dst *ebiten.Image, sh *playview.Shape) {
	if whitePixel == nil {
		whitePixel = ebiten.NewImage(1, 1)
		whitePixel.Fill(color.White)
	}
	rectOpts.GeoM.Reset()
	rectOpts.GeoM.Scale(float64(sh.W), float64(sh.H))
	rectOpts.GeoM.Translate(float64(sh.X), float64(sh.Y))
	rectOpts.ColorScale.Reset()
	rectOpts.ColorScale.ScaleWithColor(sh.Color)
	dst.DrawImage(whitePixel, &rectOpts)
}

// renderShapes draws sc's shapes on dst in order. Shapes are drawn
// without anti-aliasing, so their pixels keep the Scene's colours exactly
// (the screenshot checks read them).
func renderShapes(dst *ebiten.Image, sc *playview.Scene) {
	for i := range sc.Shapes {
		sh := &sc.Shapes[i]
		switch sh.Kind {
		case playview.Rect:
			drawRect(dst, sh)
		case playview.Circle:
			vector.DrawFilledCircle(dst, sh.X, sh.Y, sh.W, sh.Color, false)
		case playview.Ring:
			vector.StrokeCircle(dst, sh.X, sh.Y, sh.W, 2, sh.Color, false)
		case playview.Line:
			vector.StrokeLine(dst, sh.X, sh.Y, sh.W, sh.H, 2, sh.Color, false)
		}
	}
}

// textCache draws a Scene: the shapes, then the text, which it draws (the
// debug font, a draw per glyph: most of a frame's drawing commands) into a
// layer of its own only when it changes, a few times a second, and
// composes the layer over the shapes every frame.
type textCache struct {
	layer *ebiten.Image
	texts []playview.Text
}

func (c *textCache) render(dst *ebiten.Image, sc *playview.Scene) {
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
