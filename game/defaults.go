package game

// The defaults most games want, as methods of EntityTable: a game that
// embeds *EntityTable is a Game once it writes ClientConnected and
// RunFrame (and its New), and overrides the others where it needs more:
// a map to load, states outside the PVS, a PVS smaller than the world,
// a player entity that is not simply the one its client owns.

// Load starts an empty world: it removes every entity and forgets the
// numbers held for recycling (Game.Load; a new match has no client whose
// common base holds an old entity, DOOM III §8).
func (t *EntityTable) Load(settings string) error {
	*t = EntityTable{reg: t.reg}
	return nil
}

// State returns nil: a game without states outside the PVS (Game.State;
// the arena's scoreboard is one, DOOM III §3.2).
func (t *EntityTable) State(c ClientNum, id StateID) Snapshotter { return nil }

// Visible adds every live entity to client c's PVS: each client sees the
// whole world (Game.Visible, DOOM III §4.2).
func (t *EntityTable) Visible(c ClientNum, set EntitySet) {
	for n := range t.Entities() {
		set.Add(n)
	}
}

// PlayerEntity returns the lowest-numbered entity that client c owns, an
// entity implementing Owned whose Owner is c (Game.PlayerEntity). The
// owner is a networked field, so the same answer comes on the server and
// on every client. A game whose clients own more than their player (the
// shells a tank fired) and may spawn those below it overrides it.
func (t *EntityTable) PlayerEntity(c ClientNum) (EntityNum, bool) {
	for n, e := range t.Entities() {
		if owner, ok := ownerOf(e); ok && owner == c {
			return n, true
		}
	}
	return 0, false
}

// ClientDisconnected removes every entity client c owns (Owned), its
// player and whatever else it owned (Game.ClientDisconnected).
func (t *EntityTable) ClientDisconnected(c ClientNum) {
	for n, e := range t.Entities() {
		if owner, ok := ownerOf(e); ok && owner == c {
			t.Remove(n)
		}
	}
}

// ownerOf is e's owner when e is Owned and owned.
func ownerOf(e Entity) (ClientNum, bool) {
	if o, ok := e.(Owned); ok {
		return o.Owner()
	}
	return 0, false
}
