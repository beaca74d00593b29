package refgame

import (
	"errors"
	"fmt"

	"github.com/snapwire/snapwire/game"
)

// The map is a grid of square rooms of RoomTiles x RoomTiles floor tiles, separated by walls one
// tile thick; every pair of neighbouring rooms is joined by a door two tiles wide in the middle of
// their shared wall. The map is data derived from Config alone, so the server and every client
// build the same map from the same Config and nothing about it is sent over the network except
// the door, light, pickup and prop entities that live on it.

// TileSize is the side of one map tile in world units.
const TileSize = 32

// Defaults for Config fields left zero.
const (
	DefaultRoomsX     = 3
	DefaultRoomsY     = 3
	DefaultRoomTiles  = 12
	DefaultMaxPlayers = 16
	// RocketSlots is the number of rocket entities each player owns. A player's next rocket
	// takes slot ShotSeq%RocketSlots, so a client predicting a shot picks the same entity number
	// as the server even when it cannot see the player's other rockets.
	RocketSlots = 4
)

// MaxPlayersLimit bounds Config.MaxPlayers. A server holds up to game.MaxClients (1,024), but
// the arena's maps do not: the scoreboard, one non-PVS state with every player's frags and
// deaths (21 bits a player), must fit game.MaxStateBits (fewer than 195 players), and each
// player takes RocketSlots+1 entity numbers (at most 819 players in game.MaxEntities).
const MaxPlayersLimit = 64

// Config selects a map. Equal Configs build identical maps and worlds.
type Config struct {
	Seed       uint64 // drives pickup respawn jitter, fill layout, spawn choice
	RoomsX     int    // rooms per row (1..16), default 3
	RoomsY     int    // rooms per column (1..16), default 3
	RoomTiles  int    // side of a room in tiles (6..64), default 12
	MaxPlayers int    // player slots (1..64), default 16
	// Entities pads the map with fill entities (pickups, lights, props) until it has this many
	// entity numbers in use in total, counting player and rocket slots; 0 adds none. At most
	// game.MaxEntities.
	Entities int
	// StaticFill makes every fill entity a prop that never changes (the "dense with entities
	// that never change" scenario); otherwise fill is a seeded mix of pickups, lights, static
	// and spinning props.
	StaticFill bool
}

func (c Config) withDefaults() Config {
	if c.RoomsX == 0 {
		c.RoomsX = DefaultRoomsX
	}
	if c.RoomsY == 0 {
		c.RoomsY = DefaultRoomsY
	}
	if c.RoomTiles == 0 {
		c.RoomTiles = DefaultRoomTiles
	}
	if c.MaxPlayers == 0 {
		c.MaxPlayers = DefaultMaxPlayers
	}
	return c
}

// ErrConfig reports an invalid Config.
var ErrConfig = errors.New("refgame: invalid config")

// Room is an axis-aligned rectangle of floor, in world units: Min inclusive, Max exclusive.
type Room struct {
	MinX, MinY, MaxX, MaxY float32
	GX, GY                 int // grid position
	Doors                  []int
}

// Center returns the middle of the room.
func (r *Room) Center() (x, y float32) { return (r.MinX + r.MaxX) / 2, (r.MinY + r.MaxY) / 2 }

// Direction of a door as seen from its first room.
const (
	dirEast  = 0
	dirNorth = 1
)

// DoorDef is the static part of a door: where it is and which rooms it joins. Rooms[0] is west
// of (or south of) Rooms[1].
type DoorDef struct {
	Rooms    [2]int
	TX, TY   int  // first of the two door tiles
	Vertical bool // the two tiles are stacked in Y (a door in a wall running north-south)
	CX, CY   float32
}

// tile kinds: a tile is wall, floor of a room, or one tile of a door.
type tile struct {
	solid bool  // wall (doors are not solid here; their state decides)
	door  int16 // door index or -1
	room  int16 // room index or -1
}

