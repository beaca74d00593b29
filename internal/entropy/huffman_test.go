package entropy

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// TestHuffmanEncodeMatchesRef: the grouped coder (testHuffman.Encode) writes exactly the bytes of the
// byte-at-a-time coder, for every length up to 300 and some up to 3000, skewed and uniform
// bytes, into a buffer of exactly the coded size, a longer one and the channel's, and the
// stream decodes back; huffBits is the sum of the code lengths.
func TestHuffmanEncodeMatchesRef(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	lengths := make([]int, 0, 330)
	for n := range 300 {
		lengths = append(lengths, n)
	}
	for range 30 {
		lengths = append(lengths, 300+rng.IntN(2700))
	}
	for _, n := range lengths {
		for _, skew := range []bool{false, true} {
			src := make([]byte, n)
			for i := range src {
				if skew && rng.IntN(4) > 0 {
					src[i] = byte(rng.IntN(3))
				} else {
					src[i] = byte(rng.Uint32())
				}
			}
			bits := 0
			for _, b := range src {
				bits += int(testHuffman.enc[b].len)
			}
			if got := testHuffman.Bits(src); got != bits {
				t.Fatalf("len %d: huffBits %d, want %d", n, got, bits)
			}
			want := make([]byte, (bits+7)/8)
			if k := testHuffman.encodeRef(want, src); k != len(want) {
				t.Fatalf("len %d: reference wrote %d bytes, want %d", n, k, len(want))
			}
			// Exactly the coded size, a little more, and the channel's buffer (room for the
			// longest codes and 16 bytes), where the 16-byte loop runs to the end of src.
			for _, size := range []int{len(want), len(want) + 9, (n*HuffmanMaxBits+7)/8 + 16} {
				extra := size - len(want)
				got := make([]byte, size)
				for i := range got {
					got[i] = 0xAA // the coder must overwrite every byte it returns
				}
				k := testHuffman.Encode(got, src)
				if k != len(want) || !bytes.Equal(got[:k], want) {
					t.Fatalf("len %d (+%d): grouped coder %x, want %x", n, extra, got[:k], want)
				}
			}
			dec := make([]byte, n)
			if err := testHuffman.Decode(dec, want); err != nil || !bytes.Equal(dec, src) {
				t.Fatalf("len %d: round trip: %v", n, err)
			}
		}
	}
}

func BenchmarkHuffmanEncode(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	src := make([]byte, 1742)
	for i := range src {
		if rng.IntN(3) > 0 {
			src[i] = 0
		} else {
			src[i] = byte(rng.Uint32())
		}
	}
	dst := make([]byte, (len(src)*HuffmanMaxBits+7)/8+16) // as Channel.Send's
	for _, c := range []struct {
		name string
		f    func(dst, src []byte) int
	}{{"grouped", testHuffman.Encode}, {"previous", previousEncoder(testHuffman)}, {"ref", testHuffman.encodeRef}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				c.f(dst, src)
			}
		})
	}
}

// testHuffman is the channel tests' table: a complete code from a skewed
// distribution (byte 0 commonest, as in bit-packed deltas), built the way a
// game builds its own (BuildHuffmanLengths, NewHuffmanTable).
var testHuffman = func() *HuffmanTable {
	var freq [256]uint64
	for b := range freq {
		freq[b] = 1 << (15 - b/18)
	}
	t, err := NewHuffmanTable(BuildHuffmanLengths(freq))
	if err != nil {
		panic(err)
	}
	return t
}()

