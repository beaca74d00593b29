package bitmsg

import (
	"encoding/binary"
	"math"
	"strings"
)

// Reader unpacks bits written by a Writer (LSB first). Input is hostile: every read checks the
// bits left and re-checks the field's declared range; the first error is sticky and every read
// after it returns the zero value. A Reader never panics and never allocates more than the
// input can justify (ReadString is bounded by maxLen and by the bits left).
type Reader struct {
	buf   []byte
	nbits int
	pos   int
	err   error
}

// NewReader returns a Reader over the first nbits bits of buf (nbits is clamped to
// 0..len(buf)*8).
func NewReader(buf []byte, nbits int) *Reader {
	r := &Reader{}
	r.Reset(buf, nbits)
	return r
}

// Reset makes r read the first nbits bits of buf from the start, clearing the error.
func (r *Reader) Reset(buf []byte, nbits int) {
	nbits = min(max(nbits, 0), len(buf)*8)
	*r = Reader{buf: buf, nbits: nbits}
}

// BitsLeft returns the number of bits not yet read.
func (r *Reader) BitsLeft() int { return r.nbits - r.pos }

// Err returns the first error met, or nil.
func (r *Reader) Err() error { return r.err }

func (r *Reader) fail(err error) {
	if r.err == nil {
		r.err = err
	}
}

// get reads n bits, n in 0..32: the internal field primitive. On error it returns 0, false.
func (r *Reader) get(n int) (uint64, bool) {
	if i := r.pos >> 3; r.err == nil && n <= r.nbits-r.pos && i+8 <= len(r.buf) {
		// fast path: one unaligned 64-bit load
		v := binary.LittleEndian.Uint64(r.buf[i:]) >> uint(r.pos&7) & mask(n)
		r.pos += n
		return v, true
	}
	return r.getN(n)
}

func (r *Reader) underflow() {
	if r.err == nil {
		r.err = ErrUnderflow
	}
}

// getN is get for n in 0..64, and get's slow path.
func (r *Reader) getN(n int) (uint64, bool) {
	if r.err != nil || n > r.nbits-r.pos {
		r.underflow()
		return 0, false
	}
	v := peekN(r.buf, r.pos, n)
	r.pos += n
	return v, true
}

// tryGet reads n bits without touching the error: used on a delta base, where running out is
// not an error in itself. When fewer than n bits are left it moves to the end and returns false.
func (r *Reader) tryGet(n int) (uint64, bool) {
	if n > r.nbits-r.pos {
		r.pos = r.nbits
		return 0, false
	}
	v := peekN(r.buf, r.pos, n)
	r.pos += n
	return v, true
}

// field reads a field of width n, or records err (a width error) and returns false.
func (r *Reader) field(n int, err error) (uint64, bool) {
	if err != nil {
		r.fail(err)
		return 0, false
	}
	return r.get(n)
}

// ReadBits reads an n-bit unsigned value, n in 1..32 (else ErrWidth).
func (r *Reader) ReadBits(n int) uint32 {
	if i := r.pos >> 3; uint(n-1) < 32 && r.err == nil && n <= r.nbits-r.pos && i+8 <= len(r.buf) {
		v := binary.LittleEndian.Uint64(r.buf[i:]) >> uint(r.pos&7) & mask(n) // get, inlined
		r.pos += n
		return uint32(v)
	}
	if uint(n-1) >= 32 {
		r.fail(ErrWidth)
		return 0
	}
	raw, _ := r.getN(n)
	return uint32(raw)
}

// ReadUint64 reads 64 bits.
func (r *Reader) ReadUint64() uint64 {
	v, _ := r.getN(64)
	return v
}

// ReadInt reads an n-bit two's complement value, n in 2..32 (else ErrWidth).
func (r *Reader) ReadInt(n int) int32 {
	raw, ok := r.field(intWidth(n))
	if !ok {
		return 0
	}
	return decInt(raw, n)
}

// ReadBool reads one bit.
func (r *Reader) ReadBool() bool {
	v, _ := r.get(1)
	return v == 1
}

// ReadUint8 reads 8 bits.
func (r *Reader) ReadUint8() uint8 {
	v, _ := r.get(8)
	return uint8(v)
}

// ReadUint16 reads 16 bits.
func (r *Reader) ReadUint16() uint16 {
	v, _ := r.get(16)
	return uint16(v)
}

// ReadUint32 reads 32 bits.
func (r *Reader) ReadUint32() uint32 {
	v, _ := r.get(32)
	return uint32(v)
}

// ReadFloat reads a float written by WriteFloat (32 raw bits).
func (r *Reader) ReadFloat() float32 {
	v, _ := r.get(32)
	return math.Float32frombits(uint32(v))
}

// ReadBytes fills dst with len(dst) raw bytes. On error dst is zeroed.
func (r *Reader) ReadBytes(dst []byte) {
	if r.err == nil && len(dst)*8 > r.BitsLeft() {
		r.err = ErrUnderflow
	}
	if r.err != nil {
		clear(dst)
		return
	}
	r.pos = copyBits(dst, r.buf, r.pos)
}

