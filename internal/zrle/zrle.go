package zrle

import (
	"encoding/binary"
	"errors"
	"math"
	"math/bits"
)

// DefaultWordBits is the word length DOOM III uses: "for the DOOM III
// entities using 3 bits results in the best compression ratios in practice"
// (DOOM III §4.3).
const DefaultWordBits = 3

// Word sizes accepted by Compress and Decompress.
const (
	MinWordBits = 2
	MaxWordBits = 8
)

var (
	// ErrShortBuffer is returned when dst cannot hold the output. Nothing is
	// ever written past the end of dst.
	ErrShortBuffer = errors.New("zrle: destination buffer too short")
	// ErrCorrupt is returned by Decompress for a stream that is not the
	// compression of outBits bits: it decodes to more words than outBits
	// needs, ends inside a word or count, has non-zero padding bits in the
	// last word, or has more than 7 bits (or non-zero bits) after its last code.
	ErrCorrupt = errors.New("zrle: corrupt input")
	// ErrWordBits is returned for a word size outside MinWordBits..MaxWordBits.
	ErrWordBits = errors.New("zrle: word size outside 2..8 bits")
	// ErrBitLength is returned for a negative bit length or one larger than
	// the source buffer holds.
	ErrBitLength = errors.New("zrle: bit length out of range")
)

// MaxCompressedBits returns the largest number of bits Compress can produce
// for srcBits bits of input with words of wordBits bits. With
// n = ceil(srcBits/wordBits) input words it is wordBits*(n + ceil(n/2)): a
// non-zero word costs w bits, a run of zero words costs 2w bits and covers at
// least one word, and only isolated zero words (which need a non-zero word
// between them) cost more than their input, at most ceil(n/2) of them.
// It returns 0 for an invalid word size or a negative length.
func MaxCompressedBits(srcBits, wordBits int) int {
	if wordBits < MinWordBits || wordBits > MaxWordBits || srcBits <= 0 {
		return 0
	}
	n := (srcBits + wordBits - 1) / wordBits
	return wordBits * (n + (n+1)/2)
}

// Compress compresses the first srcBits bits of src into dst and returns the
// number of bits written. Bits of src beyond srcBits are ignored; a trailing
// partial word is padded with zero bits. The bits of the last written byte
// of dst beyond dstBits are zero; bytes after it are untouched. If the
// output does not fit in len(dst) bytes, Compress returns ErrShortBuffer
// (dst may then hold a partial output).
//
// It works a block of whole words at a time (up to 56 bits, one load): a
// word mask marks the non-zero words (SWAR, as nonZeroWords), runs of
// non-zero words are copied with one put and runs of zero words are counted
// with one TrailingZeros, so the cost grows with the number of runs rather
// than the number of words.
func Compress(dst, src []byte, srcBits, wordBits int) (dstBits int, err error) {
	if wordBits < MinWordBits || wordBits > MaxWordBits {
		return 0, ErrWordBits
	}
	if srcBits < 0 || srcBits > len(src)*8 {
		return 0, ErrBitLength
	}
	if srcBits == 0 {
		return 0, nil
	}
	w := uint(wordBits)
	lanes := laneStarts[w]
	div := &wordsIn[w]
	maxRun := 1 << w
	fullCode := uint64(maxRun-1) << w // a run of 2^w zero words
	block := int(div[56]) * wordBits  // bits per block
	blockMask := uint64(1)<<uint(block) - 1
	out := fastWriter{dst: dst}
	run := 0 // zero words not yet written
	for p := 0; p < srcBits; p += block {
		if out.full {
			return 0, ErrShortBuffer // dst ran out: stop now rather than at the end
		}
		v, end := uint64(0), block // a whole block of bits (whole words)
		if i := p >> 3; i+8 <= len(src) && srcBits-p >= block {
			v = binary.LittleEndian.Uint64(src[i:]) >> uint(p&7) & blockMask
		} else {
			v, end = loadTail(src, srcBits, p, block, wordBits, div)
		}
		nz := orWords(v, w) & lanes & (uint64(1)<<uint(end) - 1)
		zl := (^nz & lanes) | uint64(1)<<uint(end) // zero words, with a stop at the end
		// Alternate: a stretch of non-zero words (maybe empty), then a run of zero words.
		if run > 0 && nz&1 != 0 { // a run that ended with the previous block
			for ; run > maxRun; run -= maxRun {
				out.put(fullCode, 2*w)
			}
			out.put(uint64(run-1)<<w, 2*w)
			run = 0
		}
		pos := uint(0)
		for {
			z0 := uint(bits.TrailingZeros64(zl >> pos)) // bits of non-zero words from pos
			out.put(v>>pos&(uint64(1)<<z0-1), z0)       // (none when z0 = 0)
			pos += z0
			if pos >= uint(end) {
				break
			}
			rest := nz >> pos
			if rest == 0 { // zero words to the end of the block: the run may go on
				run += int(div[uint(end)-pos])
				break
			}
			tz := uint(bits.TrailingZeros64(rest))
			run += int(div[tz])
			pos += tz
			for ; run > maxRun; run -= maxRun {
				out.put(fullCode, 2*w)
			}
			out.put(uint64(run-1)<<w, 2*w) // 1 <= run <= maxRun
			run = 0
		}
	}
	for ; run >= maxRun; run -= maxRun {
		out.put(fullCode, 2*w)
	}
	if run > 0 {
		out.put(uint64(run-1)<<w, 2*w)
	}
	if !out.flush() {
		return 0, ErrShortBuffer
	}
	return out.bits(), nil
}

