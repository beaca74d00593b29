package refgame

import (
	"fmt"
	"iter"
	"math/bits"
	"sync/atomic"

	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/game"
)

// Tuning. Distances are world units (a tile is TileSize = 32), speeds units per second, times
// game frames at FrameRate.
const (
	FrameRate = 60 // DOOM III §2: the game state is updated at a fixed 60 frames per second

	PlayerRadius = 12   // half-size of the player's box against walls, radius against players
	MaxSpeed     = 320  // top running speed
	Accelerate   = 10   // Quake-style acceleration factor
	Friction     = 6    // Quake-style ground friction
	StopSpeed    = 100  // friction acts as if at least this fast
	MaxVelocity  = 1200 // hard bound on each velocity component (knockback included)

	RocketSpeed    = 600
	RocketRadius   = 4
	RocketLife     = 120 // frames of flight before it explodes in the air
	RocketLinger   = 10  // frames an exploded rocket stays (inert) before the server removes it
	RocketCooldown = 48  // frames between shots; RocketSlots*RocketCooldown > RocketLife+RocketLinger
	RocketDamage   = 100 // direct hit; splash falls off linearly to 0 at SplashRadius
	SplashRadius   = 120
	Knockback      = 5 // velocity change per point of damage

	MaxHealth    = 200
	MaxArmor     = 200
	SpawnHealth  = 100
	RespawnDelay = 90 // frames a dead player waits

	UseRange = 64 // a player can use a door or light switch whose centre is this close

	DoorMoveFrames = 20  // opening and closing take this long (solid meanwhile)
	DoorStayFrames = 180 // an open door starts closing after this long, once its doorway is clear

	PickupRadius               = 16
	PickupRespawn              = 600 // frames, plus a seeded jitter of 0..PickupJitter-1
	PickupJitter               = 120
	PickupHealthAmount         = 25
	PickupArmorAmount          = 50
	DefaultFragLimit           = 20
	IntermissionFrames         = 300 // after a win, frags reset this many frames later
	maxFrags                   = 999
	wallSkin                   = 1.0 / 16 // gap kept between a player's box and a wall
	dt                 float32 = 1.0 / FrameRate
)

// Entity types, registered in this order by NewRegistry (TypeIDs 1..6).
const (
	TypePlayer game.TypeID = iota + 1
	TypeRocket
	TypeDoor
	TypeLight
	TypePickup
	TypeProp
)

// Non-PVS states (DOOM III §3.2 and §8 "multiple states").
const (
	StateScore game.StateID = iota // scores and match info, shared by all clients
	StateStats                     // the local player's own statistics
)

// Events (DOOM III §5 ServerSendEvent).
const (
	// EventDoor: a door changed state. Payload: state (2 bits), frame (32 bits). Reliable and
	// saved, so a late joiner replays every door's transitions.
	EventDoor game.EventID = iota + 1
	// EventLight: a light toggled. Payload: on (1 bit), frame (32 bits). Reliable, not saved
	// (the light's state is in snapshots when in the PVS).
	EventLight
	// EventExplode: a rocket exploded. Payload: x, y (float32 each). Unreliable: a visual effect.
	EventExplode
)

// NewRegistry returns the arena's entity and state types. Server and client must both use it.
func NewRegistry() *game.Registry {
	r := game.NewRegistry()
	for _, t := range []game.EntityType{
		{Name: "arena.player", New: func() game.Entity { return new(Player) }},
		{Name: "arena.rocket", New: func() game.Entity { return new(Rocket) }},
		{Name: "arena.door", New: func() game.Entity { return new(Door) }},
		{Name: "arena.light", New: func() game.Entity { return new(Light) }},
		{Name: "arena.pickup", New: func() game.Entity { return new(Pickup) }},
		{Name: "arena.prop", New: func() game.Entity { return new(Prop) }},
	} {
		r.MustRegister(t)
	}
	r.MustRegisterState(game.StateType{Name: "arena.score", New: func() game.Snapshotter { return new(Scoreboard) }})
	r.MustRegisterState(game.StateType{Name: "arena.stats", New: func() game.Snapshotter { return new(PlayerStats) }})
	return r
}

// World is the arena game: the map, every entity's state, the scores. It implements game.Game;
// the server and the client each run one (DOOM III §2: the same game code on both ends). It is
// pure logic: no I/O, no clock, no goroutines; not safe for concurrent use.
type World struct {
	Map *Map
	reg *game.Registry

	Players []Player
	Rockets []Rocket
	Doors   []Door
	Lights  []Light
	Pickups []Pickup
	Props   []Prop
	Score   Scoreboard
	Stats   []PlayerStats // per player slot
	noStats PlayerStats

	present [game.MaxEntities / 64]uint64
	// per-frame index: the first live player in each room, and the next one in the same room
	roomHead [256]int8
	roomNext [MaxPlayersLimit]int8
	frame    game.Frame // the last frame run (0 after Load)
	ev       bitmsg.Writer
	evBuf    [16]byte

	// versions[n] is entity n's EntityVersion: the value of clock when the world last changed the
	// entity (touch). clock counts in a block of numbers no other World's load drew (worldClocks),
	// so that two worlds never give one FrameCache the same version for different states.
	versions [game.MaxEntities]uint64
	clock    uint64
}

