package zrle

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
)

// refCompress is a bit-at-a-time reference implementation of DOOM III §4.3,
// written as plainly as possible to cross-check the word-at-a-time one.
func refCompress(src []byte, srcBits, w int) (out []byte, outBits int) {
	get := func(i int) uint64 {
		if i >= srcBits {
			return 0
		}
		return uint64(src[i/8]>>(i%8)) & 1
	}
	put := func(v uint64, k int) {
		for j := 0; j < k; j++ {
			if outBits%8 == 0 {
				out = append(out, 0)
			}
			out[outBits/8] |= byte(v>>j&1) << (outBits % 8)
			outBits++
		}
	}
	n := (srcBits + w - 1) / w
	word := func(i int) uint64 {
		var v uint64
		for j := 0; j < w; j++ {
			v |= get(i*w+j) << j
		}
		return v
	}
	for i := 0; i < n; {
		if v := word(i); v != 0 {
			put(v, w)
			i++
			continue
		}
		k := 0
		for i+k < n && k < 1<<w && word(i+k) == 0 {
			k++
		}
		put(0, w)
		put(uint64(k-1), w)
		i += k
	}
	return out, outBits
}

// bitsOf builds a byte slice from a string of '0'/'1' in wire order (first
// character = first bit on the wire).
func bitsOf(s string) ([]byte, int) {
	b := make([]byte, (len(s)+7)/8)
	for i, c := range s {
		if c == '1' {
			b[i/8] |= 1 << (i % 8)
		}
	}
	return b, len(s)
}

func TestCompressExact(t *testing.T) {
	tests := []struct {
		name string
		in   string // input bits in wire order (first character = first bit)
		w    int
		want string // output bits in wire order
	}{
		{"one non-zero word", "101", 3, "101"},
		{"one zero word", "000", 3, "000" + "000"},
		{"three zero words", zeros(9), 3, "000" + "010"},           // count k-1 = 2, LSB first
		{"eight zero words: 4:1", zeros(24), 3, "000" + "111"},     // count 7
		{"nine zero words", zeros(27), 3, "000111" + "000000"},     // run of 8, run of 1
		{"padded last word", "10000000", 3, "100" + "000" + "100"}, // words 1, 0, 0(padded): run of 2
		{"isolated zero", "100" + "000" + "001", 3, "100" + "000000" + "001"},
		{"w=2 run of 4", zeros(8), 2, "00" + "11"},
		{"w=2 run of 5", zeros(10), 2, "0011" + "0000"},
		{"w=8 non-zero", "11111111" + zeros(8), 8, "11111111" + zeros(8) + zeros(8)},
		{"w=8 run of 2", zeros(16), 8, zeros(8) + "10000000"},
		{"empty", "", 3, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src, n := bitsOf(tt.in)
			want, wantBits := bitsOf(tt.want)
			dst := make([]byte, 16)
			got, err := Compress(dst, src, n, tt.w)
			if err != nil {
				t.Fatal(err)
			}
			if got != wantBits || !bytes.Equal(dst[:(got+7)/8], want) {
				t.Fatalf("got %d bits %x, want %d bits %x", got, dst[:(got+7)/8], wantBits, want)
			}
			if refOut, refBits := refCompress(src, n, tt.w); refBits != got || !bytes.Equal(refOut, want) {
				t.Fatalf("reference gives %d bits %x", refBits, refOut)
			}
			out := make([]byte, len(src))
			if err := Decompress(out, dst, got, tt.w, n); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(out, src) {
				t.Fatalf("round trip %x, want %x", out, src)
			}
		})
	}
}

func zeros(n int) string { return string(bytes.Repeat([]byte{'0'}, n)) }

// The paper's maximum ratio: an all-zero stream compresses 4:1 with w=3,
// and 2^w/2 : 1 in general.
func TestMaxRatioAllZero(t *testing.T) {
	src := make([]byte, 300) // 2400 bits = 800 words = 100 runs of 8
	got, err := Compress(make([]byte, 300), src, 2400, 3)
	if err != nil {
		t.Fatal(err)
	}
	if got != 600 {
		t.Fatalf("w=3: 2400 zero bits -> %d bits, want 600 (4:1)", got)
	}
	for w := MinWordBits; w <= MaxWordBits; w++ {
		runBits := w << w // one maximal run
		srcBits := runBits * 10
		src := make([]byte, (srcBits+7)/8)
		got, err := Compress(make([]byte, len(src)), src, srcBits, w)
		if err != nil {
			t.Fatal(err)
		}
		if want := 10 * 2 * w; got != want {
			t.Errorf("w=%d: %d zero bits -> %d, want %d", w, srcBits, got, want)
		}
	}
}

