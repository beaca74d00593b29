package refgame

import "github.com/snapwire/snapwire/game"

// PVS (DOOM III §2, §4.2: a snapshot holds the entities in the client's potentially visible
// set). The arena's rule, on the room graph:
//
//   - the viewer's rooms: the room it stands in, or both rooms of the doorway it stands in;
//   - one hop: every room joined to a viewer's room by a door that is not closed (opening, open
//     or closing doors can be seen through);
//   - two hops, straight on: from a room reached through a door, the room beyond its door on the
//     opposite wall, when that door is not closed either (doors sit in the middle of their walls,
//     so two such doors line up and the view passes through both).
//
// Visible entities are the players and rockets whose position lies in a visible room or in the
// doorway of a visible room's door, the doors of visible rooms, and the lights, pickups and props
// placed in visible rooms; a player always sees itself.

// RoomSet is a set of room indices (a map has at most 256 rooms).
type RoomSet [4]uint64

// Has reports whether room r is in the set.
func (s *RoomSet) Has(r int) bool { return r >= 0 && r < 256 && s[r/64]&(1<<(r%64)) != 0 }

// Add puts room r in the set.
func (s *RoomSet) Add(r int) {
	if r >= 0 && r < 256 {
		s[r/64] |= 1 << (r % 64)
	}
}

// doorSeeThrough reports whether the view passes door d.
func (w *World) doorSeeThrough(d int) bool { return d >= 0 && w.Doors[d].State != DoorClosed }

// VisibleRooms returns the rooms visible from world position (x, y) by the rule above.
func (w *World) VisibleRooms(x, y float32) RoomSet {
	var s RoomSet
	m := w.Map
	room, door := m.RoomAt(x, y)
	var from [2]int
	nfrom := 0
	switch {
	case room >= 0:
		from[0], nfrom = room, 1
	case door >= 0:
		from, nfrom = m.Doors[door].Rooms, 2
	}
	for _, r := range from[:nfrom] {
		s.Add(r)
	}
	rx := m.cfg.RoomsX
	for _, r := range from[:nfrom] {
		for _, d := range m.Rooms[r].Doors {
			if !w.doorSeeThrough(d) {
				continue
			}
			r1 := m.otherRoom(d, r)
			s.Add(r1)
			// Straight on: the grid step from r to r1, once more.
			gx, gy := m.Rooms[r1].GX+(m.Rooms[r1].GX-m.Rooms[r].GX), m.Rooms[r1].GY+(m.Rooms[r1].GY-m.Rooms[r].GY)
			if gx < 0 || gy < 0 || gx >= rx || gy >= m.cfg.RoomsY {
				continue
			}
			r2 := gy*rx + gx
			if d2 := m.doorBetween(r1, r2); w.doorSeeThrough(d2) {
				s.Add(r2)
			}
		}
	}
	return s
}

// posVisible reports whether a point lies in a visible room or a visible room's doorway.
func (w *World) posVisible(s *RoomSet, x, y float32) bool {
	room, door := w.Map.RoomAt(x, y)
	if room >= 0 {
		return s.Has(room)
	}
	if door >= 0 {
		d := &w.Map.Doors[door]
		return s.Has(d.Rooms[0]) || s.Has(d.Rooms[1])
	}
	return false
}

// Visible implements game.Game: it adds the PVS of client c's player to set. A client without a
// player sees nothing.
func (w *World) Visible(c game.ClientNum, set game.EntitySet) {
	if w.Map == nil || int(c) >= len(w.Players) || !w.isPresent(game.EntityNum(c)) {
		return
	}
	self := &w.Players[c]
	s := w.VisibleRooms(self.X, self.Y)
	w.addVisible(&s, game.EntityNum(c), set)
}

// addVisible adds every present entity seen from the rooms in s, and self.
func (w *World) addVisible(s *RoomSet, self game.EntityNum, set game.EntitySet) {
	m := w.Map
	for i := range w.Players {
		n := game.EntityNum(i)
		if w.isPresent(n) && (n == self || w.posVisible(s, w.Players[i].X, w.Players[i].Y)) {
			set.Add(n)
		}
	}
	for i := range w.Rockets {
		n := game.EntityNum(m.FirstRocket + i)
		if w.isPresent(n) && w.posVisible(s, w.Rockets[i].X, w.Rockets[i].Y) {
			set.Add(n)
		}
	}
	for i := range m.Doors {
		n := game.EntityNum(m.FirstDoor + i)
		if w.isPresent(n) && (s.Has(m.Doors[i].Rooms[0]) || s.Has(m.Doors[i].Rooms[1])) {
			set.Add(n)
		}
	}
	for r := range m.Rooms {
		if !s.Has(r) {
			continue
		}
		for _, n := range m.roomEnts[r] {
			if w.isPresent(n) {
				set.Add(n)
			}
		}
	}
}
