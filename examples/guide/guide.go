// Package guide is the smallest game snapwire can network, the program of
// docs/GUIDE.md ("write your own game"): one entity type, a dot each
// player moves, with a server and a client over the link simulator in
// guide_test.go. Everything a game provides is here: the registry both
// ends build the same way, the entity's snapshot fields, the map load, a
// player per client, the fixed frame, and what each client sees.
package guide

import "github.com/snapwire/snapwire/game"

// Dot is a player's entity: a position on a line, moved by its commands.
// Its fields cross the network as declared (X in 20 bits); go generate
// writes WriteSnapshot and ReadSnapshot into snap_gen.go, the same order on
// both ends (DOOM III §5).
//
//snap:entity
type Dot struct {
	X int32 `snap:"bits=20"`
}

//go:generate go run github.com/snapwire/snapwire/snapgen

// Game is the whole game: the entity table and the registry.
type Game struct {
	*game.EntityTable
	reg *game.Registry
	dot game.TypeID
}

// New returns the game; the server and every client each make one.
func New() *Game {
	g := &Game{reg: game.NewRegistry()}
	g.dot = g.reg.MustRegister(game.EntityType{Name: "guide.Dot", New: func() game.Entity { return &Dot{} }, Mode: game.Predict})
	return g
}

func (g *Game) Registry() *game.Registry { return g.reg }

// Load starts a match: an empty line (the settings name nothing here).
func (g *Game) Load(settings string) error {
	g.EntityTable = game.NewEntityTable(g.reg)
	return nil
}

// A client's player is entity number = client number.
func (g *Game) ClientConnected(c game.ClientNum) error {
	_, err := g.Spawn(game.EntityNum(c), g.dot)
	return err
}
func (g *Game) ClientDisconnected(c game.ClientNum) { g.Remove(game.EntityNum(c)) }
func (g *Game) PlayerEntity(c game.ClientNum) (game.EntityNum, bool) {
	return game.EntityNum(c), c < 64
}

// RunFrame moves each dot by its command: the same code runs on the server
// and, predicting, on every client (DOOM III §2).
func (g *Game) RunFrame(t *game.Tick) {
	for _, pc := range t.Cmds {
		if e, typ := g.Entity(pc.Entity); typ == g.dot {
			e.(*Dot).X += int32(pc.Cmd.Forward)
		}
	}
}

// Visible: every client sees every dot.
func (g *Game) Visible(c game.ClientNum, set game.EntitySet) {
	for n := range g.Entities() {
		set.Add(n)
	}
}

// State: this game has no state outside entities.
func (g *Game) State(c game.ClientNum, id game.StateID) game.Snapshotter { return nil }
