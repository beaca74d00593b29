package bench

import (
	"fmt"
	"slices"
	"time"

	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/refgame"
	"github.com/snapwire/snapwire/internal/snapshot"
)

// Game and snapshot rates (DOOM III §2: 60 Hz frames; §1.1: snapshots at 10-20 Hz).
const (
	FrameRate     = refgame.FrameRate
	SnapshotEvery = 3 // frames between snapshots: 20 Hz
	SnapshotRate  = FrameRate / SnapshotEvery
)

// Scenario is one recorded workload: an arena map, bots on every player slot, and optionally
// doors forced through their cycle.
type Scenario struct {
	Name   string // short id used in tables and JSON
	Title  string
	Config refgame.Config
	// DoorPeriod, when non-zero, forces every door open for DoorPeriod frames and closed for
	// DoorPeriod frames, each door at its own phase, so entities keep leaving and re-entering
	// every client's PVS (scenario d).
	DoorPeriod int
}

// Scenarios returns the five benchmark scenarios.
func Scenarios() []Scenario {
	return []Scenario{
		{Name: "duel", Title: "(a) duel: 2 players, 100 entities",
			Config: refgame.Config{Seed: 1, RoomsX: 2, RoomsY: 2, MaxPlayers: 2, Entities: 100}},
		{Name: "16p", Title: "(b) 16 players, 500 entities",
			Config: refgame.Config{Seed: 2, RoomsX: 3, RoomsY: 3, MaxPlayers: 16, Entities: 500}},
		{Name: "64p", Title: "(c) 64 players, 4096 entities",
			Config: refgame.Config{Seed: 3, RoomsX: 8, RoomsY: 8, RoomTiles: 14, MaxPlayers: 64, Entities: 4096}},
		{Name: "churn", Title: "(d) PVS churn: 16 players, 2000 entities, doors cycling every second",
			Config:     refgame.Config{Seed: 4, RoomsX: 4, RoomsY: 4, MaxPlayers: 16, Entities: 2000},
			DoorPeriod: FrameRate},
		{Name: "static", Title: "(e) dense static map: 16 players, 4096 entities that never change",
			Config: refgame.Config{Seed: 5, RoomsX: 4, RoomsY: 4, MaxPlayers: 16, Entities: 4096, StaticFill: true}},
	}
}

// Tick is one recorded snapshot time: the server's state after running Frame and what every
// client sees, so every encoder is given exactly the same work.
type Tick struct {
	Frame game.Frame
	World *refgame.World    // a copy of the server world after Frame
	PVS   []snapshot.PVS    // per client (Game.Visible)
	Areas []refgame.RoomSet // per client: the visible rooms (the Quake 3 areamask)
	Cmds  []game.PlayerCmd  // every player's command of Frame, ascending by entity
}

// Recording is a scenario run once with bots.
type Recording struct {
	Scenario Scenario
	Clients  int
	Load     *refgame.World // the world right after the map loaded (the baseline / initial base)
	Ticks    []Tick
	// Server costs measured while recording: RunFrame per frame, Visible per client.
	FrameNS   float64
	VisibleNS float64
}

// Record runs scenario sc: warmup frames unrecorded, then ticks snapshot ticks recorded.
func Record(sc Scenario, warmup, ticks int) (*Recording, error) {
	w, err := refgame.NewWorld(sc.Config)
	if err != nil {
		return nil, err
	}
	cfg := w.Map.Config()
	rec := &Recording{Scenario: sc, Clients: cfg.MaxPlayers, Load: copyWorld(w)}
	bots := make([]*refgame.Bot, rec.Clients)
	for c := range bots {
		if err := w.ClientConnected(game.ClientNum(c)); err != nil {
			return nil, err
		}
		bots[c] = refgame.NewBot(cfg.Seed*1000+uint64(c), game.ClientNum(c), refgame.BotDeathmatch)
	}
	cmds := make([]game.PlayerCmd, rec.Clients)
	var frameTime, visTime time.Duration
	frames, visits := 0, 0
	last := game.Frame(warmup + ticks*SnapshotEvery)
	for f := game.Frame(1); f <= last; f++ {
		if sc.DoorPeriod > 0 {
			cycleDoors(w, f, sc.DoorPeriod)
		}
		for c, b := range bots {
			cmds[c] = game.PlayerCmd{Entity: game.EntityNum(c), Cmd: b.Command(w, f)}
		}
		t := game.Tick{Frame: f, Cmds: cmds, Events: game.Discard}
		start := time.Now()
		w.RunFrame(&t)
		frameTime += time.Since(start)
		frames++
		if f <= game.Frame(warmup) || f%SnapshotEvery != 0 {
			continue
		}
		tk := Tick{Frame: f, World: copyWorld(w), PVS: make([]snapshot.PVS, rec.Clients),
			Areas: make([]refgame.RoomSet, rec.Clients), Cmds: slices.Clone(cmds)}
		start = time.Now()
		for c := range rec.Clients {
			w.Visible(game.ClientNum(c), &tk.PVS[c])
		}
		visTime += time.Since(start)
		visits += rec.Clients
		for c := range rec.Clients {
			p := &w.Players[c]
			tk.Areas[c] = w.VisibleRooms(p.X, p.Y)
		}
		rec.Ticks = append(rec.Ticks, tk)
	}
	if len(rec.Ticks) == 0 {
		return nil, fmt.Errorf("bench: scenario %s recorded no ticks", sc.Name)
	}
	rec.FrameNS = float64(frameTime.Nanoseconds()) / float64(frames)
	rec.VisibleNS = float64(visTime.Nanoseconds()) / float64(visits)
	return rec, nil
}

// cycleDoors forces door i open at phase 0 and closed at phase period of its 2*period cycle.
func cycleDoors(w *refgame.World, f game.Frame, period int) {
	for i := range w.Doors {
		d := &w.Doors[i]
		phase := (int(f) + i*37) % (2 * period)
		switch {
		case phase == 0 && d.State == refgame.DoorClosed:
			d.State, d.Since = refgame.DoorOpening, f
			w.Touch(game.EntityNum(w.Map.FirstDoor + i)) // changed outside the world's code
		case phase == period && d.State == refgame.DoorOpen:
			d.State, d.Since = refgame.DoorClosing, f
			w.Touch(game.EntityNum(w.Map.FirstDoor + i))
		}
	}
}

// copyWorld returns a copy of w sharing only the immutable map.
func copyWorld(w *refgame.World) *refgame.World {
	c := *w
	c.Players = slices.Clone(w.Players)
	c.Rockets = slices.Clone(w.Rockets)
	c.Doors = slices.Clone(w.Doors)
	c.Lights = slices.Clone(w.Lights)
	c.Pickups = slices.Clone(w.Pickups)
	c.Props = slices.Clone(w.Props)
	c.Stats = slices.Clone(w.Stats)
	return &c
}

// MeanVisible returns the mean number of entities in a client's PVS.
func (r *Recording) MeanVisible() float64 {
	n, sum := 0, 0
	for i := range r.Ticks {
		for c := range r.Ticks[i].PVS {
			sum += r.Ticks[i].PVS[c].Len()
			n++
		}
	}
	return float64(sum) / float64(max(n, 1))
}

// states returns client c's non-PVS states in w, indexed by StateID.
func states(w *refgame.World, c int, dst []game.Snapshotter) []game.Snapshotter {
	dst = dst[:0]
	for id := range w.Registry().NumStates() {
		dst = append(dst, w.State(game.ClientNum(c), game.StateID(id)))
	}
	return dst
}
