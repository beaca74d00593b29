package snapshot

import (
	"fmt"
	"iter"
	"math/bits"

	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/game"
)

// PVSChunks is the number of 32-bit chunks of a PVS bit string.
const PVSChunks = game.MaxEntities / 32

// PVSBaseBits is the size of a PVS delta in which no chunk changed: the
// changed flag alone. DOOM III §4.2 writes the chunk mask always ("if no
// entities entered or left the PVS this results in just 16 bytes"); our
// flag in front of it makes that common case 1 bit (see doc.go).
const PVSBaseBits = 1

// pvsMaskBits is the size of the chunk mask that follows a set changed flag.
const pvsMaskBits = PVSChunks

// PVS is the Potentially Visible Set of a client as a bit string: bit n is
// set when entity n is in the PVS (DOOM III §4.2). Bit n lives in chunk
// n/32 at bit n%32. The zero value is the empty set. It implements
// game.EntitySet.
type PVS [PVSChunks]uint32

// Add puts entity n in the set; numbers >= game.MaxEntities are ignored.
func (p *PVS) Add(n game.EntityNum) {
	if int(n) < game.MaxEntities {
		p[n>>5] |= 1 << (n & 31)
	}
}

// Remove takes entity n out of the set.
func (p *PVS) Remove(n game.EntityNum) {
	if int(n) < game.MaxEntities {
		p[n>>5] &^= 1 << (n & 31)
	}
}

// Has reports whether entity n is in the set.
func (p *PVS) Has(n game.EntityNum) bool {
	return int(n) < game.MaxEntities && p[n>>5]&(1<<(n&31)) != 0
}

// Clear empties the set.
func (p *PVS) Clear() { *p = PVS{} }

// Len returns the number of entities in the set.
func (p *PVS) Len() int {
	n := 0
	for _, c := range p {
		n += bits.OnesCount32(c)
	}
	return n
}

// All yields the entities in the set in ascending order.
func (p *PVS) All() iter.Seq[game.EntityNum] {
	return func(yield func(game.EntityNum) bool) {
		for i, c := range p {
			for c != 0 {
				b := bits.TrailingZeros32(c)
				c &= c - 1
				if !yield(game.EntityNum(i*32 + b)) {
					return
				}
			}
		}
	}
}

// appendMembers appends the entities in the set, ascending, to dst.
func (p *PVS) appendMembers(dst []game.EntityNum) []game.EntityNum {
	for i, c := range p {
		for c != 0 {
			b := bits.TrailingZeros32(c)
			c &= c - 1
			dst = append(dst, game.EntityNum(i*32+b))
		}
	}
	return dst
}

// DeltaBits returns the size in bits of p's delta against base.
func (p *PVS) DeltaBits(base *PVS) int {
	n := 0
	for i := range p {
		if p[i] != base[i] {
			n += 32
		}
	}
	if n == 0 {
		return PVSBaseBits
	}
	return PVSBaseBits + pvsMaskBits + n
}

// count returns how many entities of p have numbers from a up to, not including, b (a <= b,
// both at most game.MaxEntities).
func (p *PVS) count(a, b game.EntityNum) int {
	n := 0
	for i := int(a); i < int(b); {
		word := p[(i/32)&(PVSChunks-1)] >> (i % 32) // the entities from i to the word's end
		if left := int(b) - i; left < 32-i%32 {
			word &= 1<<left - 1 // b is in this word
		}
		n += bits.OnesCount32(word)
		i += 32 - i%32
	}
	return n
}

// noneBetween reports whether p holds no entity with a number between a and b, both excluded
// (-1 <= a < b < game.MaxEntities).
func (p *PVS) noneBetween(a, b int) bool {
	if a+1 == b {
		return true
	}
	if a >= 0 && a/32 == b/32 {
		return p[(b/32)&(PVSChunks-1)]&(1<<(b%32)-1)>>(a%32)>>1 == 0
	}
	return p.noneIn(a+1, b)
}

// noneIn is noneBetween across words: whether p holds no entity from a up to, not including, b.
// Not inlined: planCmds, which calls noneBetween per command, keeps its loop small.
//
//go:noinline
func (p *PVS) noneIn(a, b int) bool { return p.count(game.EntityNum(a), game.EntityNum(b)) == 0 }

// WriteDelta writes p delta-compressed in 32-bit chunks against base (DOOM
// III §4.2):
//
//	changed   1 bit: 0 when p equals base, and nothing follows
//	mask    128 bits, as four 32-bit words: bit i of word j is set when
//	        chunk 32j+i of p differs from base's
//	chunks  32 bits for each set mask bit, ascending: the new chunk value
//
// An unchanged PVS costs 1 bit (DOOM III: 16 bytes, the mask alone); a
// changed one 1 + 128 bits and 32 more for each chunk in which an entity
// entered or left.
func (p *PVS) WriteDelta(w *bitmsg.Writer, base *PVS) {
	// The chunk mask without a branch per chunk: bit 31 of d|-d is set when d is not 0.
	var mask [PVSChunks / 32]uint32
	changed := uint32(0)
	for j := range mask {
		a, b := (*[32]uint32)(p[j*32:j*32+32]), (*[32]uint32)(base[j*32:j*32+32])
		m := uint32(0)
		for k, c := range a {
			d := c ^ b[k]
			m |= (d | -d) >> 31 << k
		}
		mask[j] = m
		changed |= m
	}
	w.WriteBool(changed != 0)
	if changed == 0 {
		return
	}
	for _, m := range mask {
		w.WriteBits(m, 32)
	}
	for j, m := range mask {
		for ; m != 0; m &= m - 1 {
			w.WriteBits(p[(j*32+trailingZeros(m))&(PVSChunks-1)], 32)
		}
	}
}

// ReadDelta reads a PVS written by WriteDelta against the same base into p.
// A set changed flag with an all-zero mask is not canonical and is
// ErrCorrupt. On error p is left empty.
func (p *PVS) ReadDelta(r *bitmsg.Reader, base *PVS) error {
	if !r.ReadBool() {
		if err := r.Err(); err != nil {
			p.Clear()
			return fmt.Errorf("%w: PVS: %w", ErrCorrupt, err)
		}
		*p = *base
		return nil
	}
	var mask [PVSChunks / 32]uint32
	var any uint32
	for j := range mask {
		mask[j] = r.ReadBits(32)
		any |= mask[j]
	}
	if any == 0 && r.Err() == nil {
		p.Clear()
		return fmt.Errorf("%w: PVS: changed flag with an empty chunk mask", ErrCorrupt)
	}
	*p = *base
	for i := range p {
		if mask[i>>5]&(1<<(i&31)) != 0 {
			p[i] = r.ReadBits(32)
		}
	}
	if err := r.Err(); err != nil {
		p.Clear()
		return fmt.Errorf("%w: PVS: %w", ErrCorrupt, err)
	}
	return nil
}

func trailingZeros(b uint32) int { return bits.TrailingZeros32(b) }
