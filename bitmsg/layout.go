package bitmsg

import (
	"encoding/binary"

	"github.com/snapwire/snapwire/internal/bitlayout"
)

// Layouts (internal/bitlayout) let a server encode an entity's full state once per game frame
// and write its delta against many clients' bases without calling the entity's WriteSnapshot
// again: a DeltaWriter records the layout (each field's width in write order) while it writes
// the full state, and writeDelta replays the delta from the two bit strings and the layout. The output is
// bit for bit what a DeltaWriter seeded with the same base writes (DOOM III §4.2, §5); the
// DeltaWriter stays the reference (layout_test.go compares them on random schemas and bases).

// recordLayout makes d record the layout of the state it writes into l (emptied first), until
// the next reset. Call it after reset and before the first field. (internal/bitlayout's
// RecordLayout.)
func (d *DeltaWriter) recordLayout(l *bitlayout.Layout) {
	l.Reset()
	d.layout = l
	d.rec = d.out == nil && d.baseBits == 0
}

// writeDelta writes the delta of a full state against a base: state holds the state's nbits
// bits as a DeltaWriter with recordLayout(l) produced them (DeltaWriter.state), base the
// entity's state in the common base (baseBits bits, clamped to len(base)*8; empty for an entity
// new to the client). It writes exactly what a DeltaWriter reset with (base, baseBits, w)
// writes when given the same fields: per field a 0 bit when the base holds the same encoding at
// the same place, else a 1 bit and the encoding. On overflow it stops with ErrOverflow, like
// the DeltaWriter, having written a prefix of the fields. state and base may extend past their
// bit lengths (bytes after are ignored), which lets the reads use whole words.
func (w *Writer) writeDelta(l *bitlayout.Layout, state []byte, nbits int, base []byte, baseBits int) {
	if w.err != nil {
		return
	}
	baseBits = min(max(baseBits, 0), len(base)*8)
	if nbits+len(l.Fields) > w.BitsLeft() {
		// Not room for the worst case (every field changed): check each field.
		w.writeDeltaAll(l, state, base, baseBits, false)
		return
	}
	// The fastest path: only fixed fields of up to 56 bits, the base at least as long as the
	// state, and a word to spare after both: no per-field bounds to check.
	if ln := l.NarrowBits; l.Wide == 0 && ln <= baseBits && ln>>3+8 <= len(state) && ln>>3+8 <= len(base) {
		w.writeDeltaNarrow(l.Fields, state, base)
		return
	}
	// The fast path: fixed fields of up to 56 bits whose state and base bits lie a word away
	// from the ends of their slices are read with one load each; runs of unchanged fields go
	// out as one put of zeros.
	fields := l.Fields
	sp, bp, zeros := 0, 0, 0
	for i := range fields {
		f := &fields[i]
		n := int(f.N)
		if f.Kind != bitlayout.Fixed || n > 56 || sp>>3+8 > len(state) || bp>>3+8 > len(base) || n > baseBits-bp {
			// Everything else: the general loop from this field on.
			w.put(0, zeros)
			w.writeDeltaFrom(fields[i:], state, sp, base, bp, baseBits, true)
			return
		}
		m := mask(n)
		raw := binary.LittleEndian.Uint64(state[sp>>3:]) >> uint(sp&7) & m
		b := binary.LittleEndian.Uint64(base[bp>>3:]) >> uint(bp&7) & m
		sp += n
		bp += n
		if raw == b {
			if zeros++; zeros == 32 {
				w.put(0, 32)
				zeros = 0
			}
			continue
		}
		if zeros > 0 {
			w.put(0, zeros)
			zeros = 0
		}
		if n < 32 {
			w.put(raw<<1|1, n+1)
		} else {
			w.put((raw<<1|1)&0xFFFFFFFF, 32)
			w.put(raw>>31, n-31)
		}
	}
	w.put(0, zeros)
}

// writeDeltaNarrow is writeDelta's loop for a layout of fixed fields of up to 56 bits each,
// whose state and base (at least as long) have a word to spare after the state's bits. It holds
// a window of the state's bits and of state XOR base (both from one word load each, at least 57
// bits) and takes field after field off its low end, reloading when the next field does not
// fit. Runs of unchanged fields go out as one put of zeros. The worst case must fit in w.
func (w *Writer) writeDeltaNarrow(fields []bitlayout.Field, state, base []byte) {
	p, zeros := uint(0), 0
	var sw, d uint64 // the state's bits from p on, and state XOR base
	avail := uint(0) // bits of the window left
	for i := range fields {
		n := uint(fields[i].N) & 63
		if n > avail { // n > 0, so the field starts inside the state: the word is in bounds
			sh := p & 7
			sw = binary.LittleEndian.Uint64(state[p>>3:]) >> sh
			d = sw ^ binary.LittleEndian.Uint64(base[p>>3:])>>sh
			avail = 64 - sh
		}
		m := uint64(1)<<n - 1
		p += n
		avail -= n
		changed := d&m != 0
		raw := sw & m
		d >>= n
		sw >>= n
		if !changed {
			if zeros++; zeros == 32 {
				w.put(0, 32)
				zeros = 0
			}
			continue
		}
		if zeros > 0 {
			w.put(0, zeros)
			zeros = 0
		}
		if n < 32 {
			w.put(raw<<1|1, int(n)+1)
		} else {
			w.put((raw<<1|1)&0xFFFFFFFF, 32)
			w.put(raw>>31, int(n)-31)
		}
	}
	w.put(0, zeros)
}

