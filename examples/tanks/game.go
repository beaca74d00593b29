package tanks

import (
	"github.com/snapwire/snapwire/game"
)

// Game is the tanks game; the server and every client each make one with
// New.
type Game struct {
	*game.EntityTable
	reg                *game.Registry
	tank, shell, crate game.TypeID

	// tanks maps a client to its tank's entity number (+1; 0 = none), on
	// the server from ClientConnected, on a client from the tanks' Client
	// fields.
	tanks [MaxPlayers]game.EntityNum

	// Scratch of RunFrame: what it spawns and removes after the entities
	// ran, so every entity runs on the state the frame began with.
	fired   []game.EntityNum
	spent   []game.EntityNum
	outbox  []game.Message
	frame   game.Frame
	sink    game.EventSink
	predict bool
}

// New returns the game with its registry.
func New() *Game {
	g := &Game{reg: game.NewRegistry(), fired: make([]game.EntityNum, 0, MaxPlayers), spent: make([]game.EntityNum, 0, 64)}
	g.tank = g.reg.MustRegister(game.EntityType{Name: "tanks.Tank", New: func() game.Entity { return &Tank{} }, Mode: game.Predict})
	g.shell = g.reg.MustRegister(game.EntityType{Name: "tanks.Shell", New: func() game.Entity { return &Shell{} }, Mode: game.Predict})
	g.crate = g.reg.MustRegister(game.EntityType{Name: "tanks.Crate", New: func() game.Entity { return &Crate{} }, Mode: game.Predict})
	return g
}

// Registry implements game.Game.
func (g *Game) Registry() *game.Registry { return g.reg }

// Load starts a match: the crates, in a fixed order so that the server and
// every client number them alike.
func (g *Game) Load(settings string) error {
	g.EntityTable = game.NewEntityTable(g.reg)
	g.tanks = [MaxPlayers]game.EntityNum{}
	for _, at := range crateSpots {
		n, ok := g.FreeNum(0)
		if !ok {
			return game.ErrRange
		}
		e, err := g.Spawn(n, g.crate)
		if err != nil {
			return err
		}
		c := e.(*Crate)
		c.X, c.Y, c.HP = at[0], at[1], MaxHP
	}
	return nil
}

// ClientConnected spawns client c's tank at its spawn point.
func (g *Game) ClientConnected(c game.ClientNum) error {
	if int(c) >= MaxPlayers {
		return game.ErrRange
	}
	n, ok := g.FreeNum(0)
	if !ok {
		return game.ErrRange
	}
	e, err := g.Spawn(n, g.tank)
	if err != nil {
		return err
	}
	t := e.(*Tank)
	t.X, t.Y, t.Heading = spawnPoint(c)
	t.HP, t.Owner = MaxHP, c
	g.tanks[c] = n + 1
	return nil
}

// ClientDisconnected removes client c's tank.
func (g *Game) ClientDisconnected(c game.ClientNum) {
	if n, ok := g.PlayerEntity(c); ok {
		g.Remove(n)
	}
	if int(c) < MaxPlayers {
		g.tanks[c] = 0
	}
}

// PlayerEntity returns client c's tank. On a client, which never ran
// ClientConnected, it is the tank whose Owner is c.
func (g *Game) PlayerEntity(c game.ClientNum) (game.EntityNum, bool) {
	if int(c) >= MaxPlayers || g.EntityTable == nil {
		return 0, false
	}
	if n := g.tanks[c]; n != 0 {
		if e, typ := g.Entity(n - 1); typ == g.tank && e.(*Tank).Owner == c {
			return n - 1, true
		}
	}
	for n, e := range g.Entities() {
		if t, ok := e.(*Tank); ok && t.Owner == c {
			g.tanks[c] = n + 1
			return n, true
		}
	}
	return 0, false
}

// Visible adds what client c's tank can see: everything within ViewRange,
// and the tank itself.
func (g *Game) Visible(c game.ClientNum, set game.EntitySet) {
	n, ok := g.PlayerEntity(c)
	if !ok {
		return
	}
	me := g.tankAt(n)
	set.Add(n)
	for m, e := range g.Entities() {
		x, y, _ := position(e)
		if dx, dy := x-me.X, y-me.Y; dx*dx+dy*dy <= ViewRange*ViewRange {
			set.Add(m)
		}
	}
}

// State implements game.Game: the tanks have no state outside entities.
func (g *Game) State(c game.ClientNum, id game.StateID) game.Snapshotter { return nil }

func (g *Game) tankAt(n game.EntityNum) *Tank {
	e, typ := g.Entity(n)
	if typ != g.tank {
		return nil
	}
	return e.(*Tank)
}

func position(e game.Entity) (x, y float32, ok bool) {
	switch e := e.(type) {
	case *Tank:
		return e.X, e.Y, true
	case *Shell:
		return e.X, e.Y, true
	case *Crate:
		return e.X, e.Y, true
	}
	return 0, 0, false
}
