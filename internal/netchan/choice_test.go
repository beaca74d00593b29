package netchan

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/snapwire/snapwire/internal/entropy"
	"github.com/snapwire/snapwire/internal/zrle"
)

// TestStageChoice: the sender's choice between raw, zrle and Huffman (with zrle skipped when
// zrle.LowerBound or its exact size, zrle.CompressedBits, shows it cannot fit) is the choice
// made by running every stage in full:
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
		switch it % 5 {
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
		case 4: // random bytes between zero runs of 2..40 bytes (many longer than one zrle count)
			for i := rng.IntN(8); i < n; i += 2 + rng.IntN(40) {
				p[i] = byte(rng.Uint32()) | 1
			}
		}
		for _, huff := range []bool{false, true} {
			seen[checkStageChoice(t, p, huff)]++
		}
	}
	if seen[0] == 0 || seen[flagCompressed] == 0 || seen[flagHuffman] == 0 {
		t.Fatalf("not every outcome exercised: %v", seen)
	}
}

// checkStageChoice sends payload p (with testHuffman when huff) and fails unless the packet's
// stage and stream are those of TestStageChoice's full run of every stage; it returns the
// stage's flag (0: raw).
func checkStageChoice(t testing.TB, p []byte, huff bool) uint8 {
	t.Helper()
	n := len(p)
	got := capture(t, New(Config{Huffman: map[bool]*entropy.HuffmanTable{true: testHuffman}[huff], MTU: 65000}, 1), 0, 3, p)[0]
	k := uvarintLen(uint64(n))
	room := n - 1 - k
	zbuf := make([]byte, (zrle.MaxCompressedBits(n*8, zrle.DefaultWordBits)+7)/8+8)
	zb, err := zrle.Compress(zbuf, p, n*8, zrle.DefaultWordBits)
	if err != nil {
		t.Fatal(err)
	}
	zc, hc := (zb+7)/8, (testHuffman.Bits(p)+7)/8
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
			testHuffman.Encode(h, p)
			want = append(want, h...)
		}
	}
	if f := got[0] & (flagCompressed | flagHuffman); f != flag || !bytes.Equal(got[headerLen:], want) {
		t.Fatalf("len %d huff %v: flags %x want %x (zrle %d, Huffman %d, room %d)", n, huff, f, flag, zc, hc, room)
	}
	return flag
}

// FuzzStageChoice: TestStageChoice's check on any payload, with and without Config.Huffman.
func FuzzStageChoice(f *testing.F) {
	f.Add(make([]byte, 64))
	f.Add(append(make([]byte, 40), 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7))
	f.Add([]byte("the quick brown fox"))
	f.Fuzz(func(t *testing.T, p []byte) {
		if len(p) == 0 || len(p) > 4000 {
			return
		}
		for _, huff := range []bool{false, true} {
			checkStageChoice(t, p, huff)
		}
	})
}
