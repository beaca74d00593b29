// Package zrle implements the zero-based run-length compression of bit
// streams that DOOM III's message channel applies to every message
// (DOOM III paper §4.3).
//
// Delta-compressed, bit-packed data is not a stream of fixed-length symbols:
// the delta writer (package bitmsg) emits a single 0 bit for every unchanged
// variable, so the stream is dominated by runs of zero bits. The compressor
// reads the stream as words of w bits (w = 3 in DOOM III, [DefaultWordBits]):
//
//   - a non-zero word is copied unchanged;
//   - a run of k all-zero words, 1 <= k <= 2^w, becomes one zero word
//     followed by a w-bit count holding k-1. Longer runs are split into
//     several such codes.
//
// A run of 2^w zero words (8 words = 24 bits for w = 3) costs 2w bits, so the
// best ratio is 2^w/2 : 1 (the paper's 4:1 for w = 3). The worst case is an
// isolated zero word between non-zero words, which costs 2w bits for w bits
// of input: for n = ceil(srcBits/w) input words the output never exceeds
//
//	MaxCompressedBits = w * (n + ceil(n/2))
//
// bits (about 1.5x the input, reached by the pattern zero, non-zero, zero,
// ...). The netchan package only sends the compressed form when it is smaller,
// so this bound matters only for callers that size buffers up front.
//
// Bit order is LSB first, as in package bitmsg: the first bit of the stream
// is bit 0 of byte 0 and a word's first bit is its least significant bit. A
// trailing partial word is padded with zero bits; the caller keeps the
// original bit length and passes it to [Decompress], which writes exactly
// that many bits. Compressed streams may be followed by up to 7 zero padding
// bits, so a byte-aligned container need not record the compressed length in
// bits. Decompress treats its input as hostile: it never writes past dst and
// rejects streams that decode to more than the announced length, end inside
// a code, or carry non-zero bits where padding must be.
//
// In the layers of snapwire (docs/PROTOCOL.md), zrle sits between the bit
// message layer that produces the delta-compressed stream and the message
// channel (package netchan) that compresses every message body with it.
package zrle
