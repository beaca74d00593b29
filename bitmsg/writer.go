package bitmsg

import (
	"encoding/binary"
	"math"
)

// Writer packs bits LSB first into a caller-supplied buffer: the first bit written is bit 0 of
// byte 0 and a value of n bits is written low bit first. Bits collect in a 64-bit accumulator
// that is flushed to the buffer 32 bits at a time. The error is sticky: check Err once per
// message. The zero value is unusable; use NewWriter or Reset.
type Writer struct {
	buf     []byte
	acc     uint64 // pending bits, low bit first; bits at and above nacc are zero
	nacc    int    // pending bit count, < 32 between calls
	pos     int    // bytes of buf holding flushed bits
	capBits int
	err     error
}

// NewWriter returns a Writer over buf[:len(buf)]; its capacity is len(buf)*8 bits.
func NewWriter(buf []byte) *Writer {
	w := &Writer{}
	w.Reset(buf)
	return w
}

// Reset makes w write into buf from its start, clearing the error.
func (w *Writer) Reset(buf []byte) {
	*w = Writer{buf: buf, capBits: len(buf) * 8}
}

// Len returns the number of bits written.
func (w *Writer) Len() int { return w.pos*8 + w.nacc }

// BitsLeft returns the number of bits that can still be written.
func (w *Writer) BitsLeft() int { return w.capBits - w.Len() }

// Err returns the first error met, or nil.
func (w *Writer) Err() error { return w.err }

// Bytes returns the written bytes, ceil(Len()/8) of them, with the unused bits of the last
// byte zero. It aliases the buffer given to NewWriter or Reset.
func (w *Writer) Bytes() []byte {
	n := (w.nacc + 7) / 8
	a := w.acc
	for i := 0; i < n; i++ {
		w.buf[w.pos+i] = byte(a)
		a >>= 8
	}
	return w.buf[:w.pos+n]
}

func (w *Writer) fail(err error) {
	if w.err == nil {
		w.err = err
	}
}

// reserve reports whether n more bits may be written, setting ErrOverflow if not.
func (w *Writer) reserve(n int) bool {
	if w.err != nil {
		return false
	}
	if n > w.BitsLeft() {
		w.err = ErrOverflow
		return false
	}
	return true
}

// put appends the low n bits of v (n <= 32, v < 1<<n). Space must have been reserved.
func (w *Writer) put(v uint64, n int) {
	w.acc |= v << uint(w.nacc)
	w.nacc += n
	if w.nacc >= 32 {
		binary.LittleEndian.PutUint32(w.buf[w.pos:], uint32(w.acc))
		w.pos += 4
		w.acc >>= 32
		w.nacc -= 32
	}
}

// write appends the low n bits of v, n in 0..32: the internal field primitive, small enough
// to inline.
func (w *Writer) write(v uint64, n int) {
	if w.err != nil || n > w.capBits-w.pos*8-w.nacc {
		w.reserve(n)
		return
	}
	w.put(v&mask(n), n)
}

// writeN is write for n in 0..64.
func (w *Writer) writeN(v uint64, n int) {
	if n <= 32 {
		w.write(v, n)
		return
	}
	if !w.reserve(n) {
		return
	}
	w.put(v&0xFFFFFFFF, 32)
	w.put((v>>32)&mask(n-32), n-32)
}

// emit writes an encoded field, or records the encoder's error.
func (w *Writer) emit(raw uint64, n int, err error) {
	if err != nil {
		w.fail(err)
		return
	}
	w.write(raw, n)
}

// WriteBits writes the low n bits of v, n in 1..32 (else ErrWidth).
func (w *Writer) WriteBits(v uint32, n int) {
	if uint(n-1) >= 32 || w.err != nil || n > w.capBits-w.pos*8-w.nacc {
		w.emit(encBits(v, n)) // the error path
		return
	}
	w.put(uint64(v)&mask(n), n)
}

// writeBits64 writes the low n bits of v, n in 0..64 (else ErrWidth): a caller that gathers
// several fields in a 64-bit accumulator hands them over in one call.
func (w *Writer) writeBits64(v uint64, n int) {
	if uint(n) > 64 || w.err != nil || n > w.capBits-w.pos*8-w.nacc {
		if uint(n) > 64 {
			w.fail(ErrWidth)
		} else if n > 0 {
			w.writeN(v, n) // the error paths
		}
		return
	}
	w.put64(v&mask(n), n)
}

// put64 appends the low n bits of v (n <= 64, v < 1<<n; room reserved). The pending bits
// (under 32) and v's n make at most 95 bits: one 8-byte store of the low 64 when there are that
// many, then one 4-byte store when 32 remain; the reserved room covers both stores.
func (w *Writer) put64(v uint64, n int) {
	acc, nacc := w.acc|v<<uint(w.nacc), uint(w.nacc)+uint(n)
	if nacc >= 64 {
		binary.LittleEndian.PutUint64(w.buf[w.pos:], acc)
		w.pos += 8
		acc, nacc = v>>(64-uint(w.nacc)), nacc-64
	}
	if nacc >= 32 {
		binary.LittleEndian.PutUint32(w.buf[w.pos:], uint32(acc))
		w.pos += 4
		acc >>= 32
		nacc -= 32
	}
	w.acc, w.nacc = acc, int(nacc)
}

