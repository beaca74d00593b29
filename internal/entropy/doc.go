// Package entropy holds the two entropy coders the message channel
// (internal/netchan) may code a packet's body with, both snapwire's
// additions rather than DOOM III's (the paper compresses with zero-run
// length encoding only, §4.3, package internal/zrle):
//
//   - a static Huffman code over bytes (huffman.go: HuffmanTable, built
//     from a game's measured byte frequencies by BuildHuffmanLengths and
//     NewHuffmanTable), as Quake 3 codes its messages with a tree trained
//     on its traffic;
//   - an adaptive binary range coder over the body's bits (rangecoder.go:
//     RangeEncoder and RangeDecoder, LZMA's coder), starting every body
//     from a prior trained on a game's traffic (Model, TrainModel).
//
// Both code one body at a time with no state crossing bodies, since a
// packet may be lost, and allocate nothing per body. A game supplies its
// tables (the reference arena's live in internal/refgame); the channel
// (netchan.Config.Huffman, netchan.Config.Entropy) chooses, packet by
// packet, the shortest of zrle and these. The package does no I/O and
// imports nothing of snapwire's.
package entropy
