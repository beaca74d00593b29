package refgame

import (
	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/game"
)

// Entity states. Every variable an entity writes in WriteSnapshot is stored in the game in exactly
// the precision it is sent (positions full float32 as DOOM III §4.1 advises, velocities half
// floats quantised in the frame update, angles in angle16 units), and every variable the
// simulation reads is either written or derived from the entity number and the map. A client that
// reads an entity's state and runs the same frames with the same commands therefore gets
// bit-identical results (DOOM III §2).
//
// Fields are declared once (//snap:entity, `snap` tags; go generate writes WriteSnapshot,
// ReadSnapshot and SnapFields into snap_gen.go with snapgen) and go on the wire in declaration
// order: the frequently changing ones first and the rarely changing ones grouped at the end, so
// unchanged fields form long runs of zero bits for the zero-run-length compression (DOOM III
// §4.3, last paragraph).

//go:generate go run github.com/snapwire/snapwire/snapgen

// maxCoord bounds a coordinate read from a snapshot: the largest map (16 rooms of 64 tiles plus
// walls) is 33,312 units wide. ReadSnapshot clamps a hostile non-finite or out-of-range
// coordinate into [0, maxCoord] (the `min=0,max=maxCoord` tags); valid values are stored exactly
// as read.
const maxCoord = 65536

// Buttons the arena uses (game.Buttons bits).
const (
	ButtonAttack game.Buttons = 1 << 0
	ButtonUse    game.Buttons = 1 << 1
	buttonMask                = ButtonAttack | ButtonUse
)

// Player is a player's avatar, entity numbers 0..MaxPlayers-1 (the entity of client c is c).
// The snapshot holds every field (DOOM III §5 WriteToSnapshot), the rarely changing ones from
// Health on.
//
//snap:entity
type Player struct {
	X, Y     float32      `snap:"min=0,max=maxCoord"`                    // position, full precision
	VX, VY   float32      `snap:"half,min=-MaxVelocity,max=MaxVelocity"` // velocity in units per second, always a half float value
	Yaw      uint16       // view angle in angle16 units (65536 = 360 degrees), the angle16 encoding of DOOM III §4.1 kept in its integer form
	Cooldown int32        `snap:"min=0,max=RocketCooldown"` // frames until the rocket launcher can fire again
	Buttons  game.Buttons `snap:"bits=2"`                   // buttons of the last command run (for edge-triggered Use), within buttonMask
	Health   int32        `snap:"min=0,max=MaxHealth"`      // 0 = dead
	Armor    int32        `snap:"min=0,max=MaxArmor"`
	ShotSeq  uint8        `snap:"bits=2"` // rockets fired, mod RocketSlots: the slot of the next rocket
	Respawn  game.Frame   // while dead: the frame the player respawns
}

// Alive reports whether the player is alive.
func (p *Player) Alive() bool { return p.Health > 0 }

// Rocket is a projectile. Its owner is derived from its entity number (each player owns
// RocketSlots consecutive rocket numbers) and is not sent (DOOM III §5: derived state variables
// need not be synchronized).
//
//snap:entity
type Rocket struct {
	X, Y     float32    `snap:"min=0,max=maxCoord"`                    // position, full precision
	VX, VY   float32    `snap:"half,min=-MaxVelocity,max=MaxVelocity"` // velocity, half float values, constant in flight
	Expire   game.Frame // the frame it explodes in the air
	Exploded game.Frame // the frame it exploded, 0 while in flight; the server removes it RocketLinger frames later
}

// DoorState is a door's place in its cycle closed -> opening -> open -> closing -> closed.
type DoorState uint8

// Door states.
const (
	DoorClosed DoorState = iota
	DoorOpening
	DoorOpen
	DoorClosing
)

func (s DoorState) String() string {
	switch s {
	case DoorClosed:
		return "closed"
	case DoorOpening:
		return "opening"
	case DoorOpen:
		return "open"
	case DoorClosing:
		return "closing"
	}
	return "DoorState(?)"
}

// Door joins two rooms. It is solid unless Open. Its geometry comes from the map (Map.Doors).
//
//snap:entity
type Door struct {
	State DoorState  `snap:"enum"`
	Since game.Frame // the frame the current state began
}

// Light is a light on a room's wall (or, as fill, anywhere), toggled by a player pressing Use
// near it or by a rocket exploding near it.
//
//snap:entity
type Light struct {
	On bool
}

// PickupKind says what a pickup gives.
type PickupKind uint8

// Pickup kinds.
const (
	PickupHealth PickupKind = iota // +PickupHealthAmount health, up to MaxHealth
	PickupArmor                    // +PickupArmorAmount armor, up to MaxArmor
)

// Pickup is a health or armor item. Its kind and place come from the map.
//
//snap:entity
type Pickup struct {
	Respawn game.Frame // 0 = available; else the frame it becomes available again
}

// Available reports whether the pickup can be taken.
func (p *Pickup) Available() bool { return p.Respawn == 0 }

// Prop is decoration. A spinning prop turns by its map-defined rate every frame; a static prop
// never changes, so once in the common base it costs nothing (DOOM III §6: unchanged entities
// are omitted from snapshots).
//
//snap:entity
type Prop struct {
	Yaw uint16 // angle16 units
}

// ReceiveEvent handles EventDoor (DOOM III §5 ClientReceiveEvent): the door takes the state the
// server sent unless it already knows a later transition.
func (d *Door) ReceiveEvent(ev game.EventID, frame game.Frame, r *bitmsg.Reader) {
	if ev != EventDoor {
		return
	}
	s := DoorState(r.ReadBits(2))
	since := game.Frame(int32(r.ReadUint32()))
	if r.Err() != nil || since < d.Since {
		return
	}
	d.State, d.Since = s, since
}

// ReceiveEvent handles EventLight: the light takes the state the server sent.
func (l *Light) ReceiveEvent(ev game.EventID, frame game.Frame, r *bitmsg.Reader) {
	if ev != EventLight {
		return
	}
	on := r.ReadBool()
	if r.Err() == nil {
		l.On = on
	}
}

var (
	_ game.EventReceiver = (*Door)(nil)
	_ game.EventReceiver = (*Light)(nil)
)
