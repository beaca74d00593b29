// Package huffman implements the two Huffman coders of the Quake 3
// protocol (Quake 3 protocol description: "Huffman compression"; ioq3 code/qcommon/huffman.c),
// bit-exact with the engine.
//
// The fixed code (FixedCode) codes every byte of every netchan message. It
// is the engine's adaptive tree after being fed the msg_hData frequency
// table (ioq3 code/qcommon/msg.c) symbol by symbol, so this package
// implements the adaptive update exactly; that derivation (about a million
// updates) generates fixed_codes.go, and a test proves the generated codes
// equal it, so FixedCode builds its tables from the codes in microseconds.
// Package msg uses it for its bit stream.
//
// The adaptive coder (Compress, Decompress) codes the userinfo of the
// `connect` packet, starting from an empty tree; package oob uses it.
//
// Bits are stored least significant bit of each byte first; a code's first
// bit is the root's branch. This is the lowest layer of the q3 tree.
package huffman