// Map is the static level: tiles, rooms, doors, spawn points and the placement of every map entity.
type Map struct {
	cfg   Config
	W, H  int // size in tiles
	tiles []tile
	Rooms []Room
	Doors []DoorDef
	// Spawns are spawn points. In each room they lie on distinct rows at least 2*PlayerRadius+8
	// apart, so players that only move along X from distinct spawn points never touch.
	Spawns []vec2

	// Entity number layout (DOOM III §4.2 entity numbers 0..4095):
	// [0, MaxPlayers) players, then RocketSlots per player, then doors, lights, pickups, props.
	FirstRocket, FirstDoor, FirstLight, FirstPickup, FirstProp, NumEntities int

	lights  []lightDef
	pickups []pickupDef
	props   []propDef
	// roomEnts lists, per room, the lights, pickups and props placed in it, ascending.
	roomEnts [][]game.EntityNum
	// roomPickups lists, per room, the indices of its pickups, ascending.
	roomPickups [][]int
}

type lightDef struct {
	Pos  vec2
	Room int
	On   bool // initial state
}

type pickupDef struct {
	Pos  vec2
	Room int
	Kind PickupKind
}

type propDef struct {
	Pos  vec2
	Room int
	Kind uint8
	Spin uint16 // yaw change per frame in angle16 units; 0 = never changes
}

// NewMap builds the map for cfg.
func NewMap(cfg Config) (*Map, error) {
	cfg = cfg.withDefaults()
	if err := cfg.check(); err != nil {
		return nil, err
	}
	m := &Map{cfg: cfg}
	m.layRooms()
	m.layDoors()
	m.placeSpawns()
	m.placeFixed()
	m.FirstRocket = cfg.MaxPlayers
	fixed := m.FirstRocket + cfg.MaxPlayers*RocketSlots + len(m.Doors) + len(m.lights) + len(m.pickups)
	if fixed > game.MaxEntities {
		return nil, fmt.Errorf("%w: map needs %d entities, more than %d", ErrConfig, fixed, game.MaxEntities)
	}
	m.placeFill(fixed)
	m.numberEntities()
	return m, nil
}

// check returns an ErrConfig if a field of a Config with defaults is out of its range.
func (cfg Config) check() error {
	if cfg.RoomsX < 1 || cfg.RoomsX > 16 || cfg.RoomsY < 1 || cfg.RoomsY > 16 {
		return fmt.Errorf("%w: rooms %dx%d outside 1..16", ErrConfig, cfg.RoomsX, cfg.RoomsY)
	}
	if cfg.RoomTiles < 6 || cfg.RoomTiles > 64 {
		return fmt.Errorf("%w: room size %d outside 6..64", ErrConfig, cfg.RoomTiles)
	}
	if cfg.MaxPlayers < 1 || cfg.MaxPlayers > MaxPlayersLimit {
		return fmt.Errorf("%w: %d players outside 1..%d", ErrConfig, cfg.MaxPlayers, MaxPlayersLimit)
	}
	if cfg.Entities < 0 || cfg.Entities > game.MaxEntities {
		return fmt.Errorf("%w: %d entities outside 0..%d", ErrConfig, cfg.Entities, game.MaxEntities)
	}
	return nil
}

// layRooms sizes the tile grid, solid everywhere, and carves the rooms into it, row by row
// from the south-west, each RoomTiles square with a wall tile between neighbours.
func (m *Map) layRooms() {
	cfg := m.cfg
	stride := cfg.RoomTiles + 1
	m.W = cfg.RoomsX*stride + 1
	m.H = cfg.RoomsY*stride + 1
	m.tiles = make([]tile, m.W*m.H)
	for i := range m.tiles {
		m.tiles[i] = tile{solid: true, door: -1, room: -1}
	}
	for gy := 0; gy < cfg.RoomsY; gy++ {
		for gx := 0; gx < cfg.RoomsX; gx++ {
			idx := len(m.Rooms)
			x0, y0 := 1+gx*stride, 1+gy*stride
			m.Rooms = append(m.Rooms, Room{
				MinX: float32(x0 * TileSize), MinY: float32(y0 * TileSize),
				MaxX: float32((x0 + cfg.RoomTiles) * TileSize), MaxY: float32((y0 + cfg.RoomTiles) * TileSize),
				GX: gx, GY: gy,
			})
			for ty := y0; ty < y0+cfg.RoomTiles; ty++ {
				for tx := x0; tx < x0+cfg.RoomTiles; tx++ {
					m.tiles[ty*m.W+tx] = tile{door: -1, room: int16(idx)}
				}
			}
		}
	}
}

