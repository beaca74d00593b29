package netchan

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"
)

// sparseBodies are bodies like bit-packed deltas, from a seeded generator:
// fields written bit by bit in bitmsg's order (each byte from its least
// significant bit), each a change flag that is mostly 0 and, when set, a
// 10-bit value that is mostly small.
func sparseBodies(seed uint64, n, size int) [][]byte {
	rng := rand.New(rand.NewPCG(seed, 7))
	out := make([][]byte, n)
	for i := range out {
		b := make([]byte, size/2+rng.IntN(size))
		bit := 0
		put := func(v uint32, w int) {
			for k := 0; k < w && bit < 8*len(b); k++ {
				b[bit/8] |= byte(v>>k&1) << (bit % 8)
				bit++
			}
		}
		for bit < 8*len(b) {
			if rng.IntN(5) != 0 {
				put(0, 1)
				continue
			}
			put(1, 1)
			put(uint32(rng.IntN(1+rng.IntN(1024)>>rng.IntN(8))), 10)
		}
		out[i] = b
	}
	return out
}

var testEntropy = TrainEntropyModel(sparseBodies(1, 200, 200))

// The range coder round-trips every body, and its streams are canonical.
func TestEntropyRoundTrip(t *testing.T) {
	var e rcEncoder
	var probs [rcContexts]uint16
	rng := rand.New(rand.NewPCG(3, 4))
	bodies := append(sparseBodies(2, 100, 300), []byte{}, []byte{0}, []byte{0xFF}, bytes.Repeat([]byte{0}, 1000))
	for range 50 {
		b := make([]byte, rng.IntN(500))
		for j := range b {
			b[j] = byte(rng.Uint32()) // incompressible
		}
		bodies = append(bodies, b)
	}
	for i, body := range bodies {
		dst := make([]byte, 2*len(body)+16)
		n := e.encode(testEntropy, dst, body)
		if n < 0 {
			t.Fatalf("body %d (%d bytes): no room", i, len(body))
		}
		out := make([]byte, len(body))
		if err := rcDecode(testEntropy, &probs, out, dst[:n]); err != nil || !bytes.Equal(out, body) {
			t.Fatalf("body %d (%d bytes, stream %d): %v", i, len(body), n, err)
		}
		if rcDecode(testEntropy, &probs, out, append(dst[:n:n], 0)) == nil {
			t.Fatalf("body %d: a trailing zero was accepted", i)
		}
	}
}

// On sparse bodies like the ones it was trained on, the entropy stage is
// shorter than zrle and than a Huffman code trained on the same bodies.
func TestEntropyBeatsZrleAndHuffmanOnSparseBodies(t *testing.T) {
	var freq [256]uint64
	for _, b := range sparseBodies(1, 200, 200) {
		for _, c := range b {
			freq[c]++
		}
	}
	huff, err := NewHuffmanTable(BuildHuffmanLengths(freq))
	if err != nil {
		t.Fatal(err)
	}
	var rc, hf, zr, chosen int
	for _, body := range sparseBodies(9, 100, 200) {
		plain := New(Config{MTU: 65000, Huffman: huff}, 1)
		coded := New(Config{MTU: 65000, Huffman: huff, Entropy: testEntropy}, 1)
		zonly := New(Config{MTU: 65000}, 1)
		p1, p2, p3 := capture(t, plain, 0, 1, body)[0], capture(t, coded, 0, 1, body)[0], capture(t, zonly, 0, 1, body)[0]
		if p2[0]&(flagCompressed|flagHuffman) == flagCompressed|flagHuffman {
			chosen++
		} else if len(p2) != len(p1) {
			t.Fatalf("body of %d bytes not entropy coded, yet %d bytes against %d", len(body), len(p2), len(p1))
		}
		var r recorder
		mustReceive(t, New(Config{Huffman: huff, Entropy: testEntropy}, 1), 0, [][]byte{p2}, &r)
		if len(r.unrel) != 1 || !bytes.Equal(r.unrel[0], body) {
			t.Fatal("entropy-coded packet delivered another payload")
		}
		rc, hf, zr = rc+len(p2), hf+len(p1), zr+len(p3)
	}
	t.Logf("100 sparse bodies: entropy stage chosen for %d, %d bytes; zrle or Huffman %d, zrle %d", chosen, rc, hf, zr)
	if rc >= hf || hf > zr || chosen < 50 {
		t.Fatalf("entropy %d, zrle or Huffman %d, zrle %d bytes", rc, hf, zr)
	}
}

