// Package guide is the game of docs/GUIDE.md: tag on a square field. Each
// player moves a dot; whoever is "it" passes it on by touching another dot,
// which must then wait a second (60 frames) before it can tag back.
//
// The guide grows it in steps, one file each: guide.go is the game and
// guide_test.go runs it over the link simulator (the netsim program whose
// size GUIDE.md quotes); messages.go adds a game message both ways (a
// client's taunt relayed to everyone, the server's announcement of each
// tag); udp_example_test.go plays that over real UDP with connect tokens,
// and the play module's example_guide_test.go in a window. snap_gen.go is written by
// snapgen from the declarations (go generate).
package guide

import "github.com/snapwire/snapwire/game"

//go:generate go run github.com/snapwire/snapwire/snapgen

// Edge bounds the field: x and y run from -Edge to Edge.
const Edge = 1024

// Dot is a player's entity. Its networked fields are declared once, with
// their ranges, and snapgen writes their codecs (DOOM III §5).
//
//snap:entity
type Dot struct {
	X, Y   int32          `snap:"min=-Edge,max=Edge"`
	It     bool           // whoever is it tags the dots it touches
	Wait   uint8          // frames before this dot may tag
	Client game.ClientNum `snap:"bits=6"` // the player it belongs to
}

// Position makes a dot a client.Positioner: the client measures its
// prediction error (client.Stats), and the window (package play) draws it
// blended between frames.
func (d *Dot) Position() (x, y, z float32) { return float32(d.X), float32(d.Y), 0 }

// Owner makes a dot its player's (game.Owned): the table's PlayerEntity
// finds a client's dot by it, on the server and on a client alike, and
// its ClientDisconnected removes it.
func (d *Dot) Owner() (game.ClientNum, bool) { return d.Client, true }

// Game is the whole game, the same on the server and on every client. The
// entity table holds the dots and gives the Game methods the guide leaves
// as they are: Load (an empty field), Visible (every dot), State (none),
// PlayerEntity and ClientDisconnected (by Owner).
type Game struct{ *game.EntityTable }

// New returns the game: both ends register the same types in one order.
func New() *Game {
	reg := game.NewRegistry()
	reg.MustRegister(game.EntityType{Name: "guide.Dot", New: func() game.Entity { return new(Dot) }})
	return &Game{game.NewEntityTable(reg)}
}

// ClientConnected spawns client c's dot at the lowest free number, in a
// column down from the centre; the first player is it.
func (g *Game) ClientConnected(c game.ClientNum) error {
	_, err := g.AddEntity(1, &Dot{Y: 16 * int32(c%64), It: g.Len() == 0, Client: c}) // 1: guide.Dot, the first type registered
	return err
}

// RunFrame moves each dot by its command, Right along x and Forward up
// the screen (-y); then whoever is it and may tag tags a dot it touches,
// which must wait before it tags back. The same code runs on the server
// and, predicting, on every client (DOOM III §2).
func (g *Game) RunFrame(t *game.Tick) {
	for _, pc := range t.Cmds {
		e, _ := g.Entity(pc.Entity)
		if d, ok := e.(*Dot); ok {
			d.X = min(max(d.X+int32(pc.Cmd.Right), -Edge), Edge)
			d.Y = min(max(d.Y-int32(pc.Cmd.Forward), -Edge), Edge)
			d.Wait = max(d.Wait, 1) - 1
		}
	}
	for _, a := range g.Entities() {
		for _, b := range g.Entities() {
			if a, b := a.(*Dot), b.(*Dot); a.It && a.Wait == 0 && a != b && max(a.X-b.X, b.X-a.X, a.Y-b.Y, b.Y-a.Y) < 8 {
				a.It, b.It, b.Wait = false, true, 60
			}
		}
	}
}