// writeDeltaAll is writeDelta's general loop; roomy says the worst case fits, else every field
// reserves its bits.
func (w *Writer) writeDeltaAll(l *bitlayout.Layout, state, base []byte, baseBits int, roomy bool) {
	w.writeDeltaFrom(l.Fields, state, 0, base, 0, baseBits, roomy)
}

// writeDeltaFrom writes fields starting at bit sp of state and bit bp of base.
func (w *Writer) writeDeltaFrom(fields []bitlayout.Field, state []byte, sp int, base []byte, bp, baseBits int, roomy bool) {
	for i := range fields {
		f := &fields[i]
		if f.Kind == bitlayout.Fixed {
			n := int(f.N)
			raw := peekN(state, sp, n)
			sp += n
			same := false
			if n <= baseBits-bp {
				same = peekN(base, bp, n) == raw
				bp += n
			} else {
				bp = baseBits
			}
			if !roomy && !w.reserve(1+n*b2i(!same)) {
				return
			}
			w.putField(raw, n, same)
			continue
		}
		// A byte-string field: find the base's own (baseBytes), compare the bytes.
		lenBits, n := int(f.N), int(f.Length)
		total := lenBits + 8*n
		bn, ok := n, true
		if lenBits > 0 {
			if lenBits <= baseBits-bp {
				raw := peekN(base, bp, lenBits)
				bp += lenBits
				if raw > uint64(f.MaxLen) {
					ok = false
				}
				bn = int(raw)
			} else {
				ok = false
			}
		}
		if ok && 8*bn > baseBits-bp {
			ok = false
		}
		same := false
		if ok {
			same = bn == n && equalBitRuns(base, bp, state, sp+lenBits, 8*n)
			bp += 8 * bn
		} else {
			bp = baseBits
		}
		if !roomy && !w.reserve(1+total*b2i(!same)) {
			return
		}
		if same {
			w.put(0, 1)
		} else {
			w.put(1, 1)
			w.putBitsAt(state, sp, total)
		}
		sp += total
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// putField appends one delta field: a 0 bit when same, else a 1 bit and the n bits of raw
// (n in 0..64, raw < 1<<n). Space must have been reserved.
func (w *Writer) putField(raw uint64, n int, same bool) {
	switch {
	case same:
		w.put(0, 1)
	case n < 32:
		w.put(raw<<1|1, n+1)
	default:
		w.put((raw<<1|1)&0xFFFFFFFF, 32)
		if n-31 <= 32 {
			w.put(raw>>31, n-31)
		} else {
			w.put((raw>>31)&0xFFFFFFFF, 32)
			w.put(raw>>63, 1)
		}
	}
}

// equalBitRuns reports whether the n bits of a at bit pa equal the n bits of b at bit pb; both
// ranges lie inside their slices.
func equalBitRuns(a []byte, pa int, b []byte, pb, n int) bool {
	if pa&7 == 0 && pb&7 == 0 && n&7 == 0 {
		return string(a[pa/8:pa/8+n/8]) == string(b[pb/8:pb/8+n/8])
	}
	for ; n >= 57; n -= 57 {
		if peek(a, pa, 57) != peek(b, pb, 57) {
			return false
		}
		pa += 57
		pb += 57
	}
	return n == 0 || peek(a, pa, n) == peek(b, pb, n)
}

// appendSince appends to dst the bits written since bit start (0 <= start <= Len()), packed from
// bit 0 of dst's next byte with the unused bits of the last byte zero, and returns the extended
// slice and the number of bits. It lets a caller keep what one write produced (a delta) and
// replay it into another message with writeBitsFrom. start out of range appends nothing and
// returns (dst, 0). Appending within dst's capacity allocates nothing.
func (w *Writer) appendSince(dst []byte, start int) ([]byte, int) {
	n := w.Len() - start
	if start < 0 || n <= 0 {
		return dst, 0
	}
	w.Bytes() // flush the accumulator's bytes into buf (the writer's state is unchanged)
	nb := (n + 7) / 8
	off := len(dst)
	if cap(dst)-off >= nb {
		dst = dst[:off+nb] // every byte is written below
	} else {
		dst = append(dst, make([]byte, nb)...)
	}
	out := dst[off:]
	// peek reads whole words of buf where it can: bits past Len() are masked off.
	sp, o, left := start, 0, n
	for ; left >= 32; left -= 32 {
		binary.LittleEndian.PutUint32(out[o:], uint32(peek(w.buf, sp, 32)))
		sp += 32
		o += 4
	}
	if left > 0 {
		v := peek(w.buf, sp, left)
		for ; o < len(out); o++ {
			out[o] = byte(v)
			v >>= 8
		}
	}
	return dst, n
}
