package zrle

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"
)

// The word-at-a-time compressor that preceded the block compressor in zrle.go, kept as a
// second reference (with refCompress, the bit-at-a-time one) for the differential tests.

// wordCompress is the previous Compress.
func wordCompress(dst, src []byte, srcBits, wordBits int) (dstBits int, err error) {
	if wordBits < MinWordBits || wordBits > MaxWordBits {
		return 0, ErrWordBits
	}
	if srcBits < 0 || srcBits > len(src)*8 {
		return 0, ErrBitLength
	}
	if srcBits == 0 {
		return 0, nil
	}
	var r bitReader
	r.init(src, srcBits)
	var out bitWriter
	out.init(dst, len(dst)*8)

	w := uint(wordBits)
	maxRun := 1 << w
	n := (srcBits + wordBits - 1) / wordBits
	div := &wordsIn[w]
	batch := 32 / wordBits // words per put

	for i := 0; i < n; {
		if r.n < 32 {
			r.refill()
		}
		avail := r.n
		if r.pos == len(r.src) {
			avail = 64 // exhausted: zero padding above the valid bits
		}
		// Copy the non-zero words before the first zero word in one put.
		if k := min(nonZeroWords(r.acc, w), int(div[avail]), n-i, batch); k > 0 {
			kb := uint(k) * w
			if !out.put(r.acc&(uint64(1)<<kb-1), kb) {
				return 0, ErrShortBuffer
			}
			r.consume(kb)
			i += k
			continue
		}
		k := r.zeroWords(w, min(maxRun, n-i))
		// A zero word then k-1 in w bits: one put of 2w bits.
		if !out.put(uint64(k-1)<<w, 2*w) {
			return 0, ErrShortBuffer
		}
		i += k
	}
	out.flush()
	return out.bits, nil
}

// zeroWords consumes and counts the zero words of w bits at the read
// position, at most limit of them. The word at the read position is zero.
func (r *bitReader) zeroWords(w uint, limit int) int {
	k := 0
	for {
		avail := r.n
		if r.pos == len(r.src) {
			// Source exhausted: above the valid bits acc holds the zero
			// padding of the last word.
			avail = 64
		}
		v := r.acc
		if avail < 64 {
			v |= uint64(1) << avail // stop counting at the end of the valid bits
		}
		z := uint(wordsIn[w][bits.TrailingZeros64(v)])
		take := min(int(z), limit-k)
		r.consume(uint(take) * w)
		k += take
		if k == limit || (z+1)*w <= avail {
			return k // limit reached, or the next word is loaded and non-zero
		}
		r.refill()
	}
}

// TestCompressMatchesReferences compares Compress with both references on delta-like,
// random, sparse and zero inputs of every length class and word size.
func TestCompressMatchesReferences(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for w := MinWordBits; w <= MaxWordBits; w++ {
		for it := range 400 {
			var src []byte
			switch it % 4 {
			case 0:
				src = deltaLike(rng, rng.IntN(300))
			case 1:
				src = make([]byte, rng.IntN(300))
				for i := range src {
					src[i] = byte(rng.Uint32())
				}
			case 2:
				src = make([]byte, rng.IntN(300))
				for range rng.IntN(6) {
					if len(src) > 0 {
						src[rng.IntN(len(src))] = 1 << rng.IntN(8)
					}
				}
			case 3:
				src = make([]byte, rng.IntN(600))
			}
			srcBits := len(src) * 8
			if srcBits > 0 {
				srcBits -= rng.IntN(min(srcBits, 20) + 1)
				// garbage past srcBits must be ignored
				if r := srcBits % 8; r != 0 {
					src[srcBits/8] |= 0xFF << r
				}
			}
			checkDifferential(t, src, srcBits, w)
		}
	}
}

