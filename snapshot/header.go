package snapshot

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/game"
)

// Errors returned by this package; decoding errors wrap ErrCorrupt.
var (
	// ErrCorrupt: a snapshot or message that does not decode.
	ErrCorrupt = errors.New("snapshot: corrupt snapshot")
	// ErrBaseMismatch: a snapshot encoded against a base the decoder does
	// not have (an "apply" is missing or extra): the ends are out of sync.
	ErrBaseMismatch = errors.New("snapshot: snapshot encoded against another base")
	// ErrUnknownSnapshot: an "apply S" for a snapshot the decoder does not
	// hold, or not newer than the base: the ends are out of sync.
	ErrUnknownSnapshot = errors.New("snapshot: apply of an unknown snapshot")
	// ErrInput: the server's input to Build is invalid (a bug in the caller).
	ErrInput = errors.New("snapshot: invalid input")
)

// Seq is a snapshot sequence number. The first snapshot is 1; 0 names the
// base as initialised from the map, before any snapshot was applied.
type Seq uint32

// Newer reports whether s comes after t (serial number arithmetic, so the
// 32-bit counter may wrap).
func (s Seq) Newer(t Seq) bool { return int32(s-t) > 0 }

// Header is the start of a snapshot (DOOM III §3.2, fig. 9).
type Header struct {
	// Seq is the snapshot's sequence number; the client acknowledges it.
	Seq Seq
	// BaseSeq is the last snapshot applied to the common base the snapshot
	// is encoded against; the decoder checks it equals its own.
	BaseSeq Seq
	// Frame is the game frame of the snapshot: the state after running
	// Frame. Other players' commands in the snapshot are those of Frame.
	Frame game.Frame
	// Time is the game time of Frame; whole milliseconds on the wire.
	Time time.Duration
	// Duplicated counts the client's commands the server duplicated since
	// the previous snapshot (they arrived too late); saturates at 255.
	Duplicated int
	// Lead is how early the client's commands arrive at the server (may be
	// negative); whole milliseconds, clamped to -32767..32767.
	Lead time.Duration
}

// Header field widths.
const (
	baseAgeBits   = 6
	baseAgeEscape = 1<<baseAgeBits - 1
	maxLeadMS     = 32767
	// HeaderBits is the size of a header whose BaseSeq is within 62 of
	// Seq; otherwise it is HeaderBits+32.
	HeaderBits = 32 + baseAgeBits + 32 + 32 + 8 + 16
)

// headerBits returns the encoded size of h.
func (h *Header) bits() int {
	if h.Seq-h.BaseSeq < baseAgeEscape {
		return HeaderBits
	}
	return HeaderBits + 32
}

// write writes the header:
//
//	seq         32 bits
//	base age     6 bits  seq-baseSeq if below 63; else 63 and then
//	base seq    32 bits  (only after the escape 63)
//	frame       32 bits  0..2^31-1
//	time        32 bits  game time in ms, unsigned
//	duplicated   8 bits  saturating
//	lead        16 bits  signed ms
func (h *Header) write(w *bitmsg.Writer) {
	w.WriteBits(uint32(h.Seq), 32)
	if age := h.Seq - h.BaseSeq; age < baseAgeEscape {
		w.WriteBits(uint32(age), baseAgeBits)
	} else {
		w.WriteBits(baseAgeEscape, baseAgeBits)
		w.WriteBits(uint32(h.BaseSeq), 32)
	}
	w.WriteBits(uint32(h.Frame), 32)
	w.WriteBits(uint32(min(max(h.Time.Milliseconds(), 0), 1<<32-1)), 32)
	w.WriteBits(uint32(min(max(h.Duplicated, 0), 255)), 8)
	w.WriteInt(int32(min(max(h.Lead.Milliseconds(), -maxLeadMS), maxLeadMS)), 16)
}

func (h *Header) read(r *bitmsg.Reader) error {
	h.Seq = Seq(r.ReadBits(32))
	age := r.ReadBits(baseAgeBits)
	if age == baseAgeEscape {
		h.BaseSeq = Seq(r.ReadBits(32))
	} else {
		h.BaseSeq = h.Seq - Seq(age)
	}
	frame := int32(r.ReadBits(32))
	h.Time = time.Duration(r.ReadBits(32)) * time.Millisecond
	h.Duplicated = int(r.ReadBits(8))
	lead := r.ReadInt(16)
	h.Lead = time.Duration(lead) * time.Millisecond
	h.Frame = game.Frame(frame)
	if err := r.Err(); err != nil {
		return fmt.Errorf("%w: header: %w", ErrCorrupt, err)
	}
	switch {
	case frame < 0:
		return fmt.Errorf("%w: frame %d", ErrCorrupt, frame)
	case lead < -maxLeadMS:
		return fmt.Errorf("%w: lead %d ms", ErrCorrupt, lead)
	case !h.Seq.Newer(h.BaseSeq):
		return fmt.Errorf("%w: seq %d not after its base %d", ErrCorrupt, h.Seq, h.BaseSeq)
	}
	return nil
}

// ApplyMessage is the reliable message "apply snapshot Seq to the common
// base" the server sends when it has applied an acknowledged snapshot
// (DOOM III §4.2). Wire: Seq as 4 bytes little-endian (ApplyMessageLen).
type ApplyMessage struct {
	Seq Seq
}

// ApplyMessageLen is the encoded size of an ApplyMessage in bytes.
const ApplyMessageLen = 4

// Len returns ApplyMessageLen.
func (m ApplyMessage) Len() int { return ApplyMessageLen }

// Append appends the message to b.
func (m ApplyMessage) Append(b []byte) []byte {
	return binary.LittleEndian.AppendUint32(b, uint32(m.Seq))
}

// ParseApplyMessage parses a message written by Append, returning the number
// of bytes used.
func ParseApplyMessage(b []byte) (ApplyMessage, int, error) {
	if len(b) < ApplyMessageLen {
		return ApplyMessage{}, 0, fmt.Errorf("%w: apply message of %d bytes", ErrCorrupt, len(b))
	}
	return ApplyMessage{Seq: Seq(binary.LittleEndian.Uint32(b))}, ApplyMessageLen, nil
}

// The skip code: how many PVS members to pass over before the next written
// entity (or command). 0 is the single bit 0; k >= 1 is a 1 bit, a 2-bit
// class c and k-1 in skipWidth[c] bits (the smallest class that holds it):
//
//	k = 0          1 bit
//	k = 1..4       5 bits
//	k = 5..16      7 bits
//	k = 17..128   10 bits
//	k = 129..4096 15 bits
var skipWidth = [4]int{2, 4, 7, 12}

func skipClass(v int) int {
	switch {
	case v < 1<<2:
		return 0
	case v < 1<<4:
		return 1
	case v < 1<<7:
		return 2
	}
	return 3
}

func writeSkip(w *bitmsg.Writer, k int) {
	if k == 0 {
		w.WriteBits(0, 1)
		return
	}
	c := skipClass(k - 1)
	w.WriteBits(1|uint32(c)<<1|uint32(k-1)<<3, 3+skipWidth[c])
}

// skipBits returns the size of the skip code for k.
func skipBits(k int) int {
	if k == 0 {
		return 1
	}
	return 3 + skipWidth[skipClass(k-1)]
}

func readSkip(r *bitmsg.Reader) int {
	if !r.ReadBool() {
		return 0
	}
	c := r.ReadBits(2)
	return int(r.ReadBits(skipWidth[c&3])) + 1
}
