package play

import (
	"fmt"
	"image/color"
	"math"

	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/clienthook"
	"github.com/snapwire/snapwire/internal/refgame"
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

// Scene is the display list of one frame; the window draws it in order
// over Background. Building one allocates nothing once its slices have
// grown.
type Scene struct {
	W, H   int
	Shapes []Shape
	Texts  []Text
}

// Colours, chosen apart so that a screenshot's pixels say what was drawn.
var (
	Background      = color.RGBA{12, 12, 18, 255}    // outside the map, and its walls
	ColorHUD        = color.RGBA{28, 28, 40, 255}    // the text band at the top
	ColorFloor      = color.RGBA{38, 66, 92, 255}    // room floors
	ColorDoorShut   = color.RGBA{150, 96, 40, 255}   // a closed or moving door
	ColorDoorOpen   = color.RGBA{70, 110, 80, 255}   // an open door
	ColorSelf       = color.RGBA{60, 230, 90, 255}   // the player
	ColorOther      = color.RGBA{235, 70, 60, 255}   // other players
	ColorGhost      = color.RGBA{255, 255, 255, 255} // the server's position of the player
	ColorRocket     = color.RGBA{255, 170, 40, 255}
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
	HUDHeight   = 40
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

// MapRect is where the map is drawn in a w by h window, and the scale
// from world units to pixels: the whole map, centred between the HUD and
// the net graph's band.
func MapRect(m *refgame.Map, w, h int) (ox, oy, scale float32) {
	mw, mh := float32(m.W*refgame.TileSize), float32(m.H*refgame.TileSize)
	avail := float32(h - HUDHeight - GraphHeight - 2*GraphMargin)
	scale = min(float32(w)/mw, avail/mh)
	return (float32(w) - mw*scale) / 2, HUDHeight + (avail-mh*scale)/2, scale
}

// textEvery is how often, in drawn frames, the text is formatted again
// (formatting allocates: a few strings four times a second).
const textEvery = 15

// Scene fills sc with the frame to draw in a w by h window.
func (s *Session) Scene(sc *Scene, w, h int) {
	sc.W, sc.H = w, h
	sc.Shapes, sc.Texts = sc.Shapes[:0], sc.Texts[:0]
	sc.Shapes = append(sc.Shapes, Shape{Kind: Rect, W: float32(w), H: HUDHeight, Color: ColorHUD})
	if s.textAt == 0 || s.drawn >= s.textAt+textEvery || s.knobs != s.textKnobs {
		s.formatText()
	}
	sc.Texts = append(sc.Texts, Text{X: 8, Y: 4, S: s.status}, Text{X: 8, Y: 20, S: Keys})
	if m := s.w.Map; m != nil && s.cl.State() == client.Connected {
		s.drawMap(sc, m, w, h)
	}
	if s.knobs.NetGraph {
		s.drawGraph(sc, w, h)
	}
}

func (s *Session) drawMap(sc *Scene, m *refgame.Map, w, h int) {
	ox, oy, k := MapRect(m, w, h)
	px := func(x, y float32) (float32, float32) { return ox + x*k, oy + y*k }
	for i := range m.Rooms {
		r := &m.Rooms[i]
		x, y := px(r.MinX, r.MinY)
		sc.Shapes = append(sc.Shapes, Shape{Kind: Rect, X: x, Y: y, W: (r.MaxX - r.MinX) * k, H: (r.MaxY - r.MinY) * k, Color: ColorFloor})
	}
	for i := range m.Doors {
		d := &m.Doors[i]
		dw, dh := float32(refgame.TileSize), float32(2*refgame.TileSize)
		if !d.Vertical {
			dw, dh = dh, dw
		}
		x, y := px(float32(d.TX*refgame.TileSize), float32(d.TY*refgame.TileSize))
		c := ColorDoorShut
		if i < len(s.w.Doors) && s.w.Doors[i].State == refgame.DoorOpen {
			c = ColorDoorOpen
		}
		sc.Shapes = append(sc.Shapes, Shape{Kind: Rect, X: x, Y: y, W: dw * k, H: dh * k, Color: c})
	}
	me := game.EntityNum(s.cl.ClientNum())
	var selfX, selfY float32
	haveSelf := false
	for n := range s.cl.Visible() {
		e, typ := s.w.Entity(n)
		switch typ {
		case refgame.TypePlayer:
			p := e.(*refgame.Player)
			if !p.Alive() {
				continue
			}
			x, y := px(s.DrawPosition(n, p))
			c := ColorOther
			if n == me {
				c, selfX, selfY, haveSelf = ColorSelf, x, y, true
			}
			r := max(refgame.PlayerRadius*k, 3)
			sc.Shapes = append(sc.Shapes, Shape{Kind: Circle, X: x, Y: y, W: r, Color: c})
			// The view direction.
			a := float64(p.Yaw) / 65536 * 2 * math.Pi
			l := 2 * r
			sc.Shapes = append(sc.Shapes, Shape{Kind: Line, X: x, Y: y, W: x + l*float32(math.Cos(a)), H: y + l*float32(math.Sin(a)), Color: c})
		case refgame.TypeRocket:
			rk := e.(*refgame.Rocket)
			if rk.Exploded != 0 {
				continue
			}
			x, y := px(s.DrawPosition(n, rk))
			sc.Shapes = append(sc.Shapes, Shape{Kind: Circle, X: x, Y: y, W: max(refgame.RocketRadius*k, 2), Color: ColorRocket})
		}
	}
	if s.knobs.Ghost {
		if gx, gy, ok := s.Ghost(); ok {
			x, y := px(gx, gy)
			sc.Shapes = append(sc.Shapes, Shape{Kind: Ring, X: x, Y: y, W: max(refgame.PlayerRadius*k, 3) + 2, Color: ColorGhost})
		}
	}
	if haveSelf && s.in.Aim && !s.opt.Autoplay {
		ax, ay := px(s.in.AimX, s.in.AimY)
		sc.Shapes = append(sc.Shapes, Shape{Kind: Line, X: selfX, Y: selfY, W: ax, H: ay, Color: ColorGraphLine})
	}
}

// drawGraph draws the net graph: a strip of the last GraphLen drawn
// frames, newest on the right, in three bands (top to bottom): command
// lead (blue, 1 px a millisecond) and duplicated commands (magenta, full
// band); prediction corrections (yellow, 2 px plus half their length in
// world units); snapshot arrivals (green, 4 px plus 3 a re-predicted
// frame) and losses (red, full band). The figures are on its right.
func (s *Session) drawGraph(sc *Scene, w, h int) {
	gx, gy, gw, gh := GraphRect(w, h)
	x0, y0 := float32(gx), float32(gy)
	sc.Shapes = append(sc.Shapes, Shape{Kind: Rect, X: x0, Y: y0, W: float32(gw), H: float32(gh), Color: ColorGraphBG})
	for b := 1; b < 3; b++ {
		y := y0 + float32(b*GraphBand)
		sc.Shapes = append(sc.Shapes, Shape{Kind: Rect, X: x0, Y: y, W: GraphStripW, H: 1, Color: ColorGraphLine})
	}
	g := &s.graph
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
	for i, t := range s.graphText {
		sc.Texts = append(sc.Texts, Text{X: tx, Y: gy + 2 + 16*i, S: t})
	}
}

// formatText formats the status line and the net graph's figures.
func (s *Session) formatText() {
	s.textAt, s.textKnobs = max(s.drawn, 1), s.knobs
	k := &s.knobs
	st := s.cl.State()
	where := "in process"
	link := fmt.Sprintf("link %v rtt ±%v jitter %.0f%% loss", k.Latency, k.Jitter, 100*k.Loss)
	if s.live == nil {
		where, link = "udp "+s.opt.Connect, "link knobs: in process only"
		if isWebURL(s.opt.Connect) {
			where = "webrtc " + s.opt.Connect
		}
	}
	opp := "opponents predicted (DOOM III)"
	if k.Interpolate {
		opp = "opponents interpolated (Quake 3)"
	}
	who := "you play"
	if s.opt.Autoplay {
		who = "autoplay"
	}
	frags := int32(0)
	if me := int(s.cl.ClientNum()); st == client.Connected && me < len(s.w.Score.Slots) {
		frags = s.w.Score.Slots[me].Frags
	}
	s.status = fmt.Sprintf("snapwire play  %s  %s  client %d %s  frags %d  |  %s  |  %s  ghost %v",
		where, who, s.cl.ClientNum(), st, frags, link, opp, k.Ghost)
	f := s.graph.Figures()
	sum := clienthook.CountersOf(s.cl)
	s.graphText = append(s.graphText[:0],
		fmt.Sprintf("ping %.0f ms   loss %.1f%%", f.PingMS, 100*f.Loss),
		fmt.Sprintf("down %.1f  up %.1f kbit/s", f.KbpsDown, f.KbpsUp),
		fmt.Sprintf("snap %.0f B  %.1f/s  applies %.1f/s", f.SnapshotBytes, f.SnapshotsPerS, f.AppliesPerS),
		fmt.Sprintf("lead %.0f ms  dup cmds %d", f.LeadMS, f.Duplicated),
		fmt.Sprintf("re-predicted %.1f frames/snap", f.Repredicted),
		fmt.Sprintf("corrections %.1f/s  base bad %d", f.Corrections, sum.BaseMismatches),
		"top: lead (blue), dup cmds (magenta)",
		"mid: corrections  low: snapshots, lost",
	)
}
