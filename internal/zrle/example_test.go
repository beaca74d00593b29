package zrle_test

import (
	"fmt"

	"github.com/snapwire/snapwire/internal/zrle"
)

// A delta-compressed entity is mostly zero bits (one per unchanged field):
// zero-run-length coding with 3-bit words (DOOM III §4.3) shrinks it, and
// Decompress gives the bits back.
func Example() {
	src := make([]byte, 32) // 256 bits
	src[3], src[20] = 0x05, 0x80
	dst := make([]byte, (zrle.MaxCompressedBits(256, zrle.DefaultWordBits)+7)/8)
	n, err := zrle.Compress(dst, src, 256, zrle.DefaultWordBits)
	if err != nil {
		panic(err)
	}
	back := make([]byte, 32)
	if err := zrle.Decompress(back, dst, n, zrle.DefaultWordBits, 256); err != nil {
		panic(err)
	}
	fmt.Printf("256 bits -> %d bits, round trip equal: %v\n", n, string(back) == string(src))
	// Output: 256 bits -> 72 bits, round trip equal: true
}
