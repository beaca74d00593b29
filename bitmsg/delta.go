package bitmsg

import (
	"math"
	"strings"

	"github.com/snapwire/snapwire/internal/bitlayout"
)

// DOOM III §5: "The idBitMsgDelta class is initialized with an entity state from the common
// base. The class writes or reads a bit packed and delta compressed message. The class also
// writes out a new entity state which can be applied to the common state once a snapshot is
// acknowledged by both the client and the server."
//
// Wire form of one field (DOOM III §4.2, delta against a common value):
//
//	0                   the field's encoding equals the base's encoding at the same place
//	1 <encoding>        otherwise: the same bits Writer would write for the field
//
// The base is read field by field with the same widths as the new state. A field for which the
// base has too few bits left (a shorter or differently shaped base) counts as changed, and the
// base is then exhausted: every later field counts as changed as well. String and byte fields
// compare their whole encoding (length prefix and bytes); the base advances over its own
// string, whose length may differ from the new one.

// DeltaWriter writes one entity's fields delta-compressed against its state in the common base
// (DOOM III §5 idBitMsgDelta), and writes the full new state (every field's encoding, no flag
// bits) to a caller-supplied state buffer. It has the Write methods of Writer, with the same
// signatures and encodings. It allocates nothing. The snapshot encoder (internal/snapshot,
// through internal/bitlayout) starts each entity on it and takes the new state; a game only
// writes its fields.
type DeltaWriter struct {
	base     Reader
	baseBits int
	out      *Writer
	st       Writer
	changed  bool
	err      error
	layout   *bitlayout.Layout // recordLayout's target, or nil
	// rec: recording a full state only (no base, no out, a layout): field takes the short path
	// of recordField.
	rec bool
}

// reset starts an entity: base holds its state in the common base (baseBits bits, clamped to
// len(base)*8; empty for an entity new to the client), out receives the delta message (nil to
// only build the new state), state receives the new state.
func (d *DeltaWriter) reset(base []byte, baseBits int, out *Writer, state []byte) {
	d.base.Reset(base, baseBits)
	d.baseBits = d.base.nbits
	d.out = out
	d.st.Reset(state)
	d.changed = false
	d.err = nil
	d.layout = nil
	d.rec = false
}

// stateChanged reports whether any field differed from the base, or the new state's length
// differs from the base's. An entity that has not changed can be omitted from the snapshot
// (internal/bitlayout's WriterChanged).
func (d *DeltaWriter) stateChanged() bool { return d.changed || d.st.Len() != d.baseBits }

// state returns the new state written so far and its length in bits; the bytes alias the
// state buffer given to reset.
func (d *DeltaWriter) state() ([]byte, int) { return d.st.Bytes(), d.st.Len() }

// Err returns the first error: a range or width error of a field, an overflow of the state
// buffer, or out's error.
func (d *DeltaWriter) Err() error {
	switch {
	case d.err != nil:
		return d.err
	case d.st.err != nil:
		return d.st.err
	case d.out != nil:
		return d.out.err
	}
	return nil
}

func (d *DeltaWriter) fail(err error) {
	if d.err == nil {
		d.err = err
	}
}

// field is the delta primitive: one field of n bits (0..64) with encoding raw. The base is
// compared a word at a time and the flag goes out with the value in one put.
func (d *DeltaWriter) field(raw uint64, n int) {
	if d.rec {
		d.recordField(raw, n)
		return
	}
	if d.err != nil {
		return
	}
	raw &= mask(n)
	same := false
	if b := &d.base; n <= b.nbits-b.pos {
		same = peekN(b.buf, b.pos, n) == raw
		b.pos += n
	} else {
		b.pos = b.nbits // exhausted: every later field counts as changed
	}
	if o := d.out; o != nil {
		if o.err == nil && 1+n <= o.capBits-o.pos*8-o.nacc {
			o.putField(raw, n, same)
		} else {
			o.reserve(1 + n*b2i(!same))
			if o.err == nil {
				o.put(0, 1) // same, and only the flag fits
			}
		}
	}
	if !same {
		d.changed = true
	}
	if d.layout != nil {
		d.layout.AddFixed(n)
	}
	d.st.writeN(raw, n)
}

