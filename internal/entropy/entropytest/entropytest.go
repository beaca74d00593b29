// Package entropytest generates bodies for the tests of the entropy coders
// (package internal/entropy) and of the channel that uses them (package
// internal/netchan).
package entropytest

import "math/rand/v2"

// SparseBodies returns n bodies like bit-packed deltas, from a seeded
// generator (the same seed gives the same bodies), each between size/2 and
// 3*size/2 bytes: fields written bit by bit in bitmsg's order (each byte
// from its least significant bit), each a change flag that is mostly 0 and,
// when set, a 10-bit value that is mostly small.
func SparseBodies(seed uint64, n, size int) [][]byte {
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