// WriteUint64 writes v in 64 bits.
func (w *Writer) WriteUint64(v uint64) { w.writeN(v, 64) }

// WriteInt writes v in two's complement in n bits, n in 2..32 (else ErrWidth); v must lie in
// -2^(n-1)..2^(n-1)-1 (else ErrRange).
func (w *Writer) WriteInt(v int32, n int) { w.emit(encInt(v, n)) }

// WriteBool writes one bit.
func (w *Writer) WriteBool(b bool) { w.write(encBool(b), 1) }

// WriteUint8 writes 8 bits.
func (w *Writer) WriteUint8(v uint8) { w.write(uint64(v), 8) }

// WriteUint16 writes 16 bits.
func (w *Writer) WriteUint16(v uint16) { w.write(uint64(v), 16) }

// WriteUint32 writes 32 bits.
func (w *Writer) WriteUint32(v uint32) { w.write(uint64(v), 32) }

// WriteFloat writes the 32 bits of v's IEEE 754 binary32 encoding, unchanged (NaN payloads
// included). DOOM III §4.1: positions go in full precision.
func (w *Writer) WriteFloat(v float32) { w.write(uint64(math.Float32bits(v)), 32) }

// WriteBytes writes p as raw bytes, 8 bits each, without a length. The whole of p is written
// or, on overflow, none of it.
func (w *Writer) WriteBytes(p []byte) {
	if !w.reserve(len(p) * 8) {
		return
	}
	putBytes(w, p)
}

// bytestr is a byte string: the encoding of a string or a byte slice is the same.
type bytestr interface{ ~string | ~[]byte }

// putBytes appends whole bytes; space must have been reserved.
func putBytes[T bytestr](w *Writer, p T) {
	if w.nacc&7 == 0 {
		// Byte aligned: flush the accumulator and copy.
		for w.nacc > 0 {
			w.buf[w.pos] = byte(w.acc)
			w.pos++
			w.acc >>= 8
			w.nacc -= 8
		}
		w.pos += copy(w.buf[w.pos:], p)
		return
	}
	i := 0
	for ; i+4 <= len(p); i += 4 {
		w.put(uint64(p[i])|uint64(p[i+1])<<8|uint64(p[i+2])<<16|uint64(p[i+3])<<24, 32)
	}
	for ; i < len(p); i++ {
		w.put(uint64(p[i]), 8)
	}
}

// putBitsAt appends nbits bits of src starting at bit start; space must have been reserved
// and the range must lie inside src.
func (w *Writer) putBitsAt(src []byte, start, nbits int) {
	if start&7 == 0 {
		i := start / 8
		putBytes(w, src[i:i+nbits/8])
		if r := nbits & 7; r > 0 {
			w.put(uint64(src[i+nbits/8])&mask(r), r)
		}
		return
	}
	for ; nbits >= 32; nbits -= 32 {
		w.put(peek(src, start, 32), 32)
		start += 32
	}
	if nbits > 0 {
		w.put(peek(src, start, nbits), nbits)
	}
}

// WriteString writes len(s) in BitsFor(maxLen) bits, then the bytes of s. len(s) > maxLen is
// ErrRange; maxLen outside 0..math.MaxInt32 is ErrWidth.
func (w *Writer) WriteString(s string, maxLen int) {
	lenBits, err := stringWidth(maxLen)
	if err == nil && len(s) > maxLen {
		err = ErrRange
	}
	if err != nil {
		w.fail(err)
		return
	}
	if !w.reserve(lenBits + 8*len(s)) {
		return
	}
	w.put(uint64(len(s)), lenBits)
	putBytes(w, s)
}

// WriteRangedInt writes v-min in BitsFor(max-min) bits. v outside min..max, or min > max, is
// ErrRange.
func (w *Writer) WriteRangedInt(v, min, max int32) { w.emit(encRangedInt(v, min, max)) }

// WriteRangedFloat writes v quantised uniformly in [min,max] in bits bits; see QuantizeRanged.
func (w *Writer) WriteRangedFloat(v, min, max float32, bits int) {
	w.emit(encRangedFloat(v, min, max, bits))
}

// WriteFloatBits writes v as a reduced float of 1+expBits+mantBits bits (DOOM III §4.1); see
// QuantizeFloat for the format.
func (w *Writer) WriteFloatBits(v float32, expBits, mantBits int) {
	w.emit(encFloatBits(v, expBits, mantBits))
}