// LowerBound returns a lower bound on the bits Compress writes for the first srcBits bits of
// src with words of wordBits bits, in one pass that writes nothing: w bits per non-zero word
// and 2w per run of zero words, which is exact unless a run is longer than 2^w words (it then
// takes more than one count). A caller choosing between stages (netchan: zrle or Huffman, or
// neither) skips Compress when even the bound cannot win. It returns 0 for an invalid word
// size or length, as it does for srcBits == 0.
func LowerBound(src []byte, srcBits, wordBits int) int {
	return lowerBound(src, srcBits, wordBits, math.MaxInt)
}

// LowerBoundAbove reports whether LowerBound(src, srcBits, wordBits) > limit, stopping as soon
// as the count passes limit: a caller that only needs to know whether Compress could fit in
// limit bits (netchan, against the Huffman stage's size) reads only as much of src as that takes.
func LowerBoundAbove(src []byte, srcBits, wordBits, limit int) bool {
	return lowerBound(src, srcBits, wordBits, limit) > limit
}

// lowerBound is LowerBound, returning as soon as the count is above limit (with a count above
// limit, not the whole bound).
func lowerBound(src []byte, srcBits, wordBits, limit int) int {
	if wordBits < MinWordBits || wordBits > MaxWordBits || srcBits <= 0 || srcBits > len(src)*8 {
		return 0
	}
	w := uint(wordBits)
	lanes := laneStarts[w]
	div := &wordsIn[w]
	block := int(div[56]) * wordBits
	blockMask := uint64(1)<<uint(block) - 1
	// First, blocks that start on a byte (alignedBytes): one load each, no shift, no end;
	// with the default word size a constant (its shifts need no count register). count: the
	// bound so far in words, w per non-zero word and 2w per run (words + 2*runs); prev: 1
	// when the word before the next block was non-zero (or there is none).
	limitWords := limit / wordBits
	var i, count int
	var prev uint64
	if w == DefaultWordBits {
		i, count, prev = alignedCounts3(src, srcBits, limitWords)
	} else {
		i, count, prev = alignedCounts(src, srcBits, w, limitWords)
	}
	if count > limitWords {
		return wordBits * count
	}
	for p := 8 * i; p < srcBits; p += block {
		v, end := uint64(0), block // a whole block of bits (whole words)
		if i := p >> 3; i+8 <= len(src) && srcBits-p >= block {
			v = binary.LittleEndian.Uint64(src[i:]) >> uint(p&7) & blockMask
		} else {
			v, end = loadTail(src, srcBits, p, block, wordBits, div)
		}
		in := lanes & (uint64(1)<<uint(end) - 1)
		nz := orWords(v, w) & in
		zl := ^nz & in
		count += bits.OnesCount64(nz) + 2*bits.OnesCount64(zl&(nz<<w|prev)) // zero words after a non-zero one
		prev = nz >> uint(uint(end)-w) & 1
		if count > limitWords {
			break
		}
	}
	return wordBits * count
}