func checkDifferential(t testing.TB, src []byte, srcBits, w int) {
	bound := MaxCompressedBits(srcBits, w)
	a := make([]byte, (bound+7)/8+8)
	b := make([]byte, (bound+7)/8+8)
	na, erra := Compress(a, src, srcBits, w)
	nb, errb := wordCompress(b, src, srcBits, w)
	if erra != nil || errb != nil || na != nb || !bytes.Equal(a, b) {
		t.Fatalf("w=%d bits=%d: Compress %d bits err %v, previous %d bits err %v", w, srcBits, na, erra, nb, errb)
	}
	ref, refBits := refCompress(src, srcBits, w)
	if refBits != na || !bytes.Equal(ref, a[:(na+7)/8]) {
		t.Fatalf("w=%d bits=%d: Compress differs from the bit-at-a-time reference", w, srcBits)
	}
	// LowerBound: the word-by-word count, never above Compress's bits, exact when every zero
	// run fits one count.
	lb, exact := refLowerBound(src, srcBits, w)
	if got := LowerBound(src, srcBits, w); got != lb || got > na || (exact && got != na) {
		t.Fatalf("w=%d bits=%d: LowerBound %d, want %d (exact %v), Compress %d", w, srcBits, got, lb, exact, na)
	}
	// LowerBoundAbove, which stops early, agrees with the whole bound at every limit near it.
	for _, limit := range []int{0, lb - w - 1, lb - w, lb - 1, lb, lb + 1, lb + w, 2 * lb, srcBits / 2} {
		if got, want := LowerBoundAbove(src, srcBits, w, limit), lb > limit; got != want {
			t.Fatalf("w=%d bits=%d: LowerBoundAbove(limit %d) = %v, bound %d", w, srcBits, limit, got, lb)
		}
	}
	// CompressedBits is Compress's size, and CompressedBitsAbove agrees with it at every limit
	// near it.
	checkCompressedBits(t, src, srcBits, w, na)
	// Compress fails cleanly (early, without writing past dst) one byte short of its output
	// and succeeds with exactly its output's bytes.
	if nb := (na + 7) / 8; nb > 0 {
		short := make([]byte, nb+8)
		if _, err := Compress(short[:nb-1], src, srcBits, w); err != ErrShortBuffer {
			t.Fatalf("w=%d bits=%d: %d bytes for %d: err %v", w, srcBits, nb-1, nb, err)
		}
		if bytes.ContainsFunc(short[nb-1:], func(r rune) bool { return r != 0 }) {
			t.Fatalf("w=%d bits=%d: wrote past dst", w, srcBits)
		}
		if n, err := Compress(short[:nb], src, srcBits, w); err != nil || n != na {
			t.Fatalf("w=%d bits=%d: exact dst: %d bits, err %v", w, srcBits, n, err)
		}
	}
}

// refLowerBound counts word by word: w bits per non-zero word, 2w per run of zero words; exact
// reports whether no run is longer than one count covers (2^w words).
func refLowerBound(src []byte, srcBits, w int) (lb int, exact bool) {
	exact = true
	run := 0
	end := func() {
		if run > 0 {
			lb += 2 * w
			exact = exact && run <= 1<<w
		}
		run = 0
	}
	for p := 0; p < srcBits; p += w {
		word := 0
		for b := p; b < min(p+w, srcBits); b++ {
			word |= int(src[b/8]>>(b%8)&1) << (b - p)
		}
		if word != 0 {
			end()
			lb += w
		} else {
			run++
		}
	}
	end()
	return lb, exact
}

// FuzzCompressDifferential cross-checks Compress against both references.
func FuzzCompressDifferential(f *testing.F) {
	f.Add([]byte{0, 0, 0, 1, 0, 0, 0x80}, uint8(3), uint8(3))
	f.Add(bytes.Repeat([]byte{0}, 100), uint8(2), uint8(1))
	f.Add([]byte{0xFF, 0x00, 0x55, 0xAA, 0, 0, 0, 0, 0, 0, 0, 0, 7}, uint8(8), uint8(7))
	f.Fuzz(func(t *testing.T, src []byte, wSel, trim uint8) {
		if len(src) > 4096 {
			return
		}
		w := MinWordBits + int(wSel)%(MaxWordBits-MinWordBits+1)
		srcBits := len(src) * 8
		if srcBits > 0 {
			srcBits -= int(trim % 8)
		}
		checkDifferential(t, src, srcBits, w)
	})
}