// adversarial builds the worst case: zero, non-zero, zero, ... words.
func adversarial(nWords, w int) ([]byte, int) {
	srcBits := nWords * w
	src := make([]byte, (srcBits+7)/8)
	for i := 1; i < nWords; i += 2 {
		bit := i*w + w - 1 // top bit of the word: non-zero
		src[bit/8] |= 1 << (bit % 8)
	}
	return src, srcBits
}

func TestWorstCaseBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for w := MinWordBits; w <= MaxWordBits; w++ {
		for nWords := 1; nWords <= 41; nWords++ {
			src, srcBits := adversarial(nWords, w)
			bound := MaxCompressedBits(srcBits, w)
			dst := make([]byte, (bound+7)/8+4)
			got, err := Compress(dst, src, srcBits, w)
			if err != nil {
				t.Fatal(err)
			}
			if got != bound {
				t.Fatalf("w=%d n=%d: adversarial input gives %d bits, bound %d (must be reached)", w, nWords, got, bound)
			}
			// One byte less than needed: ErrShortBuffer, nothing written past dst.
			short := (bound+7)/8 - 1
			guard := make([]byte, short+8)
			for i := range guard {
				guard[i] = 0xAA
			}
			if _, err := Compress(guard[:short], src, srcBits, w); !errors.Is(err, ErrShortBuffer) {
				t.Fatalf("w=%d n=%d: short dst: err %v", w, nWords, err)
			}
			for i := short; i < len(guard); i++ {
				if guard[i] != 0xAA {
					t.Fatalf("w=%d n=%d: wrote past dst at %d", w, nWords, i)
				}
			}
		}
		// Random and sparse inputs stay within the bound.
		for range 200 {
			srcBits := rng.IntN(3000) + 1
			src := make([]byte, (srcBits+7)/8)
			p := rng.Float64()
			for i := range srcBits {
				if rng.Float64() < p {
					src[i/8] |= 1 << (i % 8)
				}
			}
			bound := MaxCompressedBits(srcBits, w)
			got, err := Compress(make([]byte, (bound+7)/8), src, srcBits, w)
			if err != nil || got > bound {
				t.Fatalf("w=%d bits=%d: got %d (bound %d), err %v", w, srcBits, got, bound, err)
			}
		}
	}
	if MaxCompressedBits(0, 3) != 0 || MaxCompressedBits(10, 1) != 0 || MaxCompressedBits(10, 9) != 0 {
		t.Fatal("MaxCompressedBits: want 0 for empty input or a bad word size")
	}
}

func TestDecompressCorrupt(t *testing.T) {
	cases := []struct {
		name    string
		in      string
		w       int
		outBits int
		dstLen  int
		want    error
	}{
		{"truncated count", "000" + "11", 3, 24, 3, ErrCorrupt},
		{"truncated word", "10", 3, 3, 1, ErrCorrupt},
		{"run past outBits", "000111", 3, 21, 3, ErrCorrupt},
		{"words past outBits", "100100", 3, 3, 1, ErrCorrupt},
		{"empty but output wanted", "", 3, 3, 1, ErrCorrupt},
		{"trailing 8 bits", "100" + "00000000", 3, 3, 1, ErrCorrupt},
		{"non-zero trailing padding", "100" + "0001", 3, 3, 1, ErrCorrupt},
		{"non-zero padding in last word", "111", 3, 2, 1, ErrCorrupt},
		{"dst too short", "000111", 3, 24, 2, ErrShortBuffer},
		{"bad word size", "000", 9, 3, 1, ErrWordBits},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src, n := bitsOf(c.in)
			if err := Decompress(make([]byte, c.dstLen), src, n, c.w, c.outBits); !errors.Is(err, c.want) {
				t.Fatalf("err %v, want %v", err, c.want)
			}
		})
	}
	if err := Decompress(make([]byte, 4), []byte{0}, 9, 3, 8); !errors.Is(err, ErrBitLength) {
		t.Fatalf("srcBits past src: %v", err)
	}
	if _, err := Compress(make([]byte, 4), []byte{0}, 9, 3); !errors.Is(err, ErrBitLength) {
		t.Fatalf("Compress srcBits past src: %v", err)
	}
	// Accepted: trailing zero padding of up to 7 bits (byte containers).
	src, n := bitsOf("100" + "0000000")
	if err := Decompress(make([]byte, 1), src, n, 3, 3); err != nil {
		t.Fatalf("7 zero padding bits rejected: %v", err)
	}
}

