package playview

import (
	"fmt"
	"image/color"
)

// Kind is a Shape's kind.
type Kind uint8

// Shape kinds.
const (
	Rect   Kind = iota // X, Y, W, H
	Circle             // centre X, Y, radius W
	Ring               // circle outline: centre X, Y, radius W
	Line               // from X, Y to W, H
)

// Shape is one filled rectangle or circle, ring or line, in screen pixels.
type Shape struct {
	Kind       Kind
	X, Y, W, H float32
	Color      color.RGBA
}

// Text is one line of text at a pixel position (Ebitengine's debug font:
// 6 by 16 pixels a character).
type Text struct {
	X, Y int
	S    string
}

// Scene is a display list: shapes drawn in order, then the texts. Building
// one allocates nothing once its slices have grown.
type Scene struct {
	W, H   int
	Shapes []Shape
	Texts  []Text
}

// Reset empties sc for a w by h frame, keeping its slices' storage.
func (sc *Scene) Reset(w, h int) {
	sc.W, sc.H = w, h
	sc.Shapes, sc.Texts = sc.Shapes[:0], sc.Texts[:0]
}

// The overlay's colours, chosen apart from each other and from the
// arena's so that a screenshot's pixels say what was drawn.
var (
	ColorHUD        = color.RGBA{28, 28, 40, 255}    // the status band at the top
	ColorGhost      = color.RGBA{255, 255, 255, 255} // the server's position of the player
	ColorGraphBG    = color.RGBA{0, 0, 0, 255}
	ColorGraphLine  = color.RGBA{50, 50, 60, 255}
	ColorSnapshot   = color.RGBA{40, 200, 40, 255}  // a snapshot arrived (height: frames re-predicted)
	ColorLost       = color.RGBA{255, 0, 0, 255}    // a snapshot was lost
	ColorCorrection = color.RGBA{255, 230, 0, 255}  // prediction corrections (height: their length)
	ColorLead       = color.RGBA{80, 140, 255, 255} // command lead (height: ms)
	ColorDup        = color.RGBA{255, 0, 255, 255}  // commands duplicated by the server
)

// Layout, in pixels.
const (
	HUDHeight   = 40 // the status band: two lines of text
	GraphBand   = 44 // each of the strip's three bands
	GraphHeight = 3 * GraphBand
	GraphStripW = 2 * GraphLen // two pixels a frame
	GraphTextW  = 44 * 6       // the figures beside the strip
	GraphMargin = 8
)

// GraphRect is the net graph's rectangle in a w by h window.
func GraphRect(w, h int) (x, y, gw, gh int) {
	return GraphMargin, h - GraphMargin - GraphHeight, GraphStripW + GraphTextW, GraphHeight
}

// DrawHUD appends the status band: its background and the two lines.
func DrawHUD(sc *Scene, status, keys string) {
	sc.Shapes = append(sc.Shapes, Shape{Kind: Rect, W: float32(sc.W), H: HUDHeight, Color: ColorHUD})
	sc.Texts = append(sc.Texts, Text{X: 8, Y: 4, S: status}, Text{X: 8, Y: 20, S: keys})
}

// DrawGraph appends the net graph of g: a strip of the last GraphLen drawn
// frames, newest on the right, in three bands (top to bottom): command
// lead (blue, 1 px a millisecond) and duplicated commands (magenta, full
// band); prediction corrections (yellow, 2 px plus half their length in
// world units); snapshot arrivals (green, 4 px plus 3 a re-predicted
// frame) and losses (red, full band). The lines of text (GraphText) are on
// its right.
func DrawGraph(sc *Scene, g *Graph, text []string) {
	gx, gy, gw, gh := GraphRect(sc.W, sc.H)
	x0, y0 := float32(gx), float32(gy)
	sc.Shapes = append(sc.Shapes, Shape{Kind: Rect, X: x0, Y: y0, W: float32(gw), H: float32(gh), Color: ColorGraphBG})
	for b := 1; b < 3; b++ {
		y := y0 + float32(b*GraphBand)
		sc.Shapes = append(sc.Shapes, Shape{Kind: Rect, X: x0, Y: y, W: GraphStripW, H: 1, Color: ColorGraphLine})
	}
	n := g.Len()
	const band = float32(GraphBand)
	bar := func(x, bottom, hgt float32, c color.RGBA) {
		hgt = min(hgt, band-1)
		sc.Shapes = append(sc.Shapes, Shape{Kind: Rect, X: x, Y: bottom - hgt, W: 2, H: hgt, Color: c})
	}
	for i := range n {
		smp := g.At(i)
		x := x0 + float32(GraphStripW-2*(n-i))
		top, mid, bot := y0+band, y0+2*band, y0+3*band
		if smp.Duplicated > 0 {
			bar(x, top, band, ColorDup)
		}
		if smp.LeadMS > 0 {
			l := min(smp.LeadMS, band-2)
			sc.Shapes = append(sc.Shapes, Shape{Kind: Rect, X: x, Y: top - 1 - l, W: 2, H: 2, Color: ColorLead})
		}
		if smp.Corrections > 0 {
			bar(x, mid, 2+smp.Correction/2, ColorCorrection)
		}
		switch {
		case smp.Lost > 0:
			bar(x, bot, band, ColorLost)
		case smp.Snapshots > 0:
			bar(x, bot, 4+3*float32(smp.Repredicted)/float32(smp.Snapshots), ColorSnapshot)
		}
	}
	tx := gx + GraphStripW + 8
	for i, t := range text {
		sc.Texts = append(sc.Texts, Text{X: tx, Y: gy + 2 + 16*i, S: t})
	}
}

// GraphText formats the net graph's figures f into dst's storage, with
// baseBad the client's common-base mismatches so far (which must stay 0).
func GraphText(dst []string, f Figures, baseBad uint64) []string {
	return append(dst[:0],
		fmt.Sprintf("ping %.0f ms   loss %.1f%%", f.PingMS, 100*f.Loss),
		fmt.Sprintf("down %.1f  up %.1f kbit/s", f.KbpsDown, f.KbpsUp),
		fmt.Sprintf("snap %.0f B  %.1f/s  applies %.1f/s", f.SnapshotBytes, f.SnapshotsPerS, f.AppliesPerS),
		fmt.Sprintf("lead %.0f ms  dup cmds %d", f.LeadMS, f.Duplicated),
		fmt.Sprintf("re-predicted %.1f frames/snap", f.Repredicted),
		fmt.Sprintf("corrections %.1f/s  base bad %d", f.Corrections, baseBad),
		"top: lead (blue), dup cmds (magenta)",
		"mid: corrections  low: snapshots, lost",
	)
}

// LinkText describes the knobs' link and opponents, for a status line.
func LinkText(k *Knobs, inProcess bool) string {
	link := fmt.Sprintf("link %v rtt ±%v jitter %.0f%% loss", k.Latency, k.Jitter, 100*k.Loss)
	if !inProcess {
		link = "link knobs: in process only"
	}
	opp := "opponents predicted (DOOM III)"
	if k.Interpolate {
		opp = "opponents interpolated (Quake 3)"
	}
	return fmt.Sprintf("%s  |  %s  ghost %v", link, opp, k.Ghost)
}
