package netchan

import (
	"container/heap"
	"encoding/binary"
	"errors"
)

// snapwire's static Huffman stage (ours, not DOOM III's): a fixed prefix code
// over bytes whose code lengths (huffman_table.go) were built from the byte
// frequencies measured on snapwire's own channel bodies (bench.TestHuffmanTable,
// `go test ./bench -run TestHuffmanTable -update` regenerates the table).
// Quake 3 does the same with a tree trained on its traffic (Quake 3 protocol description,
// "Huffman"). The channel uses it instead of zrle when Config.Huffman is set
// and it gives the smaller stream (flag H).
//
// The code is canonical: codes of each length are consecutive and ordered by
// byte value, shorter codes first (as DEFLATE, RFC 1951 §3.2.2), and written
// LSB first with the code's first bit first (its bits reversed into the
// stream). The table is complete (Kraft sum 1), so every bit string decodes.

// HuffmanMaxBits is the longest code of the static Huffman table.
const HuffmanMaxBits = 12

type huffEntry struct {
	code uint16 // bit-reversed canonical code: its first bit is bit 0
	len  uint8
}

var (
	huffEnc [256]huffEntry
	// huffPack is huffEnc packed for huffEncode: the code in the low 16
	// bits, its length above.
	huffPack [256]uint32
	// huffDec maps the next HuffmanMaxBits bits of the stream to the byte
	// (low 8 bits) and its code length (high bits).
	huffDec [1 << HuffmanMaxBits]uint16
)

func init() {
	if err := huffBuild(&huffmanLengths); err != nil {
		panic("netchan: static Huffman table: " + err.Error())
	}
}

// huffBuild fills the encoder and decoder tables from code lengths.
func huffBuild(lengths *[256]uint8) error {
	var count [HuffmanMaxBits + 1]int
	kraft := 0
	for _, l := range lengths {
		if l == 0 || l > HuffmanMaxBits {
			return errors.New("code length outside 1..12")
		}
		count[l]++
		kraft += 1 << (HuffmanMaxBits - l)
	}
	if kraft != 1<<HuffmanMaxBits {
		return errors.New("code is not complete")
	}
	var next [HuffmanMaxBits + 2]int
	code := 0
	for l := 1; l <= HuffmanMaxBits; l++ {
		code = (code + count[l-1]) << 1
		next[l] = code
	}
	for s, l := range lengths {
		c := next[l]
		next[l]++
		rev := 0
		for i := range int(l) {
			rev |= (c >> (int(l) - 1 - i) & 1) << i
		}
		huffEnc[s] = huffEntry{code: uint16(rev), len: l}
		huffPack[s] = uint32(rev) | uint32(l)<<16
		for x := rev; x < 1<<HuffmanMaxBits; x += 1 << l {
			huffDec[x] = uint16(s) | uint16(l)<<8
		}
	}
	return nil
}

// HuffmanLengths returns the static table's code length for every byte.
func HuffmanLengths() [256]uint8 { return huffmanLengths }

// huffBits returns the size in bits of src Huffman coded.
func huffBits(src []byte) int {
	n := 0
	for _, b := range src {
		n += int(huffEnc[b].len)
	}
	return n
}

// huffEncode writes src Huffman coded into dst, which must hold
// (huffBits(src)+7)/8 bytes, the last byte padded with zero bits, and
// returns the number of bytes written. Four codes (at most 48 bits) are
// joined and stored with one 8-byte store while 8 bytes of dst are left;
// huffEncodeFrom, the byte-at-a-time coder, finishes (huffman_test.go
// compares the two).
func huffEncode(dst, src []byte) int {
	var acc uint64
	var n uint // pending bits in acc, < 8 between groups
	pos, i := 0, 0
	for ; i+4 <= len(src) && pos+8 <= len(dst); i += 4 {
		s := src[i : i+4 : i+4]
		e0, e1, e2, e3 := huffPack[s[0]], huffPack[s[1]], huffPack[s[2]], huffPack[s[3]]
		l0 := uint(e0>>16) & 15
		l01 := l0 + uint(e1>>16)&15
		l012 := l01 + uint(e2>>16)&15
		v := uint64(e0&0xFFFF) | uint64(e1&0xFFFF)<<l0 | uint64(e2&0xFFFF)<<(l01&63) | uint64(e3&0xFFFF)<<(l012&63)
		acc |= v << (n & 7)
		n = n&7 + l012 + uint(e3>>16)&15
		binary.LittleEndian.PutUint64(dst[pos:], acc)
		pos += int(n >> 3)
		acc >>= (n &^ 7) & 63
	}
	return pos + huffEncodeFrom(dst[pos:], src[i:], acc, n&7)
}

