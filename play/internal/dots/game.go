// Command dots is a game other than the arena played in package play's
// window: the window tests' subject (play/internal/windowtest). Each
// player is a dot moved by its commands; balls bounce around the field on
// their own. With -autoplay the player's dot circles; -screenshot writes
// the last frame; -json prints what was played. It is built on public
// packages only (game, client, bitmsg, play) apart from the summary's
// invariant counters (internal/clienthook).
package main

import (
	"math"

	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/game"
)

// The field, in world units; a pixel a unit in the window, below the
// status band.
const (
	fieldW = 1200
	fieldH = 560
	speed  = 4 // units a frame at full command
	balls  = 3
)

// Dot is a player's entity.
type Dot struct{ X, Y float32 }

// WriteSnapshot and ReadSnapshot list the fields that cross the network,
// in the same order on both ends (DOOM III §5): positions in eighths of a
// unit.
func (d *Dot) WriteSnapshot(w *bitmsg.DeltaWriter) {
	w.WriteInt(int32(d.X*8), 16)
	w.WriteInt(int32(d.Y*8), 16)
}

func (d *Dot) ReadSnapshot(r *bitmsg.DeltaReader) {
	d.X = float32(r.ReadInt(16)) / 8
	d.Y = float32(r.ReadInt(16)) / 8
}

// Position makes the dot a client.Positioner: the window blends it
// between frames.
func (d *Dot) Position() (x, y, z float32) { return d.X, d.Y, 0 }

// Ball bounces off the field's edges on its own.
type Ball struct{ X, Y, VX, VY float32 }

func (b *Ball) WriteSnapshot(w *bitmsg.DeltaWriter) {
	w.WriteInt(int32(b.X*8), 16)
	w.WriteInt(int32(b.Y*8), 16)
	w.WriteInt(int32(b.VX*8), 8)
	w.WriteInt(int32(b.VY*8), 8)
}

func (b *Ball) ReadSnapshot(r *bitmsg.DeltaReader) {
	b.X = float32(r.ReadInt(16)) / 8
	b.Y = float32(r.ReadInt(16)) / 8
	b.VX = float32(r.ReadInt(8)) / 8
	b.VY = float32(r.ReadInt(8)) / 8
}

func (b *Ball) Position() (x, y, z float32) { return b.X, b.Y, 0 }

// Game is the whole game: the entity table and the registry.
type Game struct {
	*game.EntityTable
	reg       *game.Registry
	dot, ball game.TypeID
}

// firstBall is the number of the first ball; players are numbered by
// their client number.
const firstBall = 64

// New returns the game; the server and the client each make one.
func New() *Game {
	g := &Game{reg: game.NewRegistry()}
	g.dot = g.reg.MustRegister(game.EntityType{Name: "dots.Dot", New: func() game.Entity { return &Dot{} }, Mode: game.Predict})
	g.ball = g.reg.MustRegister(game.EntityType{Name: "dots.Ball", New: func() game.Entity { return &Ball{} }, Mode: game.Predict})
	return g
}

func (g *Game) Registry() *game.Registry { return g.reg }

// Load spawns the balls, the same on both ends.
func (g *Game) Load(settings string) error {
	g.EntityTable = game.NewEntityTable(g.reg)
	for i := range balls {
		e, err := g.Spawn(firstBall+game.EntityNum(i), g.ball)
		if err != nil {
			return err
		}
		*e.(*Ball) = Ball{X: float32(200 + 300*i), Y: float32(100 + 150*i), VX: float32(3 - 2*i), VY: 2}
	}
	return nil
}

func (g *Game) ClientConnected(c game.ClientNum) error {
	e, err := g.Spawn(game.EntityNum(c), g.dot)
	if err == nil {
		*e.(*Dot) = Dot{X: fieldW / 2, Y: fieldH / 2}
	}
	return err
}

func (g *Game) ClientDisconnected(c game.ClientNum) { g.Remove(game.EntityNum(c)) }

func (g *Game) PlayerEntity(c game.ClientNum) (game.EntityNum, bool) {
	return game.EntityNum(c), c < firstBall
}

// RunFrame moves each dot by its command along the field's axes and each
// ball by its velocity; the same code runs on the server and, predicting,
// on the client (DOOM III §2).
func (g *Game) RunFrame(t *game.Tick) {
	for _, pc := range t.Cmds {
		if e, typ := g.Entity(pc.Entity); typ == g.dot {
			d := e.(*Dot)
			d.X = eighths(clamp(d.X+speed*float32(pc.Cmd.Right)/127, 0, fieldW))
			d.Y = eighths(clamp(d.Y-speed*float32(pc.Cmd.Forward)/127, 0, fieldH))
		}
	}
	for i := range balls {
		if e, typ := g.Entity(firstBall + game.EntityNum(i)); typ == g.ball {
			b := e.(*Ball)
			b.X, b.Y = b.X+b.VX, b.Y+b.VY
			if b.X < 0 || b.X > fieldW {
				b.VX = -b.VX
			}
			if b.Y < 0 || b.Y > fieldH {
				b.VY = -b.VY
			}
			b.X, b.Y = clamp(b.X, 0, fieldW), clamp(b.Y, 0, fieldH)
		}
	}
}

func clamp(v, lo, hi float32) float32 { return min(max(v, lo), hi) }

// eighths rounds v to the snapshot's precision, so that the client's
// prediction from a snapshot and the server's frames agree exactly.
func eighths(v float32) float32 { return float32(math.Round(float64(v)*8)) / 8 }

// Visible: every client sees everything.
func (g *Game) Visible(c game.ClientNum, set game.EntitySet) {
	for n := range g.Entities() {
		set.Add(n)
	}
}

func (g *Game) State(c game.ClientNum, id game.StateID) game.Snapshotter { return nil }

// circle is the autoplay's command: full speed along a circle of about
// 150 units' radius, once round in 4 s.
func circle(in client.Input) game.UserCmd {
	a := 2 * math.Pi * float64(in.Frame) / 240
	return game.UserCmd{Frame: in.Frame, Right: int8(math.Round(127 * math.Cos(a))), Forward: int8(math.Round(127 * math.Sin(a)))}
}