// copyBits fills dst from src starting at bit pos (the caller checked the length) and returns
// the new position.
func copyBits(dst, src []byte, pos int) int {
	if pos&7 == 0 {
		copy(dst, src[pos/8:])
		return pos + 8*len(dst)
	}
	i := 0
	for ; i+4 <= len(dst); i += 4 {
		v := peek(src, pos, 32)
		dst[i], dst[i+1], dst[i+2], dst[i+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
		pos += 32
	}
	for ; i < len(dst); i++ {
		dst[i] = byte(peek(src, pos, 8))
		pos += 8
	}
	return pos
}

// readLen reads a string length prefix and checks it against maxLen and the bits left.
func (r *Reader) readLen(maxLen int) (int, bool) {
	raw, ok := r.field(stringWidth(maxLen))
	if !ok {
		return 0, false
	}
	if raw > uint64(maxLen) {
		r.fail(ErrRange)
		return 0, false
	}
	if int(raw)*8 > r.BitsLeft() {
		r.fail(ErrUnderflow)
		return 0, false
	}
	return int(raw), true
}

// ReadString reads a string written by WriteString with the same maxLen. A length above maxLen
// is ErrRange; a length longer than the bits left is ErrUnderflow (checked before allocating).
// It allocates the string; AppendString does not.
func (r *Reader) ReadString(maxLen int) string {
	n, ok := r.readLen(maxLen)
	if !ok || n == 0 {
		return ""
	}
	var sb strings.Builder
	sb.Grow(n)
	var chunk [64]byte
	for n > 0 {
		c := chunk[:min(n, len(chunk))]
		r.pos = copyBits(c, r.buf, r.pos)
		sb.Write(c)
		n -= len(c)
	}
	return sb.String()
}

// AppendString reads a string written by WriteString with the same maxLen and appends its bytes
// to dst: ReadString without the allocation when dst has room. On error dst is returned
// unchanged.
func (r *Reader) AppendString(dst []byte, maxLen int) []byte {
	n, ok := r.readLen(maxLen)
	if !ok {
		return dst
	}
	dst = grow(dst, n)
	r.pos = copyBits(dst[len(dst)-n:], r.buf, r.pos)
	return dst
}

// grow extends dst by n bytes.
func grow(dst []byte, n int) []byte {
	if cap(dst)-len(dst) >= n {
		return dst[:len(dst)+n]
	}
	out := make([]byte, len(dst)+n)
	copy(out, dst)
	return out
}

// ReadRangedInt reads a value written by WriteRangedInt with the same min and max; a raw value
// above max-min is ErrRange.
func (r *Reader) ReadRangedInt(min, max int32) int32 {
	span, n, err := rangedIntWidth(min, max)
	raw, ok := r.field(n, err)
	if !ok {
		return 0
	}
	v, err := decRangedInt(raw, min, span)
	if err != nil {
		r.fail(err)
	}
	return v
}

// ReadRangedFloat reads a value written by WriteRangedFloat with the same arguments.
func (r *Reader) ReadRangedFloat(min, max float32, bits int) float32 {
	raw, ok := r.field(rangedFloatWidth(min, max, bits))
	if !ok {
		return 0
	}
	return decRangedFloat(raw, min, max, bits)
}

// ReadFloatBits reads a reduced float written by WriteFloatBits with the same widths; an
// encoding the writer never makes (see QuantizeFloat) is ErrRange.
func (r *Reader) ReadFloatBits(expBits, mantBits int) float32 {
	raw, ok := r.field(floatBitsWidth(expBits, mantBits))
	if !ok {
		return 0
	}
	v, err := decFloatBits(raw, expBits, mantBits)
	if err != nil {
		r.fail(err)
	}
	return v
}

// ReadHalf reads an IEEE 754 binary16 value (every 16-bit pattern is valid).
func (r *Reader) ReadHalf() float32 {
	raw, ok := r.get(16)
	if !ok {
		return 0
	}
	return decHalf(uint16(raw))
}

// ReadAngle16 reads an angle written by WriteAngle16, in [0,360).
func (r *Reader) ReadAngle16() float32 {
	raw, _ := r.get(16)
	return decAngle(raw, 16)
}

// ReadAngle8 reads an angle written by WriteAngle8, in [0,360).
func (r *Reader) ReadAngle8() float32 {
	raw, _ := r.get(8)
	return decAngle(raw, 8)
}

// ReadDir reads a direction written by WriteDir with the same bitsPerAxis; the unused code
// 2^n-1 on any axis is ErrRange.
func (r *Reader) ReadDir(bitsPerAxis int) [3]float32 {
	raw, ok := r.field(dirWidth(bitsPerAxis))
	if !ok {
		return [3]float32{}
	}
	d, err := decDir(raw, bitsPerAxis)
	if err != nil {
		r.fail(err)
	}
	return d
}
