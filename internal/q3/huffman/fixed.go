package huffman

import (
	"fmt"
	"sync"
)

// frequencies is the protocol's symbol frequency table: msg_hData[256] in
// ioq3 code/qcommon/msg.c (identical in id Software's 1.32 source). The
// fixed tree is the adaptive tree after feeding it every symbol that many
// times, in symbol order (ioq3 MSG_initHuffman), so the table and that
// order together define every code on the wire.
var frequencies = [256]int32{
	250315, 41193, 6292, 7106, 3730, 3750, 6110, 23283, 33317, 6950, 7838, 9714, 9257, 17259, 3949, 1778, // 0-15
	8288, 1604, 1590, 1663, 1100, 1213, 1238, 1134, 1749, 1059, 1246, 1149, 1273, 4486, 2805, 3472, // 16-31
	21819, 1159, 1670, 1066, 1043, 1012, 1053, 1070, 1726, 888, 1180, 850, 960, 780, 1752, 3296, // 32-47
	10630, 4514, 5881, 2685, 4650, 3837, 2093, 1867, 2584, 1949, 1972, 940, 1134, 1788, 1670, 1206, // 48-63
	5719, 6128, 7222, 6654, 3710, 3795, 1492, 1524, 2215, 1140, 1355, 971, 2180, 1248, 1328, 1195, // 64-79
	1770, 1078, 1264, 1266, 1168, 965, 1155, 1186, 1347, 1228, 1529, 1600, 2617, 2048, 2546, 3275, // 80-95
	2410, 3585, 2504, 2800, 2675, 6146, 3663, 2840, 14253, 3164, 2221, 1687, 3208, 2739, 3512, 4796, // 96-111
	4091, 3515, 5288, 4016, 7937, 6031, 5360, 3924, 4892, 3743, 4566, 4807, 5852, 6400, 6225, 8291, // 112-127
	23243, 7838, 7073, 8935, 5437, 4483, 3641, 5256, 5312, 5328, 5370, 3492, 2458, 1694, 1821, 2121, // 128-143
	1916, 1149, 1516, 1367, 1236, 1029, 1258, 1104, 1245, 1006, 1149, 1025, 1241, 952, 1287, 997, // 144-159
	1713, 1009, 1187, 879, 1099, 929, 1078, 951, 1656, 930, 1153, 1030, 1262, 1062, 1214, 1060, // 160-175
	1621, 930, 1106, 912, 1034, 892, 1158, 990, 1175, 850, 1121, 903, 1087, 920, 1144, 1056, // 176-191
	3462, 2240, 4397, 12136, 7758, 1345, 1307, 3278, 1950, 886, 1023, 1112, 1077, 1042, 1061, 1071, // 192-207
	1484, 1001, 1096, 915, 1052, 995, 1070, 876, 1111, 851, 1059, 805, 1112, 923, 1103, 817, // 208-223
	1899, 1872, 976, 841, 1127, 956, 1159, 950, 7791, 954, 1289, 933, 1127, 3207, 1020, 927, // 224-239
	1355, 768, 1040, 745, 952, 805, 1073, 740, 1013, 805, 1008, 796, 996, 1057, 11457, 13504, // 240-255
}

// NYT is the symbol value the fixed decoder yields for the tree's
// not-yet-transmitted leaf. The engine's MSG_ReadBits ORs it into the value
// like any other symbol (so it spills into the next byte); the msg package
// does the same.
const NYT = symbolNYT

// lookupBits is the width of the single-level decode table. Codes longer
// than this (rare symbols) fall back to walking the tree.
const lookupBits = 11

type codeEntry struct {
	bits uint32
	n    uint8
}

// decEntry: n == 0 means "longer than lookupBits: walk the tree".
type decEntry struct {
	sym uint16
	n   uint8
}

// Fixed is the protocol's static Huffman code, used for every netchan
// message (Quake 3 protocol description, Fedoryński: Huffman). Build it with FixedCode.
type Fixed struct {
	enc    [symbolNYT + 1]codeEntry
	dec    [1 << lookupBits]decEntry
	nodes  []fixedNode // the tree, for codes longer than lookupBits
	root   int32
	maxLen int
}

type fixedNode struct {
	child  [2]int32
	symbol int32
}

var (
	fixedOnce sync.Once
	fixedCode *Fixed
)

// FixedCode returns the fixed code. The first call builds the encoder and
// decoder from the generated table fixedCodes (fixed_codes.go), a few
// microseconds; it is safe for concurrent use.
func FixedCode() *Fixed {
	fixedOnce.Do(func() { fixedCode = buildFromCodes(&fixedCodes) })
	return fixedCode
}