// worldClocks hands each load of a World its block of 2^40 versions (a million changes a second
// for 34 years), from 1 on.
var worldClocks atomic.Uint64

const versionBlock = 1 << 40

// EntityVersion implements snapshot.EntityVersions: a number that changes with every change the
// world makes to entity n (its presence, type or a variable its WriteSnapshot writes) through
// RunFrame, RunCoarseFrame, Spawn, Remove, ClientConnected, ClientDisconnected and Load, which
// lets a server's FrameCache skip the entities a frame left alone. Code that sets an entity's
// fields directly (a test, a tool, a client's ReadSnapshot) calls Touch after; a client's world,
// whose states come from ReadSnapshot, is never given to a FrameCache. 0 before a map is loaded.
func (w *World) EntityVersion(n game.EntityNum) uint64 {
	if int(n) >= game.MaxEntities {
		return 0
	}
	return w.versions[n]
}

// Touch records that entity n changed outside the world's own code (EntityVersion).
func (w *World) Touch(n game.EntityNum) {
	if int(n) < game.MaxEntities && w.clock != 0 {
		w.touch(n)
	}
}

// touch gives entity n a new version.
func (w *World) touch(n game.EntityNum) {
	w.clock++
	w.versions[n] = w.clock
}

// NewWorld returns a world on the map cfg selects, with the map's entities spawned (Load).
func NewWorld(cfg Config) (*World, error) {
	w := &World{reg: NewRegistry()}
	if err := w.load(cfg); err != nil {
		return nil, err
	}
	return w, nil
}

// NewGame returns a world with no map loaded, for a server or client that calls Load with the
// settings string later (Config.String).
func NewGame() *World { return &World{reg: NewRegistry()} }

var _ game.Game = (*World)(nil)

// Registry implements game.Game.
func (w *World) Registry() *game.Registry { return w.reg }

// Load implements game.Game: settings is a Config in the form Config.String writes.
func (w *World) Load(settings string) error {
	cfg, err := ParseConfig(settings)
	if err != nil {
		return err
	}
	return w.load(cfg)
}

func (w *World) load(cfg Config) error {
	m, err := NewMap(cfg)
	if err != nil {
		return err
	}
	cfg = m.cfg
	w.Map = m
	w.Players = make([]Player, cfg.MaxPlayers)
	w.Rockets = make([]Rocket, cfg.MaxPlayers*RocketSlots)
	w.Doors = make([]Door, len(m.Doors))
	w.Lights = make([]Light, len(m.lights))
	w.Pickups = make([]Pickup, len(m.pickups))
	w.Props = make([]Prop, len(m.props))
	w.Stats = make([]PlayerStats, cfg.MaxPlayers)
	w.Score = Scoreboard{Players: int32(cfg.MaxPlayers), FragLimit: DefaultFragLimit, Winner: -1}
	for i := range w.Stats {
		w.Stats[i].LastAttacker = -1
	}
	w.present = [game.MaxEntities / 64]uint64{}
	w.frame = 0
	w.clock = worldClocks.Add(versionBlock) - versionBlock + 1
	for n := range w.versions {
		w.touch(game.EntityNum(n)) // a new map: no version of an old world's state is current
	}
	for i := range w.Lights {
		w.Lights[i].On = m.lights[i].On
	}
	for i := range w.Props {
		w.Props[i].Yaw = uint16(hash64(cfg.Seed, 0, game.EntityNum(m.FirstProp+i), saltFill))
	}
	for n := m.FirstDoor; n < m.NumEntities; n++ {
		w.setPresent(game.EntityNum(n), true)
	}
	return nil
}

// Frame returns the last frame run.
func (w *World) Frame() game.Frame { return w.frame }

func (w *World) isPresent(n game.EntityNum) bool {
	return int(n) < game.MaxEntities && w.present[n/64]&(1<<(n%64)) != 0
}

func (w *World) setPresent(n game.EntityNum, on bool) {
	w.touch(n)
	if on {
		w.present[n/64] |= 1 << (n % 64)
	} else {
		w.present[n/64] &^= 1 << (n % 64)
	}
}

