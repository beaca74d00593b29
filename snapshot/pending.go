package snapshot

import "github.com/snapwire/snapwire/game"

// RingSize is the number of snapshots each end keeps until acknowledged
// (server) or applied (client): 32, 1.6 s of snapshots at 20 Hz. The server
// only applies (and tells the client to apply) a snapshot still in its ring;
// it built no snapshot RingSize later before queueing the "apply", and the
// reliable "apply" reaches the client before any later snapshot, so the
// client still holds it too (its ring has the same size).
const RingSize = 32

// pendingEnt is an entity written in a snapshot: its new full state.
type pendingEnt struct {
	off uint32 // in pending.buf
	// verLo and verHi hold the FrameCache version of the state (48 bits; the base's label
	// once applied), 0: none.
	verLo uint32
	num   game.EntityNum
	typ   game.TypeID
	bits  uint16
	verHi uint16
}

// pendingState is a non-PVS state written in a snapshot.
type pendingState struct {
	id   game.StateID
	bits uint16
	off  uint32
}

// pending holds what applying a snapshot changes in the common base: the
// new states of the entities and non-PVS states written in it (full
// states, not deltas, so applying does not depend on the base it was
// encoded against) and its PVS.
type pending struct {
	seq    Seq
	valid  bool
	pvs    PVS
	ents   []pendingEnt
	states []pendingState
	buf    []byte
}

func (p *pending) reset(seq Seq) {
	p.seq, p.valid = seq, false
	p.ents, p.states, p.buf = p.ents[:0], p.states[:0], p.buf[:0]
}

func (p *pending) addEnt(n game.EntityNum, typ game.TypeID, state []byte, nbits int, ver uint64) {
	p.ents, p.buf = appendEnt(p.ents, p.buf, n, typ, state, nbits, ver)
}

// appendEnt appends entity n (its type, the nbits bits of state, the state's FrameCache
// version) to a pending snapshot's entries and state bytes, as addEnt does for callers that
// keep the two lists in locals.
func appendEnt(ents []pendingEnt, buf []byte, n game.EntityNum, typ game.TypeID, state []byte, nbits int, ver uint64) ([]pendingEnt, []byte) {
	ents = append(ents, pendingEnt{off: uint32(len(buf)), verLo: uint32(ver), verHi: uint16(ver >> 32), num: n, typ: typ, bits: uint16(nbits)})
	return ents, append(buf, state[:(nbits+7)/8]...)
}

func (p *pending) addState(id game.StateID, state []byte, nbits int) {
	p.states = append(p.states, pendingState{id: id, bits: uint16(nbits), off: uint32(len(p.buf))})
	p.buf = append(p.buf, state[:(nbits+7)/8]...)
}

// ring holds the pending snapshots, slot seq % RingSize.
type ring struct {
	slots [RingSize]pending
	// The largest snapshot built so far (entities, states, state bytes). A slot is brought up
	// to it, with a quarter more, when it is started: otherwise each of the RingSize slots
	// would grow on its own the first time it met a snapshot larger than its own past ones,
	// and allocations would trickle on long after the largest snapshot was seen.
	maxEnts, maxStates, maxBuf int
}

// start returns the slot for seq, emptied and not yet valid.
func (r *ring) start(seq Seq) *pending {
	prev := &r.slots[(seq-1)%RingSize]
	if prev.seq == seq-1 {
		r.maxEnts = max(r.maxEnts, len(prev.ents))
		r.maxStates = max(r.maxStates, len(prev.states))
		r.maxBuf = max(r.maxBuf, len(prev.buf))
	}
	p := &r.slots[seq%RingSize]
	p.reset(seq)
	if cap(p.ents) < r.maxEnts {
		p.ents = make([]pendingEnt, 0, r.maxEnts+r.maxEnts/4)
	}
	if cap(p.states) < r.maxStates {
		p.states = make([]pendingState, 0, r.maxStates)
	}
	if cap(p.buf) < r.maxBuf {
		p.buf = make([]byte, 0, r.maxBuf+r.maxBuf/4)
	}
	return p
}

// find returns the valid pending snapshot seq, or nil.
func (r *ring) find(seq Seq) *pending {
	p := &r.slots[seq%RingSize]
	if !p.valid || p.seq != seq {
		return nil
	}
	return p
}

// dropThrough invalidates every pending snapshot not newer than seq: once
// seq is applied they can never be.
func (r *ring) dropThrough(seq Seq) {
	for i := range r.slots {
		if p := &r.slots[i]; p.valid && !p.seq.Newer(seq) {
			p.valid = false
		}
	}
}

// count returns the number of valid pending snapshots.
func (r *ring) count() int {
	n := 0
	for i := range r.slots {
		if r.slots[i].valid {
			n++
		}
	}
	return n
}