// recordField is field when only the state and its layout are written (recordLayout with
// no base and no out, as a FrameCache encodes an entity once per frame): no base to compare,
// no flag bits; every field of non-zero width counts as changed, as field finds against an
// empty base. delta_test.go compares it with the general path.
func (d *DeltaWriter) recordField(raw uint64, n int) {
	if d.err != nil {
		return
	}
	if n > 0 {
		d.changed = true
	}
	d.layout.AddFixed(n)
	st := &d.st
	if n <= 32 && st.err == nil && n <= st.capBits-st.pos*8-st.nacc {
		st.put(raw&mask(n), n)
		return
	}
	st.writeN(raw&mask(n), n)
}

func (d *DeltaWriter) emit(raw uint64, n int, err error) {
	if err != nil {
		d.fail(err)
		return
	}
	d.field(raw, n)
}

// baseBytes moves a base reader over a byte-string field: a length prefix of lenBits bits
// (at most maxLen), or a fixed length when lenBits is 0, then the bytes. It returns the bit
// position and length of the bytes, or false (leaving the base exhausted) if the base does not
// hold such a field.
func baseBytes(b *Reader, lenBits, maxLen, fixedLen int) (start, n int, ok bool) {
	n = fixedLen
	if lenBits > 0 {
		raw, ok := b.tryGet(lenBits)
		if !ok || raw > uint64(maxLen) {
			b.pos = b.nbits
			return 0, 0, false
		}
		n = int(raw)
	}
	if 8*n > b.BitsLeft() {
		b.pos = b.nbits
		return 0, 0, false
	}
	start = b.pos
	b.pos += 8 * n
	return start, n, true
}

// equalBytes reports whether the bytes at bit start of src equal p.
func equalBytes[T bytestr](src []byte, start int, p T) bool {
	if start&7 == 0 {
		return string(src[start/8:start/8+len(p)]) == string(p)
	}
	i := 0
	for ; i+4 <= len(p); i += 4 {
		v := uint64(p[i]) | uint64(p[i+1])<<8 | uint64(p[i+2])<<16 | uint64(p[i+3])<<24
		if peek(src, start+8*i, 32) != v {
			return false
		}
	}
	for ; i < len(p); i++ {
		if peek(src, start+8*i, 8) != uint64(p[i]) {
			return false
		}
	}
	return true
}

// deltaBytes writes a byte-string field: lenBits of length (0: none) and the bytes of p.
func deltaBytes[T bytestr](d *DeltaWriter, lenBits, maxLen int, p T) {
	if d.err != nil {
		return
	}
	start, n, ok := baseBytes(&d.base, lenBits, maxLen, len(p))
	same := ok && n == len(p) && equalBytes(d.base.buf, start, p)
	total := lenBits + 8*len(p)
	if d.out != nil {
		if same {
			d.out.write(0, 1)
		} else if d.out.reserve(1 + total) {
			d.out.put(1, 1)
			if lenBits > 0 {
				d.out.put(uint64(len(p)), lenBits)
			}
			putBytes(d.out, p)
		}
	}
	if !same {
		d.changed = true
	}
	if d.layout != nil {
		d.layout.AddBytes(lenBits, len(p), maxLen)
	}
	if d.st.reserve(total) {
		if lenBits > 0 {
			d.st.put(uint64(len(p)), lenBits)
		}
		putBytes(&d.st, p)
	}
}

// WriteBits is Writer.WriteBits as a delta field.
func (d *DeltaWriter) WriteBits(v uint32, n int) { d.emit(encBits(v, n)) }

// WriteUint64 is Writer.WriteUint64 as a delta field.
func (d *DeltaWriter) WriteUint64(v uint64) { d.field(v, 64) }

// WriteInt is Writer.WriteInt as a delta field.
func (d *DeltaWriter) WriteInt(v int32, n int) { d.emit(encInt(v, n)) }

