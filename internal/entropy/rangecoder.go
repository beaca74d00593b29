package entropy

import (
	"errors"
	"fmt"
)

// snapwire's adaptive entropy stage (ours, not DOOM III's): a binary range
// coder over the body's bits in the order bitmsg writes them (byte by byte,
// each byte from its least significant bit), each bit coded with an
// adaptive probability chosen by the ContextBits bits before it. The
// probabilities start every packet from a trained prior (Model, built
// by TrainModel from a game's own channel bodies) and adapt within the
// packet only, since a packet may be lost: no state crosses packets, as with
// zrle and the static Huffman stage. The coder is the carry-less binary
// range coder of LZMA (11-bit probabilities, 32-bit range, byte-wise
// renormalisation; Igor Pavlov's LZMA SDK, "rc" in LzmaEnc.c/LzmaDec.c);
// the context model and the prior are ours. A sender with
// netchan.Config.Entropy codes a body with it when that is shorter than
// both zrle and Huffman (flags C and H together).
//
// Stream (after the uvarint body length): the range coder's output without
// its first byte (always 0) and without trailing zero bytes; the decoder
// reads zeros past the end. A stream is canonical: it must not end in a 0
// byte, and decoding the body must consume all of it.

// ContextBits is the number of preceding bits that choose a bit's
// probability: a model holds 1<<ContextBits probabilities.
const ContextBits = 12

const (
	rcProbBits  = 11 // LZMA kNumBitModelTotalBits
	rcProbOne   = 1 << rcProbBits
	rcMoveBits  = 5 // LZMA kNumMoveBits: adaptation rate
	rcTopValue  = 1 << 24
	rcContexts  = 1 << ContextBits
	rcCtxMask   = rcContexts - 1
	rcProbMin   = 31
	rcProbMax   = rcProbOne - 31
	rcModelSize = 2 * rcContexts // bytes of a serialised model
)

// Model is the prior of the range coder (the channel's entropy stage): for
// each context, the probability (in 1/2048) that the next bit is 0. Both
// ends of a channel must hold the same model. It is shared read-only by any
// number of channels.
type Model struct {
	prior [rcContexts]uint16
}

// NewModel reads a model serialised by Model.MarshalBinary:
// 1<<ContextBits little-endian 16-bit probabilities, each in
// 31..2017 (so that no bit costs more than about 6 bits).
func NewModel(b []byte) (*Model, error) {
	if len(b) != rcModelSize {
		return nil, fmt.Errorf("entropy: model is %d bytes, want %d", len(b), rcModelSize)
	}
	m := &Model{}
	for i := range m.prior {
		p := uint16(b[2*i]) | uint16(b[2*i+1])<<8
		if p < rcProbMin || p > rcProbMax {
			return nil, fmt.Errorf("entropy: model probability %d of context %d outside %d..%d", p, i, rcProbMin, rcProbMax)
		}
		m.prior[i] = p
	}
	return m, nil
}

// MarshalBinary serialises the model for NewModel.
func (m *Model) MarshalBinary() ([]byte, error) {
	b := make([]byte, rcModelSize)
	for i, p := range m.prior {
		b[2*i], b[2*i+1] = byte(p), byte(p>>8)
	}
	return b, nil
}

// TrainModel builds a model from sample bodies (uncompressed channel
// bodies, as a game's traffic carries them): each context's probability of a
// 0 bit is its measured frequency, smoothed (add one half) and clamped.
func TrainModel(bodies [][]byte) *Model {
	var zeros, total [rcContexts]uint64
	for _, b := range bodies {
		ctx := uint32(0)
		for _, by := range b {
			for j := range 8 {
				bit := uint32(by>>j) & 1
				total[ctx]++
				if bit == 0 {
					zeros[ctx]++
				}
				ctx = (ctx<<1 | bit) & rcCtxMask
			}
		}
	}
	m := &Model{}
	for i := range m.prior {
		p := (float64(zeros[i]) + 0.5) / (float64(total[i]) + 1) * rcProbOne
		m.prior[i] = uint16(min(max(int(p+0.5), rcProbMin), rcProbMax))
	}
	return m
}

