// Package crowdgame is a game.Game for many players in one match (issue
// 25: up to game.MaxClients), cheap enough that tests and benchmarks run
// hundreds of clients in seconds. Client c's player is entity c, placed by
// its number on a grid, 32 to a row and Spacing apart, and moved along X
// by its commands. A client sees the players within Radius of its own,
// found through a game.Grid of side Cell the server updates each frame: a
// spatial grid, so what a client's snapshot costs and carries follows the
// players near it, not the size of the match. There is no map entity and
// no non-PVS state. `snapwire serve --game crowd` serves it (issue 25: a
// match of up to 1,024 players over real UDP).
package crowdgame

import (
	"fmt"

	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/game"
)

// Settings is the only settings string Load takes.
const Settings = "crowd"

// Grid geometry: Spacing between spawn points, 32 to a row, the side of a
// cell of the PVS grid and the radius a player sees (1.5 cells: about the
// 3×3 cells around it).
const (
	Spacing = 60
	Row     = 32
	Cell    = 100
	Radius  = 150
)

// TypePlayer is the player entity type, the registry's only one.
const TypePlayer game.TypeID = 1

// Player is a client's avatar: a position on the grid.
type Player struct{ X, Y int16 }

func (p *Player) WriteSnapshot(w *bitmsg.DeltaWriter) {
	w.WriteInt(int32(p.X), 16)
	w.WriteInt(int32(p.Y), 16)
}
func (p *Player) ReadSnapshot(r *bitmsg.DeltaReader) {
	p.X, p.Y = int16(r.ReadInt(16)), int16(r.ReadInt(16))
}

// Position implements the client's Positioner.
func (p *Player) Position() (x, y, z float32) { return float32(p.X), float32(p.Y), 0 }

// Game is the crowd game. One instance per end.
type Game struct {
	*game.EntityTable
	reg  *game.Registry
	grid *game.Grid // the players by position (interest management)
}

// NewRegistry returns the registry both ends use.
func NewRegistry() *game.Registry {
	r := game.NewRegistry()
	r.MustRegister(game.EntityType{Name: "crowd player", New: func() game.Entity { return &Player{} }})
	return r
}

// New returns an unloaded game.
func New() *Game {
	reg := NewRegistry()
	return &Game{EntityTable: game.NewEntityTable(reg), reg: reg, grid: game.NewGrid(Cell)}
}

func (g *Game) Registry() *game.Registry { return g.reg }

// Load starts an empty grid; players spawn as clients connect.
func (g *Game) Load(settings string) error {
	if settings != Settings {
		return fmt.Errorf("crowdgame: settings %q, want %q", settings, Settings)
	}
	g.EntityTable = game.NewEntityTable(g.reg)
	g.grid = game.NewGrid(Cell)
	return nil
}

// Spawn is where client c's player starts.
func Spawn(c game.ClientNum) (x, y int16) {
	return int16(int(c)%Row) * Spacing, int16(int(c)/Row) * Spacing
}

func (g *Game) ClientConnected(c game.ClientNum) error {
	if int(c) >= game.MaxClients {
		return fmt.Errorf("crowdgame: client %d out of range", c)
	}
	e, err := g.Spawn(game.EntityNum(c), TypePlayer)
	if err != nil {
		return err
	}
	p := e.(*Player)
	p.X, p.Y = Spawn(c)
	g.grid.Move(game.EntityNum(c), float32(p.X), float32(p.Y))
	return nil
}

func (g *Game) ClientDisconnected(c game.ClientNum) {
	g.Remove(game.EntityNum(c))
	g.grid.Remove(game.EntityNum(c))
}

func (g *Game) PlayerEntity(c game.ClientNum) (game.EntityNum, bool) {
	return game.EntityNum(c), int(c) < game.MaxClients
}

// RunFrame moves each commanded player along X by its command's Forward
// divided by 32 (wrapping at the ends of int16: a light client's Forward
// of 100 crosses the range in about 3 minutes at 60 Hz); on the server
// each moved player then moves in the grid.
func (g *Game) RunFrame(t *game.Tick) {
	for _, pc := range t.Cmds {
		if e, typ := g.Entity(pc.Entity); typ == TypePlayer {
			e.(*Player).X += int16(pc.Cmd.Forward / 32)
		}
	}
	if !t.Predicting {
		for _, pc := range t.Cmds {
			if e, typ := g.Entity(pc.Entity); typ == TypePlayer {
				p := e.(*Player)
				g.grid.Move(pc.Entity, float32(p.X), float32(p.Y))
			}
		}
	}
}

// Visible adds the players within Radius of client c's player.
func (g *Game) Visible(c game.ClientNum, set game.EntitySet) {
	e, typ := g.Entity(game.EntityNum(c))
	if typ != TypePlayer {
		return
	}
	p := e.(*Player)
	g.grid.AddNear(set, float32(p.X), float32(p.Y), Radius)
}

// State returns nil: the crowd has no non-PVS state.
func (g *Game) State(c game.ClientNum, id game.StateID) game.Snapshotter { return nil }
