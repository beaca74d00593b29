package netchan

import (
	"errors"
	"testing"

	"github.com/snapwire/snapwire/internal/entropy"
)

// testHuffman is a table for a skewed byte distribution (as in
// internal/entropy's tests): low bytes get short codes.
var testHuffman = func() *entropy.HuffmanTable {
	var freq [256]uint64
	for b := range freq {
		freq[b] = 1 << (15 - b/18)
	}
	t, err := entropy.NewHuffmanTable(entropy.BuildHuffmanLengths(freq))
	if err != nil {
		panic(err)
	}
	return t
}()

// A channel without a table rejects an H packet with ErrNoHuffmanTable.
func TestHuffmanPacketWithoutTable(t *testing.T) {
	pkt := capture(t, New(Config{Huffman: testHuffman}, 7), 0, 1, huffmanFriendly())[0]
	if pkt[0]&flagHuffman == 0 {
		t.Fatalf("payload not Huffman coded: %x", pkt)
	}
	err := New(Config{}, 7).Receive(0, pkt, &countHandler{})
	if !errors.Is(err, ErrNoHuffmanTable) {
		t.Fatalf("Receive: %v, want ErrNoHuffmanTable", err)
	}
}
