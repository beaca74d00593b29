package huffman_test

import (
	"fmt"

	"github.com/snapwire/snapwire/internal/q3/huffman"
)

// The adaptive coder, as the engine packs a `connect` packet's userinfo:
// a 16-bit length, then codes that shorten as the tree learns the text.
func ExampleCompress() {
	userinfo := []byte(`"\name\UnnamedPlayer\rate\25000\snaps\20\model\sarge\handicap\100\qport\1234\protocol\68"`)
	packed, err := huffman.Compress(nil, userinfo)
	if err != nil {
		panic(err)
	}
	back, err := huffman.Decompress(nil, packed, 16384-12)
	fmt.Println(len(userinfo), "bytes packed into", len(packed), "and back:", string(back) == string(userinfo), err)
	// Output: 89 bytes packed into 82 and back: true <nil>
}

// The fixed code every netchan message goes through: frequent bytes get
// short codes, rare ones up to MaxLen (msg_hData, the engine's frequency
// table). Decode reads a symbol from the next MaxLen bits of a stream.
func ExampleFixed() {
	f := huffman.FixedCode()
	for _, b := range []byte{0x00, 0xff, 'e', 0xf7} {
		bits, n := f.Code(b)
		sym, m := f.Decode(uint64(bits))
		fmt.Printf("%#02x: %2d bits, decodes to %#02x in %d\n", b, n, sym, m)
	}
	// Output:
	// 0x00:  2 bits, decodes to 0x00 in 2
	// 0xff:  6 bits, decodes to 0xff in 6
	// 0x65:  7 bits, decodes to 0x65 in 7
	// 0xf7: 11 bits, decodes to 0xf7 in 11
}