// WriteBool is Writer.WriteBool as a delta field.
func (d *DeltaWriter) WriteBool(b bool) { d.field(encBool(b), 1) }

// WriteUint8 is Writer.WriteUint8 as a delta field.
func (d *DeltaWriter) WriteUint8(v uint8) { d.field(uint64(v), 8) }

// WriteUint16 is Writer.WriteUint16 as a delta field.
func (d *DeltaWriter) WriteUint16(v uint16) { d.field(uint64(v), 16) }

// WriteUint32 is Writer.WriteUint32 as a delta field.
func (d *DeltaWriter) WriteUint32(v uint32) { d.field(uint64(v), 32) }

// WriteFloat is Writer.WriteFloat as a delta field.
func (d *DeltaWriter) WriteFloat(v float32) { d.field(uint64(math.Float32bits(v)), 32) }

// WriteBytes is Writer.WriteBytes as one delta field (the whole slice is compared).
func (d *DeltaWriter) WriteBytes(p []byte) { deltaBytes(d, 0, 0, p) }

// WriteString is Writer.WriteString as one delta field (length and bytes are compared).
func (d *DeltaWriter) WriteString(s string, maxLen int) {
	lenBits, err := stringWidth(maxLen)
	if err == nil && len(s) > maxLen {
		err = ErrRange
	}
	if err != nil {
		d.fail(err)
		return
	}
	deltaBytes(d, lenBits, maxLen, s)
}

// WriteRangedInt is Writer.WriteRangedInt as a delta field.
func (d *DeltaWriter) WriteRangedInt(v, min, max int32) { d.emit(encRangedInt(v, min, max)) }

// WriteRangedFloat is Writer.WriteRangedFloat as a delta field.
func (d *DeltaWriter) WriteRangedFloat(v, min, max float32, bits int) {
	d.emit(encRangedFloat(v, min, max, bits))
}

// WriteFloatBits is Writer.WriteFloatBits as a delta field.
func (d *DeltaWriter) WriteFloatBits(v float32, expBits, mantBits int) {
	d.emit(encFloatBits(v, expBits, mantBits))
}

// WriteHalf is Writer.WriteHalf as a delta field.
func (d *DeltaWriter) WriteHalf(v float32) { d.field(uint64(encHalf(v)), 16) }

// WriteAngle16 is Writer.WriteAngle16 as a delta field.
func (d *DeltaWriter) WriteAngle16(deg float32) { d.field(encAngle(deg, 16), 16) }

// WriteAngle8 is Writer.WriteAngle8 as a delta field.
func (d *DeltaWriter) WriteAngle8(deg float32) { d.field(encAngle(deg, 8), 8) }

// WriteDir is Writer.WriteDir as a delta field.
func (d *DeltaWriter) WriteDir(v [3]float32, bitsPerAxis int) { d.emit(encDir(v, bitsPerAxis)) }

// DeltaReader reads what a DeltaWriter wrote, against the same base, and rebuilds the new
// state bit for bit (the state the writer built). It has the Read methods of Reader,
// with the same signatures, range checks and sticky error. It allocates nothing (except in
// ReadString). The snapshot decoder starts each entity on it; a game only reads its fields.
type DeltaReader struct {
	base     Reader
	baseBits int
	in       *Reader
	st       Writer
	changed  bool
	err      error
}

// reset starts an entity: base holds its state in the common base (baseBits bits, clamped),
// in is the snapshot being read, positioned at this entity's fields, state receives the new
// state. in == nil means the entity was omitted because it did not change: every field takes
// its base value.
func (d *DeltaReader) reset(base []byte, baseBits int, in *Reader, state []byte) {
	d.base.Reset(base, baseBits)
	d.baseBits = d.base.nbits
	d.in = in
	d.st.Reset(state)
	d.changed = false
	d.err = nil
}

// stateChanged reports whether any field was sent (flag 1), or the new state's length differs
// from the base's (internal/bitlayout's ReaderChanged).
func (d *DeltaReader) stateChanged() bool { return d.changed || d.st.Len() != d.baseBits }