// Every proper prefix of a compressed stream fails cleanly.
func TestTruncatedPrefixes(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for w := MinWordBits; w <= MaxWordBits; w++ {
		src := deltaLike(rng, 64)
		srcBits := len(src)*8 - 3
		comp := make([]byte, (MaxCompressedBits(srcBits, w)+7)/8)
		cb, err := Compress(comp, src, srcBits, w)
		if err != nil {
			t.Fatal(err)
		}
		out := make([]byte, len(src))
		for k := 0; k < cb; k++ {
			if err := Decompress(out, comp, k, w, srcBits); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("w=%d prefix %d/%d bits: err %v, want ErrCorrupt", w, k, cb, err)
			}
		}
	}
}

// Decompress writes exactly outBits bits: the rest of the last byte is zero
// and nothing after it changes.
func TestDecompressBounds(t *testing.T) {
	src := []byte{0xFF, 0xFF}
	comp := make([]byte, 8)
	cb, _ := Compress(comp, src, 13, 3)
	out := []byte{0xAA, 0xAA, 0xAA}
	if err := Decompress(out, comp, cb, 3, 13); err != nil {
		t.Fatal(err)
	}
	if want := []byte{0xFF, 0x1F, 0xAA}; !bytes.Equal(out, want) {
		t.Fatalf("got %x, want %x", out, want)
	}
}

func roundTrip(t testing.TB, src []byte, srcBits, w int) {
	bound := MaxCompressedBits(srcBits, w)
	comp := make([]byte, (bound+7)/8)
	cb, err := Compress(comp, src, srcBits, w)
	if err != nil {
		t.Fatalf("w=%d bits=%d: %v", w, srcBits, err)
	}
	if cb > bound {
		t.Fatalf("w=%d bits=%d: %d bits over bound %d", w, srcBits, cb, bound)
	}
	ref, refBits := refCompress(src, srcBits, w)
	if cb != refBits || !bytes.Equal(comp[:(cb+7)/8], ref) {
		t.Fatalf("w=%d bits=%d: %d bits %x, reference %d bits %x", w, srcBits, cb, comp[:(cb+7)/8], refBits, ref)
	}
	out := make([]byte, (srcBits+7)/8)
	if err := Decompress(out, comp, cb, w, srcBits); err != nil {
		t.Fatalf("w=%d bits=%d: decompress: %v", w, srcBits, err)
	}
	want := make([]byte, len(out))
	copy(want, src)
	if r := srcBits % 8; r != 0 {
		want[len(want)-1] &= byte(1)<<r - 1
	}
	if !bytes.Equal(out, want) {
		t.Fatalf("w=%d bits=%d: round trip %x, want %x", w, srcBits, out, want)
	}
}

func TestRoundTripRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for w := MinWordBits; w <= MaxWordBits; w++ {
		for range 300 {
			src := deltaLike(rng, rng.IntN(200))
			if rng.IntN(2) == 0 {
				for i := range src {
					src[i] = byte(rng.Uint32())
				}
			}
			srcBits := len(src) * 8
			if srcBits > 0 {
				srcBits -= rng.IntN(8)
			}
			roundTrip(t, src, srcBits, w)
		}
	}
}

func FuzzRoundTrip(f *testing.F) {
	f.Add([]byte{}, uint8(3), uint8(0))
	f.Add([]byte{0, 0, 0, 1, 0, 0, 0x80}, uint8(3), uint8(3))
	f.Add(bytes.Repeat([]byte{0}, 100), uint8(2), uint8(1))
	f.Add([]byte{0xFF, 0x00, 0x55, 0xAA}, uint8(8), uint8(7))
	f.Fuzz(func(t *testing.T, src []byte, wSel, trim uint8) {
		if len(src) > 4096 {
			return
		}
		w := MinWordBits + int(wSel)%(MaxWordBits-MinWordBits+1)
		srcBits := len(src) * 8
		if srcBits > 0 {
			srcBits -= int(trim % 8)
		}
		roundTrip(t, src, srcBits, w)
	})
}

