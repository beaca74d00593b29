// Package bitlayout holds the field layouts that let a server encode an
// entity's full state once per game frame and write its delta against many
// clients' bases without calling the entity's WriteSnapshot again (DOOM III
// §4.2, §5; internal/snapshot's FrameCache): a bitmsg.DeltaWriter records
// the layout (each field's width in write order) while it writes the full
// state, and the writer replays the delta from the two bit strings and the
// layout. The output is bit for bit what a DeltaWriter seeded with the same
// base writes (bitmsg's layout_test.go compares them).
//
// A game never sees this: the recording, the replay and the other plumbing
// of snapshot encoding (starting an entity's delta and taking its new
// state, whether a delta changed anything, keeping, replaying and rolling
// back written bits) are unexported in package bitmsg, which hands them
// through this package (Install, Funcs) to internal/snapshot, and to the
// other codecs that drive a DeltaWriter or a Writer the same way
// (internal/events, the server's event message, internal/lockstep's state
// hash, internal/matchsim, internal/bench).
package bitlayout

// Kind is the shape of one recorded field.
type Kind uint8

const (
	Fixed Kind = iota // N bits, 0..64
	Bytes             // N = length-prefix width (0: fixed length), then 8*Length bits
)

// Field is one field of a Layout.
type Field struct {
	Kind   Kind
	N      uint8 // Fixed: width; Bytes: length-prefix width, 0 for WriteBytes
	Length int32 // Bytes: bytes in this state
	MaxLen int32 // Bytes with a prefix: the maximum length (a base's prefix above it is no string)
}

// Layout is the field layout of one state written through a DeltaWriter
// (RecordLayout): for each field in write order its width, and for a
// byte-string field its length-prefix width, maximum length and this
// state's length, which is what is needed to find the same field in a base
// whose strings have other lengths. The zero value is an empty layout;
// Reset reuses the memory.
type Layout struct {
	Fields []Field
	// NarrowBits: the total width of the fixed fields of up to 56 bits;
	// Wide: the number of other fields (byte strings, wider fixed fields).
	// With Wide == 0, the writer can check the whole state's bounds once.
	NarrowBits int
	Wide       int
}

// Reset empties the layout, keeping its memory.
func (l *Layout) Reset() { l.Fields, l.NarrowBits, l.Wide = l.Fields[:0], 0, 0 }

// AddFixed records a fixed field of n bits.
func (l *Layout) AddFixed(n int) {
	l.Fields = append(l.Fields, Field{Kind: Fixed, N: uint8(n)})
	if n <= 56 {
		l.NarrowBits += n
	} else {
		l.Wide++
	}
}

// AddBytes records a byte-string field of length bytes behind a
// lenBits-bit length prefix (0: fixed length) of at most maxLen.
func (l *Layout) AddBytes(lenBits, length, maxLen int) {
	l.Fields = append(l.Fields, Field{Kind: Bytes, N: uint8(lenBits), Length: int32(length), MaxLen: int32(maxLen)})
	l.Wide++
}

// Len returns the number of fields recorded.
func (l *Layout) Len() int { return len(l.Fields) }

// Bits returns the length of the state the layout describes, in bits.
func (l *Layout) Bits() int {
	n := 0
	for i := range l.Fields {
		f := &l.Fields[i]
		n += int(f.N)
		if f.Kind == Bytes {
			n += 8 * int(f.Length)
		}
	}
	return n
}

// Funcs are the unexported operations of package bitmsg that snapshot
// encoding needs, with W, DW, DR and R bitmsg's Writer, DeltaWriter,
// DeltaReader and Reader (bitmsg imports this package, which therefore
// cannot import it).
type Funcs[W, DW, DR, R any] struct {
	// WriteDelta writes the delta of a full state against a base: state
	// holds the state's nbits bits as a DeltaWriter recording into l
	// produced them, base the entity's state in the common base (baseBits
	// bits; empty for an entity new to the client). It writes exactly what
	// a DeltaWriter reset with (base, baseBits, w) writes when given the
	// same fields. state and base may extend past their bit lengths.
	WriteDelta func(w *W, l *Layout, state []byte, nbits int, base []byte, baseBits int)
	// AppendSince appends to dst the bits w wrote since bit start, packed
	// from bit 0 of dst's next byte, and returns the extended slice and
	// the number of bits (replayed with WriteBitsFrom).
	AppendSince func(w *W, dst []byte, start int) ([]byte, int)
	// WriteBits64 writes the low n bits of v, n in 0..64.
	WriteBits64 func(w *W, v uint64, n int)
	// RecordLayout makes d record the layout of the state it writes into
	// l (emptied first), until its next Reset; call it after Reset and
	// before the first field.
	RecordLayout func(d *DW, l *Layout)
	// WriterChanged and ReaderChanged report whether any field differed
	// from the base, or the new state's length differs from the base's.
	WriterChanged func(d *DW) bool
	ReaderChanged func(d *DR) bool
	// ResetWriter starts an entity on d: base holds its state in the
	// common base (baseBits bits, clamped to len(base)*8; empty for an
	// entity new to the client), out receives the delta message (nil to
	// only build the new state), state receives the new state. A game's
	// WriteSnapshot then writes its fields into d.
	ResetWriter func(d *DW, base []byte, baseBits int, out *W, state []byte)
	// ResetReader starts an entity on d: base as for ResetWriter, in is
	// the snapshot being read, positioned at this entity's fields (nil:
	// the entity was omitted because it did not change, and every field
	// takes its base value), state receives the new state.
	ResetReader func(d *DR, base []byte, baseBits int, in *R, state []byte)
	// WriterState and ReaderState return the new state written or read
	// since the last reset and its length in bits; the bytes alias the
	// state buffer given to the reset.
	WriterState func(d *DW) ([]byte, int)
	ReaderState func(d *DR) ([]byte, int)
	// WriteBitsFrom appends the first nbits bits of src (LSB first, as
	// AppendSince or another Writer's Bytes packs them); nbits outside
	// 0..len(src)*8 is ErrRange. src may extend past nbits.
	WriteBitsFrom func(w *W, src []byte, nbits int)
	// Truncate rolls w back to its first nbits bits, 0 <= nbits <= its
	// length (else ErrRange), and clears ErrOverflow (but no other error):
	// an entity that does not fit, or did not change, is dropped whole.
	Truncate func(w *W, nbits int)
}

var funcs any

// Install is called once, by package bitmsg's init.
func Install[W, DW, DR, R any](f *Funcs[W, DW, DR, R]) { funcs = f }

// Get returns what package bitmsg installed; W, DW, DR and R must be its
// Writer, DeltaWriter, DeltaReader and Reader.
func Get[W, DW, DR, R any]() *Funcs[W, DW, DR, R] { return funcs.(*Funcs[W, DW, DR, R]) }
