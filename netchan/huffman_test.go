package netchan

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestHuffmanEncodeMatchesRef: the grouped coder (huffEncode) writes exactly the bytes of the
// byte-at-a-time coder, for every length up to 300 and skewed and uniform bytes, into a
// buffer of exactly the coded size and into a longer one, and the stream decodes back;
// huffBits is the sum of the code lengths.
func TestHuffmanEncodeMatchesRef(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for n := range 300 {
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
				bits += int(huffEnc[b].len)
			}
			if got := huffBits(src); got != bits {
				t.Fatalf("len %d: huffBits %d, want %d", n, got, bits)
			}
			want := make([]byte, (bits+7)/8)
			if k := huffEncodeRef(want, src); k != len(want) {
				t.Fatalf("len %d: reference wrote %d bytes, want %d", n, k, len(want))
			}
			for _, extra := range []int{0, 9} {
				got := make([]byte, len(want)+extra)
				for i := range got {
					got[i] = 0xAA // the coder must overwrite every byte it returns
				}
				k := huffEncode(got, src)
				if k != len(want) || !bytes.Equal(got[:k], want) {
					t.Fatalf("len %d (+%d): grouped coder %x, want %x", n, extra, got[:k], want)
				}
			}
			dec := make([]byte, n)
			if err := huffDecode(dec, want); err != nil || !bytes.Equal(dec, src) {
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
	dst := make([]byte, (huffBits(src)+7)/8)
	for _, c := range []struct {
		name string
		f    func(dst, src []byte) int
	}{{"grouped", huffEncode}, {"ref", huffEncodeRef}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				c.f(dst, src)
			}
		})
	}
}