// buildFromCodes builds the fixed code from its codes alone: the decoding
// tree is the canonical trie of the codes (each code inserted bit 0 first),
// which decodes exactly like the engine's tree because a complete prefix
// code has exactly one such trie. It panics on codes that are not a prefix
// code (the table is generated, so that is a programming error).
func buildFromCodes(codes *[symbolNYT + 1]codeEntry) *Fixed {
	f := &Fixed{root: 0, nodes: make([]fixedNode, 1, 2*(symbolNYT+1)-1)}
	f.nodes[0] = fixedNode{child: [2]int32{nilIdx, nilIdx}, symbol: symbolInternal}
	for sym, e := range codes {
		if e.n == 0 || e.n > 32 {
			panic(fmt.Sprintf("huffman: fixed code of symbol %d has %d bits", sym, e.n))
		}
		nd := f.root
		for i := range e.n {
			if f.nodes[nd].symbol != symbolInternal {
				panic(fmt.Sprintf("huffman: fixed code of symbol %d extends a shorter code", sym))
			}
			bit := e.bits >> i & 1
			next := f.nodes[nd].child[bit]
			if next == nilIdx {
				next = int32(len(f.nodes))
				f.nodes = append(f.nodes, fixedNode{child: [2]int32{nilIdx, nilIdx}, symbol: symbolInternal})
				f.nodes[nd].child[bit] = next
			}
			nd = next
		}
		if f.nodes[nd].symbol != symbolInternal || f.nodes[nd].child != [2]int32{nilIdx, nilIdx} {
			panic(fmt.Sprintf("huffman: fixed code of symbol %d collides with another code", sym))
		}
		f.nodes[nd].symbol = int32(sym)
	}
	f.fillTables(codes)
	return f
}

// buildFixed derives the fixed code the engine's way (ioq3
// MSG_initHuffman): feed every msg_hData frequency through the adaptive
// tree, about a million updates (tens of milliseconds, over a second under
// the race detector). Only the tests use it, to prove fixed_codes.go is
// exactly this derivation.
func buildFixed() *Fixed {
	t := new(tree)
	t.init()
	for sym, n := range frequencies {
		for range n {
			t.addRef(byte(sym))
		}
	}
	f := &Fixed{root: t.root, nodes: make([]fixedNode, t.nused)}
	for i := int32(0); i < t.nused; i++ {
		nd := &t.nodes[i]
		f.nodes[i] = fixedNode{child: [2]int32{nd.left, nd.right}, symbol: nd.symbol}
	}
	var codes [symbolNYT + 1]codeEntry
	for sym := range codes {
		leaf := t.loc[sym]
		if leaf == nilIdx {
			panic(fmt.Sprintf("huffman: symbol %d missing from the fixed tree", sym))
		}
		bits, n := t.code(leaf)
		if n > 32 {
			panic("huffman: fixed code longer than 32 bits")
		}
		codes[sym] = codeEntry{bits: bits, n: uint8(n)}
	}
	f.fillTables(&codes)
	return f
}

// fillTables sets the encoder table, the longest length and the lookup
// table from the codes.
func (f *Fixed) fillTables(codes *[symbolNYT + 1]codeEntry) {
	f.enc = *codes
	for sym, e := range codes {
		n := int(e.n)
		f.maxLen = max(f.maxLen, n)
		if n <= lookupBits {
			for hi := uint32(0); hi < 1<<(lookupBits-n); hi++ {
				f.dec[e.bits|hi<<n] = decEntry{sym: uint16(sym), n: uint8(n)}
			}
		}
	}
}

// Code returns the code of sym: n bits, bit 0 first on the wire.
func (f *Fixed) Code(sym byte) (bits uint32, n int) {
	e := f.enc[sym]
	return e.bits, int(e.n)
}

// CodeNYT returns the code of the NYT leaf (never sent by the engine; used
// by tests and fuzzers to build hostile input).
func (f *Fixed) CodeNYT() (bits uint32, n int) {
	e := f.enc[symbolNYT]
	return e.bits, int(e.n)
}

// MaxLen is the longest code length in bits.
func (f *Fixed) MaxLen() int { return f.maxLen }

// Decode decodes one symbol from peek, which holds the next MaxLen() bits of
// the stream, bit 0 first (bits past the end of the data must be zero).
// It returns the symbol (0..255, or NYT) and the code length.
func (f *Fixed) Decode(peek uint64) (sym uint16, n int) {
	e := f.dec[peek&(1<<lookupBits-1)]
	if e.n != 0 {
		return e.sym, int(e.n)
	}
	return f.walk(peek)
}

// walk decodes one symbol by walking the tree bit by bit (codes longer
// than lookupBits).
func (f *Fixed) walk(peek uint64) (sym uint16, n int) {
	nd := f.root
	for {
		fn := &f.nodes[nd]
		if fn.symbol != symbolInternal {
			return uint16(fn.symbol), n
		}
		nd = fn.child[peek&1]
		peek >>= 1
		n++
	}
}
