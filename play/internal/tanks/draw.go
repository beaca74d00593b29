package main

import (
	"fmt"
	"image/color"
	"math"
	"time"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/ebitenutil"
	"github.com/hajimehoshi/ebiten/v2/inpututil"
	"github.com/hajimehoshi/ebiten/v2/vector"

	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/examples/tanks"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/play"
)

// Colours, apart from the overlay's and the text's (white), so that the
// screenshot's pixels say what was drawn (play/internal/windowtest and
// cmd/snapwire's TestTanksBrowser count them).
var (
	colorField   = color.RGBA{24, 48, 32, 255}
	colorCrate   = color.RGBA{176, 120, 56, 255}
	colorWreck   = color.RGBA{72, 60, 44, 255} // a destroyed crate, faded
	colorSelf    = color.RGBA{0, 200, 255, 255}
	colorOther   = color.RGBA{255, 80, 64, 255}
	colorBarrel  = color.RGBA{240, 240, 200, 255}
	colorShell   = color.RGBA{255, 255, 96, 255}
	colorSpark   = color.RGBA{255, 160, 0, 255}
	colorHP      = color.RGBA{64, 224, 64, 255}
	colorHPLost  = color.RGBA{96, 16, 16, 255}
	colorGhost   = color.RGBA{255, 255, 255, 255}
	colorWrecked = color.RGBA{90, 90, 90, 255} // a destroyed tank, until it respawns
)

// The field's place on the logical screen (1280 by 800): below the status
// band (40 pixels), above the net graph (its top is 660), scale pixels a
// world unit; the feed is to its right.
const (
	fieldX, fieldY = 40, 50
	scale          = 600.0 / tanks.FieldSize
	feedX          = fieldX + 600 + 40
)

// sparkFrames is how many drawn frames a crate hit's sparks show.
const sparkFrames = 20

// drawing is the game's part of the window.
type drawing struct {
	g        *tanks.Game
	autoplay bool
	frames   int
	// What the player saw, for the summary.
	othersSeen map[game.EntityNum]bool
	shellsSeen map[game.EntityNum]bool
	sparks     int
	score      int32
	// Per crate: the hits seen (Crate.Sparks) and the frame its sparks end.
	crateHits  map[game.EntityNum]int
	sparkUntil map[game.EntityNum]int
	connected  time.Time
	chatted    bool
}

func newDrawing(g *tanks.Game, autoplay bool) *drawing {
	return &drawing{g: g, autoplay: autoplay, othersSeen: map[game.EntityNum]bool{}, shellsSeen: map[game.EntityNum]bool{},
		crateHits: map[game.EntityNum]int{}, sparkUntil: map[game.EntityNum]int{}}
}

// screen converts a world position to the logical screen.
func screen(x, y float32) (float32, float32) { return fieldX + x*scale, fieldY + y*scale }

// Draw implements play.Game: the field, the crates (destroyed ones faded,
// hit ones sparking), the tanks (the player's and the others' colours,
// the barrel along the heading, the hit points above), the shells, the
// ghost, and beside the field the scores and the feed.
func (d *drawing) Draw(dst *ebiten.Image, v *play.View) {
	d.frames++
	vector.DrawFilledRect(dst, fieldX, fieldY, tanks.FieldSize*scale, tanks.FieldSize*scale, colorField, false)
	cl := v.Client()
	if cl.State() != client.Connected {
		return
	}
	d.chat(cl)
	me, _ := d.g.PlayerEntity(cl.ClientNum())
	scores := "tanks in sight\n"
	for n := range cl.Visible() {
		e, _ := d.g.Entity(n)
		switch e := e.(type) {
		case *tanks.Crate:
			d.drawCrate(dst, n, e)
		case *tanks.Shell:
			d.shellsSeen[n] = true
			if x, y, _, ok := v.Position(n); ok {
				sx, sy := screen(x, y)
				vector.DrawFilledCircle(dst, sx, sy, 3, colorShell, false)
			}
		case *tanks.Tank:
			if x, y, _, ok := v.Position(n); ok {
				d.drawTank(dst, n == me, e, x, y)
			}
			if n == me {
				d.score = e.Score
			} else {
				d.othersSeen[n] = true
			}
			scores += fmt.Sprintf("player %d: %d hp, %d kills\n", e.Driver, e.HP, e.Score)
		}
	}
	if x, y, _, ok := v.Ghost(); ok {
		sx, sy := screen(x, y)
		vector.StrokeCircle(dst, sx, sy, tanks.TankRadius*scale+4, 2, colorGhost, false)
	}
	ebitenutil.DebugPrintAt(dst, scores, feedX, fieldY)
	ebitenutil.DebugPrintAt(dst, "kills and chat", feedX, fieldY+300)
	for i, line := range d.g.Feed {
		ebitenutil.DebugPrintAt(dst, line, feedX, fieldY+320+16*i)
	}
}