// WriteHalf writes v as an IEEE 754 binary16 (16 bits), rounding to nearest even (DOOM III
// §4.1: velocities as 16-bit floats); see QuantizeHalf.
func (w *Writer) WriteHalf(v float32) { w.write(uint64(encHalf(v)), 16) }

// WriteAngle16 writes an angle in degrees in 16 bits (DOOM III §4.1); see QuantizeAngle16.
func (w *Writer) WriteAngle16(deg float32) { w.write(encAngle(deg, 16), 16) }

// WriteAngle8 writes an angle in degrees in 8 bits; see QuantizeAngle8.
func (w *Writer) WriteAngle8(deg float32) { w.write(encAngle(deg, 8), 8) }

// WriteDir writes a direction in 3*bitsPerAxis bits (DOOM III §4.1: "just 3 bits for each
// coordinate axis"); see QuantizeDir.
func (w *Writer) WriteDir(d [3]float32, bitsPerAxis int) { w.emit(encDir(d, bitsPerAxis)) }

// writeBitsFrom appends the first nbits bits of src (a stream in the same LSB-first order, for
// example another Writer's Bytes()). nbits outside 0..len(src)*8 is ErrRange. Long runs into a
// byte-aligned writer are copied; otherwise the bits go 32 at a time (src may run on past nbits,
// which lets the last read be a whole word).
func (w *Writer) writeBitsFrom(src []byte, nbits int) {
	if nbits < 0 || nbits > len(src)*8 {
		w.fail(ErrRange)
		return
	}
	if !w.reserve(nbits) {
		return
	}
	if nbits >= 512 && w.nacc&7 == 0 {
		w.putBitsAt(src, 0, nbits) // byte aligned: a copy
		return
	}
	// 64 bits at a time from whole words of src (a short replay: a kept delta) while both ends
	// have a word to spare, the accumulator in locals: nacc < 32 bits stay pending, and each
	// word of src goes out as one 8-byte store of the pending bits and its low bits.
	acc, nacc, pos := w.acc, uint(w.nacc), w.pos
	i := 0
	buf := w.buf
	// The words that fit both ends, counted first so that the loop has one bound.
	nw := min(nbits/64, (len(buf)-pos)/8, len(src)/8)
	if nw > 0 {
		s, d := src[:nw*8], buf[pos:pos+nw*8]
		// The shifts are the same for every word: v << nacc, and v >> (64 - nacc) as two
		// shifts (0 when nacc is 0).
		lsh, rsh := nacc&63, (63-nacc)&63
		for j := 8; j <= len(s) && j <= len(d); j += 8 {
			v := binary.LittleEndian.Uint64(s[j-8 : j])
			binary.LittleEndian.PutUint64(d[j-8:j], acc|v<<lsh)
			acc = v >> 1 >> rsh
		}
		pos += nw * 8
		i = nw * 8
		nbits -= nw * 64
	}
	// The last bits, under 64, with one load (put64).
	if nbits > 0 && nbits < 64 && i+8 <= len(src) {
		w.acc, w.nacc, w.pos = acc, int(nacc), pos
		w.put64(binary.LittleEndian.Uint64(src[i:])&mask(nbits), nbits)
		return
	}
	// Near the ends: 32 bits at a time; every 32 bits added flush 32.
	for ; nbits >= 32; nbits -= 32 {
		acc |= uint64(binary.LittleEndian.Uint32(src[i:])) << nacc
		binary.LittleEndian.PutUint32(w.buf[pos:], uint32(acc))
		pos += 4
		acc >>= 32
		i += 4
	}
	if nbits > 0 {
		var v uint64
		if i+4 <= len(src) {
			v = uint64(binary.LittleEndian.Uint32(src[i:]))
		} else {
			for j := len(src) - 1; j >= i; j-- {
				v = v<<8 | uint64(src[j])
			}
		}
		acc |= (v & mask(nbits)) << nacc
		nacc += uint(nbits)
		if nacc >= 32 {
			binary.LittleEndian.PutUint32(w.buf[pos:], uint32(acc))
			pos += 4
			acc >>= 32
			nacc -= 32
		}
	}
	w.acc, w.nacc, w.pos = acc, int(nacc), pos
}

// truncate rolls the message back to its first nbits bits, 0 <= nbits <= Len() (else
// ErrRange). Bits written after that point are forgotten. truncate clears ErrOverflow (but no
// other error): a write that overflowed was dropped whole, so a caller may mark Len() before
// writing an optional part (an entity), and on overflow truncate to the mark and send what fits.
func (w *Writer) truncate(nbits int) {
	if nbits < 0 || nbits > w.Len() {
		w.fail(ErrRange)
		return
	}
	w.Bytes() // flush the partial accumulator so every bit below Len() is in buf
	w.pos = nbits / 8
	w.nacc = nbits & 7
	w.acc = 0
	if w.nacc > 0 {
		w.acc = uint64(w.buf[w.pos]) & mask(w.nacc)
	}
	if w.err == ErrOverflow {
		w.err = nil
	}
}