// state returns the new state read so far and its length in bits; the bytes alias the state
// buffer given to reset.
func (d *DeltaReader) state() ([]byte, int) { return d.st.Bytes(), d.st.Len() }

// Err returns the first error: a field's range or width error, a field taken from an exhausted
// base (ErrUnderflow), an overflow of the state buffer, or in's error.
func (d *DeltaReader) Err() error {
	switch {
	case d.err != nil:
		return d.err
	case d.st.err != nil:
		return d.st.err
	case d.in != nil:
		return d.in.err
	}
	return nil
}

func (d *DeltaReader) fail(err error) {
	if d.err == nil {
		d.err = err
	}
}

func (d *DeltaReader) failed() bool {
	return d.err != nil || d.st.err != nil || (d.in != nil && d.in.err != nil)
}

// flag reads a field's changed flag (false when in is nil).
func (d *DeltaReader) flag() (changed, ok bool) {
	if d.failed() {
		return false, false
	}
	if d.in == nil {
		return false, true
	}
	f, ok := d.in.get(1)
	return f == 1, ok
}

// field is the delta primitive: one field of n bits (0..64), from in or from the base, copied
// to the new state. werr is a width error to record.
func (d *DeltaReader) field(n int, werr error) (uint64, bool) {
	if werr != nil {
		d.fail(werr)
		return 0, false
	}
	changed, ok := d.flag()
	if !ok {
		return 0, false
	}
	raw, baseOK := d.base.tryGet(n)
	if changed {
		d.changed = true
		if raw, ok = d.in.getN(n); !ok {
			return 0, false
		}
	} else if !baseOK {
		d.fail(ErrUnderflow)
		return 0, false
	}
	d.st.writeN(raw, n)
	return raw, d.st.err == nil
}

func (d *DeltaReader) fixed(n int) uint64 {
	raw, _ := d.field(n, nil)
	return raw
}

// bytesField reads a byte-string field (lenBits of length prefix, or fixedLen bytes when
// lenBits is 0), copies its encoding to the new state and returns where its bytes are.
func (d *DeltaReader) bytesField(lenBits, maxLen, fixedLen int) (src []byte, start, n int, ok bool) {
	changed, ok := d.flag()
	if !ok {
		return nil, 0, 0, false
	}
	bstart, bn, bok := baseBytes(&d.base, lenBits, maxLen, fixedLen)
	if changed {
		d.changed = true
		n = fixedLen
		if lenBits > 0 {
			if n, ok = d.in.readLen(maxLen); !ok {
				return nil, 0, 0, false
			}
		} else if 8*n > d.in.BitsLeft() {
			d.in.fail(ErrUnderflow)
			return nil, 0, 0, false
		}
		src, start = d.in.buf, d.in.pos
		d.in.pos += 8 * n
	} else {
		if !bok {
			d.fail(ErrUnderflow)
			return nil, 0, 0, false
		}
		src, start, n = d.base.buf, bstart, bn
	}
	if !d.st.reserve(lenBits + 8*n) {
		return nil, 0, 0, false
	}
	if lenBits > 0 {
		d.st.put(uint64(n), lenBits)
	}
	d.st.putBitsAt(src, start, 8*n)
	return src, start, n, true
}

// ReadBits is Reader.ReadBits as a delta field.
func (d *DeltaReader) ReadBits(n int) uint32 {
	raw, _ := d.field(bitsWidth(n))
	return uint32(raw)
}

// ReadUint64 is Reader.ReadUint64 as a delta field.
func (d *DeltaReader) ReadUint64() uint64 { return d.fixed(64) }

// ReadInt is Reader.ReadInt as a delta field.
func (d *DeltaReader) ReadInt(n int) int32 {
	raw, ok := d.field(intWidth(n))
	if !ok {
		return 0
	}
	return decInt(raw, n)
}

// ReadBool is Reader.ReadBool as a delta field.
func (d *DeltaReader) ReadBool() bool { return d.fixed(1) == 1 }

// ReadUint8 is Reader.ReadUint8 as a delta field.
func (d *DeltaReader) ReadUint8() uint8 { return uint8(d.fixed(8)) }