// CompressedBits returns the number of bits Compress writes for the first srcBits bits of src
// with words of wordBits bits, exactly, in one pass that writes nothing: w bits per non-zero
// word and 2w per count, where a run of k zero words takes ceil(k/2^w) counts (each covers up
// to 2^w words, DOOM III §4.3). It is LowerBound with the long runs' extra counts: a caller
// choosing between stages (netchan) runs Compress only when its output fits. It returns 0
// for an invalid word size or length, as it does for srcBits == 0.
func CompressedBits(src []byte, srcBits, wordBits int) int {
	return compressedBits(src, srcBits, wordBits, math.MaxInt)
}

// CompressedBitsAbove reports whether CompressedBits(src, srcBits, wordBits) > limit, stopping
// as soon as the count passes limit: netchan asks whether Compress's output fits in the room
// left by the raw body and the Huffman stage (limit = room*8), and skips Compress when not.
func CompressedBitsAbove(src []byte, srcBits, wordBits, limit int) bool {
	return compressedBits(src, srcBits, wordBits, limit) > limit
}

// compressedBits is CompressedBits, returning as soon as the count is above limit (with a
// count above limit, not the whole size). With the default word size it counts the blocks
// that start on a byte first (alignedSizes3, which needs the lengths of long runs only). The
// rest, and every block with other word sizes, it reads as Compress does, a block of whole
// words at a time with a mask of the non-zero words, and counts instead of writing: the
// non-zero words with one popcount per block, and each run of zero words, measured with one
// TrailingZeros (a run may go on across blocks), as ceil(run/2^w) counts.
func compressedBits(src []byte, srcBits, wordBits, limit int) int {
	if wordBits < MinWordBits || wordBits > MaxWordBits || srcBits <= 0 || srcBits > len(src)*8 {
		return 0
	}
	w := uint(wordBits)
	lanes := laneStarts[w]
	div := &wordsIn[w]
	maxRun := 1 << w
	block := int(div[56]) * wordBits // bits per block
	blockMask := uint64(1)<<uint(block) - 1
	// First, with the default word size, the blocks that start on a byte (alignedSizes3).
	// count: the size so far in words, non-zero words + 2*counts of the runs ended; run: the
	// zero words of the run not yet ended.
	limitWords := limit / wordBits
	var i, count, run int
	if w == DefaultWordBits {
		if i, count, run = alignedSizes3(src, srcBits, limitWords); count > limitWords {
			return wordBits * count
		}
	}
	for p := 8 * i; p < srcBits; p += block {
		v, end := uint64(0), block // a whole block of bits (whole words)
		if i := p >> 3; i+8 <= len(src) && srcBits-p >= block {
			v = binary.LittleEndian.Uint64(src[i:]) >> uint(p&7) & blockMask
		} else {
			v, end = loadTail(src, srcBits, p, block, wordBits, div)
		}
		in := lanes & (uint64(1)<<uint(end) - 1)
		nz := orWords(v, w) & in
		zl := ^nz & in
		count += bits.OnesCount64(nz)
		if run > 0 && nz&1 != 0 { // a run that ended with the previous block
			count += 2 * ((run + maxRun - 1) >> w)
			run = 0
		}
		stop := nz | uint64(1)<<uint(end) // non-zero words, with a stop at the end
		for zl != 0 {
			pos := uint(bits.TrailingZeros64(zl)) // the next run of zero words
			tz := uint(bits.TrailingZeros64(stop >> pos))
			run += int(div[tz])
			if pos+tz == uint(end) { // zero words to the end of the block: the run may go on
				break
			}
			count += 2 * ((run + maxRun - 1) >> w)
			run = 0
			zl &^= uint64(1)<<(pos+tz) - 1
		}
		if count > limitWords { // the count only grows: past limit already
			return wordBits * count
		}
	}
	count += 2 * ((run + maxRun - 1) >> w)
	return wordBits * count
}

