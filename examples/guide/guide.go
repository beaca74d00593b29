// Package guide is the game of docs/GUIDE.md: tag on a square field. Each
// player moves a dot; whoever is "it" passes it on by touching another dot,
// which must then wait a second (60 frames) before it can tag back. A
// client's taunt reaches every client through the server, and the server
// announces each tag. guide_test.go runs it over the link simulator;
// snap_gen.go is written by snapgen from the declarations (go generate).
package guide

import (
	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/game"
)

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

// Position makes a dot a client.Positioner: the window draws it blended
// between frames, and the client measures its prediction error.
func (d *Dot) Position() (x, y, z float32) { return float32(d.X), float32(d.Y), 0 }

// Say is a game message both ways: a client's taunt to the server, and
// the server's line to every client: a relayed taunt, or "it" from the
// player who was just tagged.
//
//snap:message
type Say struct {
	From game.ClientNum `snap:"bits=6"`
	Text string         `snap:"max=40"`
}

// Game is the whole game, the same on the server and on every client.
type Game struct {
	*game.EntityTable
	// Announce sends a line to every client: on the server, the
	// server's BroadcastMessage; on a client nothing (RunFrame predicts).
	Announce func(game.Message) error
}

// New returns the game: both ends register the same types in one order.
func New() *Game {
	reg := game.NewRegistry()
	reg.MustRegister(game.EntityType{Name: "guide.Dot", New: func() game.Entity { return new(Dot) }})
	reg.RegisterMessage("guide.Say", func() game.Message { return new(Say) })
	return &Game{game.NewEntityTable(reg), func(game.Message) error { return nil }}
}

func (g *Game) Load(string) error                                   { g.EntityTable = game.NewEntityTable(g.Registry()); return nil }
func (g *Game) State(game.ClientNum, game.StateID) game.Snapshotter { return nil }

// ClientConnected spawns client c's dot at the lowest free number, in a
// column up from the centre; the first player is it.
func (g *Game) ClientConnected(c game.ClientNum) error {
	_, e, err := g.Add(1) // guide.Dot, the first type registered
	if d, ok := e.(*Dot); ok {
		*d = Dot{Y: -16 * int32(c%64), It: g.Len() == 1, Client: c}
	}
	return err
}

func (g *Game) ClientDisconnected(c game.ClientNum) {
	if n, ok := g.PlayerEntity(c); ok {
		g.Remove(n)
	}
}

// PlayerEntity finds client c's dot by its Client field, on the server
// and on a client alike.
func (g *Game) PlayerEntity(c game.ClientNum) (game.EntityNum, bool) {
	for n, e := range g.Entities() {
		if e.(*Dot).Client == c {
			return n, true
		}
	}
	return 0, false
}

// Visible: every client sees every dot (its PVS, DOOM III §4.2).
func (g *Game) Visible(c game.ClientNum, set game.EntitySet) {
	for n := range g.Entities() {
		set.Add(n)
	}
}

// Relay passes a client's taunt on to everyone, signed with its sender
// (server.Config.OnMessage).
func (g *Game) Relay(from game.ClientNum, m game.Message) {
	if say, ok := m.(*Say); ok {
		g.Announce(&Say{From: from, Text: say.Text})
	}
}

// Bot is a player's input (client.InputFunc): walk up while it and not
// alone, else stand. The client tells it its player (in.Player), read from g, the
// client's own game.
func (g *Game) Bot(in client.Input) game.UserCmd {
	if e, _ := g.Entity(in.Player); in.HasPlayer && e.(*Dot).It && g.Len() > 1 {
		return game.UserCmd{Forward: 1}
	}
	return game.UserCmd{}
}

// RunFrame moves each dot by its command, Right along x and Forward up
// the screen (-y); then whoever is it and may tag tags a dot it touches.
// The same code runs on the server and, predicting, on every client
// (DOOM III §2).
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
				g.Announce(&Say{From: b.Client, Text: "it"})
				return
			}
		}
	}
}
