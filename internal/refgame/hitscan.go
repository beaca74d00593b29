package refgame

import (
	"math"

	"github.com/snapwire/snapwire/game"
)

// Hitscan: an instant-hit weapon, the kind lag compensation is about (DOOM
// III network architecture, van Waveren 2006, §1.1, Half-Life). The
// arena's own weapon is the rocket launcher; a hitscan shot is a query on
// the world that changes nothing, so the frames and bytes of a match do
// not depend on it. "snapwire models" fires it to measure what a player
// aiming exactly at an opponent on screen hits on the server, with and
// without lag compensation (server.History).

// HitscanRange is how far a hitscan shot reaches, in world units.
const HitscanRange = 4096

// PlaceFunc places entity n for a shot (server.PositionFunc has this
// shape): its position, or ok == false to leave it out.
type PlaceFunc func(n game.EntityNum) (x, y, z float32, ok bool)

// Hitscan fires from (ox, oy) along yaw (angle16 units) and returns the
// first player it meets before a wall: the live, present players of this
// world other than shooter, each a box of half-size PlayerRadius (the box
// it collides with walls by), placed by at (nil: where this world has
// them), against this world's walls and closed doors (its present). The
// arithmetic is float64 with explicit conversions (no fused
// multiply-adds), so a shot gives the same answer on every machine.
func (w *World) Hitscan(shooter game.EntityNum, ox, oy float32, yaw uint16, at PlaceFunc) (game.EntityNum, bool) {
	if w.Map == nil {
		return 0, false
	}
	d := yawDir(yaw)
	dx, dy := float64(d.X), float64(d.Y)
	limit := w.wallDistance(float64(ox), float64(oy), dx, dy, HitscanRange)
	best, bestT := game.EntityNum(0), math.Inf(1)
	for j := range w.Players {
		n := game.EntityNum(j)
		if n == shooter || !w.isPresent(n) || !w.Players[j].Alive() {
			continue
		}
		px, py := w.Players[j].X, w.Players[j].Y
		if at != nil {
			x, y, _, ok := at(n)
			if !ok {
				continue
			}
			px, py = x, y
		}
		t, ok := rayBox(float64(ox), float64(oy), dx, dy, float64(px), float64(py), PlayerRadius)
		if ok && t <= limit && t < bestT {
			best, bestT = n, t
		}
	}
	return best, !math.IsInf(bestT, 1)
}

// ClearLine reports whether the segment from (ax, ay) to (bx, by) crosses
// no wall or closed door of this world: a line of sight.
func (w *World) ClearLine(ax, ay, bx, by float32) bool {
	if w.Map == nil {
		return false
	}
	dx, dy := float64(bx)-float64(ax), float64(by)-float64(ay)
	l := math.Sqrt(float64(dx*dx) + float64(dy*dy))
	if l == 0 {
		return !w.solidTile(tileCoord(ax), tileCoord(ay))
	}
	return w.wallDistance(float64(ax), float64(ay), dx/l, dy/l, l) >= l
}

// wallDistance walks the tiles the ray from (ox, oy) along the unit vector
// (dx, dy) crosses (Amanatides and Woo's grid traversal) and returns the
// distance to the first solid one, or limit when there is none closer.
func (w *World) wallDistance(ox, oy, dx, dy, limit float64) float64 {
	tx, ty := int(math.Floor(ox/TileSize)), int(math.Floor(oy/TileSize))
	if w.solidTile(tx, ty) {
		return 0
	}
	stepX, stepY := 1, 1
	nextX, nextY := math.Inf(1), math.Inf(1) // distance to the next tile boundary on each axis
	deltaX, deltaY := math.Inf(1), math.Inf(1)
	switch {
	case dx > 0:
		nextX, deltaX = (float64(tx+1)*TileSize-ox)/dx, TileSize/dx
	case dx < 0:
		stepX = -1
		nextX, deltaX = (float64(tx)*TileSize-ox)/dx, -TileSize/dx
	}
	switch {
	case dy > 0:
		nextY, deltaY = (float64(ty+1)*TileSize-oy)/dy, TileSize/dy
	case dy < 0:
		stepY = -1
		nextY, deltaY = (float64(ty)*TileSize-oy)/dy, -TileSize/dy
	}
	for {
		var t float64
		if nextX < nextY {
			t, tx = nextX, tx+stepX
			nextX += deltaX
		} else {
			t, ty = nextY, ty+stepY
			nextY += deltaY
		}
		if t >= limit {
			return limit
		}
		if w.solidTile(tx, ty) {
			return t
		}
	}
}

// rayBox returns the distance along the ray from (ox, oy), unit direction
// (dx, dy), at which it enters the square of half-size h centred on (cx,
// cy) (0 when it starts inside), and whether it meets it at all.
func rayBox(ox, oy, dx, dy, cx, cy, h float64) (float64, bool) {
	tmin, tmax := math.Inf(-1), math.Inf(1)
	for _, ax := range [2][3]float64{{ox, dx, cx}, {oy, dy, cy}} {
		o, d, c := ax[0], ax[1], ax[2]
		lo, hi := c-h, c+h
		if d == 0 {
			if o < lo || o > hi {
				return 0, false
			}
			continue
		}
		t1, t2 := (lo-o)/d, (hi-o)/d
		if t1 > t2 {
			t1, t2 = t2, t1
		}
		tmin, tmax = max(tmin, t1), min(tmax, t2)
	}
	if tmax < 0 || tmin > tmax {
		return 0, false
	}
	return max(tmin, 0), true
}

// YawTo returns the angle16 yaw from (ax, ay) towards (bx, by): where a
// player standing at a aims to shoot at b.
func YawTo(ax, ay, bx, by float32) uint16 { return yawOf(float32(bx-ax), float32(by-ay)) }
