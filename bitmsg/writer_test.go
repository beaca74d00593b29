package bitmsg

import (
	"bytes"
	"encoding/hex"
	"errors"
	"math"
	"testing"
)

// wireCase is a named message with its exact bytes and bit length, and the read that checks it.
type wireCase struct {
	name  string
	write func(w *Writer)
	hex   string
	nbits int
	read  func(r *Reader) []any // values read, compared with want
	want  []any
}

var wireCases = []wireCase{
	{
		name:  "Bits+Bool+Uint16",
		write: func(w *Writer) { w.WriteBits(5, 3); w.WriteBool(true); w.WriteUint16(0xBEEF) },
		hex:   "fdee0b", nbits: 20,
		read: func(r *Reader) []any { return []any{r.ReadBits(3), r.ReadBool(), r.ReadUint16()} },
		want: []any{uint32(5), true, uint16(0xBEEF)},
	},
	{
		name:  "Bits32+BitsMasked",
		write: func(w *Writer) { w.WriteBits(0xFFFFFFFF, 32); w.WriteBits(0x1F5, 4) },
		hex:   "ffffffff05", nbits: 36,
		read: func(r *Reader) []any { return []any{r.ReadBits(32), r.ReadBits(4)} },
		want: []any{uint32(0xFFFFFFFF), uint32(5)},
	},
	{
		name:  "Uint64",
		write: func(w *Writer) { w.WriteUint64(0x0123456789ABCDEF) },
		hex:   "efcdab8967452301", nbits: 64,
		read: func(r *Reader) []any { return []any{r.ReadUint64()} },
		want: []any{uint64(0x0123456789ABCDEF)},
	},
	{
		name:  "Bool+Uint64Unaligned",
		write: func(w *Writer) { w.WriteBool(true); w.WriteUint64(1<<63 | 1) },
		hex:   "030000000000000001", nbits: 65,
		read: func(r *Reader) []any { return []any{r.ReadBool(), r.ReadUint64()} },
		want: []any{true, uint64(1<<63 | 1)},
	},
	{
		name:  "Int",
		write: func(w *Writer) { w.WriteInt(-1, 2); w.WriteInt(-5, 4); w.WriteInt(3, 3); w.WriteInt(math.MinInt32, 32) },
		hex:   "ef00000000" + "01", nbits: 41,
		read: func(r *Reader) []any { return []any{r.ReadInt(2), r.ReadInt(4), r.ReadInt(3), r.ReadInt(32)} },
		want: []any{int32(-1), int32(-5), int32(3), int32(math.MinInt32)},
	},
	{
		name:  "Uint8+Uint16+Uint32",
		write: func(w *Writer) { w.WriteUint8(0xA5); w.WriteUint16(0x1234); w.WriteUint32(0xDEADBEEF) },
		hex:   "a53412efbeadde", nbits: 56,
		read: func(r *Reader) []any { return []any{r.ReadUint8(), r.ReadUint16(), r.ReadUint32()} },
		want: []any{uint8(0xA5), uint16(0x1234), uint32(0xDEADBEEF)},
	},
	{
		name:  "BytesUnaligned",
		write: func(w *Writer) { w.WriteBits(1, 1); w.WriteBytes([]byte("ab")) },
		hex:   "c3c400", nbits: 17,
		read: func(r *Reader) []any {
			p := make([]byte, 2)
			b := r.ReadBits(1)
			r.ReadBytes(p)
			return []any{b, string(p)}
		},
		want: []any{uint32(1), "ab"},
	},
	{
		name:  "BytesAligned",
		write: func(w *Writer) { w.WriteUint8(7); w.WriteBytes([]byte("snapwire")) },
		hex:   "07" + hex.EncodeToString([]byte("snapwire")), nbits: 72,
		read: func(r *Reader) []any {
			p := make([]byte, 8)
			b := r.ReadUint8()
			r.ReadBytes(p)
			return []any{b, string(p)}
		},
		want: []any{uint8(7), "snapwire"},
	},
	{
		name:  "String",
		write: func(w *Writer) { w.WriteString("hi", 15) },
		hex:   "829606", nbits: 20,
		read: func(r *Reader) []any { return []any{r.ReadString(15)} },
		want: []any{"hi"},
	},
	{
		name:  "StringEmpty",
		write: func(w *Writer) { w.WriteString("", 0); w.WriteString("", 255) },
		hex:   "0000", nbits: 9,
		read: func(r *Reader) []any { return []any{r.ReadString(0), r.ReadString(255)} },
		want: []any{"", ""},
	},
	{
		name: "RangedInt",
		write: func(w *Writer) {
			w.WriteRangedInt(-3, -10, 10)
			w.WriteRangedInt(0, math.MinInt32, math.MaxInt32)
			w.WriteRangedInt(5, 5, 5)
		},
		hex: "0700000010", nbits: 5 + 32 + 1,
		read: func(r *Reader) []any {
			return []any{r.ReadRangedInt(-10, 10), r.ReadRangedInt(math.MinInt32, math.MaxInt32), r.ReadRangedInt(5, 5)}
		},
		want: []any{int32(-3), int32(0), int32(5)},
	},
	{
		name:  "RangedFloat",
		write: func(w *Writer) { w.WriteRangedFloat(0.5, 0, 1, 8); w.WriteRangedFloat(1, 0, 1, 4) },
		hex:   "800f", nbits: 12,
		read: func(r *Reader) []any { return []any{r.ReadRangedFloat(0, 1, 8), r.ReadRangedFloat(0, 1, 4)} },
		want: []any{float32(128.0 / 255), float32(1)},
	},
	{
		name:  "Float",
		write: func(w *Writer) { w.WriteFloat(1.0) },
		hex:   "0000803f", nbits: 32,
		read: func(r *Reader) []any { return []any{r.ReadFloat()} },
		want: []any{float32(1)},
	},
	{
		name:  "FloatBits",
		write: func(w *Writer) { w.WriteFloatBits(1.0, 5, 10); w.WriteFloatBits(-2.5, 4, 3) },
		hex:   "003cc2", nbits: 24,
		read: func(r *Reader) []any { return []any{r.ReadFloatBits(5, 10), r.ReadFloatBits(4, 3)} },
		want: []any{float32(1), float32(-2.5)},
	},
	{
		name:  "Half",
		write: func(w *Writer) { w.WriteHalf(1); w.WriteHalf(-2); w.WriteHalf(65504) },
		hex:   "003c00c0ff7b", nbits: 48,
		read: func(r *Reader) []any { return []any{r.ReadHalf(), r.ReadHalf(), r.ReadHalf()} },
		want: []any{float32(1), float32(-2), float32(65504)},
	},
	{
		name:  "Angles",
		write: func(w *Writer) { w.WriteAngle16(90); w.WriteAngle16(-90); w.WriteAngle8(180) },
		hex:   "004000c080", nbits: 40,
		read: func(r *Reader) []any { return []any{r.ReadAngle16(), r.ReadAngle16(), r.ReadAngle8()} },
		want: []any{float32(90), float32(270), float32(180)},
	},
	{
		name:  "Dir",
		write: func(w *Writer) { w.WriteDir([3]float32{0, 0, 1}, 3) },
		hex:   "9b01", nbits: 9,
		read: func(r *Reader) []any { return []any{r.ReadDir(3)} },
		want: []any{[3]float32{0, 0, 1}},
	},
	{
		name:  "BitsFrom",
		write: func(w *Writer) { w.WriteBits(1, 1); w.writeBitsFrom([]byte{0xFF, 0x03, 0xEE}, 10) },
		hex:   "ff07", nbits: 11,
		read: func(r *Reader) []any { return []any{r.ReadBits(1), r.ReadBits(10)} },
		want: []any{uint32(1), uint32(0x3FF)},
	},
}

