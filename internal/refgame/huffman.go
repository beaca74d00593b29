package refgame

import (
	"sync"

	"github.com/snapwire/snapwire/internal/entropy"
)

// HuffmanTable returns the arena's static Huffman table for the message
// channel's optional Huffman stage (netchan.Config.Huffman): a code built
// from the byte frequencies of the arena's own channel bodies (snapshots
// and reliable "apply" messages) recorded on other map seeds than the
// benchmark's, in huffman_table.go. A channel configured with it codes an
// arena body with it whenever that is shorter than zrle; server and client
// must both use it. The table is built once and shared read-only.
func HuffmanTable() *entropy.HuffmanTable { return huffmanTable() }

var huffmanTable = sync.OnceValue(func() *entropy.HuffmanTable {
	t, err := entropy.NewHuffmanTable(huffmanLengths)
	if err != nil {
		// huffman_table.go is generated and checked by TestHuffmanTableLoads.
		panic("refgame: huffman_table.go: " + err.Error())
	}
	return t
})