// BenchmarkCompressPrevious runs the previous compressor on BenchmarkCompress's delta input,
// for a before/after in the same run.
func BenchmarkCompressPrevious(b *testing.B) {
	src := deltaLike(rand.New(rand.NewPCG(7, 8)), 1400)
	for _, w := range []int{3, 8} {
		b.Run(fmt.Sprintf("delta/w=%d", w), func(b *testing.B) {
			dst := make([]byte, (MaxCompressedBits(len(src)*8, w)+7)/8)
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			for b.Loop() {
				wordCompress(dst, src, len(src)*8, w)
			}
		})
	}
}

// boundInputs returns inputs of n bytes for the size tests: zero, all ones, sparse, random,
// alternating stretches of zero and non-zero bytes (runs that cross blocks), delta-like.
func boundInputs(rng *rand.Rand, n int) [][]byte {
	zero, ones, sparse, random, stretches := make([]byte, n), make([]byte, n), make([]byte, n), make([]byte, n), make([]byte, n)
	for i := range n {
		ones[i] = 0xFF
		random[i] = byte(rng.Uint32())
		if rng.IntN(40) == 0 {
			sparse[i] = 1 << rng.IntN(8)
		}
	}
	for i := 0; i < n; {
		k := 1 + rng.IntN(30)
		if rng.IntN(2) == 0 {
			for j := i; j < min(i+k, n); j++ {
				stretches[j] = byte(rng.Uint32()) | 1
			}
		}
		i += k
	}
	return [][]byte{zero, ones, sparse, random, stretches, deltaLike(rng, n)}
}

// forEachCut calls f with each input of each length (inputs), each word size, and each srcBits
// of the last 40 bits, the bits past srcBits set: junk the functions must ignore.
func forEachCut(lengths []int, inputs func(n int) [][]byte, f func(src []byte, srcBits, w int)) {
	for _, n := range lengths {
		for _, src := range inputs(n) {
			for w := MinWordBits; w <= MaxWordBits; w++ {
				for cut := 0; cut <= min(40, 8*n); cut++ {
					s := bytes.Clone(src)
					srcBits := 8*n - cut
					if r := srcBits % 8; r != 0 {
						s[srcBits/8] |= 0xFF << r
					}
					f(s, srcBits, w)
				}
			}
		}
	}
}

// TestLowerBoundMatchesReference: LowerBound is refLowerBound's word-by-word count, and
// LowerBoundAbove agrees with it at limits around it, for every word size, on inputs long
// enough for the 3-bit words' 24-byte loop to run many times (and to stop early on the
// limit), of every length around its blocks, and at every srcBits of the last 40 bits
// (trailing partial words, garbage past srcBits). Inputs: zero, all ones, sparse, delta-like,
// random, and alternating stretches of zero and non-zero bytes (runs that cross blocks).
func TestLowerBoundMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	inputs := func(n int) [][]byte { return boundInputs(rng, n) }
	check := func(src []byte, srcBits, w int) {
		lb, _ := refLowerBound(src, srcBits, w)
		if got := LowerBound(src, srcBits, w); got != lb {
			t.Fatalf("w=%d len %d bits=%d: LowerBound %d, want %d", w, len(src), srcBits, got, lb)
		}
		for _, limit := range []int{0, lb / 3, lb/2 - 1, lb - w - 1, lb - w, lb - 1, lb, lb + 1, lb + w} {
			if got, want := LowerBoundAbove(src, srcBits, w, limit), lb > limit; got != want {
				t.Fatalf("w=%d len %d bits=%d: LowerBoundAbove(limit %d) = %v, bound %d", w, len(src), srcBits, limit, got, lb)
			}
		}
	}
	lengths := []int{0, 1, 5, 6, 7, 8, 23, 24, 25, 26, 27, 47, 48, 49, 50, 51, 52, 53, 97, 98, 99, 100, 101, 1760, 1761, 1762, 1763, 1764, 1765, 1766, 1767}
	for range 20 {
		lengths = append(lengths, rng.IntN(3000))
	}
	forEachCut(lengths, inputs, check)
}