// layDoors puts a two-tile door in the wall between each room and its neighbours: east
// neighbours first, then north neighbours, in room order.
func (m *Map) layDoors() {
	cfg := m.cfg
	stride := cfg.RoomTiles + 1
	half := cfg.RoomTiles/2 - 1
	for dir := dirEast; dir <= dirNorth; dir++ {
		for i, r := range m.Rooms {
			var d DoorDef
			switch {
			case dir == dirEast && r.GX+1 < cfg.RoomsX:
				d = DoorDef{Rooms: [2]int{i, i + 1}, TX: (r.GX + 1) * stride, TY: 1 + r.GY*stride + half, Vertical: true}
			case dir == dirNorth && r.GY+1 < cfg.RoomsY:
				d = DoorDef{Rooms: [2]int{i, i + cfg.RoomsX}, TX: 1 + r.GX*stride + half, TY: (r.GY + 1) * stride}
			default:
				continue
			}
			di := len(m.Doors)
			t2x, t2y := d.TX+1, d.TY
			if d.Vertical {
				t2x, t2y = d.TX, d.TY+1
			}
			for _, t := range [2][2]int{{d.TX, d.TY}, {t2x, t2y}} {
				m.tiles[t[1]*m.W+t[0]] = tile{door: int16(di), room: -1}
			}
			if d.Vertical {
				d.CX, d.CY = float32(d.TX*TileSize+TileSize/2), float32((d.TY+1)*TileSize)
			} else {
				d.CX, d.CY = float32((d.TX+1)*TileSize), float32(d.TY*TileSize+TileSize/2)
			}
			m.Doors = append(m.Doors, d)
			m.Rooms[d.Rooms[0]].Doors = append(m.Rooms[d.Rooms[0]].Doors, di)
			m.Rooms[d.Rooms[1]].Doors = append(m.Rooms[d.Rooms[1]].Doors, di)
		}
	}
}

// placeSpawns puts four spawn points in each room on distinct rows, west half and east half
// alternating.
func (m *Map) placeSpawns() {
	rowGap := float32(2*PlayerRadius + 8)
	for i := range m.Rooms {
		r := &m.Rooms[i]
		_, cy := r.Center()
		for k := 0; k < 4; k++ {
			x := float32(r.MinX + 2*TileSize)
			if k%2 == 1 {
				x = float32(r.MaxX - 2*TileSize)
			}
			y := float32(cy + float32(float32(float32(k)-1.5)*rowGap*1.5))
			m.Spawns = append(m.Spawns, vec2{x, y})
		}
	}
}

// placeFixed places the fixed map entities: one light per room on its west wall, a quarter
// of the room north of the doorway, one health and one armor pickup per room.
func (m *Map) placeFixed() {
	cfg := m.cfg
	for i := range m.Rooms {
		r := &m.Rooms[i]
		_, cy := r.Center()
		m.lights = append(m.lights, lightDef{Pos: vec2{r.MinX + 8, cy + float32(cfg.RoomTiles*TileSize/4)}, Room: i, On: true})
	}
	for i := range m.Rooms {
		r := &m.Rooms[i]
		cx, cy := r.Center()
		off := float32(cfg.RoomTiles * TileSize / 4)
		m.pickups = append(m.pickups,
			pickupDef{Pos: vec2{cx, cy - off}, Room: i, Kind: PickupHealth},
			pickupDef{Pos: vec2{cx, cy + off}, Room: i, Kind: PickupArmor})
	}
}

