package refgame

// Collision: a player is an axis-aligned box of half-size PlayerRadius against the tile grid
// (walls and doors that are not open are solid) and a circle of radius PlayerRadius against other
// players. Moves are resolved one axis at a time, X then Y, so the result is exact and the same on
// every machine; a player never ends a move with its box overlapping a solid tile it did not
// already overlap.

// solidTile reports whether tile (tx, ty) blocks movement.
func (w *World) solidTile(tx, ty int) bool {
	t := w.Map.tileAt(tx, ty)
	if t.solid {
		return true
	}
	if t.door >= 0 {
		return w.Doors[t.door].State != DoorOpen
	}
	return false
}

// solidColumn reports whether any tile of column tx covering [y0, y1] blocks.
func (w *World) solidSpan(fixed int, lo, hi float32, column bool) bool {
	a, b := tileCoord(lo), tileCoord(hi)
	for i := a; i <= b; i++ {
		if column && w.solidTile(fixed, i) || !column && w.solidTile(i, fixed) {
			return true
		}
	}
	return false
}

// moveBox moves a box of half-size h centred at p by d, X first then Y, stopping at solid tiles.
// It returns the new centre and whether the X and Y moves were blocked.
func (w *World) moveBox(p, d vec2, h float32) (vec2, bool, bool) {
	var bx, by bool
	p.X, bx = w.moveAxis(p.X, d.X, p.Y, h, true)
	p.Y, by = w.moveAxis(p.Y, d.Y, p.X, h, false)
	return p, bx, by
}

// moveAxis moves coordinate v by d along one axis (X when alongX), with the box spanning
// [o-h, o+h] on the other axis. Only tiles newly entered by the leading edge are tested, so a box
// that somehow overlaps a wall can still move out of it.
func (w *World) moveAxis(v, d, o, h float32, alongX bool) (float32, bool) {
	nv := float32(v + d)
	lo, hi := float32(o-h), float32(o+h)
	switch {
	case d > 0:
		from, to := tileCoord(float32(v+h)), tileCoord(float32(nv+h))
		for c := from + 1; c <= to && c <= from+2; c++ {
			if w.solidSpan(c, lo, hi, alongX) {
				return float32(float32(c*TileSize)-h) - wallSkin, true
			}
		}
	case d < 0:
		from, to := tileCoord(float32(v-h)), tileCoord(float32(nv-h))
		for c := from - 1; c >= to && c >= from-2; c-- {
			if w.solidSpan(c, lo, hi, alongX) {
				return float32(float32((c+1)*TileSize)+h) + wallSkin, true
			}
		}
	}
	return nv, false
}

// boxClear reports whether a box of half-size h at p overlaps no solid tile.
func (w *World) boxClear(p vec2, h float32) bool {
	for ty := tileCoord(float32(p.Y - h)); ty <= tileCoord(float32(p.Y+h)); ty++ {
		for tx := tileCoord(float32(p.X - h)); tx <= tileCoord(float32(p.X+h)); tx++ {
			if w.solidTile(tx, ty) {
				return false
			}
		}
	}
	return true
}

// boxOverlapsDoor reports whether a box of half-size h at p overlaps a tile of door d.
func (w *World) boxOverlapsDoor(p vec2, h float32, d int) bool {
	for ty := tileCoord(float32(p.Y - h)); ty <= tileCoord(float32(p.Y+h)); ty++ {
		for tx := tileCoord(float32(p.X - h)); tx <= tileCoord(float32(p.X+h)); tx++ {
			if int(w.Map.tileAt(tx, ty).door) == d {
				return true
			}
		}
	}
	return false
}
