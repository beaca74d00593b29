package bitmsg

import (
	"bytes"
	"math"
	"testing"
)

// bitsOf builds a message from (value, width) pairs.
func bitsOf(t *testing.T, fields ...[2]uint64) ([]byte, int) {
	t.Helper()
	w := NewWriter(make([]byte, 64))
	for _, f := range fields {
		w.writeN(f[0], int(f[1]))
	}
	if w.Err() != nil {
		t.Fatal(w.Err())
	}
	return w.Bytes(), w.Len()
}

// Hostile inputs: every range and code the writer never makes is re-checked by the reader.
func TestReaderRechecksRanges(t *testing.T) {
	cases := []struct {
		name   string
		fields [][2]uint64
		read   func(r *Reader)
		want   error
	}{
		{"RangedIntAboveSpan", [][2]uint64{{21, 5}}, func(r *Reader) { r.ReadRangedInt(-10, 10) }, ErrRange},
		{"RangedIntSpanOK", [][2]uint64{{20, 5}}, func(r *Reader) { r.ReadRangedInt(-10, 10) }, nil},
		{"RangedIntInverted", [][2]uint64{{0, 8}}, func(r *Reader) { r.ReadRangedInt(1, 0) }, ErrRange},
		{"StringAboveMax", [][2]uint64{{11, 4}, {0, 64}, {0, 32}}, func(r *Reader) { r.ReadString(10) }, ErrRange},
		{"StringPastEnd", [][2]uint64{{3, 4}, {0x4141, 16}}, func(r *Reader) { r.ReadString(10) }, ErrUnderflow},
		{"StringHugeLen", [][2]uint64{{math.MaxInt32, 31}}, func(r *Reader) { r.ReadString(math.MaxInt32) }, ErrUnderflow},
		{"StringBadMax", [][2]uint64{{0, 8}}, func(r *Reader) { r.ReadString(-1) }, ErrWidth},
		{"AppendStringPastEnd", [][2]uint64{{7, 3}}, func(r *Reader) { r.AppendString(nil, 7) }, ErrUnderflow},
		{"FloatBitsDenormal", [][2]uint64{{1, 8}}, func(r *Reader) { r.ReadFloatBits(4, 3) }, ErrRange},
		{"FloatBitsExp255", [][2]uint64{{255 << 4, 13}}, func(r *Reader) { r.ReadFloatBits(8, 4) }, ErrRange},
		{"FloatBitsExp254", [][2]uint64{{254 << 4, 13}}, func(r *Reader) { r.ReadFloatBits(8, 4) }, nil},
		{"FloatBitsWidth", [][2]uint64{{0, 32}}, func(r *Reader) { r.ReadFloatBits(1, 4) }, ErrWidth},
		{"DirUnusedCode", [][2]uint64{{7 << 3, 9}}, func(r *Reader) { r.ReadDir(3) }, ErrRange},
		{"DirWidth", [][2]uint64{{0, 32}}, func(r *Reader) { r.ReadDir(11) }, ErrWidth},
		{"BitsWidth0", [][2]uint64{{0, 8}}, func(r *Reader) { r.ReadBits(0) }, ErrWidth},
		{"BitsWidth33", [][2]uint64{{0, 64}}, func(r *Reader) { r.ReadBits(33) }, ErrWidth},
		{"IntWidth1", [][2]uint64{{0, 8}}, func(r *Reader) { r.ReadInt(1) }, ErrWidth},
		{"RangedFloatBits", [][2]uint64{{0, 8}}, func(r *Reader) { r.ReadRangedFloat(0, 1, 33) }, ErrWidth},
		{"RangedFloatNaN", [][2]uint64{{0, 8}}, func(r *Reader) { r.ReadRangedFloat(float32(math.NaN()), 1, 8) }, ErrRange},
	}
	for _, c := range cases {
		msg, n := bitsOf(t, c.fields...)
		r := NewReader(msg, n)
		c.read(r)
		if r.Err() != c.want {
			t.Errorf("%s: err %v, want %v", c.name, r.Err(), c.want)
		}
	}
}