// previousCounts3 is the 3-bit aligned count that alignedCounts3 replaced (one 6-byte block
// per iteration, two popcounts each), as words + 2*runs, kept for BenchmarkLowerBound's
// before/after in one run.
func previousCounts3(src []byte, srcBits int, limitWords int) (i, count int, prev uint64) {
	const w = 3
	const ab = 6 // alignedBytes[3]
	const amask = uint64(1)<<(8*ab) - 1
	const alanes, last = 0o111111111111111111 & amask, 8*ab - w
	prev = 1
	for ; i+8 <= len(src) && (i+ab)*8 <= srcBits; i += ab {
		v := binary.LittleEndian.Uint64(src[i:]) & amask
		t := v | v>>1
		nz := (t | t>>1) & alanes
		count += bits.OnesCount64(nz) + 2*bits.OnesCount64(^nz&alanes&(nz<<w|prev))
		prev = nz >> last & 1
		if count > limitWords {
			break
		}
	}
	return i, count, prev
}

// BenchmarkLowerBound: the 3-bit aligned count over a delta-like body of a 64-player
// snapshot's size, without a limit (netchan's limit is near the bound, so it reads nearly
// all of it), against the previous loop.
func BenchmarkLowerBound(b *testing.B) {
	src := deltaLike(rand.New(rand.NewPCG(7, 8)), 1760)
	for _, c := range []struct {
		name string
		f    func([]byte, int, int) (int, int, uint64)
	}{{"aligned", alignedCounts3}, {"previous", previousCounts3}} {
		b.Run(c.name, func(b *testing.B) {
			if _, n, _ := c.f(src, len(src)*8, math.MaxInt); n == 0 {
				b.Fatal("no count")
			}
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				c.f(src, len(src)*8, math.MaxInt)
			}
		})
	}
}

// The previous loop and alignedCounts3 count the same (up to where each stops).
func TestPreviousCounts3(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	for range 500 {
		src := deltaLike(rng, rng.IntN(3000))
		srcBits := len(src) * 8
		i, n, p := alignedCounts3(src, srcBits, math.MaxInt)
		j, m, q := previousCounts3(src[:min(len(src), i+2)], min(srcBits, 8*i), math.MaxInt)
		if i != j || n != m || p != q {
			t.Fatalf("len %d: aligned %d %d %d, previous %d %d %d", len(src), i, n, p, j, m, q)
		}
	}
}

// checkCompressedBits fails unless CompressedBits(src, srcBits, w) is want (Compress's output
// bits) and CompressedBitsAbove agrees with it at every limit around it.
func checkCompressedBits(t testing.TB, src []byte, srcBits, w, want int) {
	t.Helper()
	if got := CompressedBits(src, srcBits, w); got != want {
		t.Fatalf("w=%d len %d bits=%d: CompressedBits %d, Compress %d", w, len(src), srcBits, got, want)
	}
	for _, limit := range []int{0, want / 3, want/2 - 1, want - 2*w - 1, want - 2*w, want - w - 1, want - w, want - 1, want, want + 1, want + w, 2 * want} {
		if got := CompressedBitsAbove(src, srcBits, w, limit); got != (want > limit) {
			t.Fatalf("w=%d len %d bits=%d: CompressedBitsAbove(limit %d) = %v, size %d", w, len(src), srcBits, limit, got, want)
		}
	}
}