func FuzzDecompress(f *testing.F) {
	for _, w := range []int{2, 3, 5, 8} {
		src := []byte{0, 0, 0x10, 0, 0, 0, 0x80, 0xFF, 3}
		comp := make([]byte, 64)
		cb, _ := Compress(comp, src, 70, w)
		f.Add(comp[:(cb+7)/8], uint8(w), uint16(70))
	}
	f.Add([]byte{0x38}, uint8(3), uint16(24))
	f.Fuzz(func(t *testing.T, comp []byte, wSel uint8, outBits uint16) {
		w := MinWordBits + int(wSel)%(MaxWordBits-MinWordBits+1)
		ob := int(outBits) % 20000
		out := make([]byte, (ob+7)/8)
		if err := Decompress(out, comp, len(comp)*8, w, ob); err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		// Accepted input need not be canonical, but recompressing the
		// output must reproduce it.
		re := make([]byte, (MaxCompressedBits(ob, w)+7)/8)
		cb, err := Compress(re, out, ob, w)
		if err != nil {
			t.Fatal(err)
		}
		again := make([]byte, len(out))
		if err := Decompress(again, re, cb, w, ob); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(again, out) {
			t.Fatalf("recompressed round trip %x, want %x", again, out)
		}
		if cb > len(comp)*8 {
			t.Fatalf("canonical form %d bits longer than accepted input %d bits", cb, len(comp)*8)
		}
	})
}

// deltaLike imitates delta-compressed snapshot data (DOOM III §4.2): mostly
// 0 bits (one per unchanged field) with occasional changed fields of 4-16
// random bits.
func deltaLike(rng *rand.Rand, n int) []byte {
	b := make([]byte, n)
	bitsN := n * 8
	for pos := 0; pos < bitsN; {
		if rng.IntN(24) != 0 {
			pos++ // unchanged field: one 0 bit
			continue
		}
		pos++ // changed flag
		if pos < bitsN {
			b[pos/8] |= 1 << (pos % 8)
		}
		pos++
		for k := 4 + rng.IntN(13); k > 0 && pos < bitsN; k-- {
			if rng.IntN(2) == 1 {
				b[pos/8] |= 1 << (pos % 8)
			}
			pos++
		}
	}
	return b
}

func BenchmarkCompress(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 8))
	inputs := map[string][]byte{
		"delta":  deltaLike(rng, 1400),
		"random": make([]byte, 1400),
		"zeros":  make([]byte, 1400),
	}
	for i := range inputs["random"] {
		inputs["random"][i] = byte(rng.Uint32())
	}
	for _, kind := range []string{"delta", "random", "zeros"} {
		for _, w := range []int{2, 3, 4, 8} {
			src := inputs[kind]
			b.Run(fmt.Sprintf("%s/w=%d", kind, w), func(b *testing.B) {
				dst := make([]byte, (MaxCompressedBits(len(src)*8, w)+7)/8)
				var cb int
				b.SetBytes(int64(len(src)))
				b.ReportAllocs()
				for b.Loop() {
					cb, _ = Compress(dst, src, len(src)*8, w)
				}
				b.ReportMetric(float64(len(src)*8)/float64(cb), "ratio")
			})
		}
	}
}

func BenchmarkDecompress(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, kind := range []string{"delta", "random"} {
		src := deltaLike(rng, 1400)
		if kind == "random" {
			for i := range src {
				src[i] = byte(rng.Uint32())
			}
		}
		for _, w := range []int{3, 8} {
			b.Run(fmt.Sprintf("%s/w=%d", kind, w), func(b *testing.B) {
				comp := make([]byte, (MaxCompressedBits(len(src)*8, w)+7)/8)
				cb, _ := Compress(comp, src, len(src)*8, w)
				out := make([]byte, len(src))
				b.SetBytes(int64(len(src)))
				b.ReportAllocs()
				for b.Loop() {
					if err := Decompress(out, comp, cb, w, len(src)*8); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

func TestNoAllocs(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	src := deltaLike(rng, 1400)
	comp := make([]byte, 4096)
	out := make([]byte, 1400)
	var cb int
	if a := testing.AllocsPerRun(100, func() {
		cb, _ = Compress(comp, src, len(src)*8, 3)
		_ = Decompress(out, comp, cb, 3, len(src)*8)
	}); a != 0 {
		t.Fatalf("%v allocs per compress+decompress, want 0", a)
	}
}
