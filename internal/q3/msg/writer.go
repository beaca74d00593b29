package msg

import (
	"math"

	"github.com/snapwire/snapwire/internal/q3/huffman"
)

// MaxMsgLen is the largest message the engine handles (ioq3 MAX_MSGLEN).
const MaxMsgLen = 16384

// Writer writes a Quake 3 message bit stream (ioq3 MSG_WriteBits with
// oob == false), the inverse of Reader. It keeps a 64-bit accumulator and a
// sticky error: check Err once after the whole message.
type Writer struct {
	buf  []byte
	acc  uint64
	nacc int
	max  int // bytes
	err  error
	huff *huffman.Fixed
}

// NewWriter returns a Writer that appends to buf[:0] and fails with
// ErrOverflow past max bytes (MaxMsgLen if max <= 0).
func NewWriter(buf []byte, max int) *Writer {
	w := &Writer{}
	w.Reset(buf, max)
	return w
}

// Reset starts a new message in buf[:0].
func (w *Writer) Reset(buf []byte, max int) {
	if max <= 0 {
		max = MaxMsgLen
	}
	w.buf = buf[:0]
	w.acc, w.nacc = 0, 0
	w.max = max
	w.err = nil
	w.huff = huffman.FixedCode()
}

// Err is the first error met, or nil.
func (w *Writer) Err() error { return w.err }

// Bits is the number of bits written.
func (w *Writer) Bits() int { return len(w.buf)*8 + w.nacc }

// Bytes returns the message: Bits()/8 + 1 bytes, the engine's cursize, so
// there is always at least one spare bit (see ErrUnderflow). The result
// aliases the writer's buffer until the next write.
func (w *Writer) Bytes() []byte {
	return append(w.buf, byte(w.acc))
}

func (w *Writer) put(bits uint32, n int) {
	w.acc |= uint64(bits) << uint(w.nacc)
	w.nacc += n
	for w.nacc >= 8 {
		w.buf = append(w.buf, byte(w.acc))
		w.acc >>= 8
		w.nacc -= 8
	}
}

// WriteBits writes the low n bits of v, n in 1..32 (ioq3 MSG_WriteBits).
func (w *Writer) WriteBits(v uint32, n int) {
	if w.err != nil {
		return
	}
	if n < 1 || n > 32 {
		w.err = ErrBadBits
		return
	}
	if n < 32 {
		v &= 1<<uint(n) - 1
	}
	if odd := n & 7; odd != 0 {
		w.put(v&(1<<uint(odd)-1), odd)
		v >>= uint(odd)
		n -= odd
	}
	for ; n > 0; n -= 8 {
		code, l := w.huff.Code(byte(v))
		w.put(code, l)
		v >>= 8
	}
	if w.Bits() > w.max*8 {
		w.err = ErrOverflow
	}
}

// WriteSigned writes the low n bits of a signed value.
func (w *Writer) WriteSigned(v int32, n int) { w.WriteBits(uint32(v), n) }

// WriteBool writes one raw bit.
func (w *Writer) WriteBool(b bool) {
	if b {
		w.WriteBits(1, 1)
	} else {
		w.WriteBits(0, 1)
	}
}

// WriteUint8 writes a byte (ioq3 MSG_WriteByte).
func (w *Writer) WriteUint8(v uint8) { w.WriteBits(uint32(v), 8) }

// WriteInt16 writes 16 bits (ioq3 MSG_WriteShort).
func (w *Writer) WriteInt16(v int16) { w.WriteBits(uint32(uint16(v)), 16) }

// WriteInt32 writes 32 bits (ioq3 MSG_WriteLong).
func (w *Writer) WriteInt32(v int32) { w.WriteBits(uint32(v), 32) }

// WriteFloat writes 32 raw IEEE bits (ioq3 MSG_WriteFloat).
func (w *Writer) WriteFloat(f float32) { w.WriteBits(math.Float32bits(f), 32) }

// WriteData writes bytes (ioq3 MSG_WriteData).
func (w *Writer) WriteData(p []byte) {
	for _, b := range p {
		w.WriteUint8(b)
	}
}

// WriteString writes s and a NUL (ioq3 MSG_WriteString): '%' and bytes
// above 127 become '.', and a string of MaxStringChars or more bytes is
// replaced by the empty string, as the engine does.
func (w *Writer) WriteString(s string) { w.writeString(s, MaxStringChars) }

// WriteBigString is WriteString with the BIG_INFO_STRING limit.
func (w *Writer) WriteBigString(s string) { w.writeString(s, BigInfoString) }

func (w *Writer) writeString(s string, size int) {
	if len(s) >= size {
		s = ""
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == 0 { // C strings end at the first NUL
			break
		}
		if c > 127 || c == '%' {
			c = '.'
		}
		w.WriteUint8(c)
	}
	w.WriteUint8(0)
}
