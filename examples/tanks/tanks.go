// Package tanks is the second example game, built on snapwire's public
// API only: top-down tanks on a field of crates. It shows what a
// game beyond the guide's single dot needs: three entity types (tanks,
// shells, crates) with fields declared once as tagged struct fields, a
// quantised float (positions in sixteenths of a unit), a tank owned by its
// client (predicted by its owner, interpolated by the others), shells
// spawned and despawned without choosing numbers, an event (a crate hit),
// and game messages both ways (chat from a client, a kill feed and the chat
// relayed from the server).
//
// Determinism: every position is a multiple of 1/16 computed from
// integers, so the server and a predicting client (native or wasm) reach
// the same values bit for bit (DOOM III §2: the client runs the same game
// code to predict).
package tanks

import (
	"math"

	"github.com/snapwire/snapwire/game"
)

// Field geometry and tuning, in world units and frames (60 Hz).
const (
	FieldSize    = 1024 // the field is FieldSize x FieldSize
	TankRadius   = 12
	CrateHalf    = 16  // a crate is a square 2*CrateHalf wide
	ViewRange    = 600 // a client sees entities this close to its tank
	MaxPlayers   = 16
	MaxHP        = 3
	ReloadFrames = 30
	ShellFrames  = 90  // a shell flies this many frames
	ShellSpeed   = 128 // sixteenths of a unit per frame (8 units)
	RespawnDelay = 120
	CrateRespawn = 300
	// TankSpeed is the tank's top speed in sixteenths of a unit per frame
	// (2 units a frame, 120 a second) at full Forward.
	TankSpeed = 32
	// TurnRate is the headings turned per frame at full Right.
	TurnRate = 3
	// Sixteenth is a position's step: positions are multiples of it.
	Sixteenth = 1.0 / 16
)

// Buttons (game.Buttons bits) the tanks use.
const ButtonFire game.Buttons = 1

// EventCrateHit is sent (unreliably) when a shell hits a crate.
const EventCrateHit game.EventID = 1

// dirs holds the 256 headings' unit vectors scaled by 256 and rounded:
// integer motion, the same on every platform.
var dirs = func() (d [256][2]int32) {
	for i := range d {
		a := float64(i) * 2 * math.Pi / 256
		d[i] = [2]int32{int32(math.Round(256 * math.Cos(a))), int32(math.Round(256 * math.Sin(a)))}
	}
	return d
}()

// sixteenths converts a position to sixteenths of a unit (exact: positions
// are multiples of 1/16).
func sixteenths(v float32) int32 { return int32(v * 16) }

// units converts sixteenths back to a position.
func units(s int32) float32 { return float32(s) / 16 }

// spawnPoint is where client c's tank appears: around the field's edge,
// facing inwards.
func spawnPoint(c game.ClientNum) (x, y float32, heading uint8) {
	i := int(c) % MaxPlayers
	along := float32(128 + (i/4)*256)
	switch i % 4 {
	case 0:
		return along, 48, 64
	case 1:
		return FieldSize - 48, along, 128
	case 2:
		return FieldSize - along, FieldSize - 48, 192
	}
	return 48, FieldSize - along, 0
}

// crateSpots are the crates' centres: a ring and a cross, fixed by the
// map so that every end spawns them alike.
var crateSpots = [...][2]float32{
	{256, 256}, {512, 256}, {768, 256},
	{256, 512}, {768, 512},
	{256, 768}, {512, 768}, {768, 768},
	{512, 448}, {512, 576}, {448, 512}, {576, 512},
}
