package netchan

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/snapwire/snapwire/internal/entropy"
	"github.com/snapwire/snapwire/internal/entropy/entropytest"
)

// The channel's entropy stage (Config.Entropy, package internal/entropy's
// range coder): chosen only when it wins, decoded within the limits.

var testEntropy = entropy.TrainModel(entropytest.SparseBodies(1, 200, 200))

// On sparse bodies like the ones it was trained on, the entropy stage is
// shorter than zrle and than a Huffman code trained on the same bodies.
func TestEntropyBeatsZrleAndHuffmanOnSparseBodies(t *testing.T) {
	var freq [256]uint64
	for _, b := range entropytest.SparseBodies(1, 200, 200) {
		for _, c := range b {
			freq[c]++
		}
	}
	huff, err := entropy.NewHuffmanTable(entropy.BuildHuffmanLengths(freq))
	if err != nil {
		t.Fatal(err)
	}
	var rc, hf, zr, chosen int
	for _, body := range entropytest.SparseBodies(9, 100, 200) {
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
	sparse := entropytest.SparseBodies(4, 1, 200)[0]
	q := capture(t, New(Config{Entropy: testEntropy}, 1), 0, 1, sparse)[0]
	if err := New(Config{}, 1).Receive(0, q, &countHandler{}); !errors.Is(err, ErrNoEntropyModel) {
		t.Fatalf("no model: %v", err)
	}
}

// Sending and receiving through the entropy stage allocates nothing.
func TestEntropyNoAllocs(t *testing.T) {
	body := entropytest.SparseBodies(8, 1, 200)[0]
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
