package bitmsg

import (
	"encoding/binary"
	"errors"
	"math/bits"
)

// Errors are sticky: the first one a Writer, Reader, DeltaWriter or DeltaReader meets is kept,
// every later write is dropped and every later read returns the zero value ("Wire
// code": Go's compress/flate huffman_bit_writer "errors are sticky", ioq3 msg.c overflowed).
var (
	// ErrOverflow: a write past the end of the buffer. The write that overflowed is dropped
	// whole, so Len() is still the length of a consistent message (the snapshot encoder rolls an entity that did not fit back to a mark before it).
	ErrOverflow = errors.New("bitmsg: write past the end of the buffer")
	// ErrUnderflow: a read past the end of the data (or, in a DeltaReader, a field taken from
	// a base that is exhausted).
	ErrUnderflow = errors.New("bitmsg: read past the end of the data")
	// ErrRange: a value outside its declared range, on write (a bug in the caller) or on read
	// (corrupt or hostile input; the reader re-checks every range, like yojimbo serialize_int).
	ErrRange = errors.New("bitmsg: value out of range")
	// ErrWidth: an invalid bit width argument (for example WriteBits with n=0 or n>32).
	ErrWidth = errors.New("bitmsg: invalid bit width")
)

// BitsFor returns the number of bits needed to hold every value in 0..maxValue (at least 1).
func BitsFor(maxValue uint32) int {
	if maxValue == 0 {
		return 1
	}
	return bits.Len32(maxValue)
}

// mask returns a value with the low n bits set, n in 0..64 (Go shifts of 64 give 0).
func mask(n int) uint64 { return 1<<uint(n) - 1 }

// peek returns the n bits (n <= 57) of buf starting at bit pos, LSB first. The caller
// guarantees pos+n <= len(buf)*8.
func peek(buf []byte, pos, n int) uint64 {
	i := pos >> 3
	s := uint(pos & 7)
	var v uint64
	if i+8 <= len(buf) {
		v = binary.LittleEndian.Uint64(buf[i:])
	} else {
		for j := len(buf) - 1; j >= i; j-- {
			v = v<<8 | uint64(buf[j])
		}
	}
	return (v >> s) & mask(n)
}

// peekN is peek for n up to 64.
func peekN(buf []byte, pos, n int) uint64 {
	if n <= 32 {
		return peek(buf, pos, n)
	}
	return peek(buf, pos, 32) | peek(buf, pos+32, n-32)<<32
}