// loadTail returns the bits of src from bit p on where a full 8-byte load
// or a full block is not possible (near the end of src or of the stream):
// at most block bits, never past srcBits, the rest zero; and end, the bits
// the block spans in whole words (the last word padded with zeros). The
// common case is inlined at its two callers, Compress and LowerBound.
func loadTail(src []byte, srcBits, p, block, wordBits int, div *[65]uint8) (v uint64, end int) {
	if i := p >> 3; i+8 <= len(src) {
		v = binary.LittleEndian.Uint64(src[i:]) >> uint(p&7)
	} else {
		for j := len(src) - 1; j >= i; j-- {
			v = v<<8 | uint64(src[j])
		}
		v >>= uint(p & 7)
	}
	if left := srcBits - p; left < block {
		v &= uint64(1)<<uint(left) - 1
		end = int(div[left]) * wordBits
		if end < left {
			end += wordBits
		}
		return v, end
	}
	return v & (uint64(1)<<uint(block) - 1), block
}

// orWords ORs each w-bit window of v into its first bit: masked with the
// word starts, it has a 1 at the first bit of every non-zero word.
func orWords(v uint64, w uint) uint64 {
	t := v | v>>1
	if w <= 4 {
		return t | t>>(w-2)
	}
	t |= t >> 2
	return t | t>>(w-4)
}

// fastWriter writes an LSB-first bit stream through a 64-bit accumulator,
// storing 8 bytes at a time, never past the end of dst.
type fastWriter struct {
	dst  []byte
	pos  int // bytes stored
	acc  uint64
	n    uint // pending bits in acc, < 64
	full bool // dst ran out
}

// put appends the low k bits of v, k <= 57, v < 1<<k.
func (o *fastWriter) put(v uint64, k uint) {
	o.acc |= v << o.n
	if o.n+k < 64 {
		o.n += k
		return
	}
	o.store(o.acc)
	o.acc = v >> (64 - o.n)
	o.n = o.n + k - 64
}

func (o *fastWriter) store(a uint64) {
	if o.pos+8 <= len(o.dst) {
		binary.LittleEndian.PutUint64(o.dst[o.pos:], a)
		o.pos += 8
		return
	}
	o.full = true
}

// flush stores the pending bits, the last byte padded with zeros, and
// reports whether everything fitted in dst.
func (o *fastWriter) flush() bool {
	if o.full {
		return false
	}
	nb := int(o.n+7) / 8
	if o.pos+nb > len(o.dst) {
		return false
	}
	for j := range nb {
		o.dst[o.pos+j] = byte(o.acc >> (8 * j))
	}
	return true
}

// bits returns the number of bits written.
func (o *fastWriter) bits() int { return o.pos*8 + int(o.n) }

