package snapshot

import (
	"math/bits"

	"github.com/snapwire/snapwire/game"
)

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
	seq   Seq
	valid bool
	// The PVS and the lists are the ring's pooled buffers (ring.spare): nil while the slot
	// holds none.
	pvs    *PVS
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
	// to it, with a quarter more, when it is started: otherwise each buffer would grow on its
	// own the first time it met a snapshot larger than its own past ones, and allocations
	// would trickle on long after the largest snapshot was seen.
	maxEnts, maxStates, maxBuf int
	// spare holds the buffers of the slots dropped (applied or superseded), the last dropped
	// on top. A slot started takes the top: with acknowledgements arriving, the few snapshots
	// in flight cycle through the same few buffers, which stay in the processor's caches,
	// where RingSize buffers of their own would be written once every RingSize snapshots,
	// long after they left the caches, and would hold RingSize times the memory.
	spare []pendingBufs
	live  uint32 // bit i: slots[i] is valid (RingSize is 32)
}

// pendingBufs are the buffers of a pending snapshot, emptied.
type pendingBufs struct {
	pvs    *PVS
	ents   []pendingEnt
	states []pendingState
	buf    []byte
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
	r.live &^= 1 << (seq % RingSize)
	if p.pvs == nil {
		if len(r.spare) > 0 {
			// The slot gave its buffers back when it was dropped: take the last ones given.
			b := r.spare[len(r.spare)-1]
			r.spare = r.spare[:len(r.spare)-1]
			p.pvs, p.ents, p.states, p.buf = b.pvs, b.ents, b.states, b.buf
		} else {
			p.pvs = new(PVS)
		}
	}
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

// release gives slot p's buffers to spare; p must not be valid.
func (r *ring) release(p *pending) {
	if p.pvs == nil {
		return
	}
	if r.spare == nil {
		r.spare = make([]pendingBufs, 0, RingSize)
	}
	r.spare = append(r.spare, pendingBufs{p.pvs, p.ents[:0], p.states[:0], p.buf[:0]})
	p.pvs, p.ents, p.states, p.buf = nil, nil, nil, nil
}

// commit marks slot p, started and filled, valid.
func (r *ring) commit(p *pending) {
	p.valid = true
	r.live |= 1 << (p.seq % RingSize)
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
	for live := r.live; live != 0; live &= live - 1 {
		i := bits.TrailingZeros32(live)
		if p := &r.slots[i]; !p.seq.Newer(seq) {
			p.valid = false
			r.live &^= 1 << i
			r.release(p)
		}
	}
}

// count returns the number of valid pending snapshots.
func (r *ring) count() int {
	return bits.OnesCount32(r.live)
}
