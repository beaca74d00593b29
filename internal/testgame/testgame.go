// Package testgame is a small deterministic game.Game for the server and
// client tests: players driven by user commands (they push each other
// apart when they touch), movers bouncing between walls (an unreliable
// event on each bounce), doors that toggle on a fixed schedule or when a
// player uses them (a saved reliable event on each toggle), drones shown by
// interpolation (game.Interpolate), a shared non-PVS score state and a
// per-player state. A client sees the entities within ViewRange of its
// player along X, so movers leave and re-enter its PVS.
//
// Floating point: every product that feeds a sum is converted explicitly
// to float32 so that no compiler fuses it (docs/ARCHITECTURE.md, "Time and
// determinism").
package testgame

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/game"
)

// Map geometry and tuning.
const (
	Width      = 2000
	Height     = 1000
	ViewRange  = 400
	Speed      = 0.04 // units per frame per command unit
	TouchDist  = 20
	UseRange   = 60
	MaxPlayers = 64 // entities 0..63 (server.Config.MaxClients is at most 64)
	FirstMover = 64
	FirstDoor  = 128
	FirstDrone = 192
)

// Event ids.
const (
	EventBounce game.EventID = 1 // unreliable: a mover hit a wall
	EventDoor   game.EventID = 2 // reliable, saved: a door's new state
)

// Type ids, in registration order.
const (
	TypePlayer game.TypeID = 1
	TypeMover  game.TypeID = 2
	TypeDoor   game.TypeID = 3
	TypeDrone  game.TypeID = 4
)

// State ids.
const (
	StateScore  game.StateID = 0
	StatePlayer game.StateID = 1
)

// Player is a client's avatar.
type Player struct {
	X, Y float32
	Yaw  uint16
	Uses uint8
}

func (p *Player) WriteSnapshot(w *bitmsg.DeltaWriter) {
	w.WriteFloat(p.X)
	w.WriteFloat(p.Y)
	w.WriteUint16(p.Yaw)
	w.WriteUint8(p.Uses)
}
func (p *Player) ReadSnapshot(r *bitmsg.DeltaReader) {
	p.X, p.Y, p.Yaw, p.Uses = r.ReadFloat(), r.ReadFloat(), r.ReadUint16(), r.ReadUint8()
}

// Position implements the client's Positioner.
func (p *Player) Position() (x, y, z float32) { return p.X, p.Y, 0 }

// Mover bounces along X.
type Mover struct {
	X, Y, VX float32
	Color    uint8 // never changes after load
}

func (m *Mover) WriteSnapshot(w *bitmsg.DeltaWriter) {
	w.WriteFloat(m.X)
	w.WriteFloat(m.VX)
	w.WriteFloat(m.Y)
	w.WriteUint8(m.Color)
}
func (m *Mover) ReadSnapshot(r *bitmsg.DeltaReader) {
	m.X, m.VX, m.Y, m.Color = r.ReadFloat(), r.ReadFloat(), r.ReadFloat(), r.ReadUint8()
}
func (m *Mover) Position() (x, y, z float32) { return m.X, m.Y, 0 }

// ReceiveEvent records bounce events in the owning game's log.
func (m *Mover) ReceiveEvent(ev game.EventID, frame game.Frame, r *bitmsg.Reader) {}

// Door toggles open/closed.
type Door struct {
	X, Y   float32
	Open   bool
	Period uint16 // frames between scheduled toggles (0: never)
}

func (d *Door) WriteSnapshot(w *bitmsg.DeltaWriter) {
	w.WriteBool(d.Open)
	w.WriteFloat(d.X)
	w.WriteFloat(d.Y)
	w.WriteUint16(d.Period)
}
func (d *Door) ReadSnapshot(r *bitmsg.DeltaReader) {
	d.Open, d.X, d.Y, d.Period = r.ReadBool(), r.ReadFloat(), r.ReadFloat(), r.ReadUint16()
}
func (d *Door) Position() (x, y, z float32) { return d.X, d.Y, 0 }

// ReceiveEvent applies EventDoor (DOOM III §5 ClientReceiveEvent).
func (d *Door) ReceiveEvent(ev game.EventID, frame game.Frame, r *bitmsg.Reader) {
	if ev == EventDoor {
		d.Open = r.ReadBool()
	}
}

// Drone moves along X and is interpolated by clients (game.Interpolate).
type Drone struct {
	X, Y, VX float32
}

func (d *Drone) WriteSnapshot(w *bitmsg.DeltaWriter) {
	w.WriteFloat(d.X)
	w.WriteFloat(d.Y)
	w.WriteFloat(d.VX)
}
func (d *Drone) ReadSnapshot(r *bitmsg.DeltaReader) {
	d.X, d.Y, d.VX = r.ReadFloat(), r.ReadFloat(), r.ReadFloat()
}
func (d *Drone) Position() (x, y, z float32) { return d.X, d.Y, 0 }

