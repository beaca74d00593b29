package entropy

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/snapwire/snapwire/internal/entropy/entropytest"
)

var testEntropy = TrainModel(entropytest.SparseBodies(1, 200, 200))

// The range coder round-trips every body, and its streams are canonical.
func TestEntropyRoundTrip(t *testing.T) {
	var e RangeEncoder
	var d RangeDecoder
	rng := rand.New(rand.NewPCG(3, 4))
	bodies := append(entropytest.SparseBodies(2, 100, 300), []byte{}, []byte{0}, []byte{0xFF}, bytes.Repeat([]byte{0}, 1000))
	for range 50 {
		b := make([]byte, rng.IntN(500))
		for j := range b {
			b[j] = byte(rng.Uint32()) // incompressible
		}
		bodies = append(bodies, b)
	}
	for i, body := range bodies {
		dst := make([]byte, 2*len(body)+16)
		n := e.Encode(testEntropy, dst, body)
		if n < 0 {
			t.Fatalf("body %d (%d bytes): no room", i, len(body))
		}
		out := make([]byte, len(body))
		if err := d.Decode(testEntropy, out, dst[:n]); err != nil || !bytes.Equal(out, body) {
			t.Fatalf("body %d (%d bytes, stream %d): %v", i, len(body), n, err)
		}
		if d.Decode(testEntropy, out, append(dst[:n:n], 0)) == nil {
			t.Fatalf("body %d: a trailing zero was accepted", i)
		}
	}
}

// A model survives MarshalBinary and NewModel; bad models are
// rejected.
func TestModelBinary(t *testing.T) {
	b, _ := testEntropy.MarshalBinary()
	m, err := NewModel(b)
	if err != nil || m.prior != testEntropy.prior {
		t.Fatalf("round trip: %v", err)
	}
	if _, err := NewModel(b[:100]); err == nil {
		t.Fatal("short model accepted")
	}
	b[10], b[11] = 0, 0
	if _, err := NewModel(b); err == nil {
		t.Fatal("probability 0 accepted")
	}
}

// FuzzEntropyDecode: any stream decodes or is rejected, without panicking,
// and what decodes survives a round trip of its own. (A range coder's
// stream is not unique: several streams decode to one body.)
func FuzzEntropyDecode(f *testing.F) {
	var e RangeEncoder
	for _, b := range entropytest.SparseBodies(10, 20, 100) {
		dst := make([]byte, 2*len(b)+16)
		n := e.Encode(testEntropy, dst, b)
		f.Add(dst[:n], uint16(len(b)))
	}
	f.Add([]byte{}, uint16(0))
	f.Add([]byte{0xFF, 0xFF, 0xFF, 0xFF, 0xFF}, uint16(40))
	f.Fuzz(func(t *testing.T, src []byte, n uint16) {
		var d RangeDecoder
		out := make([]byte, int(n)%4096)
		if d.Decode(testEntropy, out, src) != nil {
			return
		}
		var e RangeEncoder
		dst := make([]byte, 2*len(out)+16)
		k := e.Encode(testEntropy, dst, out)
		again := make([]byte, len(out))
		if k < 0 || d.Decode(testEntropy, again, dst[:k]) != nil || !bytes.Equal(again, out) {
			t.Fatalf("%x decodes to %x, whose own stream %x does not round-trip", src, out, dst[:max(k, 0)])
		}
	})
}