// Decompress decodes srcBits bits of compressed src into exactly outBits
// bits of dst (the original length, known to the caller). The bits of the
// last written byte beyond outBits are zero; bytes after it are untouched.
// Up to 7 zero bits may follow the last code in src. It returns ErrShortBuffer
// if dst is shorter than outBits, and ErrCorrupt for any input that is not
// a valid compression of outBits bits.
func Decompress(dst, src []byte, srcBits, wordBits, outBits int) error {
	if wordBits < MinWordBits || wordBits > MaxWordBits {
		return ErrWordBits
	}
	if srcBits < 0 || srcBits > len(src)*8 || outBits < 0 {
		return ErrBitLength
	}
	if outBits > len(dst)*8 {
		return ErrShortBuffer
	}
	var r bitReader
	r.init(src, srcBits)
	var out bitWriter
	out.init(dst, outBits)

	w := uint(wordBits)
	mask := uint64(1)<<w - 1
	n := (outBits + wordBits - 1) / wordBits
	div := &wordsIn[w]
	batch := 32 / wordBits // words per put
	// Bits of the last word that belong to the output.
	lastBits := uint(outBits - (n-1)*wordBits)
	remaining := srcBits

	for i := 0; i < n; {
		if r.n < 32 {
			r.refill()
		}
		// Copy the non-zero words before the first zero code in one put;
		// the last output word goes the slow way for its padding check.
		if k := min(nonZeroWords(r.acc, w), int(div[r.n]), n-1-i, batch); k > 0 && int(uint(k)*w) <= remaining {
			kb := uint(k) * w
			out.put(r.acc&(uint64(1)<<kb-1), kb)
			r.consume(kb)
			remaining -= int(kb)
			i += k
			continue
		}
		if remaining < wordBits {
			return ErrCorrupt // ends inside a word
		}
		word := r.acc & mask
		r.consume(w)
		remaining -= wordBits
		if word != 0 {
			if i == n-1 {
				if word>>lastBits != 0 {
					return ErrCorrupt // non-zero padding
				}
				out.put(word, lastBits)
			} else {
				out.put(word, w)
			}
			i++
			continue
		}
		if remaining < wordBits {
			return ErrCorrupt // truncated count
		}
		if r.n < w {
			r.refill()
		}
		k := int(r.acc&mask) + 1
		r.consume(w)
		remaining -= wordBits
		if i+k > n {
			return ErrCorrupt // decodes past outBits
		}
		zeros := uint(k) * w
		if i+k == n {
			zeros -= w - lastBits
		}
		out.putZeros(zeros)
		i += k
	}
	if remaining >= 8 {
		return ErrCorrupt // trailing data
	}
	if remaining > 0 {
		if r.n < uint(remaining) {
			r.refill()
		}
		if r.acc&(uint64(1)<<uint(remaining)-1) != 0 {
			return ErrCorrupt // non-zero trailing padding
		}
	}
	out.flush()
	return nil
}

// laneStarts[w] has a 1 at bit 0, w, 2w, ... of a 64-bit word.
var laneStarts = func() (m [MaxWordBits + 1]uint64) {
	for w := MinWordBits; w <= MaxWordBits; w++ {
		for b := 0; b+w <= 64; b += w {
			m[w] |= 1 << b
		}
	}
	return m
}()

// alignedCounts is lowerBound's count over the blocks of src that start on a byte
// (alignedBytes[w] bytes each, one load, no shift) while a whole block and an 8-byte load fit:
// the bytes counted, the bound in words over them (non-zero words + 2*runs of zero words),
// and whether the last word was non-zero (1: also when none was counted). It stops once the
// count passes limitWords.
func alignedCounts(src []byte, srcBits int, w uint, limitWords int) (i, count int, prev uint64) {
	ab := int(alignedBytes[w])
	amask := uint64(1)<<(8*ab) - 1
	alanes, last := laneStarts[w]&amask, uint(8*ab)-w
	prev = 1
	for ; i+8 <= len(src) && (i+ab)*8 <= srcBits; i += ab {
		nz := orWords(binary.LittleEndian.Uint64(src[i:])&amask, w) & alanes
		// non-zero words, and twice the zero words after a non-zero one
		count += bits.OnesCount64(nz) + 2*bits.OnesCount64(^nz&alanes&(nz<<w|prev))
		prev = nz >> last & 1
		if count > limitWords { // the count only grows: past limit already
			break
		}
	}
	return i, count, prev
}

