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
// Fields are written in order of how often they change, the frequently changing ones first and
// the rarely changing ones grouped at the end, so unchanged fields form long runs of zero bits
// for the zero-run-length compression (DOOM III §4.3, last paragraph).

// maxCoord bounds a coordinate read from a snapshot: the largest map (16 rooms of 64 tiles plus
// walls) is 33,312 units wide. ReadSnapshot clamps a hostile non-finite or out-of-range
// coordinate into [0, maxCoord]; valid values are stored exactly as read.
const maxCoord = 65536

func sanitizeCoord(v float32) float32 {
	if !(v >= 0) { // also NaN
		return 0
	}
	if v > maxCoord {
		return maxCoord
	}
	return v
}

func sanitizeVel(v float32) float32 {
	if v != v || v > MaxVelocity || v < -MaxVelocity {
		if v > 0 {
			return MaxVelocity
		}
		if v < 0 {
			return -MaxVelocity
		}
		return 0
	}
	return v
}

// frameField writes a frame number as 32 raw bits.
func writeFrame(w *bitmsg.DeltaWriter, f game.Frame) { w.WriteUint32(uint32(f)) }
func readFrame(r *bitmsg.DeltaReader) game.Frame     { return game.Frame(int32(r.ReadUint32())) }

// Buttons the arena uses (game.Buttons bits).
const (
	ButtonAttack game.Buttons = 1 << 0
	ButtonUse    game.Buttons = 1 << 1
	buttonMask                = ButtonAttack | ButtonUse
)

// Player is a player's avatar, entity numbers 0..MaxPlayers-1 (the entity of client c is c).
type Player struct {
	X, Y     float32      // position, full precision
	VX, VY   float32      // velocity in units per second, always a half float value
	Yaw      uint16       // view angle in angle16 units (65536 = 360 degrees)
	Buttons  game.Buttons // buttons of the last command run (for edge-triggered Use)
	Cooldown int32        // frames until the rocket launcher can fire again, 0..RocketCooldown
	Health   int32        // 0..MaxHealth; 0 = dead
	Armor    int32        // 0..MaxArmor
	ShotSeq  uint8        // rockets fired, mod RocketSlots: the slot of the next rocket
	Respawn  game.Frame   // while dead: the frame the player respawns
}

// Alive reports whether the player is alive.
func (p *Player) Alive() bool { return p.Health > 0 }

// WriteSnapshot writes the player (DOOM III §5 WriteToSnapshot).
func (p *Player) WriteSnapshot(w *bitmsg.DeltaWriter) {
	w.WriteFloat(p.X)
	w.WriteFloat(p.Y)
	w.WriteHalf(p.VX)
	w.WriteHalf(p.VY)
	w.WriteUint16(p.Yaw) // the angle16 encoding of DOOM III §4.1, kept in its integer form
	w.WriteRangedInt(p.Cooldown, 0, RocketCooldown)
	w.WriteBits(uint32(p.Buttons&buttonMask), 2)
	// Rarely changing.
	w.WriteRangedInt(p.Health, 0, MaxHealth)
	w.WriteRangedInt(p.Armor, 0, MaxArmor)
	w.WriteBits(uint32(p.ShotSeq), 2)
	writeFrame(w, p.Respawn)
}

// ReadSnapshot reads what WriteSnapshot wrote (DOOM III §5 ReadFromSnapshot).
func (p *Player) ReadSnapshot(r *bitmsg.DeltaReader) {
	p.X = sanitizeCoord(r.ReadFloat())
	p.Y = sanitizeCoord(r.ReadFloat())
	p.VX = sanitizeVel(r.ReadHalf())
	p.VY = sanitizeVel(r.ReadHalf())
	p.Yaw = r.ReadUint16()
	p.Cooldown = r.ReadRangedInt(0, RocketCooldown)
	p.Buttons = game.Buttons(r.ReadBits(2))
	p.Health = r.ReadRangedInt(0, MaxHealth)
	p.Armor = r.ReadRangedInt(0, MaxArmor)
	p.ShotSeq = uint8(r.ReadBits(2))
	p.Respawn = readFrame(r)
}