// Interpolate implements the client's Interpolator: the position between
// the two snapshot states.
func (d *Drone) Interpolate(from, to game.Entity, frac float32) {
	a, b := from.(*Drone), to.(*Drone)
	*d = *b
	d.X = a.X + float32((b.X-a.X)*frac)
	d.Y = a.Y + float32((b.Y-a.Y)*frac)
}

// Score is the shared non-PVS state.
type Score struct {
	Toggles uint16
	Bounces uint16
}

func (s *Score) WriteSnapshot(w *bitmsg.DeltaWriter) {
	w.WriteUint16(s.Toggles)
	w.WriteUint16(s.Bounces)
}
func (s *Score) ReadSnapshot(r *bitmsg.DeltaReader) {
	s.Toggles, s.Bounces = r.ReadUint16(), r.ReadUint16()
}

// PlayerStats is each player's own non-PVS state.
type PlayerStats struct{ Frames uint32 }

func (s *PlayerStats) WriteSnapshot(w *bitmsg.DeltaWriter) { w.WriteUint32(s.Frames) }
func (s *PlayerStats) ReadSnapshot(r *bitmsg.DeltaReader)  { s.Frames = r.ReadUint32() }

// NewRegistry returns the registry both ends use.
func NewRegistry() *game.Registry {
	r := game.NewRegistry()
	r.MustRegister(game.EntityType{Name: "player", New: func() game.Entity { return &Player{} }})
	r.MustRegister(game.EntityType{Name: "mover", New: func() game.Entity { return &Mover{} }})
	r.MustRegister(game.EntityType{Name: "door", New: func() game.Entity { return &Door{} }})
	r.MustRegister(game.EntityType{Name: "drone", New: func() game.Entity { return &Drone{} }, Mode: game.Interpolate})
	r.MustRegisterState(game.StateType{Name: "score", New: func() game.Snapshotter { return &Score{} }})
	r.MustRegisterState(game.StateType{Name: "player", New: func() game.Snapshotter { return &PlayerStats{} }})
	return r
}

// Settings are parsed from the settings string "map=NAME,movers=N,doors=N,drones=N".
type Settings struct {
	Map                   string
	Movers, Doors, Drones int
	DoorPeriod            int
}

// DefaultSettings is the map the tests load unless they say otherwise.
const DefaultSettings = "map=one,movers=6,doors=4,drones=2,period=97"

// ParseSettings parses a settings string.
func ParseSettings(s string) (Settings, error) {
	st := Settings{Map: "one", DoorPeriod: 97}
	for kv := range strings.SplitSeq(s, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return st, fmt.Errorf("testgame: bad setting %q", kv)
		}
		if k == "map" {
			st.Map = v
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > 1000 || (k != "period" && n > 60) {
			return st, fmt.Errorf("testgame: bad setting %q", kv)
		}
		switch k {
		case "movers":
			st.Movers = n
		case "doors":
			st.Doors = n
		case "drones":
			st.Drones = n
		case "period":
			st.DoorPeriod = n
		default:
			return st, fmt.Errorf("testgame: unknown setting %q", k)
		}
	}
	return st, nil
}

// Game is the test game. One instance per end.
type Game struct {
	*game.EntityTable
	reg      *game.Registry
	Settings Settings
	Loads    int // number of Load calls
	score    Score
	stats    [MaxPlayers]PlayerStats
	scratch  bitmsg.Writer
	buf      [8]byte
}

// New returns an unloaded game.
func New() *Game {
	reg := NewRegistry()
	return &Game{EntityTable: game.NewEntityTable(reg), reg: reg}
}

func (g *Game) Registry() *game.Registry { return g.reg }

// Load spawns the map's entities deterministically from the settings.
func (g *Game) Load(settings string) error {
	st, err := ParseSettings(settings)
	if err != nil {
		return err
	}
	g.Settings = st
	g.Loads++
	g.EntityTable = game.NewEntityTable(g.reg)
	g.score = Score{}
	g.stats = [MaxPlayers]PlayerStats{}
	seed := float32(len(st.Map))
	for i := range st.Movers {
		e, _ := g.Spawn(game.EntityNum(FirstMover+i), TypeMover)
		m := e.(*Mover)
		m.X = float32(100 + 290*i)
		m.Y = float32(60+37*i) + seed
		m.VX = float32(1+i%3) * 1.5
		if i%2 == 1 {
			m.VX = -m.VX
		}
		m.Color = uint8(i)
	}
	for i := range st.Doors {
		e, _ := g.Spawn(game.EntityNum(FirstDoor+i), TypeDoor)
		d := e.(*Door)
		d.X = float32(150 + 450*i)
		d.Y = 500
		d.Period = uint16(st.DoorPeriod + 13*i)
	}
	for i := range st.Drones {
		e, _ := g.Spawn(game.EntityNum(FirstDrone+i), TypeDrone)
		d := e.(*Drone)
		d.X = float32(300 + 700*i)
		d.Y = 900
		d.VX = 2.5
	}
	return nil
}

