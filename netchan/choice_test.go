package netchan

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/snapwire/snapwire/zrle"
)

// TestStageChoice: the sender's choice between raw, zrle and Huffman (with zrle skipped when
// zrle.LowerBound shows it cannot fit) is the choice made by running every stage in full:
// the smallest stream that beats the raw body, zrle on a tie; and the stream is that stage's
// output. Payloads: zero-heavy, delta-like, random, and text-like, 1..3000 bytes.
func TestStageChoice(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	seen := map[uint8]int{}
	for it := range 3000 {
		n := 1 + rng.IntN(3000)
		if it%3 == 0 {
			n = 1 + rng.IntN(64)
		}
		p := make([]byte, n)
		switch it % 4 {
		case 0: // sparse
			for range rng.IntN(n/4 + 1) {
				p[rng.IntN(n)] = byte(rng.Uint32())
			}
		case 1: // delta-like: short changed fields among zero flags
			for i := range p {
				if rng.IntN(3) == 0 {
					p[i] = byte(rng.Uint32()) & 0x1F
				}
			}
		case 2: // random
			for i := range p {
				p[i] = byte(rng.Uint32())
			}
		case 3: // few distinct small bytes (Huffman-friendly)
			for i := range p {
				p[i] = byte(rng.IntN(4))
			}
		}
		for _, huff := range []bool{false, true} {
			got := capture(t, New(Config{Huffman: map[bool]*HuffmanTable{true: testHuffman}[huff], MTU: 65000}, 1), 0, 3, p)[0]
			k := uvarintLen(uint64(n))
			room := n - 1 - k
			zbuf := make([]byte, (zrle.MaxCompressedBits(n*8, zrle.DefaultWordBits)+7)/8+8)
			zb, err := zrle.Compress(zbuf, p, n*8, zrle.DefaultWordBits)
			if err != nil {
				t.Fatal(err)
			}
			zc, hc := (zb+7)/8, (testHuffman.bits(p)+7)/8
			var flag uint8
			switch {
			case room <= 0:
			case huff && hc <= room && zc <= hc, (!huff || hc > room) && zc <= room:
				flag = flagCompressed
			case huff && hc <= room:
				flag = flagHuffman
			}
			want := p
			if flag != 0 {
				want = binary.AppendUvarint(nil, uint64(n))
				if flag == flagCompressed {
					want = append(want, zbuf[:zc]...)
				} else {
					h := make([]byte, hc)
					testHuffman.encode(h, p)
					want = append(want, h...)
				}
			}
			seen[flag]++
			if f := got[0] & (flagCompressed | flagHuffman); f != flag || !bytes.Equal(got[headerLen:], want) {
				t.Fatalf("it %d huff %v: flags %x want %x (zrle %d, Huffman %d, room %d)", it, huff, f, flag, zc, hc, room)
			}
		}
	}
	if seen[0] == 0 || seen[flagCompressed] == 0 || seen[flagHuffman] == 0 {
		t.Fatalf("not every outcome exercised: %v", seen)
	}
}
