package huffman

import "errors"

// Errors returned by the adaptive coder.
var (
	ErrTooLong   = errors.New("huffman: input longer than 65535 bytes")
	ErrTruncated = errors.New("huffman: compressed data truncated")
	ErrExpands   = errors.New("huffman: compressed form longer than the input (the engine would corrupt it)")
)

// Compress appends the adaptive-Huffman form of src to dst, the way the
// engine sends the `connect` userinfo (ioq3 Huff_Compress, called from
// NET_OutOfBandData with offset 12):
//
//	[u16 big-endian: len(src)] [codes, bit 0 of each byte first] [1 spare byte]
//
// Every symbol is sent with the current adaptive code; a symbol not seen
// before is sent as the NYT code followed by its 8 bits, most significant
// bit first. The tree starts empty and is updated after every symbol.
// The length is the engine's: (bits+8)/8 bytes after the 16-bit header, so
// one trailing zero byte whenever the codes end on a byte boundary.
//
// The engine stops writing codes once they would pass len(src)*8 bits
// (header included) and so garbles such input; Compress reports ErrExpands
// instead. An empty src yields dst unchanged, as in the engine.
func Compress(dst, src []byte) ([]byte, error) {
	if len(src) == 0 {
		return dst, nil
	}
	if len(src) > 0xffff {
		return dst, ErrTooLong
	}
	t := new(tree)
	t.init()
	start := len(dst)
	dst = append(dst, byte(len(src)>>8), byte(len(src)))
	bw := bitAppender{buf: dst, nbit: len(dst) * 8}
	limit := start*8 + len(src)*8 // ioq3 maxoffset = size<<3, measured from the header
	for _, ch := range src {
		leaf := t.loc[ch]
		if leaf == nilIdx {
			leaf = t.loc[symbolNYT]
		}
		bits, n := t.code(leaf)
		bw.put(bits, n)
		if bw.nbit > limit { // a code bit at or past maxoffset: the engine drops it
			return dst[:start], ErrExpands
		}
		if t.loc[ch] == nilIdx { // the literal's 8 bits are not limit-checked
			for i := 7; i >= 0; i-- {
				bw.put(uint32(ch>>uint(i))&1, 1)
			}
		}
		t.addRef(ch)
	}
	total := (bw.nbit - start*8 + 8) >> 3 // ioq3: bloc += 8; cursize = bloc>>3
	out := bw.bytes()
	for len(out) < start+total {
		out = append(out, 0)
	}
	return out[:start+total], nil
}

// Decompress appends the data encoded by Compress to dst (ioq3
// Huff_Decompress). maxLen caps the declared length the way the engine caps
// it at the message buffer size (MAX_MSGLEN - 12 for `connect`); the engine
// silently truncates there, and so does Decompress. Data that runs out
// before the declared length is ErrTruncated.
func Decompress(dst, src []byte, maxLen int) ([]byte, error) {
	if len(src) == 0 {
		return dst, nil
	}
	if len(src) < 2 {
		return dst, ErrTruncated
	}
	cch := int(src[0])<<8 | int(src[1])
	if cch > maxLen {
		cch = maxLen
	}
	t := new(tree)
	t.init()
	nbits := len(src) * 8
	pos := 16
	get := func() (uint32, bool) {
		if pos >= nbits {
			return 0, false
		}
		b := uint32(src[pos>>3]>>(pos&7)) & 1
		pos++
		return b, true
	}
	for range cch {
		nd := t.root
		for t.nodes[nd].symbol == symbolInternal {
			b, ok := get()
			if !ok {
				return dst, ErrTruncated
			}
			if b == 1 {
				nd = t.nodes[nd].right
			} else {
				nd = t.nodes[nd].left
			}
		}
		ch := t.nodes[nd].symbol
		if ch == symbolNYT {
			ch = 0
			for range 8 {
				b, ok := get()
				if !ok {
					return dst, ErrTruncated
				}
				ch = ch<<1 | int32(b)
			}
		}
		dst = append(dst, byte(ch))
		t.addRef(byte(ch))
	}
	return dst, nil
}

// bitAppender appends bits to a byte slice, bit 0 of each byte first.
type bitAppender struct {
	buf  []byte
	nbit int
	acc  uint64
	nacc int
}

func (b *bitAppender) put(bits uint32, n int) {
	b.acc |= uint64(bits) & (1<<uint(n) - 1) << uint(b.nacc)
	b.nacc += n
	b.nbit += n
	for b.nacc >= 8 {
		b.buf = append(b.buf, byte(b.acc))
		b.acc >>= 8
		b.nacc -= 8
	}
}

func (b *bitAppender) bytes() []byte {
	if b.nacc > 0 {
		return append(b.buf, byte(b.acc))
	}
	return b.buf
}
