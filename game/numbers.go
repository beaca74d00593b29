package game

import (
	"fmt"
	"math/bits"
)

// numbers is EntityTable's entity number allocator (Add, Recycle).
//
// A number is taken while its entity lives and, after Remove, held until
// the server reports that every client's common base has applied a
// snapshot taken after the removal (DOOM III §4.2: the server and each
// client keep a common base, advanced when the client acknowledges a
// snapshot; an entity leaves a client's view by leaving the PVS of a
// snapshot). Reusing the number earlier would let a client whose base
// still holds the old entity take the new one for it: the same number,
// present in two snapshots in a row, is one entity that moved.
//
// Add hands out the lowest number neither live nor held, so numbers stay
// low and dense: they are bit offsets in the PVS bit string (§4.2), whose
// chunks of 32 cost nothing while they do not change.
//
// The held numbers form a list in removal order (their removal frames
// never decrease along it), linked through arrays: Remove appends, Put on
// a held number unlinks it, Recycle releases from the front. Everything is
// fixed-size: no allocation, whatever the game does.
type numbers struct {
	// taken has bit n set while number n is live or held.
	taken [MaxEntities / 64]uint64
	// held has bit n set while number n is held; removedAt[n] is then the
	// frame Recycle last started when n was removed.
	held      [MaxEntities / 64]uint64
	removedAt [MaxEntities]Frame
	// The list of held numbers, oldest first: next[n] and prev[n] are the
	// neighbours' numbers plus one (0: none), head and tail likewise.
	next, prev [MaxEntities]uint16
	head, tail uint16
	// frame is the frame argument of the last Recycle (0 before any).
	frame Frame
}

func (a *numbers) isHeld(n EntityNum) bool { return a.held[n/64]&(1<<(n%64)) != 0 }

// take marks n live: Put, with or without Add. A held n leaves the list.
func (a *numbers) take(n EntityNum) {
	if a.isHeld(n) {
		a.unlink(n)
	}
	a.taken[n/64] |= 1 << (n % 64)
}

// hold keeps n, just removed, from Add until Recycle releases it.
func (a *numbers) hold(n EntityNum) {
	a.held[n/64] |= 1 << (n % 64)
	a.removedAt[n] = a.frame
	link := uint16(n) + 1
	a.next[n], a.prev[n] = 0, a.tail
	if a.tail != 0 {
		a.next[a.tail-1] = link
	} else {
		a.head = link
	}
	a.tail = link
}

// unlink takes held number n off the list; it stays taken.
func (a *numbers) unlink(n EntityNum) {
	a.held[n/64] &^= 1 << (n % 64)
	nx, pv := a.next[n], a.prev[n]
	if pv != 0 {
		a.next[pv-1] = nx
	} else {
		a.head = nx
	}
	if nx != 0 {
		a.prev[nx-1] = pv
	} else {
		a.tail = pv
	}
}

// free returns the lowest number neither live nor held.
func (a *numbers) free() (EntityNum, bool) {
	for i, w := range a.taken {
		if w != ^uint64(0) {
			return EntityNum(i*64 + bits.TrailingZeros64(^w)), true
		}
	}
	return 0, false
}

// recycle releases the numbers removed while a frame before applied was
// the last started, then starts frame.
func (a *numbers) recycle(frame, applied Frame) {
	for a.head != 0 {
		n := EntityNum(a.head - 1)
		if a.removedAt[n] >= applied {
			break
		}
		a.unlink(n)
		a.taken[n/64] &^= 1 << (n % 64)
	}
	a.frame = frame
}

// Add spawns an entity of type typ at the lowest number that is free: no
// live entity has it and no removal holds it (Recycle). It is how a
// server-side game spawns without choosing numbers; Remove despawns. A
// game that also spawns at numbers it chooses (Spawn, Put) should choose
// them before Add could hand them out, for example its players' at Load.
func (t *EntityTable) Add(typ TypeID) (EntityNum, Entity, error) {
	n, ok := t.nums.free()
	if !ok {
		return 0, nil, fmt.Errorf("%w: no free entity number (%d live)", ErrRange, t.count)
	}
	e, err := t.Spawn(n, typ)
	return n, e, err
}

// Recycle is called by the server (package server) before it runs each
// frame, on a Game that has this method (a Game embedding *EntityTable
// has it): frame is the frame about to run, and every connected client's
// common base holds a snapshot of frame applied or later (DOOM III §4.2,
// §8; a client still on the map base, which no snapshot of a frame before
// it entered the game reached, counts from that frame). A number Remove frees is held from Add until a Recycle whose
// applied is after the last frame started when it was removed: from then
// on, no client's base holds the removed entity in its PVS, so the client
// sees it leave before the number returns as another entity. Spawn and
// Put at a held number take it back at once: the game chose it.
func (t *EntityTable) Recycle(frame, applied Frame) { t.nums.recycle(frame, applied) }