// Constants of alignedCounts3's 6-byte blocks of 16 3-bit words.
const (
	lanes3 = 0o111111111111111111 & (1<<48 - 1) // the first bit of each of the 16 words
	last3  = 45                                 // the first bit of the last word
)

// alignedCounts3 is alignedCounts for 3-bit words (DefaultWordBits), four 6-byte blocks
// (24 bytes, 64 words) per iteration, with one test of the limit and one bounds check.
//
// A block's count is one popcount, by counting changes instead of runs: in the sequence
// of words, each non-zero or zero, with the word before the first taken as non-zero (a
// run at the start counts), the runs of zero words are the changes from non-zero to
// zero, and these alternate with the changes back, so 2*runs = changes + 1 - last, where
// last is 1 when the last word is non-zero (a run at the end has no change back). Every
// change has weight 1, like a non-zero word: a block's flags of changes, shifted one bit
// (to the middle bits of the words, where no flag of a non-zero word is), join those of
// its non-zero words in one popcount. The 1 - last is added once, at the end.
func alignedCounts3(src []byte, srcBits int, limitWords int) (i, count int, prev uint64) {
	prev = 1
	// A block's 8-byte load reads 2 bytes past it: the loop stops 2 bytes before the end
	// of src, and at the end of the bits to count.
	end := min(len(src), srcBits/8+2)
	body := src[:end:end]
	n := 0 // non-zero words + changes
	for ; i+26 <= len(body); i += 24 {
		s := (*[26]byte)(body[i : i+26 : i+26])
		c0, p0 := block3(binary.LittleEndian.Uint64(s[0:8]), prev)
		c1, p1 := block3(binary.LittleEndian.Uint64(s[6:14]), p0)
		c2, p2 := block3(binary.LittleEndian.Uint64(s[12:20]), p1)
		c3, p3 := block3(binary.LittleEndian.Uint64(s[18:26]), p2)
		n += c0 + c1 + c2 + c3
		prev = p3
		if n > limitWords { // count >= n: past limit already
			break
		}
	}
	// Then single blocks, as alignedCounts, to the last whole one.
	for ; i+8 <= len(body); i += 6 {
		c, p := block3(binary.LittleEndian.Uint64(body[i:]), prev)
		n += c
		prev = p
		if n > limitWords {
			break
		}
	}
	return i, n + 1 - int(prev), prev
}

// block3 returns the non-zero words plus the changes (between non-zero and zero) of the 16
// 3-bit words in v's low 48 bits, the first compared with the word before, non-zero when
// prev is 1; and 1 when the last word is non-zero. The bits of v above 48 do not count.
func block3(v, prev uint64) (int, uint64) {
	nz := (v | v>>1 | v>>2) & lanes3 // the first bit of each non-zero word (as orWords)
	ch := (nz<<3 | prev) ^ nz        // changes, at the words' first bits (and bit 48)
	// << 15 drops the flag of bit 48 shifted to 49 (a change past the block: the next
	// block's first word is compared there).
	return bits.OnesCount64((nz | ch<<1) << 15), nz >> last3
}