// typeOf returns the type the entity number n has on this map (whether or not it is present).
func (w *World) typeOf(n game.EntityNum) (game.TypeID, int) {
	m := w.Map
	if m == nil {
		return game.NoType, 0
	}
	i := int(n)
	switch {
	case i < m.FirstRocket:
		return TypePlayer, i
	case i < m.FirstDoor:
		return TypeRocket, i - m.FirstRocket
	case i < m.FirstLight:
		return TypeDoor, i - m.FirstDoor
	case i < m.FirstPickup:
		return TypeLight, i - m.FirstLight
	case i < m.FirstProp:
		return TypePickup, i - m.FirstPickup
	case i < m.NumEntities:
		return TypeProp, i - m.FirstProp
	}
	return game.NoType, 0
}

func (w *World) slot(n game.EntityNum) (game.Entity, game.TypeID) {
	t, i := w.typeOf(n)
	switch t {
	case TypePlayer:
		return &w.Players[i], t
	case TypeRocket:
		return &w.Rockets[i], t
	case TypeDoor:
		return &w.Doors[i], t
	case TypeLight:
		return &w.Lights[i], t
	case TypePickup:
		return &w.Pickups[i], t
	case TypeProp:
		return &w.Props[i], t
	}
	return nil, game.NoType
}

// Entity implements game.World.
func (w *World) Entity(n game.EntityNum) (game.Entity, game.TypeID) {
	if !w.isPresent(n) {
		return nil, game.NoType
	}
	return w.slot(n)
}

// Entities implements game.World: the present entities in ascending number order.
func (w *World) Entities() iter.Seq2[game.EntityNum, game.Entity] {
	return func(yield func(game.EntityNum, game.Entity) bool) {
		for wi, word := range w.present {
			for word != 0 {
				b := bits.TrailingZeros64(word)
				word &= word - 1
				n := game.EntityNum(wi*64 + b)
				e, _ := w.slot(n)
				if !yield(n, e) {
					return
				}
			}
		}
	}
}

// Spawn implements game.World. The entity number decides the type on this map (players first,
// then rocket slots, doors, lights, pickups, props); t must match it. The entity starts in its
// default state (map entities: their state right after Load).
func (w *World) Spawn(n game.EntityNum, t game.TypeID) (game.Entity, error) {
	want, i := w.typeOf(n)
	if want == game.NoType || want != t {
		return nil, fmt.Errorf("%w: entity %d cannot be of type %d on this map", game.ErrUnknownType, n, t)
	}
	switch t {
	case TypePlayer:
		w.Players[i] = Player{}
	case TypeRocket:
		w.Rockets[i] = Rocket{}
	case TypeDoor:
		w.Doors[i] = Door{}
	case TypeLight:
		w.Lights[i] = Light{On: w.Map.lights[i].On}
	case TypePickup:
		w.Pickups[i] = Pickup{}
	case TypeProp:
		w.Props[i] = Prop{Yaw: uint16(hash64(w.Map.cfg.Seed, 0, n, saltFill))}
	}
	w.setPresent(n, true)
	e, _ := w.slot(n)
	return e, nil
}

// Remove implements game.World.
func (w *World) Remove(n game.EntityNum) {
	if int(n) < game.MaxEntities {
		w.setPresent(n, false)
	}
}

// ClientConnected implements game.Game: the player of client c spawns.
func (w *World) ClientConnected(c game.ClientNum) error {
	if w.Map == nil || int(c) >= len(w.Players) {
		return fmt.Errorf("refgame: client %d has no player slot", c)
	}
	n := game.EntityNum(c)
	w.Players[c] = Player{}
	w.setPresent(n, true)
	w.respawn(n, w.frame)
	w.Score.Slots[c] = ScoreSlot{}
	w.Stats[c] = PlayerStats{LastAttacker: -1}
	return nil
}

// ClientDisconnected implements game.Game: the player and its rockets go.
func (w *World) ClientDisconnected(c game.ClientNum) {
	if w.Map == nil || int(c) >= len(w.Players) {
		return
	}
	w.setPresent(game.EntityNum(c), false)
	for s := 0; s < RocketSlots; s++ {
		w.setPresent(game.EntityNum(w.Map.FirstRocket+int(c)*RocketSlots+s), false)
	}
	w.Score.Slots[c] = ScoreSlot{}
}

// PlayerEntity implements game.Game: client c controls entity c.
func (w *World) PlayerEntity(c game.ClientNum) (game.EntityNum, bool) {
	if int(c) >= len(w.Players) {
		return 0, false
	}
	return game.EntityNum(c), true
}

// State implements game.Game.
func (w *World) State(c game.ClientNum, id game.StateID) game.Snapshotter {
	switch id {
	case StateScore:
		return &w.Score
	case StateStats:
		if int(c) < len(w.Stats) {
			return &w.Stats[c]
		}
		return &w.noStats // a client number without a player slot: an unused scratch state
	}
	return nil
}