func TestWireExactBytes(t *testing.T) {
	for _, c := range wireCases {
		t.Run(c.name, func(t *testing.T) {
			buf := bytes.Repeat([]byte{0xAA}, 64) // dirty buffer: Bytes must not leak it
			w := NewWriter(buf)
			c.write(w)
			if w.Err() != nil {
				t.Fatalf("write: %v", w.Err())
			}
			if w.Len() != c.nbits {
				t.Errorf("Len = %d, want %d", w.Len(), c.nbits)
			}
			if got := hex.EncodeToString(w.Bytes()); got != c.hex {
				t.Errorf("Bytes = %s, want %s", got, c.hex)
			}
			if w.BitsLeft() != 64*8-c.nbits {
				t.Errorf("BitsLeft = %d", w.BitsLeft())
			}
			r := NewReader(w.Bytes(), w.Len())
			got := c.read(r)
			if r.Err() != nil {
				t.Fatalf("read: %v", r.Err())
			}
			if r.BitsLeft() != 0 || r.pos != c.nbits {
				t.Errorf("after read pos=%d BitsLeft=%d", r.pos, r.BitsLeft())
			}
			for i := range got {
				if got[i] != c.want[i] {
					t.Errorf("value %d = %v (%T), want %v", i, got[i], got[i], c.want[i])
				}
			}
		})
	}
}

