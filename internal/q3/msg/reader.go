package msg

import (
	"encoding/binary"
	"errors"
	"math"

	"github.com/snapwire/snapwire/internal/q3/huffman"
)

// Errors of the message layer. Every decoding error wraps one of these.
var (
	// ErrUnderflow: a read went past the end of the message. The engine's
	// test is readcount > cursize, which already fails when a read ends on
	// the message's last bit; the engine's writer always leaves at least
	// one spare bit, and so does Writer.
	ErrUnderflow = errors.New("msg: read past end of message")
	ErrOverflow  = errors.New("msg: message overflow")
	ErrBadBits   = errors.New("msg: bad bit count")
)

// Reader reads a Quake 3 message bit stream (ioq3 msg.c, MSG_ReadBits with
// oob == false): a value of n bits is sent as its n%8 low bits raw, least
// significant first, then its remaining bytes, lowest first, each coded with
// the fixed Huffman code. Errors are sticky: after the first one every read
// returns zero and Err reports it.
type Reader struct {
	data  []byte
	nbits int
	pos   int
	err   error
	huff  *huffman.Fixed
}

// NewReader returns a Reader over b.
func NewReader(b []byte) *Reader {
	r := &Reader{}
	r.Reset(b)
	return r
}

// Reset starts reading b from bit 0 and clears the error.
func (r *Reader) Reset(b []byte) {
	r.data = b
	r.nbits = len(b) * 8
	r.pos = 0
	r.err = nil
	r.huff = huffman.FixedCode()
}

// Err is the first error met, or nil.
func (r *Reader) Err() error { return r.err }

// Pos is the number of bits consumed.
func (r *Reader) Pos() int { return r.pos }

// Len is the message length in bytes.
func (r *Reader) Len() int { return len(r.data) }

// ReadCount is the engine's msg->readcount: (bits consumed)/8 + 1, the
// figure cl_shownet prints.
func (r *Reader) ReadCount() int { return r.pos>>3 + 1 }

// AtEnd reports the engine's "read past end" condition (readcount > cursize).
func (r *Reader) AtEnd() bool { return r.pos >= r.nbits }

func (r *Reader) fail(err error) {
	if r.err == nil {
		r.err = err
	}
	r.pos = r.nbits
}

// peek returns the next 64 bits from pos, bit 0 first; bits past the end
// of the data are zero.
func (r *Reader) peek() uint64 {
	i := r.pos >> 3
	var v uint64
	if i+8 <= len(r.data) {
		v = binary.LittleEndian.Uint64(r.data[i:])
	} else {
		for k := 0; i+k < len(r.data); k++ {
			v |= uint64(r.data[i+k]) << (8 * k)
		}
	}
	return v >> uint(r.pos&7)
}

// ReadBits reads an n-bit unsigned value, n in 1..32 (ioq3 MSG_ReadBits).
// Like the engine, a decoded NYT symbol (256, which the engine never sends)
// is ORed in whole, so it spills into the next byte of the value; a spill
// out of the top byte is dropped (the engine keeps it in the int but every
// typed read casts it away), so the result always fits in n bits.
func (r *Reader) ReadBits(n int) uint32 {
	if r.err != nil {
		return 0
	}
	if n < 1 || n > 32 {
		r.fail(ErrBadBits)
		return 0
	}
	var v uint32
	odd := n & 7
	if odd != 0 {
		if r.pos+odd > r.nbits {
			r.fail(ErrUnderflow)
			return 0
		}
		v = uint32(r.peek()) & (1<<uint(odd) - 1)
		r.pos += odd
	}
	for shift := odd; shift < n; shift += 8 {
		sym, l := r.huff.Decode(r.peek())
		if r.pos+l > r.nbits {
			r.fail(ErrUnderflow)
			return 0
		}
		r.pos += l
		// A NYT symbol (256) spills into the next byte, as in the engine.
		v |= uint32(sym) << uint(shift)
	}
	if r.pos >= r.nbits {
		r.fail(ErrUnderflow)
		return 0
	}
	if n < 32 {
		v &= 1<<uint(n) - 1
	}
	return v
}

// ReadSigned reads an n-bit two's complement value, n in 1..32 (ioq3
// MSG_ReadBits with negative bits).
func (r *Reader) ReadSigned(n int) int32 {
	v := r.ReadBits(n)
	if n < 32 && v&(1<<uint(n-1)) != 0 {
		v |= ^uint32(0) << uint(n)
	}
	return int32(v)
}

// ReadBool reads one raw bit.
func (r *Reader) ReadBool() bool { return r.ReadBits(1) != 0 }

// ReadUint8 reads a byte (ioq3 MSG_ReadByte).
func (r *Reader) ReadUint8() uint8 { return uint8(r.ReadBits(8)) }

// ReadInt16 reads a 16-bit signed value (ioq3 MSG_ReadShort).
func (r *Reader) ReadInt16() int16 { return int16(r.ReadBits(16)) }

// ReadInt32 reads a 32-bit value (ioq3 MSG_ReadLong).
func (r *Reader) ReadInt32() int32 { return int32(r.ReadBits(32)) }

// ReadFloat reads 32 raw IEEE bits (ioq3 MSG_ReadFloat).
func (r *Reader) ReadFloat() float32 { return math.Float32frombits(r.ReadBits(32)) }

// ReadData fills dst with bytes (ioq3 MSG_ReadData).
func (r *Reader) ReadData(dst []byte) {
	for i := range dst {
		dst[i] = r.ReadUint8()
	}
}

// MaxStringChars and BigInfoString are the engine's string buffer sizes:
// a string keeps at most size-1 characters, the rest is read and dropped.
const (
	MaxStringChars = 1024 // ioq3 MAX_STRING_CHARS
	BigInfoString  = 8192 // ioq3 BIG_INFO_STRING
)

// ReadString reads a NUL-terminated string of at most MaxStringChars-1
// kept characters (ioq3 MSG_ReadString): '%' and bytes above 127 become '.'.
func (r *Reader) ReadString() string { return r.readString(MaxStringChars, false) }

// ReadBigString is ReadString with the BIG_INFO_STRING limit (configstrings).
func (r *Reader) ReadBigString() string { return r.readString(BigInfoString, false) }

// ReadStringLine is ReadString that also stops at '\n' (ioq3 MSG_ReadStringLine).
func (r *Reader) ReadStringLine() string { return r.readString(MaxStringChars, true) }

func (r *Reader) readString(size int, line bool) string {
	var small [256]byte
	buf := small[:0]
	for {
		c := r.ReadBits(8)
		if r.err != nil || c == 0 || (line && c == '\n') {
			break
		}
		c &= 0xff // a NYT symbol's spill is lost in the engine's byte cast
		if c == 0 {
			break
		}
		if c == '%' || c > 127 {
			c = '.'
		}
		if len(buf) < size-1 {
			buf = append(buf, byte(c))
		}
	}
	return string(buf)
}
