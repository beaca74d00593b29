package refgame

import (
	"math"

	"github.com/snapwire/snapwire/game"
)

// Deterministic arithmetic helpers. The simulation uses only IEEE 754 basic operations (+, -, *,
// /, sqrt), each rounded to float32 by an explicit conversion where a product feeds a sum: the Go
// spec lets a compiler fuse x*y+z into one FMA, and an explicit conversion forbids that (docs/ARCHITECTURE.md
// "Time and determinism"). Trigonometry comes from a table built with the same basic operations,
// never from math.Sin, whose implementation differs between architectures.

// quarterSin[i] = sin(i/16384 * pi/2) for i in 0..16384, in float32.
var quarterSin = buildQuarterSin()

func buildQuarterSin() *[16385]float32 {
	var t [16385]float32
	for i := range t {
		x := float64(i) * (math.Pi / 2 / 16384)
		// Taylor series of sin(x) for x in [0, pi/2]; the x^21 term is below 1e-16.
		x2 := float64(x * x)
		term := x
		sum := x
		for k := 1; k <= 10; k++ {
			term = float64(float64(-term*x2) / float64((2*k)*(2*k+1)))
			sum = float64(sum + term)
		}
		t[i] = float32(sum)
	}
	return &t
}

// sinYaw returns sin of a yaw in angle16 units (65536 = 360 degrees).
func sinYaw(yaw uint16) float32 {
	i := int(yaw & 0x3FFF)
	switch yaw >> 14 {
	case 0:
		return quarterSin[i]
	case 1:
		return quarterSin[16384-i]
	case 2:
		return -quarterSin[i]
	default:
		return -quarterSin[16384-i]
	}
}

// cosYaw returns cos of a yaw in angle16 units.
func cosYaw(yaw uint16) float32 { return sinYaw(yaw + 16384) }

// yawDir returns the unit vector of a yaw: yaw 0 points along +X, 16384 (90 degrees) along +Y.
func yawDir(yaw uint16) vec2 { return vec2{cosYaw(yaw), sinYaw(yaw)} }

// yawOf returns the angle16 yaw of the direction (dx, dy), the inverse of yawDir up to one unit.
// It binary-searches the sine table: float32*float32 products are exact in float64, so the
// comparisons are exact and the result is the same on every platform. (0, 0) gives 0.
func yawOf(dx, dy float32) uint16 {
	if dx == 0 && dy == 0 {
		return 0
	}
	ax, ay := float64(abs32(dx)), float64(abs32(dy))
	// Find the smallest i in 0..16384 with sin(i)*ax >= cos(i)*ay, i.e. tan(i) >= ay/ax.
	lo, hi := 0, 16384
	for lo < hi {
		mid := (lo + hi) / 2
		if float64(quarterSin[mid])*ax >= float64(quarterSin[16384-mid])*ay {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	a := uint16(lo) // first-quadrant angle, 0..16384
	switch {
	case dx >= 0 && dy >= 0:
		return a
	case dx < 0 && dy >= 0:
		return 32768 - a
	case dx < 0:
		return 32768 + a
	default:
		return -a
	}
}

func abs32(x float32) float32 {
	if x < 0 {
		return -x
	}
	return x
}

func sqrt32(x float32) float32 { return float32(math.Sqrt(float64(x))) }

// vec2 is a 2D vector in world units (one tile is TileSize units).
type vec2 struct{ X, Y float32 }

func (a vec2) add(b vec2) vec2      { return vec2{a.X + b.X, a.Y + b.Y} }
func (a vec2) sub(b vec2) vec2      { return vec2{a.X - b.X, a.Y - b.Y} }
func (a vec2) scale(s float32) vec2 { return vec2{float32(a.X * s), float32(a.Y * s)} }
func (a vec2) dot(b vec2) float32   { return float32(float32(a.X*b.X) + float32(a.Y*b.Y)) }
func (a vec2) lenSq() float32       { return a.dot(a) }
func (a vec2) length() float32      { return sqrt32(a.lenSq()) }
func (a vec2) addScaled(b vec2, s float32) vec2 {
	return vec2{float32(a.X + float32(b.X*s)), float32(a.Y + float32(b.Y*s))}
}

// hash64 is a stateless random function of (seed, frame, entity, salt): SplitMix64's finaliser
// applied to a mix of its inputs. Every random choice in the game is hash64 of what it concerns,
// never a stateful generator, so a client predicting a subset of the entities draws the same
// numbers as the server (DOOM III §2: the game is deterministic given the player input).
func hash64(seed uint64, frame game.Frame, ent game.EntityNum, salt uint32) uint64 {
	z := seed ^ uint64(uint32(frame))*0x9E3779B97F4A7C15 ^ uint64(ent)<<32*0xBF58476D1CE4E5B9 ^ uint64(salt)*0x94D049BB133111EB
	z += 0x9E3779B97F4A7C15
	z = (z ^ z>>30) * 0xBF58476D1CE4E5B9
	z = (z ^ z>>27) * 0x94D049BB133111EB
	return z ^ z>>31
}