// RangeEncoder is the range coder's state for one body, with its adaptive
// probabilities; a channel keeps one and it allocates nothing per packet.
type RangeEncoder struct {
	probs     [rcContexts]uint16
	low       uint64
	rng       uint32
	cache     byte
	cacheSize int
	out       []byte
	pos       int
	first     bool // the first byte (always 0) is not written
	overflow  bool
}

// Encode codes src into dst with model m and returns the stream's length, or -1 when it
// would not fit in dst.
func (e *RangeEncoder) Encode(m *Model, dst, src []byte) int {
	e.probs = m.prior
	e.low, e.rng, e.cache, e.cacheSize = 0, 0xFFFFFFFF, 0, 1
	e.out, e.pos, e.first, e.overflow = dst, 0, true, false
	ctx := uint32(0)
	for _, by := range src {
		for j := range 8 {
			bit := uint32(by>>j) & 1
			p := &e.probs[ctx]
			bound := (e.rng >> rcProbBits) * uint32(*p)
			if bit == 0 {
				e.rng = bound
				*p += (rcProbOne - *p) >> rcMoveBits
			} else {
				e.low += uint64(bound)
				e.rng -= bound
				*p -= *p >> rcMoveBits
			}
			for e.rng < rcTopValue {
				e.rng <<= 8
				e.shiftLow()
			}
			ctx = (ctx<<1 | bit) & rcCtxMask
		}
		if e.overflow {
			return -1
		}
	}
	for range 5 {
		e.shiftLow()
	}
	if e.overflow {
		return -1
	}
	n := e.pos
	for n > 0 && dst[n-1] == 0 {
		n--
	}
	return n
}

func (e *RangeEncoder) shiftLow() {
	if uint32(e.low) < 0xFF000000 || e.low>>32 != 0 {
		carry := byte(e.low >> 32)
		temp := e.cache
		for {
			e.put(temp + carry)
			temp = 0xFF
			e.cacheSize--
			if e.cacheSize == 0 {
				break
			}
		}
		e.cache = byte(e.low >> 24)
	}
	e.cacheSize++
	e.low = (e.low & 0x00FFFFFF) << 8
}

func (e *RangeEncoder) put(b byte) {
	if e.first {
		e.first = false // LZMA's first byte is always 0
		return
	}
	if e.pos >= len(e.out) {
		e.overflow = true
		return
	}
	e.out[e.pos] = b
	e.pos++
}

var errEntropy = errors.New("entropy: bad range-coded stream")

// RangeDecoder holds the adaptive probabilities of the body being decoded;
// a channel keeps one and it allocates nothing per packet.
type RangeDecoder struct {
	probs [rcContexts]uint16
}

// Decode decodes exactly len(dst) bytes from src with model m. The stream
// must be canonical (see above) and decode to exactly len(dst) bytes.
func (d *RangeDecoder) Decode(m *Model, dst, src []byte) error {
	return rcDecode(m, &d.probs, dst, src)
}

// rcDecode decodes exactly len(dst) bytes from src with model m, using probs
// as its scratch probabilities.
func rcDecode(m *Model, probs *[rcContexts]uint16, dst, src []byte) error {
	if len(src) > 0 && src[len(src)-1] == 0 {
		return errEntropy // not canonical: the encoder drops trailing zeros
	}
	*probs = m.prior
	pos := 0
	next := func() uint32 {
		if pos < len(src) {
			pos++
			return uint32(src[pos-1])
		}
		pos++
		return 0
	}
	var code uint32
	for range 4 {
		code = code<<8 | next()
	}
	rng := uint32(0xFFFFFFFF)
	ctx := uint32(0)
	for i := range dst {
		var by byte
		for j := range 8 {
			p := &probs[ctx]
			bound := (rng >> rcProbBits) * uint32(*p)
			var bit uint32
			if code < bound {
				rng = bound
				*p += (rcProbOne - *p) >> rcMoveBits
			} else {
				code -= bound
				rng -= bound
				*p -= *p >> rcMoveBits
				bit = 1
			}
			for rng < rcTopValue {
				rng <<= 8
				code = code<<8 | next()
			}
			by |= byte(bit) << j
			ctx = (ctx<<1 | bit) & rcCtxMask
		}
		dst[i] = by
	}
	if pos < len(src) {
		return errEntropy // bytes left over
	}
	return nil
}