// alignedSizes3 is compressedBits's count for 3-bit words (DefaultWordBits) over the 6-byte
// blocks of 16 words that start on a byte, while a whole block and an 8-byte load fit: the
// bytes counted, the size in words over them (non-zero words + 2*counts of the runs ended)
// and the zero words of the run not yet ended. It stops once the count passes limitWords.
//
// Most runs take one count (up to 8 words, DOOM III §4.3), which costs 2 words whatever its
// length: a block's runs are counted, without their lengths, by the non-zero words that
// follow a zero word (the ends of runs), weighted 2 in one popcount with the non-zero words.
// Only runs longer than 8 words need their lengths, for their extra counts: the run that goes
// on from the block before to the first non-zero word, measured with one TrailingZeros, and
// the run after the last non-zero word, with one Len64; the runs between, one by one
// (longRuns3), only in a block with at most 7 non-zero words (room for 9 zero words between).
func alignedSizes3(src []byte, srcBits int, limitWords int) (i, count, run int) {
	div := &wordsIn[DefaultWordBits]
	prev := uint64(1) // 1 when the word before the block is non-zero (or there is none)
	// A block's 8-byte load reads 2 bytes past it: the loop stops 2 bytes before the end of
	// src, and at the end of the bits to count.
	end := min(len(src), srcBits/8+2)
	body := src[:end:end]
	for ; i+8 <= len(body); i += 6 {
		v := binary.LittleEndian.Uint64(body[i:])
		nz := (v | v>>1 | v>>2) & lanes3 // the first bit of each non-zero word (as orWords)
		if nz == 0 {
			run += 16 // the run goes on
			prev = 0
			continue
		}
		ends := nz &^ (nz<<3 | prev) // non-zero words after a zero word: the ends of runs
		nonZero := bits.OnesCount64(nz)
		count += nonZero + 2*bits.OnesCount64(ends)
		if r := run + int(div[bits.TrailingZeros64(nz)]); r > 8 { // the run that ends at the first non-zero word
			count += 2 * ((r - 1) >> 3)
		}
		if nonZero <= 7 {
			count += longRuns3(nz)
		}
		run = int(div[bits.LeadingZeros64(nz)-(64-last3-3)]) // the run after the last non-zero word
		prev = nz >> last3
		if count > limitWords { // the count only grows: past limit already
			return i + 6, count, run
		}
	}
	return i, count, run
}

// longRuns3 returns the extra counts, in words (2 each), of the runs of zero 3-bit words
// between the first and the last non-zero words of a block (nz: the first bit of each
// non-zero word) that are longer than one count covers (8 words): none unless 9 zero words
// in a row (t, by doubling: words p..p+8 zero) are found, and then the runs one by one.
func longRuns3(nz uint64) (count int) {
	first, last := uint(bits.TrailingZeros64(nz)), uint(63-bits.LeadingZeros64(nz))
	between := ^nz & lanes3 &^ (uint64(2)<<first - 1) & (uint64(1)<<last - 1)
	t := between & (between >> 3)
	t &= t >> 6
	t &= t >> 12
	if t&(between>>24) == 0 {
		return 0
	}
	for between != 0 {
		start := uint(bits.TrailingZeros64(between))
		length := uint(bits.TrailingZeros64(nz>>start)) / 3 // zero words to the next non-zero word
		if length > 8 {
			count += 2 * int((length-1)>>3)
		}
		between &^= uint64(1)<<(start+3*length) - 1
	}
	return count
}

// alignedBytes[w] is the bytes of lowerBound's aligned blocks for w-bit words: the most whole
// words that fill whole bytes and fit in 7 bytes (an 8-byte load holds them at any offset).
var alignedBytes = func() (t [MaxWordBits + 1]uint) {
	for w := MinWordBits; w <= MaxWordBits; w++ {
		unit := w // bytes of the shortest run of whole words that ends on a byte: lcm(w, 8)/8
		for unit%8 != 0 {
			unit += w
		}
		unit /= 8
		t[w] = 7 / uint(unit) * uint(unit)
	}
	return t
}()

// wordsIn[w][b] is b/w for b in 0..64: whole words in b bits, without a
// division in the inner loops.
var wordsIn = func() (t [MaxWordBits + 1][65]uint8) {
	for w := MinWordBits; w <= MaxWordBits; w++ {
		for b := range 65 {
			t[w][b] = uint8(b / w)
		}
	}
	return t
}()