// After an error every read returns the zero value, even where bits remain.
func TestReaderZeroAfterError(t *testing.T) {
	msg := bytes.Repeat([]byte{0xFF}, 64)
	r := NewReader(msg, len(msg)*8)
	r.ReadRangedInt(0, 2) // raw 3 > 2
	if r.Err() != ErrRange {
		t.Fatalf("err %v", r.Err())
	}
	got := readAll(r, sampleOps)
	for i, v := range got {
		if v != zeroVal(sampleOps[i]) {
			t.Errorf("op %v after error = %+v", sampleOps[i], v)
		}
	}
	p := []byte{1, 2, 3}
	r.ReadBytes(p)
	if !bytes.Equal(p, []byte{0, 0, 0}) {
		t.Errorf("ReadBytes after error left %x", p)
	}
	if s := r.AppendString([]byte("x"), 10); string(s) != "x" {
		t.Errorf("AppendString after error = %q", s)
	}
	if r.Err() != ErrRange {
		t.Errorf("error changed to %v", r.Err())
	}
}

func TestReaderClampsAndReset(t *testing.T) {
	r := NewReader([]byte{0xFF}, 100)
	if r.BitsLeft() != 8 {
		t.Errorf("BitsLeft %d, want 8 (clamped)", r.BitsLeft())
	}
	r.Reset([]byte{0xFF}, -5)
	if r.BitsLeft() != 0 || r.ReadBool() || r.Err() != ErrUnderflow {
		t.Errorf("negative nbits: left %d err %v", r.BitsLeft(), r.Err())
	}
	r.Reset(nil, 0)
	if r.Err() != nil || r.ReadUint64() != 0 || r.Err() != ErrUnderflow {
		t.Errorf("empty: %v", r.Err())
	}
	// Bits beyond nbits in the last byte are never read.
	r.Reset([]byte{0xF1}, 1)
	if !r.ReadBool() || r.ReadBool() || r.Err() != ErrUnderflow {
		t.Errorf("partial byte: %v", r.Err())
	}
}

func TestReaderStrings(t *testing.T) {
	long := string(bytes.Repeat([]byte("0123456789"), 30)) // longer than the 64-byte chunk
	for _, lead := range []int{0, 3} {
		w := NewWriter(make([]byte, 512))
		w.WriteBits(0, max(lead, 1))
		w.WriteString(long, 1000)
		w.WriteString("tail", 4)
		r := NewReader(w.Bytes(), w.Len())
		r.ReadBits(max(lead, 1))
		if s := r.ReadString(1000); s != long {
			t.Errorf("lead %d: long string mismatch", lead)
		}
		if s := string(r.AppendString(make([]byte, 0, 8), 4)); s != "tail" {
			t.Errorf("lead %d: AppendString = %q", lead, s)
		}
		if r.Err() != nil || r.BitsLeft() != 0 {
			t.Errorf("lead %d: err %v left %d", lead, r.Err(), r.BitsLeft())
		}
	}
}

// Mixed-width random round trip against a bit-by-bit reference.
func TestRandomRoundTrip(t *testing.T) {
	rnd := newRand(3)
	for iter := 0; iter < 200; iter++ {
		type f struct {
			v uint32
			n int
		}
		var fs []f
		w := NewWriter(make([]byte, 1024))
		for i := 0; i < 100; i++ {
			x := f{rnd.Uint32(), 1 + rnd.IntN(32)}
			x.v &= uint32(mask(x.n))
			fs = append(fs, x)
			w.WriteBits(x.v, x.n)
		}
		r := NewReader(w.Bytes(), w.Len())
		pos := 0
		for i, x := range fs {
			if got := r.ReadBits(x.n); got != x.v {
				t.Fatalf("field %d: %x want %x", i, got, x.v)
			}
			pos += x.n
			if r.pos != pos {
				t.Fatalf("pos %d want %d", r.pos, pos)
			}
		}
		if r.Err() != nil || r.BitsLeft() != 0 {
			t.Fatal(r.Err())
		}
	}
}
