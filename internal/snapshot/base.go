package snapshot

import (
	"fmt"
	"unsafe"

	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/game"
)

// baseEntry locates one state in a CommonBase's arena.
type baseEntry struct {
	off uint32 // offset of the state in the arena
	// labelLo and labelHi hold the label (label, setLabel): when not 0, the version
	// (FrameCache, 48 bits) of the cached encoding this state was taken from or found equal
	// to, so the state's bytes are exactly that encoding's. A server's Encoder sets it
	// (applying a snapshot built from a FrameCache, or comparing), so that an entity whose
	// cached version is its base label is known unchanged without reading the bytes. It is not
	// part of the base's contents (Hash); a client's base leaves it 0.
	labelLo uint32
	cap     uint16      // bytes reserved at off
	bits    uint16      // state length in bits, <= game.MaxStateBits
	typ     game.TypeID // NoType: the base has no state for this entity
	labelHi uint16
}

// label returns the entry's label, 0 for none.
func (e *baseEntry) label() uint64 { return uint64(e.labelHi)<<32 | uint64(e.labelLo) }

// setLabel sets the entry's label (a version of at most 48 bits).
func (e *baseEntry) setLabel(v uint64) { e.labelLo, e.labelHi = uint32(v), uint16(v>>32) }

// CommonBase is the per-client common base of DOOM III §4.2: for every
// entity number whether the base holds a state, its TypeID and its state
// bits; the state of each non-PVS state; the PVS of the last applied
// snapshot; and that snapshot's sequence number. The server keeps one per
// client and the client keeps its own; both change it only by applying the
// same acknowledged snapshots, so they stay equal (Hash).
//
// States live in one byte arena (each entity a slot reused in place while it
// fits), so a base costs 16 bytes per entity slot plus its states' bytes:
// 4096 entities × 64 clients is a few megabytes, not a map per entity.
type CommonBase struct {
	seq     Seq
	pvs     PVS
	ents    [game.MaxEntities]baseEntry
	states  []baseEntry
	arena   []byte
	garbage int // arena bytes no entry refers to
}

// NewCommonBase returns an empty base for numStates non-PVS states
// (Registry.NumStates()).
func NewCommonBase(numStates int) *CommonBase {
	return &CommonBase{states: make([]baseEntry, numStates)}
}

// Reset empties the base: no entity, empty non-PVS states, empty PVS, Seq 0.
func (b *CommonBase) Reset() {
	b.seq, b.pvs = 0, PVS{}
	clear(b.ents[:])
	clear(b.states)
	b.arena, b.garbage = b.arena[:0], 0
}

// Init resets the base and fills it with the states of the world's entities
// and of the non-PVS states, as written by their WriteSnapshot. Call it on
// both ends right after the map is loaded (DOOM III §8: "the common base
// ... could be initialized with the states of entities from right after a
// map is loaded"), so entities that never change are never sent. states may
// be nil (empty states) or must have one entry per non-PVS state.
func (b *CommonBase) Init(world game.World, states []game.Snapshotter) error {
	if states != nil && len(states) != len(b.states) {
		return fmt.Errorf("%w: %d states, base has %d", ErrInput, len(states), len(b.states))
	}
	b.Reset()
	dw := new(bitmsg.DeltaWriter)
	var buf [game.MaxStateBytes]byte
	for n, e := range world.Entities() {
		_, typ := world.Entity(n)
		if typ == game.NoType {
			return fmt.Errorf("%w: entity %d has no type", ErrInput, n)
		}
		bitops.ResetWriter(dw, nil, 0, nil, buf[:])
		e.WriteSnapshot(dw)
		if err := dw.Err(); err != nil {
			return fmt.Errorf("snapshot: base state of entity %d: %w", n, err)
		}
		st, nb := bitops.WriterState(dw)
		b.store(&b.ents[n], st, nb)
		b.ents[n].typ = typ
	}
	for id, s := range states {
		bitops.ResetWriter(dw, nil, 0, nil, buf[:])
		s.WriteSnapshot(dw)
		if err := dw.Err(); err != nil {
			return fmt.Errorf("snapshot: base state %d: %w", id, err)
		}
		st, nb := bitops.WriterState(dw)
		b.store(&b.states[id], st, nb)
	}
	return nil
}