// Rocket is a projectile. Its owner is derived from its entity number (each player owns
// RocketSlots consecutive rocket numbers) and is not sent (DOOM III §5: derived state variables
// need not be synchronized).
type Rocket struct {
	X, Y     float32    // position, full precision
	VX, VY   float32    // velocity, half float values, constant in flight
	Expire   game.Frame // the frame it explodes in the air
	Exploded game.Frame // the frame it exploded, 0 while in flight; the server removes it RocketLinger frames later
}

// WriteSnapshot writes the rocket.
func (k *Rocket) WriteSnapshot(w *bitmsg.DeltaWriter) {
	w.WriteFloat(k.X)
	w.WriteFloat(k.Y)
	w.WriteHalf(k.VX)
	w.WriteHalf(k.VY)
	writeFrame(w, k.Expire)
	writeFrame(w, k.Exploded)
}

// ReadSnapshot reads what WriteSnapshot wrote.
func (k *Rocket) ReadSnapshot(r *bitmsg.DeltaReader) {
	k.X = sanitizeCoord(r.ReadFloat())
	k.Y = sanitizeCoord(r.ReadFloat())
	k.VX = sanitizeVel(r.ReadHalf())
	k.VY = sanitizeVel(r.ReadHalf())
	k.Expire = readFrame(r)
	k.Exploded = readFrame(r)
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
type Door struct {
	State DoorState
	Since game.Frame // the frame the current state began
}

// WriteSnapshot writes the door.
func (d *Door) WriteSnapshot(w *bitmsg.DeltaWriter) {
	w.WriteBits(uint32(d.State), 2)
	writeFrame(w, d.Since)
}

// ReadSnapshot reads what WriteSnapshot wrote.
func (d *Door) ReadSnapshot(r *bitmsg.DeltaReader) {
	d.State = DoorState(r.ReadBits(2))
	d.Since = readFrame(r)
}

// Light is a light on a room's wall (or, as fill, anywhere), toggled by a player pressing Use
// near it or by a rocket exploding near it.
type Light struct {
	On bool
}

// WriteSnapshot writes the light.
func (l *Light) WriteSnapshot(w *bitmsg.DeltaWriter) { w.WriteBool(l.On) }

// ReadSnapshot reads what WriteSnapshot wrote.
func (l *Light) ReadSnapshot(r *bitmsg.DeltaReader) { l.On = r.ReadBool() }

// PickupKind says what a pickup gives.
type PickupKind uint8

// Pickup kinds.
const (
	PickupHealth PickupKind = iota // +PickupHealthAmount health, up to MaxHealth
	PickupArmor                    // +PickupArmorAmount armor, up to MaxArmor
)

// Pickup is a health or armor item. Its kind and place come from the map.
type Pickup struct {
	Respawn game.Frame // 0 = available; else the frame it becomes available again
}

// Available reports whether the pickup can be taken.
func (p *Pickup) Available() bool { return p.Respawn == 0 }

// WriteSnapshot writes the pickup.
func (p *Pickup) WriteSnapshot(w *bitmsg.DeltaWriter) { writeFrame(w, p.Respawn) }

// ReadSnapshot reads what WriteSnapshot wrote.
func (p *Pickup) ReadSnapshot(r *bitmsg.DeltaReader) { p.Respawn = readFrame(r) }

// Prop is decoration. A spinning prop turns by its map-defined rate every frame; a static prop
// never changes, so once in the common base it costs nothing (DOOM III §6: unchanged entities
// are omitted from snapshots).
type Prop struct {
	Yaw uint16 // angle16 units
}

// WriteSnapshot writes the prop.
func (p *Prop) WriteSnapshot(w *bitmsg.DeltaWriter) { w.WriteUint16(p.Yaw) }

// ReadSnapshot reads what WriteSnapshot wrote.
func (p *Prop) ReadSnapshot(r *bitmsg.DeltaReader) { p.Yaw = r.ReadUint16() }

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
