package game

import "errors"

// Frame is a game frame number. The game runs at a fixed rate (60 Hz by
// default, DOOM III §2); everything in snapwire is counted in frames.
type Frame int32

// EntityNum is an entity's number, 0..MaxEntities-1. It is the bit offset of
// the entity in the PVS bit string (DOOM III §4.2).
type EntityNum uint16

// MaxEntities is the number of entity slots in a game (DOOM III §4.2: "a
// maximum of 4096 entities").
const MaxEntities = 4096

// TypeID is a registered entity type. TypeIDs are assigned by a Registry;
// NoType (0) is never registered and means "no entity".
type TypeID uint16

// NoType is the TypeID of an absent entity.
const NoType TypeID = 0

// EventID identifies an event within an entity type (DOOM III §5,
// ClientReceiveEvent's "event").
type EventID uint8

// GameID identifies the game (map and settings) being played; the server
// sends it with every unreliable message (DOOM III §3.1).
type GameID uint32

// ClientNum is a connected client's slot on the server, 0..MaxClients-1.
type ClientNum uint16

// MaxClients is the most player slots a server may have (server.Config's
// MaxClients). Each player's entity takes a number below MaxEntities, which
// leaves at least 3,072 numbers for the map.
const MaxClients = 1024

// Buttons holds one bit per button. The meanings are defined by the game
// (the arena example: ButtonAttack=1, ButtonUse=2).
type Buttons uint16

// StateID identifies one of the registered states that are not tied to the
// PVS (DOOM III §3.2 "one delta compressed state which is not tied to the
// PVS", §8 "multiple states"). StateIDs are 0..Registry.NumStates()-1.
type StateID uint8

// MaxStates is the largest number of non-PVS states a registry may hold.
const MaxStates = 16

// MaxStateBits bounds the bit length of one entity's (or one non-PVS
// state's) full state: 4096 bits = 512 bytes. Both the server's writer and
// the client's reader enforce it, so a hostile snapshot cannot make the
// client keep more than this per entity.
const MaxStateBits = 4096

// MaxStateBytes is MaxStateBits in bytes.
const MaxStateBytes = MaxStateBits / 8

// UserCmd is one frame of a player's input (DOOM III §3.3, like Quake 3's
// usercmd_t).
type UserCmd struct {
	Frame   Frame   // the game frame this command is for (implied on the wire)
	Buttons Buttons // button bits
	Forward int8    // -127..127 movement along the view direction / world axis (game decides)
	Right   int8    // -127..127 strafe
	Up      int8    // -127..127
	Yaw     uint16  // view angle, 16-bit (bitmsg angle16 units: 65536 = 360 degrees)
	Pitch   uint16
}

// Errors returned by this package. Decoding errors wrap ErrCorrupt.
var (
	ErrCorrupt       = errors.New("game: corrupt message")
	ErrRange         = errors.New("game: value out of range")
	ErrUnknownType   = errors.New("game: unknown entity type")
	ErrDuplicateType = errors.New("game: type already registered")
)