// nonZeroWords counts the non-zero w-bit words at the bottom of x before
// the first zero word (SWAR: OR each word's bits into its lowest bit).
func nonZeroWords(x uint64, w uint) int {
	// OR over a window of exactly w bits, by doubling: windows 2, then
	// 2+(w-2) = w, or 4, then 4+(w-4) = w.
	t := x | x>>1
	if w <= 4 {
		t |= t >> (w - 2)
	} else {
		t |= t >> 2
		t |= t >> (w - 4)
	}
	return int(wordsIn[w][bits.TrailingZeros64(^t&laneStarts[w])])
}

// bitReader reads an LSB-first bit stream through a 64-bit accumulator.
// Only the low n bits of acc are guaranteed loaded; once the source is
// exhausted the bits above n are zero, which is the padding Compress needs.
type bitReader struct {
	src      []byte // the ceil(bits/8) bytes holding the stream
	pos      int    // next byte of src to load
	acc      uint64
	n        uint // valid bits in acc
	lastMask byte // mask for the last byte, clearing bits past the stream
}

func (r *bitReader) init(src []byte, nbits int) {
	nb := (nbits + 7) / 8
	r.src = src[:nb]
	r.lastMask = 0xFF
	if rem := nbits % 8; rem != 0 {
		r.lastMask = byte(1)<<rem - 1
	}
}

// refill loads bytes until at least 57 bits are valid or the source ends.
func (r *bitReader) refill() {
	// Fast path: 8 bytes at once, never touching the (masked) last byte.
	// Bits loaded above n are the true next bytes and are ORed in again,
	// unchanged, by the next refill.
	if r.pos+8 < len(r.src) {
		r.acc |= binary.LittleEndian.Uint64(r.src[r.pos:]) << r.n
		adv := (63 - r.n) >> 3
		r.pos += int(adv)
		r.n += adv * 8
		return
	}
	for r.n <= 56 && r.pos < len(r.src) {
		b := r.src[r.pos]
		if r.pos == len(r.src)-1 {
			b &= r.lastMask
		}
		r.acc |= uint64(b) << r.n
		r.pos++
		r.n += 8
	}
}

func (r *bitReader) consume(k uint) {
	r.acc >>= k
	if k > r.n {
		r.n = 0
		return
	}
	r.n -= k
}

// bitWriter writes an LSB-first bit stream of at most limit bits.
type bitWriter struct {
	dst   []byte
	pos   int // bytes stored
	acc   uint64
	n     uint // pending bits in acc
	bits  int  // total bits written
	limit int
}

func (w *bitWriter) init(dst []byte, limit int) {
	w.dst = dst
	w.limit = limit
}

// put appends the low k bits of v (k <= 32; v has no bits above k). It
// returns false, writing nothing, if the output would exceed its limit.
func (w *bitWriter) put(v uint64, k uint) bool {
	if w.bits+int(k) > w.limit {
		return false
	}
	w.acc |= v << w.n
	w.n += k
	w.bits += int(k)
	if w.n >= 32 {
		w.store32()
	}
	return true
}

// putZeros appends k zero bits; the caller has checked the limit.
func (w *bitWriter) putZeros(k uint) {
	w.bits += int(k)
	for k > 0 {
		step := min(k, 32)
		w.n += step
		k -= step
		if w.n >= 32 {
			w.store32()
		}
	}
}

func (w *bitWriter) store32() {
	// put and putZeros keep bits <= limit <= 8*len(dst), so these four
	// complete bytes are inside dst.
	binary.LittleEndian.PutUint32(w.dst[w.pos:], uint32(w.acc))
	w.pos += 4
	w.acc >>= 32
	w.n -= 32
}

// flush stores the pending bits, the last byte padded with zeros.
func (w *bitWriter) flush() {
	for w.n > 0 {
		w.dst[w.pos] = byte(w.acc)
		w.pos++
		w.acc >>= 8
		if w.n < 8 {
			w.n = 0
		} else {
			w.n -= 8
		}
	}
}