// placeFill adds the fill entities, numbers fixed up to cfg.Entities, placed on a seeded
// scatter over the rooms' floors: pickups, lights and props (spinning or still), or only
// still props with StaticFill.
func (m *Map) placeFill(fixed int) {
	cfg := m.cfg
	for n := fixed; n < cfg.Entities; n++ {
		h := hash64(cfg.Seed, 0, game.EntityNum(n), saltFill)
		room := int(h % uint64(len(m.Rooms)))
		r := &m.Rooms[room]
		span := uint64(cfg.RoomTiles-2) * TileSize
		p := vec2{
			r.MinX + TileSize + float32(h>>8%span),
			r.MinY + TileSize + float32(h>>24%span),
		}
		kind := h >> 40 % 8
		if cfg.StaticFill {
			kind = 4
		}
		switch {
		case kind < 2:
			m.pickups = append(m.pickups, pickupDef{Pos: p, Room: room, Kind: PickupKind(kind)})
		case kind < 4:
			m.lights = append(m.lights, lightDef{Pos: p, Room: room, On: kind == 2})
		default:
			pd := propDef{Pos: p, Room: room, Kind: uint8(h >> 48)}
			if kind >= 6 {
				pd.Spin = uint16(64 + h>>56%256)
			}
			m.props = append(m.props, pd)
		}
	}
}

// numberEntities gives the doors, lights, pickups and props their entity numbers, in that
// order after the players and their rockets, and indexes each room's map entities and
// pickups.
func (m *Map) numberEntities() {
	m.FirstDoor = m.FirstRocket + m.cfg.MaxPlayers*RocketSlots
	m.FirstLight = m.FirstDoor + len(m.Doors)
	m.FirstPickup = m.FirstLight + len(m.lights)
	m.FirstProp = m.FirstPickup + len(m.pickups)
	m.NumEntities = m.FirstProp + len(m.props)
	m.roomEnts = make([][]game.EntityNum, len(m.Rooms))
	for i, l := range m.lights {
		m.roomEnts[l.Room] = append(m.roomEnts[l.Room], game.EntityNum(m.FirstLight+i))
	}
	m.roomPickups = make([][]int, len(m.Rooms))
	for i, p := range m.pickups {
		m.roomEnts[p.Room] = append(m.roomEnts[p.Room], game.EntityNum(m.FirstPickup+i))
		m.roomPickups[p.Room] = append(m.roomPickups[p.Room], i)
	}
	for i, p := range m.props {
		m.roomEnts[p.Room] = append(m.roomEnts[p.Room], game.EntityNum(m.FirstProp+i))
	}
}

// Config returns the Config the map was built from, with defaults filled in.
func (m *Map) Config() Config { return m.cfg }

// tileAt returns the tile under world position (x, y); outside the map is a wall.
func (m *Map) tileAt(tx, ty int) tile {
	if tx < 0 || ty < 0 || tx >= m.W || ty >= m.H {
		return tile{solid: true, door: -1, room: -1}
	}
	return m.tiles[ty*m.W+tx]
}

// tileCoord returns the tile index of a world coordinate (floor division; coordinates inside the
// map are positive).
func tileCoord(v float32) int {
	if v < 0 {
		return -1
	}
	return int(v * (1.0 / TileSize))
}

// RoomAt returns the room containing (x, y) and, for a point in a doorway, the door's index;
// room is -1 in a doorway or a wall, door is -1 outside doorways.
func (m *Map) RoomAt(x, y float32) (room, door int) {
	t := m.tileAt(tileCoord(x), tileCoord(y))
	return int(t.room), int(t.door)
}

// doorBetween returns the door joining rooms a and b, or -1.
func (m *Map) doorBetween(a, b int) int {
	for _, d := range m.Rooms[a].Doors {
		dd := &m.Doors[d]
		if dd.Rooms[0] == b || dd.Rooms[1] == b {
			return d
		}
	}
	return -1
}

// otherRoom returns the room on the other side of door d from room r.
func (m *Map) otherRoom(d, r int) int {
	if m.Doors[d].Rooms[0] == r {
		return m.Doors[d].Rooms[1]
	}
	return m.Doors[d].Rooms[0]
}

const (
	saltFill = iota + 1
	saltSpawn
	saltPickup
	saltBotWander
	saltBotStrafe
	saltBotLane
	saltBotFire
)