func (d *drawing) drawCrate(dst *ebiten.Image, n game.EntityNum, c *tanks.Crate) {
	sx, sy := screen(c.X-tanks.CrateHalf, c.Y-tanks.CrateHalf)
	side := float32(2 * tanks.CrateHalf * scale)
	col := colorCrate
	if !c.Solid() {
		col = colorWreck
	}
	vector.DrawFilledRect(dst, sx, sy, side, side, col, false)
	// A hit (EventCrateHit, counted by the crate's ReceiveEvent) sparks
	// for a moment.
	if c.Sparks != d.crateHits[n] {
		if c.Sparks > d.crateHits[n] {
			d.sparks += c.Sparks - d.crateHits[n]
		}
		d.crateHits[n] = c.Sparks
		d.sparkUntil[n] = d.frames + sparkFrames
	}
	if d.frames < d.sparkUntil[n] {
		cx, cy := screen(c.X, c.Y)
		r := side/2 + float32(d.sparkUntil[n]-d.frames)/2
		for i := range 8 {
			a := float64(i)*math.Pi/4 + float64(d.frames)/7
			x, y := cx+r*float32(math.Cos(a)), cy+r*float32(math.Sin(a))
			vector.DrawFilledCircle(dst, x, y, 2.5, colorSpark, false)
		}
	}
}

func (d *drawing) drawTank(dst *ebiten.Image, self bool, t *tanks.Tank, x, y float32) {
	sx, sy := screen(x, y)
	r := float32(tanks.TankRadius * scale)
	if !t.Alive() {
		vector.StrokeCircle(dst, sx, sy, r, 2, colorWrecked, false)
		return
	}
	col := colorOther
	if self {
		col = colorSelf
	}
	vector.DrawFilledCircle(dst, sx, sy, r, col, false)
	// The barrel along the heading (256 headings counter-clockwise from +X
	// in the game's coordinates, +Y down as on screen).
	a := float64(t.Heading) * 2 * math.Pi / 256
	vector.StrokeLine(dst, sx, sy, sx+2*r*float32(math.Cos(a)), sy+2*r*float32(math.Sin(a)), 3, colorBarrel, false)
	// Hit points: a bar above the tank, a segment each.
	seg := 2 * r / tanks.MaxHP
	for i := range int32(tanks.MaxHP) {
		col := colorHPLost
		if i < t.HP {
			col = colorHP
		}
		vector.DrawFilledRect(dst, sx-r+float32(i)*seg, sy-r-6, seg-1, 3, col, false)
	}
}

// chat sends a chat line (a game message to the server, which relays it
// to every client's feed): on C, or once chatAt after connecting when the
// player's tank drives itself. Draw runs on the window's goroutine, which
// owns the client.
func (d *drawing) chat(cl *client.Client) {
	if d.connected.IsZero() {
		d.connected = time.Now()
	}
	send := inpututil.IsKeyJustPressed(ebiten.KeyC)
	if d.autoplay && !d.chatted && time.Since(d.connected) >= chatAt {
		send, d.chatted = true, true
	}
	if send {
		cl.SendMessage(&tanks.Chat{Text: chatText})
	}
}