// huffEncodeRef is the byte-at-a-time Huffman coder (huffEncode's reference).
func huffEncodeRef(dst, src []byte) int { return huffEncodeFrom(dst, src, 0, 0) }

// huffEncodeFrom codes src after n < 32 pending bits acc.
func huffEncodeFrom(dst, src []byte, acc uint64, n uint) int {
	pos := 0
	for _, b := range src {
		e := huffEnc[b]
		acc |= uint64(e.code) << n
		n += uint(e.len)
		if n >= 32 {
			if pos+4 <= len(dst) {
				binary.LittleEndian.PutUint32(dst[pos:], uint32(acc))
			} else {
				for j := range 4 {
					dst[pos+j] = byte(acc >> (8 * j))
				}
			}
			pos += 4
			acc >>= 32
			n -= 32
		}
	}
	for ; n > 0; n -= min(n, 8) {
		dst[pos] = byte(acc)
		pos++
		acc >>= 8
	}
	return pos
}

// huffDecode decodes exactly len(dst) bytes from src. src must end within
// the last code's byte: at most 7 padding bits, all zero.
func huffDecode(dst, src []byte) error {
	var acc uint64
	var n uint // valid bits in acc
	pos := 0   // next byte of src to load
	used := 0  // bits consumed
	for i := range dst {
		for n <= 56 && pos < len(src) {
			acc |= uint64(src[pos]) << n
			n += 8
			pos++
		}
		e := huffDec[acc&(1<<HuffmanMaxBits-1)]
		l := uint(e >> 8)
		if l > n {
			return errHuffman // the code runs past the end of src
		}
		dst[i] = byte(e)
		acc >>= l
		n -= l
		used += int(l)
	}
	if (used+7)/8 != len(src) || acc != 0 {
		return errHuffman // trailing bytes, or non-zero padding
	}
	return nil
}

var errHuffman = errors.New("netchan: bad Huffman stream")

// BuildHuffmanLengths returns the code lengths (1..HuffmanMaxBits) of a
// complete Huffman code for the byte frequencies freq: every byte gets a
// code (a frequency of 0 counts as 1), and where the optimal code would be
// longer than HuffmanMaxBits the frequencies are flattened (halved, plus
// one) and the code built again. It generates huffman_table.go.
func BuildHuffmanLengths(freq [256]uint64) [256]uint8 {
	f := freq
	for {
		var lengths [256]uint8
		h := huffHeap{}
		for s, x := range f {
			h = append(h, huffNode{w: max(x, 1), syms: []uint8{uint8(s)}})
		}
		heap.Init(&h)
		for h.Len() > 1 {
			a, b := heap.Pop(&h).(huffNode), heap.Pop(&h).(huffNode)
			for _, s := range a.syms {
				lengths[s]++
			}
			for _, s := range b.syms {
				lengths[s]++
			}
			heap.Push(&h, huffNode{w: a.w + b.w, syms: append(a.syms, b.syms...)})
		}
		ok := true
		for _, l := range lengths {
			ok = ok && l <= HuffmanMaxBits
		}
		if ok {
			return lengths
		}
		for s := range f {
			f[s] = f[s]/2 + 1
		}
	}
}

type huffNode struct {
	w    uint64
	syms []uint8
}

type huffHeap []huffNode

func (h huffHeap) Len() int { return len(h) }
func (h huffHeap) Less(i, j int) bool {
	if h[i].w != h[j].w {
		return h[i].w < h[j].w
	}
	return h[i].syms[0] < h[j].syms[0] // deterministic
}
func (h huffHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *huffHeap) Push(x any)   { *h = append(*h, x.(huffNode)) }
func (h *huffHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