// ReadUint16 is Reader.ReadUint16 as a delta field.
func (d *DeltaReader) ReadUint16() uint16 { return uint16(d.fixed(16)) }

// ReadUint32 is Reader.ReadUint32 as a delta field.
func (d *DeltaReader) ReadUint32() uint32 { return uint32(d.fixed(32)) }

// ReadFloat is Reader.ReadFloat as a delta field.
func (d *DeltaReader) ReadFloat() float32 { return math.Float32frombits(uint32(d.fixed(32))) }

// ReadBytes is Reader.ReadBytes as a delta field. On error dst is zeroed.
func (d *DeltaReader) ReadBytes(dst []byte) {
	src, start, _, ok := d.bytesField(0, 0, len(dst))
	if !ok {
		clear(dst)
		return
	}
	copyBits(dst, src, start)
}

// ReadString is Reader.ReadString as a delta field.
func (d *DeltaReader) ReadString(maxLen int) string {
	lenBits, err := stringWidth(maxLen)
	if err != nil {
		d.fail(err)
		return ""
	}
	src, start, n, ok := d.bytesField(lenBits, maxLen, 0)
	if !ok || n == 0 {
		return ""
	}
	var sb strings.Builder
	sb.Grow(n)
	var chunk [64]byte
	for n > 0 {
		c := chunk[:min(n, len(chunk))]
		start = copyBits(c, src, start)
		sb.Write(c)
		n -= len(c)
	}
	return sb.String()
}

// AppendString is Reader.AppendString as a delta field: ReadString appending to dst.
func (d *DeltaReader) AppendString(dst []byte, maxLen int) []byte {
	lenBits, err := stringWidth(maxLen)
	if err != nil {
		d.fail(err)
		return dst
	}
	src, start, n, ok := d.bytesField(lenBits, maxLen, 0)
	if !ok {
		return dst
	}
	dst = grow(dst, n)
	copyBits(dst[len(dst)-n:], src, start)
	return dst
}

// ReadRangedInt is Reader.ReadRangedInt as a delta field.
func (d *DeltaReader) ReadRangedInt(min, max int32) int32 {
	span, n, err := rangedIntWidth(min, max)
	raw, ok := d.field(n, err)
	if !ok {
		return 0
	}
	v, err := decRangedInt(raw, min, span)
	if err != nil {
		d.fail(err)
	}
	return v
}

// ReadRangedFloat is Reader.ReadRangedFloat as a delta field.
func (d *DeltaReader) ReadRangedFloat(min, max float32, bits int) float32 {
	raw, ok := d.field(rangedFloatWidth(min, max, bits))
	if !ok {
		return 0
	}
	return decRangedFloat(raw, min, max, bits)
}

// ReadFloatBits is Reader.ReadFloatBits as a delta field.
func (d *DeltaReader) ReadFloatBits(expBits, mantBits int) float32 {
	raw, ok := d.field(floatBitsWidth(expBits, mantBits))
	if !ok {
		return 0
	}
	v, err := decFloatBits(raw, expBits, mantBits)
	if err != nil {
		d.fail(err)
	}
	return v
}

// ReadHalf is Reader.ReadHalf as a delta field.
func (d *DeltaReader) ReadHalf() float32 {
	raw, ok := d.field(16, nil)
	if !ok {
		return 0
	}
	return decHalf(uint16(raw))
}

// ReadAngle16 is Reader.ReadAngle16 as a delta field.
func (d *DeltaReader) ReadAngle16() float32 { return decAngle(d.fixed(16), 16) }

// ReadAngle8 is Reader.ReadAngle8 as a delta field.
func (d *DeltaReader) ReadAngle8() float32 { return decAngle(d.fixed(8), 8) }

// ReadDir is Reader.ReadDir as a delta field.
func (d *DeltaReader) ReadDir(bitsPerAxis int) [3]float32 {
	raw, ok := d.field(dirWidth(bitsPerAxis))
	if !ok {
		return [3]float32{}
	}
	v, err := decDir(raw, bitsPerAxis)
	if err != nil {
		d.fail(err)
	}
	return v
}