// The entropy stage is only chosen when it wins: on incompressible bodies
// the channel sends the body raw, and a channel without the model rejects
// an entropy-coded packet.
func TestEntropyOnlyWhenShorter(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	body := make([]byte, 300)
	for i := range body {
		body[i] = byte(rng.Uint32())
	}
	p := capture(t, New(Config{Entropy: testEntropy}, 1), 0, 1, body)[0]
	if p[0]&(flagCompressed|flagHuffman) != 0 {
		t.Fatalf("incompressible body sent with flags %x", p[0])
	}
	sparse := sparseBodies(4, 1, 200)[0]
	q := capture(t, New(Config{Entropy: testEntropy}, 1), 0, 1, sparse)[0]
	if err := New(Config{}, 1).Receive(0, q, &countHandler{}); !errors.Is(err, ErrNoEntropyModel) {
		t.Fatalf("no model: %v", err)
	}
}

// A model survives MarshalBinary and NewEntropyModel; bad models are
// rejected.
func TestEntropyModelBinary(t *testing.T) {
	b, _ := testEntropy.MarshalBinary()
	m, err := NewEntropyModel(b)
	if err != nil || m.prior != testEntropy.prior {
		t.Fatalf("round trip: %v", err)
	}
	if _, err := NewEntropyModel(b[:100]); err == nil {
		t.Fatal("short model accepted")
	}
	b[10], b[11] = 0, 0
	if _, err := NewEntropyModel(b); err == nil {
		t.Fatal("probability 0 accepted")
	}
}

// Sending and receiving through the entropy stage allocates nothing.
func TestEntropyNoAllocs(t *testing.T) {
	body := sparseBodies(8, 1, 200)[0]
	a, b := New(Config{Entropy: testEntropy}, 1), New(Config{Entropy: testEntropy}, 1)
	var h countHandler
	var now int64
	allocs := testing.AllocsPerRun(100, func() {
		now++
		a.Send(0, 1, body, func(p []byte) {
			if err := b.Receive(0, p, &h); err != nil {
				t.Fatal(err)
			}
		})
	})
	if allocs != 0 || h.unrel == 0 {
		t.Fatalf("%v allocations per packet, %d delivered", allocs, h.unrel)
	}
}

// FuzzEntropyDecode: any stream decodes or is rejected, without panicking,
// and what decodes survives a round trip of its own. (A range coder's
// stream is not unique: several streams decode to one body.)
func FuzzEntropyDecode(f *testing.F) {
	var e rcEncoder
	for _, b := range sparseBodies(10, 20, 100) {
		dst := make([]byte, 2*len(b)+16)
		n := e.encode(testEntropy, dst, b)
		f.Add(dst[:n], uint16(len(b)))
	}
	f.Add([]byte{}, uint16(0))
	f.Add([]byte{0xFF, 0xFF, 0xFF, 0xFF, 0xFF}, uint16(40))
	f.Fuzz(func(t *testing.T, src []byte, n uint16) {
		var probs [rcContexts]uint16
		out := make([]byte, int(n)%4096)
		if rcDecode(testEntropy, &probs, out, src) != nil {
			return
		}
		var e rcEncoder
		dst := make([]byte, 2*len(out)+16)
		k := e.encode(testEntropy, dst, out)
		again := make([]byte, len(out))
		if k < 0 || rcDecode(testEntropy, &probs, again, dst[:k]) != nil || !bytes.Equal(again, out) {
			t.Fatalf("%x decodes to %x, whose own stream %x does not round-trip", src, out, dst[:max(k, 0)])
		}
	})
}

// A stream that decodes to a payload larger than the receiver's
// MaxMessageBytes is rejected before it changes anything: 80,000 zero bytes
// range code to a few bytes.
func TestEntropyPayloadLimit(t *testing.T) {
	a := New(Config{MTU: 65507, MaxMessageBytes: 100000, Entropy: testEntropy}, 1)
	pkts := capture(t, a, 0, 1, make([]byte, 80000))
	if len(pkts) != 1 || len(pkts[0]) > 200 {
		t.Fatalf("%d packets, first %d bytes", len(pkts), len(pkts[0]))
	}
	b := New(Config{MTU: 65507, Entropy: testEntropy}, 1)
	var h countHandler
	if err := b.Receive(0, pkts[0], &h); !errors.Is(err, ErrMessageTooLarge) || h.unrel != 0 || b.LastReceivedSequence() != 0 {
		t.Fatalf("err %v, %d delivered, last received %d", err, h.unrel, b.LastReceivedSequence())
	}
}
