package game

import "math"

// Grid is a uniform spatial grid of entities for interest management: a
// game moves its entities in it as they move, and its Visible adds the
// entities near a client's player with AddNear. A PVS built this way costs,
// per client, the cells around the player and the entities in them, not
// the number of entities in the match (issue 25: a thousand players in one
// open area). The grid is two-dimensional: a game with height passes its
// two horizontal axes. Unreal's replication graph keeps its actors in such
// a grid (its GridSpatialization2D node); DOOM III's PVS is the map's
// areas and portals (§2), which an open area does not have.
//
// The cells hash into a fixed table, so the world has no bounds and the
// grid allocates nothing after NewGrid. Not safe for concurrent use.
type Grid struct {
	cell  float32
	heads [gridBuckets]int32 // per bucket: its first entity, -1 when none
	ents  [MaxEntities]gridEntity
}

// gridEntity is an entity's place in the grid: its position, its cell and
// its links in its bucket's list.
type gridEntity struct {
	x, y       float32
	cx, cy     int32
	next, prev int32 // -1: none
	in         bool
}

// gridBuckets is the size of the cells' hash table: a cell's entities are
// in its bucket's list, with the other cells that hash there.
const gridBuckets = 4096

// gridMaxCoord bounds a cell coordinate, so that positions far out (or
// infinite) keep to the integers.
const gridMaxCoord = 1 << 28

// NewGrid returns an empty grid of square cells of side cell, in world
// units; cell is best about the radius AddNear is given (a cell that is
// not a positive number is taken as 1).
func NewGrid(cell float32) *Grid {
	if !(cell > 0) || math.IsInf(float64(cell), 1) {
		cell = 1
	}
	g := &Grid{cell: cell}
	for i := range g.heads {
		g.heads[i] = -1
	}
	return g
}

// cellOf returns the cell holding position v on one axis; NaN is taken as 0.
func (g *Grid) cellOf(v float64) int32 {
	c := math.Floor(v / float64(g.cell))
	if c != c {
		return 0
	}
	return int32(min(max(c, -gridMaxCoord), gridMaxCoord))
}

func bucketOf(cx, cy int32) int {
	h := uint32(cx)*0x9E3779B1 ^ uint32(cy)*0x85EBCA77
	return int(h>>20) & (gridBuckets - 1)
}

// Move puts entity n at (x, y), adding it to the grid if it is not in it.
// Numbers outside 0..MaxEntities-1 are ignored.
func (g *Grid) Move(n EntityNum, x, y float32) {
	if n >= MaxEntities {
		return
	}
	e := &g.ents[n]
	cx, cy := g.cellOf(float64(x)), g.cellOf(float64(y))
	e.x, e.y = x, y
	if e.in && e.cx == cx && e.cy == cy {
		return
	}
	g.Remove(n)
	e.cx, e.cy, e.in = cx, cy, true
	b := bucketOf(cx, cy)
	e.prev, e.next = -1, g.heads[b]
	if e.next >= 0 {
		g.ents[e.next].prev = int32(n)
	}
	g.heads[b] = int32(n)
}

// Remove takes entity n out of the grid, if it is in it.
func (g *Grid) Remove(n EntityNum) {
	if n >= MaxEntities || !g.ents[n].in {
		return
	}
	e := &g.ents[n]
	if e.prev >= 0 {
		g.ents[e.prev].next = e.next
	} else {
		g.heads[bucketOf(e.cx, e.cy)] = e.next
	}
	if e.next >= 0 {
		g.ents[e.next].prev = e.prev
	}
	e.in, e.next, e.prev = false, -1, -1
}

// AddNear adds to set every entity of the grid within radius of (x, y),
// the edge included. It visits the cells the radius reaches and the
// entities in their buckets, or, when those cells outnumber the entity
// numbers, every number once.
func (g *Grid) AddNear(set EntitySet, x, y, radius float32) {
	if !(radius >= 0) {
		return
	}
	r2 := float64(radius) * float64(radius)
	near := func(e *gridEntity) bool {
		dx, dy := float64(e.x)-float64(x), float64(e.y)-float64(y)
		return dx*dx+dy*dy <= r2
	}
	x0, x1 := g.cellOf(float64(x)-float64(radius)), g.cellOf(float64(x)+float64(radius))
	y0, y1 := g.cellOf(float64(y)-float64(radius)), g.cellOf(float64(y)+float64(radius))
	if cells := (int64(x1) - int64(x0) + 1) * (int64(y1) - int64(y0) + 1); cells > MaxEntities/4 {
		for n := range g.ents {
			if e := &g.ents[n]; e.in && near(e) {
				set.Add(EntityNum(n))
			}
		}
		return
	}
	for cy := y0; cy <= y1; cy++ {
		for cx := x0; cx <= x1; cx++ {
			for i := g.heads[bucketOf(cx, cy)]; i >= 0; {
				e := &g.ents[i]
				if e.cx == cx && e.cy == cy && near(e) {
					set.Add(EntityNum(i))
				}
				i = e.next
			}
		}
	}
}
