package bench

import (
	"fmt"

	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/bitlayout"
)

// Layout is the field table of one state type: the width in bits of every field its
// WriteSnapshot writes, in order. It is what a Quake 3 netField_t table would say about the
// type (Quake 3 protocol description, Fedoryński: "entityStateFields": name, offset, bits), derived from the
// type's own code so the Quake 3 scheme sees exactly the quantised values ours sends.
type Layout struct {
	Widths []uint8 // per field, 1..32
	Bits   int     // sum of Widths: the bit-packed full state
}

// Fields returns the number of fields.
func (l *Layout) Fields() int { return len(l.Widths) }

// ProbeLayout derives s's field table from its WriteSnapshot, without knowing its type:
//
//   - the full state S is written once (no base);
//   - written again with S itself as the base, every field is an unchanged 0 flag, so the
//     delta's length is the number of fields;
//   - for every bit i of S, written with a base that differs from S only in bit i, the only
//     changed field is the one holding bit i, and its 1 flag sits at its field index in the
//     delta (every field before it costs exactly one 0 bit).
//
// The layout must have fields of 1..32 bits with contiguous bits, and the shape must not depend
// on the values (true of every arena type; a string field would fail the check).
func ProbeLayout(s game.Snapshotter) (Layout, error) {
	var stBuf, scratch, baseBuf [game.MaxStateBytes]byte
	var outBuf [2 * game.MaxStateBytes]byte
	dw := new(bitmsg.DeltaWriter)
	snapBits.ResetWriter(dw, nil, 0, nil, stBuf[:])
	s.WriteSnapshot(dw)
	if err := dw.Err(); err != nil {
		return Layout{}, fmt.Errorf("bench: probe: %w", err)
	}
	st, nbits := snapBits.WriterState(dw)
	st = append([]byte(nil), st...)
	out := bitmsg.NewWriter(outBuf[:])
	snapBits.ResetWriter(dw, st, nbits, out, scratch[:])
	s.WriteSnapshot(dw)
	if snapBits.WriterChanged(dw) || dw.Err() != nil {
		return Layout{}, fmt.Errorf("bench: probe: state does not equal itself")
	}
	nf := out.Len()
	if nf == 0 {
		return Layout{}, fmt.Errorf("bench: probe: no fields")
	}
	owner := make([]int, nbits)
	for i := range nbits {
		copy(baseBuf[:], st)
		baseBuf[i/8] ^= 1 << (i % 8)
		out.Reset(outBuf[:])
		snapBits.ResetWriter(dw, baseBuf[:len(st)], nbits, out, scratch[:])
		s.WriteSnapshot(dw)
		if dw.Err() != nil {
			return Layout{}, fmt.Errorf("bench: probe: %w", dw.Err())
		}
		r := bitmsg.NewReader(out.Bytes(), out.Len())
		k := 0
		for !r.ReadBool() {
			if r.Err() != nil {
				return Layout{}, fmt.Errorf("bench: probe: bit %d changed no field", i)
			}
			k++
		}
		owner[i] = k
	}
	l := Layout{Widths: make([]uint8, nf), Bits: nbits}
	for i, k := range owner {
		if k >= nf || (i > 0 && k != owner[i-1] && k != owner[i-1]+1) || (i == 0 && k != 0) {
			return Layout{}, fmt.Errorf("bench: probe: field bits not contiguous at bit %d", i)
		}
		l.Widths[k]++
	}
	for k, w := range l.Widths {
		if w == 0 || w > 32 {
			return Layout{}, fmt.Errorf("bench: probe: field %d has %d bits", k, w)
		}
	}
	return l, nil
}

// Split reads a bit-packed state of this layout into one value per field.
func (l *Layout) Split(state []byte, nbits int, dst []uint32) error {
	if nbits != l.Bits {
		return fmt.Errorf("bench: state of %d bits, layout has %d", nbits, l.Bits)
	}
	var r bitmsg.Reader
	r.Reset(state, nbits)
	for i, w := range l.Widths {
		dst[i] = r.ReadBits(int(w))
	}
	return r.Err()
}

// Join writes field values back into a bit-packed state (the inverse of Split).
func (l *Layout) Join(w *bitmsg.Writer, src []uint32) {
	for i, n := range l.Widths {
		w.WriteBits(src[i], int(n))
	}
}

// Union is the Quake 3-style fixed entity state: one struct for every entity type
// (entityState_t). Slot i holds field i of whatever type the entity is, and is as wide as the
// widest field i of any type (fields are reused across types, DOOM III §1.1: "developers often
// ended up re-using entity state structure fields for different purposes"); a narrower field is
// zero-extended. The last slot is the entity type (eType), TypeBits wide. Slot order follows each
// type's write order, which is already "most often changing first" (arena doc; Quake 3 sorts
// entityStateFields the same way so that the last-changed index lc stays small).
type Union struct {
	Widths []uint8 // slot widths; the last slot is the type
	Types  map[game.TypeID]*Layout
	Bits   int // sum of Widths
}

// MaxSlots bounds a Union's slots (a fixed array, like entityState_t).
const MaxSlots = 16

// UnionState is one entity in the fixed layout.
type UnionState [MaxSlots]uint32

// NewUnion builds the union of the given type layouts.
func NewUnion(types map[game.TypeID]*Layout, typeBits int) (*Union, error) {
	u := &Union{Types: types}
	n := 0
	for _, l := range types {
		n = max(n, l.Fields())
	}
	if n+1 > MaxSlots {
		return nil, fmt.Errorf("bench: %d fields exceed the %d union slots", n+1, MaxSlots)
	}
	u.Widths = make([]uint8, n+1)
	for _, l := range types {
		for i, w := range l.Widths {
			u.Widths[i] = max(u.Widths[i], w)
		}
	}
	u.Widths[n] = uint8(typeBits)
	for _, w := range u.Widths {
		u.Bits += int(w)
	}
	return u, nil
}

// Slots returns the number of slots (fields of the fixed state).
func (u *Union) Slots() int { return len(u.Widths) }

// Fill sets dst to the union form of an entity of type t with the given bit-packed state.
func (u *Union) Fill(dst *UnionState, t game.TypeID, state []byte, nbits int) error {
	l := u.Types[t]
	if l == nil {
		return fmt.Errorf("bench: no layout for type %d", t)
	}
	*dst = UnionState{}
	if err := l.Split(state, nbits, dst[:]); err != nil {
		return err
	}
	dst[len(u.Widths)-1] = uint32(t)
	return nil
}

// snapBits are bitmsg's snapshot-encoding operations (internal/bitlayout).
var snapBits = bitlayout.Get[bitmsg.Writer, bitmsg.DeltaWriter, bitmsg.DeltaReader, bitmsg.Reader]()