// Every truncated prefix of each valid message fails cleanly: an error, no panic, and the
// values read at and after the failure are zero.
func TestWireTruncatedPrefixes(t *testing.T) {
	for _, c := range wireCases {
		w := NewWriter(make([]byte, 64))
		c.write(w)
		msg := w.Bytes()
		for n := 0; n < c.nbits; n++ {
			r := NewReader(msg, n)
			c.read(r)
			if r.Err() == nil {
				t.Errorf("%s: prefix of %d/%d bits read without error", c.name, n, c.nbits)
			}
			if !errors.Is(r.Err(), ErrUnderflow) {
				t.Errorf("%s: prefix %d: err %v, want ErrUnderflow", c.name, n, r.Err())
			}
		}
	}
	// The schema message over every op kind, through Reader: values after the failure are zero.
	w := NewWriter(make([]byte, 256))
	writeAll(w, sampleOps, sampleVals)
	if w.Err() != nil {
		t.Fatal(w.Err())
	}
	full := readAll(NewReader(w.Bytes(), w.Len()), sampleOps)
	for n := 0; n < w.Len(); n++ {
		r := NewReader(w.Bytes(), n)
		got := readAll(r, sampleOps)
		if r.Err() == nil {
			t.Fatalf("schema prefix %d/%d read without error", n, w.Len())
		}
		failed := false
		for i := range got {
			if !failed && got[i] != full[i] {
				failed = true
			}
			if failed && got[i] != zeroVal(sampleOps[i]) {
				t.Fatalf("prefix %d: field %d after failure = %+v, want zero", n, i, got[i])
			}
		}
		if !failed {
			t.Fatalf("prefix %d: every field read right yet error %v", n, r.Err())
		}
	}
}