// CopyFrom makes b an exact copy of src, reusing b's memory. A server
// initialises one base from the map and copies it for each client.
func (b *CommonBase) CopyFrom(src *CommonBase) {
	b.seq, b.pvs, b.ents, b.garbage = src.seq, src.pvs, src.ents, src.garbage // labels too: the bytes are the same
	b.states = append(b.states[:0], src.states...)
	b.arena = append(b.arena[:0], src.arena...)
}

// Seq returns the sequence number of the last applied snapshot (0 after
// Init).
func (b *CommonBase) Seq() Seq { return b.seq }

// PVS returns the PVS of the last applied snapshot; do not modify it.
func (b *CommonBase) PVS() *PVS { return &b.pvs }

// NumStates returns the number of non-PVS states.
func (b *CommonBase) NumStates() int { return len(b.states) }

// Entity returns entity n's type and state in the base; typ is NoType when
// the base holds no state for n. state aliases the base until it changes.
func (b *CommonBase) Entity(n game.EntityNum) (typ game.TypeID, state []byte, nbits int) {
	if int(n) >= game.MaxEntities {
		return game.NoType, nil, 0
	}
	e := &b.ents[n]
	return e.typ, b.arena[e.off : e.off+uint32(e.bits+7)/8], int(e.bits)
}

// State returns non-PVS state id in the base.
func (b *CommonBase) State(id game.StateID) (state []byte, nbits int) {
	if int(id) >= len(b.states) {
		return nil, 0
	}
	e := &b.states[id]
	return b.arena[e.off : e.off+uint32(e.bits+7)/8], int(e.bits)
}

// stateWide is State with the slice running on to the end of the arena, so that reads of
// whole words stay on the layout replay (bitlayout.Funcs.WriteDelta)'s fast path.
func (b *CommonBase) stateWide(id game.StateID) (state []byte, nbits int) {
	e := &b.states[id]
	return b.arena[e.off:], int(e.bits)
}

// MemoryBytes returns the memory the base holds: the entity table, the
// state table and the arena's capacity.
func (b *CommonBase) MemoryBytes() int {
	return (len(b.ents)+len(b.states))*int(unsafe.Sizeof(baseEntry{})) + cap(b.arena)
}

// Hash returns an FNV-1a 64-bit hash of the whole base, in this order: Seq
// (4 bytes little-endian); the PVS's 128 chunks (4 bytes little-endian
// each); for every entity number with a state, ascending: the number (2
// bytes), TypeID (2), bit length (2) and the state bytes (unused bits of the
// last byte are zero); a 0xFF byte; for each non-PVS state: bit length (2)
// and bytes. Tests assert the server's and the client's hashes are equal
// after every apply.
func (b *CommonBase) Hash() uint64 {
	h := newFNV()
	h.u32(uint32(b.seq))
	for _, c := range b.pvs {
		h.u32(c)
	}
	for n := range b.ents {
		e := &b.ents[n]
		if e.typ == game.NoType {
			continue
		}
		h.u16(uint16(n))
		h.u16(uint16(e.typ))
		h.u16(e.bits)
		h.bytes(b.arena[e.off : e.off+uint32(e.bits+7)/8])
	}
	h.byte(0xFF)
	for i := range b.states {
		e := &b.states[i]
		h.u16(e.bits)
		h.bytes(b.arena[e.off : e.off+uint32(e.bits+7)/8])
	}
	return uint64(h)
}