// NewHuffmanTable rejects lengths that are not a complete code of 1..12 bits.
func TestNewHuffmanTableRejects(t *testing.T) {
	good := testHuffman.Lengths()
	for name, mod := range map[string]func(*[256]uint8){
		"a zero length":      func(l *[256]uint8) { l[7] = 0 },
		"a length above 12":  func(l *[256]uint8) { l[7] = 13 },
		"an incomplete code": func(l *[256]uint8) { l[7]++ },
		"an over-full code":  func(l *[256]uint8) { l[7]-- },
	} {
		l := good
		mod(&l)
		if _, err := NewHuffmanTable(l); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// previousEncoder returns the grouped coder that encode replaced (four codes joined by
// multiplying, 4 bytes per iteration with tests on src and dst, its tables built here), kept
// for BenchmarkHuffmanEncode's before/after in one run.
func previousEncoder(t *HuffmanTable) func(dst, src []byte) int {
	var codes, pow2 [256]uint64
	for b := range 256 {
		codes[b], pow2[b] = t.codes[b], 1<<t.lens[b]
	}
	return func(dst, src []byte) int {
		var acc uint64
		var n uint // pending bits in acc, < 8 between groups
		pos, i := 0, 0
		lens := &t.lengths
		for ; i+4 <= len(src) && pos+8 <= len(dst); i += 4 {
			s := src[i : i+4 : i+4]
			b0, b1, b2, b3 := s[0], s[1], s[2], s[3]
			v := codes[b0] + pow2[b0]*(codes[b1]+pow2[b1]*(codes[b2]+pow2[b2]*codes[b3]))
			acc |= v << (n & 7)
			n = n&7 + uint(lens[b0]) + uint(lens[b1]) + uint(lens[b2]) + uint(lens[b3])
			binary.LittleEndian.PutUint64(dst[pos:], acc)
			pos += int(n >> 3)
			acc >>= (n &^ 7) & 63
		}
		return pos + t.encodeFrom(dst[pos:], src[i:], acc, n&7)
	}
}

// The previous coder wrote what encode writes (so that its benchmark compares like with like).
func TestHuffmanPreviousEncoder(t *testing.T) {
	prev := previousEncoder(testHuffman)
	rng := rand.New(rand.NewPCG(9, 10))
	for range 200 {
		src := make([]byte, rng.IntN(2000))
		for i := range src {
			src[i] = byte(rng.Uint32()) >> rng.IntN(8)
		}
		a, b := make([]byte, len(src)*2+16), make([]byte, len(src)*2+16)
		if na, nb := testHuffman.Encode(a, src), prev(b, src); na != nb || !bytes.Equal(a[:na], b[:nb]) {
			t.Fatalf("len %d: encode %d bytes, previous %d", len(src), na, nb)
		}
	}
}

// FuzzHuffmanEncode: encode writes the byte-at-a-time coder's stream into a buffer of exactly
// the coded size and into the channel's (room for the longest codes and 16 bytes), and the
// stream decodes back.
func FuzzHuffmanEncode(f *testing.F) {
	f.Add([]byte{0, 0, 0, 1, 2, 3, 255, 0, 17})
	f.Add(bytes.Repeat([]byte{0xFE, 0, 0x7F}, 40))
	f.Fuzz(func(t *testing.T, src []byte) {
		want := make([]byte, (testHuffman.Bits(src)+7)/8)
		testHuffman.encodeRef(want, src)
		for _, size := range []int{len(want), (len(src)*HuffmanMaxBits+7)/8 + 16} {
			got := make([]byte, size)
			if k := testHuffman.Encode(got, src); k != len(want) || !bytes.Equal(got[:k], want) {
				t.Fatalf("len %d, buffer %d: encode %x, want %x", len(src), size, got[:k], want)
			}
		}
		dec := make([]byte, len(src))
		if err := testHuffman.Decode(dec, want); err != nil || !bytes.Equal(dec, src) {
			t.Fatalf("round trip: %v", err)
		}
	})
}

// Every byte string round-trips through the Huffman coder, and the table
// is complete (every code word decodes).
func TestHuffmanRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for n := range 300 {
		src := make([]byte, n)
		for i := range src {
			src[i] = byte(rng.Uint32() >> (rng.Uint32() % 8 * 4))
		}
		dst := make([]byte, (testHuffman.Bits(src)+7)/8)
		if k := testHuffman.Encode(dst, src); k != len(dst) {
			t.Fatalf("%d bytes written, want %d", k, len(dst))
		}
		out := make([]byte, n)
		if err := testHuffman.Decode(out, dst); err != nil || !bytes.Equal(out, src) {
			t.Fatalf("%x: decoded %x, %v", src, out, err)
		}
		if n > 0 {
			if testHuffman.Decode(out, dst[:len(dst)-1]) == nil {
				t.Fatalf("truncated stream of %x decoded", src)
			}
		}
	}
	kraft := 0
	for _, l := range testHuffman.Lengths() {
		kraft += 1 << (HuffmanMaxBits - l)
	}
	if kraft != 1<<HuffmanMaxBits {
		t.Fatalf("Kraft sum %d / %d", kraft, 1<<HuffmanMaxBits)
	}
	lengths := BuildHuffmanLengths([256]uint64{0: 1 << 40, 1: 1})
	for b, l := range lengths {
		if l < 1 || l > HuffmanMaxBits {
			t.Fatalf("skewed frequencies: byte %d gets length %d", b, l)
		}
	}
}