// TestCompressedBitsMatchesCompress: CompressedBits is the size of Compress's output (into a
// buffer big enough for any), and CompressedBitsAbove agrees with it at limits around it, for
// every word size, at lengths around the blocks of both (Compress's whole-word blocks of up
// to 56 bits, alignedCounts3's 6 and 24 bytes) up to a few thousand bytes, and at every srcBits
// of the last 40 bits (trailing partial words, junk past srcBits). Inputs: zero, all ones,
// sparse, delta-like, random, stretches of zero and non-zero bytes, and zero runs of every
// length around multiples of 2^w words (the runs that take more than one count) placed at the
// start, the end and across blocks.
func TestCompressedBitsMatchesCompress(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 52))
	inputs := func(n int) [][]byte {
		in := boundInputs(rng, n)
		// Single set bits with gaps of random bit lengths up to 600 (runs of up to 300 2-bit
		// words), so runs start and end at every bit of a block.
		gaps := make([]byte, n)
		for b := rng.IntN(64); b < 8*n; b += 1 + rng.IntN(600) {
			gaps[b/8] |= 1 << (b % 8)
		}
		// Gaps near multiples of 24 bits (8 3-bit words, one full count) and of 2^w words
		// for the other word sizes: runs of exactly k*2^w words and one word either side.
		multiples := make([]byte, n)
		for b := rng.IntN(8); b < 8*n; {
			multiples[b/8] |= 1 << (b % 8)
			w := MinWordBits + rng.IntN(MaxWordBits-MinWordBits+1)
			b += (1+rng.IntN(4))*w<<w + (rng.IntN(2*w+1) - w)
		}
		return append(in, gaps, multiples)
	}
	lengths := []int{0, 1, 2, 3, 5, 6, 7, 8, 9, 13, 14, 15, 16, 23, 24, 25, 26, 27, 47, 48, 49, 50, 51, 52, 53, 97, 98, 99, 100, 101, 1760, 1761, 1762, 1763, 1764, 1765, 1766, 1767}
	for range 12 {
		lengths = append(lengths, rng.IntN(3000))
	}
	dst := make([]byte, (MaxCompressedBits(8*3000, MinWordBits)+7)/8)
	forEachCut(lengths, inputs, func(s []byte, srcBits, w int) {
		want, err := Compress(dst, s, srcBits, w)
		if err != nil {
			t.Fatalf("w=%d bits=%d: Compress: %v", w, srcBits, err)
		}
		checkCompressedBits(t, s, srcBits, w, want)
	})
	// Zero runs of every length from 1 to 4*2^w+1 words, alone, after a non-zero word, and
	// before one (at the start, in the middle and at the end), at every bit offset of a block.
	for w := MinWordBits; w <= MaxWordBits; w++ {
		for k := 1; k <= 4<<w+1; k++ {
			for lead := 0; lead < 64; lead += 1 + rng.IntN(5) {
				for _, after := range []bool{false, true} {
					bitsLen := lead + k*w
					if after {
						bitsLen += w
					}
					s := make([]byte, (bitsLen+7)/8+rng.IntN(9))
					if lead > 0 {
						s[(lead-1)/8] |= 1 << ((lead - 1) % 8)
					}
					if after {
						b := lead + k*w
						s[b/8] |= 1 << (b % 8)
					}
					want, err := Compress(dst, s, bitsLen, w)
					if err != nil {
						t.Fatal(err)
					}
					checkCompressedBits(t, s, bitsLen, w, want)
				}
			}
		}
	}
	// Invalid input gives 0, as LowerBound does.
	for _, c := range []struct {
		src     []byte
		bits, w int
	}{{make([]byte, 4), 8, 1}, {make([]byte, 4), 8, 9}, {make([]byte, 4), -1, 3}, {make([]byte, 4), 33, 3}, {nil, 0, 3}} {
		if got := CompressedBits(c.src, c.bits, c.w); got != 0 {
			t.Fatalf("CompressedBits(len %d, %d, %d) = %d, want 0", len(c.src), c.bits, c.w, got)
		}
	}
}