func TestWriterErrors(t *testing.T) {
	cases := []struct {
		name  string
		write func(w *Writer)
		want  error
	}{
		{"Bits0", func(w *Writer) { w.WriteBits(0, 0) }, ErrWidth},
		{"Bits33", func(w *Writer) { w.WriteBits(0, 33) }, ErrWidth},
		{"Bits64Width65", func(w *Writer) { w.writeBits64(0, 65) }, ErrWidth},
		{"Bits64Negative", func(w *Writer) { w.writeBits64(0, -1) }, ErrWidth},
		{"Bits64Overflow", func(w *Writer) { w.WriteUint64(0); w.writeBits64(0, 64); w.writeBits64(1, 1) }, ErrOverflow},
		{"Int1", func(w *Writer) { w.WriteInt(0, 1) }, ErrWidth},
		{"IntHigh", func(w *Writer) { w.WriteInt(2, 2) }, ErrRange},
		{"IntLow", func(w *Writer) { w.WriteInt(-3, 2) }, ErrRange},
		{"StringLong", func(w *Writer) { w.WriteString("abc", 2) }, ErrRange},
		{"StringNegMax", func(w *Writer) { w.WriteString("", -1) }, ErrWidth},
		{"RangedHigh", func(w *Writer) { w.WriteRangedInt(11, -10, 10) }, ErrRange},
		{"RangedLow", func(w *Writer) { w.WriteRangedInt(-11, -10, 10) }, ErrRange},
		{"RangedInverted", func(w *Writer) { w.WriteRangedInt(0, 1, -1) }, ErrRange},
		{"RangedFloatBits0", func(w *Writer) { w.WriteRangedFloat(0, 0, 1, 0) }, ErrWidth},
		{"RangedFloatEmpty", func(w *Writer) { w.WriteRangedFloat(0, 1, 1, 8) }, ErrRange},
		{"RangedFloatInf", func(w *Writer) { w.WriteRangedFloat(0, 0, float32(math.Inf(1)), 8) }, ErrRange},
		{"FloatBitsExp", func(w *Writer) { w.WriteFloatBits(0, 9, 4) }, ErrWidth},
		{"FloatBitsMant", func(w *Writer) { w.WriteFloatBits(0, 8, 24) }, ErrWidth},
		{"Dir1", func(w *Writer) { w.WriteDir([3]float32{}, 1) }, ErrWidth},
		{"Dir11", func(w *Writer) { w.WriteDir([3]float32{}, 11) }, ErrWidth},
		{"BitsFromLong", func(w *Writer) { w.writeBitsFrom([]byte{1}, 9) }, ErrRange},
		{"TruncateLong", func(w *Writer) { w.truncate(1) }, ErrRange},
		{"Overflow", func(w *Writer) { w.WriteUint64(0); w.WriteUint64(0); w.WriteBool(true) }, ErrOverflow},
		{"OverflowString", func(w *Writer) { w.WriteString("0123456789abcdefg", 100) }, ErrOverflow},
	}
	for _, c := range cases {
		w := NewWriter(make([]byte, 16))
		c.write(w)
		if w.Err() != c.want {
			t.Errorf("%s: err %v, want %v", c.name, w.Err(), c.want)
		}
		// Sticky: later writes are dropped.
		n := w.Len()
		w.WriteUint8(1)
		if c.name != "Overflow" && w.Len() != n {
			t.Errorf("%s: write after error changed Len %d -> %d", c.name, n, w.Len())
		}
		if w.Err() != c.want {
			t.Errorf("%s: error not sticky: %v", c.name, w.Err())
		}
	}
	// A write that overflows is dropped whole.
	w := NewWriter(make([]byte, 2))
	w.WriteBits(1, 1)
	w.WriteUint16(0xFFFF)
	if w.Err() != ErrOverflow || w.Len() != 1 || !bytes.Equal(w.Bytes(), []byte{1}) {
		t.Errorf("overflow not dropped whole: err %v len %d bytes %x", w.Err(), w.Len(), w.Bytes())
	}
}

func TestWriterTruncate(t *testing.T) {
	rnd := newRand(1)
	for iter := 0; iter < 500; iter++ {
		buf := make([]byte, 64)
		w := NewWriter(buf)
		var ref []bool // reference bit stream
		for w.Len() < 300 {
			n := 1 + rnd.IntN(32)
			v := rnd.Uint32()
			w.WriteBits(v, n)
			for i := 0; i < n; i++ {
				ref = append(ref, v>>uint(i)&1 == 1)
			}
			if rnd.IntN(4) == 0 {
				cut := rnd.IntN(w.Len() + 1)
				w.truncate(cut)
				ref = ref[:cut]
			}
		}
		if w.Err() != nil {
			t.Fatal(w.Err())
		}
		if w.Len() != len(ref) {
			t.Fatalf("Len %d, ref %d", w.Len(), len(ref))
		}
		got := w.Bytes()
		want := make([]byte, (len(ref)+7)/8)
		for i, b := range ref {
			if b {
				want[i/8] |= 1 << uint(i%8)
			}
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("bytes after truncations:\n got %x\nwant %x", got, want)
		}
	}
	// Truncate clears an overflow, so a caller can drop the entity that did not fit.
	w := NewWriter(make([]byte, 4))
	w.WriteUint16(0xABCD)
	mark := w.Len()
	w.WriteUint16(0x1234)
	w.WriteUint8(0x56) // overflows
	if w.Err() != ErrOverflow {
		t.Fatalf("err %v", w.Err())
	}
	w.truncate(mark)
	if w.Err() != nil || !bytes.Equal(w.Bytes(), []byte{0xCD, 0xAB}) {
		t.Fatalf("after Truncate: err %v bytes %x", w.Err(), w.Bytes())
	}
	w.WriteUint8(0x77)
	if !bytes.Equal(w.Bytes(), []byte{0xCD, 0xAB, 0x77}) {
		t.Fatalf("after rewrite: %x", w.Bytes())
	}
	// but not a range error.
	w.WriteInt(5, 2)
	w.truncate(0)
	if w.Err() != ErrRange {
		t.Fatalf("Truncate cleared %v", w.Err())
	}
}