// SpawnPoint is where client c's player appears: its own lane.
func SpawnPoint(c game.ClientNum) (x, y float32) {
	return float32(100 + 110*int(c)%1800), float32(40 + 60*(int(c)%16))
}

func (g *Game) ClientConnected(c game.ClientNum) error {
	if c >= MaxPlayers {
		return fmt.Errorf("testgame: client %d out of range", c)
	}
	e, err := g.Spawn(game.EntityNum(c), TypePlayer)
	if err != nil {
		return err
	}
	p := e.(*Player)
	p.X, p.Y = SpawnPoint(c)
	g.stats[c] = PlayerStats{}
	return nil
}

func (g *Game) ClientDisconnected(c game.ClientNum) { g.Remove(game.EntityNum(c)) }

func (g *Game) PlayerEntity(c game.ClientNum) (game.EntityNum, bool) {
	return game.EntityNum(c), c < MaxPlayers
}

func clamp(v, lo, hi float32) float32 {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}

// RunFrame advances one frame: players (commands, then pushes), movers,
// drones, doors.
func (g *Game) RunFrame(t *game.Tick) {
	for _, pc := range t.Cmds {
		e, typ := g.Entity(pc.Entity)
		if typ != TypePlayer {
			continue
		}
		p := e.(*Player)
		p.X = clamp(p.X+float32(float32(pc.Cmd.Forward)*Speed), 0, Width)
		p.Y = clamp(p.Y+float32(float32(pc.Cmd.Right)*Speed), 0, Height)
		p.Yaw = pc.Cmd.Yaw
		if pc.Entity < MaxPlayers {
			g.stats[pc.Entity].Frames++
		}
		if pc.Cmd.Buttons&1 != 0 && !t.Predicting {
			g.use(p, t)
		}
	}
	// Players touching push each other apart (ascending pairs).
	var players [MaxPlayers]*Player
	np := 0
	for n := game.EntityNum(0); n < MaxPlayers; n++ {
		if e, typ := g.Entity(n); typ == TypePlayer {
			players[np] = e.(*Player)
			np++
		}
	}
	for a := 0; a < np; a++ {
		for b := a + 1; b < np; b++ {
			pa, pb := players[a], players[b]
			dx, dy := pb.X-pa.X, pb.Y-pa.Y
			if dx > -TouchDist && dx < TouchDist && dy > -TouchDist && dy < TouchDist {
				push := float32(2)
				if dx < 0 {
					push = -2
				}
				pa.X = clamp(pa.X-push, 0, Width)
				pb.X = clamp(pb.X+push, 0, Width)
			}
		}
	}
	for n, e := range g.Entities() {
		switch v := e.(type) {
		case *Mover:
			v.X += v.VX
			if v.X < 0 || v.X > Width {
				v.VX = -v.VX
				v.X = clamp(v.X, 0, Width)
				g.score.Bounces++
				if !t.Predicting {
					g.scratch.Reset(g.buf[:])
					g.scratch.WriteFloat(v.X)
					t.Events.SendUnreliableEvent(n, EventBounce, &g.scratch)
				}
			}
		case *Drone:
			v.X += v.VX
			if v.X < 0 || v.X > Width {
				v.VX = -v.VX
				v.X = clamp(v.X, 0, Width)
			}
		case *Door:
			if v.Period != 0 && int(t.Frame)%int(v.Period) == 0 {
				g.toggle(n, v, t)
			}
		}
	}
}

func (g *Game) use(p *Player, t *game.Tick) {
	p.Uses++
	for n, e := range g.Entities() {
		if d, ok := e.(*Door); ok {
			if dx, dy := d.X-p.X, d.Y-p.Y; float32(dx*dx)+float32(dy*dy) < UseRange*UseRange {
				g.toggle(n, d, t)
			}
		}
	}
}

func (g *Game) toggle(n game.EntityNum, d *Door, t *game.Tick) {
	d.Open = !d.Open
	g.score.Toggles++
	if !t.Predicting {
		g.scratch.Reset(g.buf[:])
		g.scratch.WriteBool(d.Open)
		t.Events.ServerSendEvent(n, EventDoor, &g.scratch, true)
	}
}

// Visible adds the entities within ViewRange of client c's player along X
// (and the player itself).
func (g *Game) Visible(c game.ClientNum, set game.EntitySet) {
	e, typ := g.Entity(game.EntityNum(c))
	if typ != TypePlayer {
		return
	}
	px, _, _ := e.(*Player).Position()
	for n, e := range g.Entities() {
		pos, ok := e.(interface{ Position() (x, y, z float32) })
		if !ok {
			continue
		}
		x, _, _ := pos.Position()
		if d := x - px; d > -ViewRange && d < ViewRange {
			set.Add(n)
		}
	}
}

func (g *Game) State(c game.ClientNum, id game.StateID) game.Snapshotter {
	if id == StateScore {
		return &g.score
	}
	if c >= MaxPlayers {
		c = 0
	}
	return &g.stats[c]
}

// Score returns the shared score state.
func (g *Game) Score() Score { return g.score }
