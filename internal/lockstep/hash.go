package lockstep

import (
	"fmt"

	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/bitlayout"
)

// bitops starts an entity's state encoding and takes the bits written (bitmsg hands that
// plumbing to internal/bitlayout).
var bitops = bitlayout.Get[bitmsg.Writer, bitmsg.DeltaWriter, bitmsg.DeltaReader, bitmsg.Reader]()

// stateHasher hashes a peer's whole game state for the desync check: the
// encoding each entity and each non-PVS state writes (WriteSnapshot, the
// bytes a snapshot would carry), so two peers whose simulations differ in
// any field the game sends differ in their hash. It is FNV-1a 64
// (Fowler-Noll-Vo, IETF draft-eastlake-fnv), the hash the snapshot
// package's CommonBase.Hash uses for the same check between a server and a
// client, over the same entity and state contents in the same order (without
// the base's sequence number and PVS, which a lockstep peer does not have):
//
//	for every entity, ascending entity number: number 2 | TypeID 2 | bit length 2 | state bytes
//	0xFF 1
//	for every non-PVS state, ascending StateID: bit length 2 | state bytes
//
// Numbers are little-endian; the unused bits of a state's last byte are
// zero. The hasher keeps its writer and its state buffer from one hash to
// the next.
type stateHasher struct {
	dw  *bitmsg.DeltaWriter
	buf [game.MaxStateBytes]byte
}

// hash returns the hash of g's entities and of its non-PVS states as
// client 0 sees them (Game.State), or an error when an entity has no type or
// an encoding fails (too long, a field out of range).
func (s *stateHasher) hash(g game.Game) (uint64, error) {
	if s.dw == nil {
		s.dw = new(bitmsg.DeltaWriter)
	}
	h := newFNV64()
	for n, e := range g.Entities() {
		_, typ := g.Entity(n)
		if typ == game.NoType {
			return 0, fmt.Errorf("lockstep: state hash: entity %d has no type", n)
		}
		st, nbits, err := s.encode(e)
		if err != nil {
			return 0, fmt.Errorf("lockstep: state hash: entity %d: %w", n, err)
		}
		h.u16(uint16(n))
		h.u16(uint16(typ))
		h.state(st, nbits)
	}
	h.byte(0xFF)
	for id := range g.Registry().NumStates() {
		st, nbits, err := s.encode(g.State(0, game.StateID(id)))
		if err != nil {
			return 0, fmt.Errorf("lockstep: state hash: state %d: %w", id, err)
		}
		h.state(st, nbits)
	}
	return uint64(h), nil
}

// encode writes one entity's or state's snapshot encoding into the buffer.
func (s *stateHasher) encode(w game.Snapshotter) ([]byte, int, error) {
	bitops.ResetWriter(s.dw, nil, 0, nil, s.buf[:])
	w.WriteSnapshot(s.dw)
	if err := s.dw.Err(); err != nil {
		return nil, 0, err
	}
	st, nbits := bitops.WriterState(s.dw)
	return st, nbits, nil
}

// fnv64 is FNV-1a 64.
type fnv64 uint64

func newFNV64() fnv64 { return 14695981039346656037 }

func (h *fnv64) byte(c byte) { *h = (*h ^ fnv64(c)) * 1099511628211 }

func (h *fnv64) u16(v uint16) { h.byte(byte(v)); h.byte(byte(v >> 8)) }

// state hashes a state's bit length and its bytes, the unused bits of the
// last byte taken as zero.
func (h *fnv64) state(st []byte, nbits int) {
	h.u16(uint16(nbits))
	nb := (nbits + 7) / 8
	for i, c := range st[:nb] {
		if r := nbits & 7; i == nb-1 && r != 0 {
			c &= byte(1)<<r - 1
		}
		h.byte(c)
	}
}
