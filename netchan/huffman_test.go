package netchan

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"
)

// TestHuffmanEncodeMatchesRef: the grouped coder (testHuffman.encode) writes exactly the bytes of the
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
				bits += int(testHuffman.enc[b].len)
			}
			if got := testHuffman.bits(src); got != bits {
				t.Fatalf("len %d: huffBits %d, want %d", n, got, bits)
			}
			want := make([]byte, (bits+7)/8)
			if k := testHuffman.encodeRef(want, src); k != len(want) {
				t.Fatalf("len %d: reference wrote %d bytes, want %d", n, k, len(want))
			}
			for _, extra := range []int{0, 9} {
				got := make([]byte, len(want)+extra)
				for i := range got {
					got[i] = 0xAA // the coder must overwrite every byte it returns
				}
				k := testHuffman.encode(got, src)
				if k != len(want) || !bytes.Equal(got[:k], want) {
					t.Fatalf("len %d (+%d): grouped coder %x, want %x", n, extra, got[:k], want)
				}
			}
			dec := make([]byte, n)
			if err := testHuffman.decode(dec, want); err != nil || !bytes.Equal(dec, src) {
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
	dst := make([]byte, (testHuffman.bits(src)+7)/8)
	for _, c := range []struct {
		name string
		f    func(dst, src []byte) int
	}{{"grouped", testHuffman.encode}, {"ref", testHuffman.encodeRef}} {
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

// A channel without a table rejects an H packet with ErrNoHuffmanTable.
func TestHuffmanPacketWithoutTable(t *testing.T) {
	pkt := capture(t, New(Config{Huffman: testHuffman}, 7), 0, 1, huffmanFriendly())[0]
	if pkt[0]&flagHuffman == 0 {
		t.Fatalf("payload not Huffman coded: %x", pkt)
	}
	err := New(Config{}, 7).Receive(0, pkt, &countHandler{})
	if !errors.Is(err, ErrNoHuffmanTable) {
		t.Fatalf("Receive: %v, want ErrNoHuffmanTable", err)
	}
}
