package snapshot

import (
	"errors"
	"fmt"
	"math/bits"
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

// Bits returns the encoded size of h in bits: HeaderBits, or HeaderBits+32
// when its base is 63 or more snapshots older than it.
func (h *Header) Bits() int {
	if h.Seq-h.BaseSeq < baseAgeEscape {
		return HeaderBits
	}
	return HeaderBits + 32
}

// Write writes the header to w, as the Encoder does at the start of every
// snapshot; a tool that re-encodes a snapshot under its real header (a
// measurement, a replay) writes it with this rather than its own copy:
//
//	seq         32 bits
//	base age     6 bits  seq-baseSeq if below 63; else 63 and then
//	base seq    32 bits  (only after the escape 63)
//	frame       32 bits  0..2^31-1
//	time        32 bits  game time in ms, unsigned
//	duplicated   8 bits  saturating
//	lead        16 bits  signed ms
func (h *Header) Write(w *bitmsg.Writer) {
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

// ApplyMessage is "apply snapshot Seq to the common base" (DOOM III §4.2):
// what Encoder.Ack returns once the server has applied an acknowledged
// snapshot, and what Decoder.Apply takes on the client. The session layer
// carries it as a reliable message (session.Apply, 2 bytes on the wire).
type ApplyMessage struct {
	Seq Seq
}

// The list codes (ours: the paper does not say how a snapshot names the
// entities it writes). The entity list and the command list are each a
// sequence of "next" codes, one before every entry, and an end code; a next
// code says how many PVS members to pass over (k, the skip) before the
// entry:
//
//	skip 0          "0"                          1 bit
//	skip k >= 1     "1" then ExpGolomb(k)        4 bits for k = 1..2, 6 for 3..6,
//	                                             8 for 7..14, ..., 24 for 2047..4094,
//	                                             26 for 4095
//	end of list     "1" then ExpGolomb(0) = "11" 2 bits
//
// ExpGolomb(v) (order 0): with x = v+1 of n+1 significant bits, n zero bits,
// a one bit, then the n low bits of x (LSB first, as bitmsg writes). A skip
// of 0 is the most common (consecutive PVS members changing), so it costs
// one bit, and an entity costs its skip code only: no "more" bit per entry.
const maxSkipExp = 12 // a skip is below game.MaxEntities = 4096: x <= 4096 has n <= 12

// badSkip is what readNext returns for a malformed code: larger than any
// PVS, so the caller reports it as an index beyond the PVS.
const badSkip = 1 << 20

func expGolombCode(v int) (code uint32, n int) {
	x := uint32(v + 1)
	n = bits.Len32(x) - 1
	return 1<<n | (x&(1<<n-1))<<(n+1), 2*n + 1
}

// writeNext writes the next code for skip k (0 <= k < game.MaxEntities).
func writeNext(w *bitmsg.Writer, k int) { w.WriteBits(nextCode(k)) }

// nextCode returns the next code for skip k (0 <= k < game.MaxEntities) and its
// length, at most 26 bits, as writeNext writes it.
func nextCode(k int) (code uint32, n int) {
	if k == 0 {
		return 0, 1
	}
	c, n := expGolombCode(k)
	return 1 | c<<1, 1 + n
}

// writeEnd writes the end-of-list code.
func writeEnd(w *bitmsg.Writer) { w.WriteBits(0b11, 2) }

// nextBits returns the size of the next code for skip k.
func nextBits(k int) int {
	if k == 0 {
		return 1
	}
	_, n := expGolombCode(k)
	return 1 + n
}

// readNext reads a next or end code: the skip, or end. A malformed code (more
// than maxSkipExp leading zeros) gives badSkip; a read past the end gives
// skip 0 and leaves the error in r.
func readNext(r *bitmsg.Reader) (skip int, end bool) {
	if !r.ReadBool() {
		return 0, false
	}
	n := 0
	for !r.ReadBool() {
		if n++; n > maxSkipExp {
			return badSkip, false
		}
	}
	if n == 0 {
		return 0, true // ExpGolomb(0)
	}
	return 1<<n | int(r.ReadBits(n)) - 1, false
}