// store puts a state of nbits bits into slot e, in place when it fits.
// Unused bits of the last byte are cleared so equal states have equal
// bytes.
func (b *CommonBase) store(e *baseEntry, state []byte, nbits int) {
	nb := (nbits + 7) / 8
	if nb > int(e.cap) {
		b.storeNew(e, state, nbits)
		return
	}
	copy(b.arena[e.off:e.off+uint32(nb)], state[:nb])
	e.bits = uint16(nbits)
	if r := nbits & 7; r != 0 {
		b.arena[e.off+uint32(nb)-1] &= byte(1)<<r - 1
	}
}

// storeNew is store for a state that does not fit slot e: a new slot at the arena's end.
func (b *CommonBase) storeNew(e *baseEntry, state []byte, nbits int) {
	nb := (nbits + 7) / 8
	b.garbage += int(e.cap)
	e.cap, e.bits = 0, 0
	if b.garbage > 64<<10 && b.garbage > len(b.arena)/2 {
		b.compact()
	}
	c := (nb + 7) &^ 7
	e.off, e.cap = uint32(len(b.arena)), uint16(c)
	b.arena = append(b.arena, state[:nb]...)
	for range c - nb {
		b.arena = append(b.arena, 0)
	}
	e.bits = uint16(nbits)
	if r := nbits & 7; r != 0 {
		b.arena[e.off+uint32(nb)-1] &= byte(1)<<r - 1
	}
}

// compact copies the live states into a new arena, dropping the garbage.
func (b *CommonBase) compact() {
	live := len(b.arena) - b.garbage
	arena := make([]byte, 0, live+live/4+64)
	move := func(e *baseEntry) {
		if e.cap == 0 {
			e.off = uint32(len(arena))
			return
		}
		off := len(arena)
		arena = append(arena, b.arena[e.off:e.off+uint32(e.cap)]...)
		e.off = uint32(off)
	}
	for i := range b.ents {
		move(&b.ents[i])
	}
	for i := range b.states {
		move(&b.states[i])
	}
	b.arena, b.garbage = arena, 0
}

// apply applies snapshot p's new states (DOOM III §4.2): the entities
// written in p take p's state and type, the non-PVS states written in p take
// p's, the PVS becomes p's and Seq p's. Entities not written in p keep
// their state.
func (b *CommonBase) apply(p *pending) {
	b.seq, b.pvs = p.seq, *p.pvs
	arena, buf, pents := b.arena, p.buf, p.ents // in locals: the stores below cannot change them
	for i := range pents {
		pe := &pents[i]
		e := &b.ents[pe.num&(game.MaxEntities-1)] // numbers are below MaxEntities: no bounds check
		e.typ = pe.typ
		e.labelLo, e.labelHi = pe.verLo, pe.verHi // 0 when built without a cache, or a client's
		// store, inline for the common case: the state fits the entity's slot. A pending
		// state's bits past its length are zero already (a Writer's output, as the encoder's
		// cache and the decoder hold them), so the last byte needs no mask here.
		if nb := (uint32(pe.bits) + 7) / 8; nb <= uint32(e.cap) {
			copy(arena[e.off:], buf[pe.off:pe.off+nb])
			e.bits = pe.bits
			continue
		}
		b.storeNew(e, buf[pe.off:], int(pe.bits))
		arena = b.arena // storeNew may have moved it
	}
	for i := range p.states {
		ps := &p.states[i]
		b.store(&b.states[ps.id], p.buf[ps.off:], int(ps.bits)) // states carry no label
	}
}

// fnv is FNV-1a 64.
type fnv uint64

func newFNV() fnv { return 14695981039346656037 }

func (h *fnv) byte(c byte) { *h = (*h ^ fnv(c)) * 1099511628211 }

func (h *fnv) bytes(p []byte) {
	for _, c := range p {
		h.byte(c)
	}
}

func (h *fnv) u16(v uint16) { h.byte(byte(v)); h.byte(byte(v >> 8)) }

func (h *fnv) u32(v uint32) { h.u16(uint16(v)); h.u16(uint16(v >> 16)) }