// TestWriteBits64 writes random values of every width 0..64 after random leads and reads back
// the low n bits, with nothing of v above them.
func TestWriteBits64(t *testing.T) {
	rnd := newRand(3)
	for iter := range 3000 {
		v, n, lead := rnd.Uint64(), iter%65, rnd.IntN(40)
		w := NewWriter(make([]byte, 24))
		w.WriteBits(0x15, 5)
		w.truncate(min(lead, 5))
		for w.Len() < lead {
			w.WriteBool(true)
		}
		w.writeBits64(v, n)
		w.WriteBits(0x5, 3)
		if w.Err() != nil {
			t.Fatal(w.Err())
		}
		r := NewReader(w.Bytes(), w.Len())
		read := func(n int) uint64 { // up to 64 bits, 32 at a time
			var x uint64
			for s := 0; s < n; s += 32 {
				x |= uint64(r.ReadBits(min(32, n-s))) << uint(s)
			}
			return x
		}
		read(lead)
		if got := read(n); got != v&(1<<uint(n)-1) {
			t.Fatalf("lead %d n %d: read %x, want %x", lead, n, got, v&(1<<uint(n)-1))
		}
		if r.ReadBits(3) != 5 || r.BitsLeft() != 0 || r.Err() != nil {
			t.Fatalf("lead %d n %d: trailer", lead, n)
		}
	}
}

func TestWriteBitsFrom(t *testing.T) {
	rnd := newRand(2)
	for iter := 0; iter < 2000; iter++ {
		src := make([]byte, 1+rnd.IntN(40))
		for i := range src {
			src[i] = byte(rnd.Uint32())
		}
		nbits := rnd.IntN(len(src)*8 + 1)
		if iter%2 == 1 {
			// Random bytes after the bits, as a memo's replay has: the word-wide path
			// reads them and must leave them out.
			nbits = rnd.IntN(len(src)*8 + 1)
			for range 8 {
				src = append(src, byte(rnd.Uint32()))
			}
		}
		lead := rnd.IntN(40)
		w := NewWriter(make([]byte, 64))
		if lead > 0 {
			w.WriteUint64(0xFFFFFFFFFFFFFFFF)
			w.truncate(lead)
		}
		w.writeBitsFrom(src, nbits)
		w.WriteBits(0x5, 3)
		if w.Err() != nil {
			t.Fatal(w.Err())
		}
		// Bit by bit reference.
		r := NewReader(w.Bytes(), w.Len())
		for i := 0; i < lead; i++ {
			if !r.ReadBool() {
				t.Fatal("lead bit")
			}
		}
		for i := 0; i < nbits; i++ {
			if r.ReadBool() != (src[i/8]>>uint(i%8)&1 == 1) {
				t.Fatalf("iter %d lead %d nbits %d: bit %d differs", iter, lead, nbits, i)
			}
		}
		if r.ReadBits(3) != 5 || r.BitsLeft() != 0 || r.Err() != nil {
			t.Fatal("trailer")
		}
	}
}

func TestBitsFor(t *testing.T) {
	for _, c := range []struct {
		v    uint32
		want int
	}{{0, 1}, {1, 1}, {2, 2}, {3, 2}, {4, 3}, {7, 3}, {100, 7}, {255, 8}, {256, 9}, {math.MaxUint32, 32}} {
		if got := BitsFor(c.v); got != c.want {
			t.Errorf("BitsFor(%d) = %d, want %d", c.v, got, c.want)
		}
	}
}
