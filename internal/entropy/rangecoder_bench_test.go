package entropy

// The entropy stage's speed on a 1 KB bit-packed body: about 3 ns a bit to encode and 4 to
// decode here, so its cost grows with the body (a 256-entity snapshot pays it on every bit).

import (
	"testing"

	"github.com/snapwire/snapwire/internal/entropy/entropytest"
)

func BenchmarkEntropyEncode(b *testing.B) {
	var e RangeEncoder
	body := entropytest.SparseBodies(3, 1, 1000)[0]
	dst := make([]byte, 2*len(body)+16)
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		e.Encode(testEntropy, dst, body)
	}
}

func BenchmarkEntropyDecode(b *testing.B) {
	var e RangeEncoder
	body := entropytest.SparseBodies(3, 1, 1000)[0]
	dst := make([]byte, 2*len(body)+16)
	n := e.Encode(testEntropy, dst, body)
	out := make([]byte, len(body))
	var d RangeDecoder
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		d.Decode(testEntropy, out, dst[:n])
	}
}
