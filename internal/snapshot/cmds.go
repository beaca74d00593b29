package snapshot

import (
	"encoding/binary"
	"unsafe"

	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/usercmd"
)

// writeCmdDelta writes the ncode bits of code (a next code, writeNext; 0 bits for none), then
// cmd delta-compressed against base exactly as usercmd.WriteDelta does (DOOM III §4.2: per
// field of the command table a 0 bit if it equals the base's, else a 1 bit and the value), with
// the code and the fields gathered in a 64-bit accumulator and handed to w in one or two calls
// instead of two per field. A movement of -128 goes to usercmd.WriteDelta, which reports
// the range error and writes nothing. cmds_test.go compares the two bit for bit.
func writeCmdDelta(w *bitmsg.Writer, base, cmd *game.UserCmd, code uint32, ncode int) error {
	if cmd.Forward == -128 || cmd.Right == -128 || cmd.Up == -128 {
		bitops.WriteBits64(w, uint64(code), ncode)
		return usercmd.WriteDelta(w, base, cmd)
	}
	// The field table of usercmd.WriteDelta: Buttons 16, Forward 8, Right 8, Up 8 bits (at
	// most 44 bits with their flags, after a code of at most 20 bits: one word), then Yaw 16 and
	// Pitch 16 (at most 34).
	acc, n := uint64(code)&(1<<uint(ncode)-1), uint(ncode) // ncode <= 26
	if n > 20 {
		bitops.WriteBits64(w, acc, int(n))
		acc, n = 0, 0
	}
	acc, n = cmdField(acc, n, uint64(cmd.Buttons), uint64(base.Buttons), 16)
	acc, n = cmdField(acc, n, uint64(uint8(cmd.Forward)), uint64(uint8(base.Forward)), 8)
	acc, n = cmdField(acc, n, uint64(uint8(cmd.Right)), uint64(uint8(base.Right)), 8)
	acc, n = cmdField(acc, n, uint64(uint8(cmd.Up)), uint64(uint8(base.Up)), 8)
	if n > 30 {
		bitops.WriteBits64(w, acc, int(n))
		acc, n = 0, 0
	}
	acc, n = cmdField(acc, n, uint64(cmd.Yaw), uint64(base.Yaw), 16)
	acc, n = cmdField(acc, n, uint64(cmd.Pitch), uint64(base.Pitch), 16)
	bitops.WriteBits64(w, acc, int(n))
	return nil
}

// cmdField appends one field of a command delta to the n bits of acc: a 0 bit when v equals
// the base's b, else a 1 bit and v's bits.
func cmdField(acc uint64, n uint, v, b uint64, bits uint) (uint64, uint) {
	if v == b {
		return acc, n + 1
	}
	return acc | (v<<1|1)<<n, n + 1 + bits
}

// cmdChain is the commands of a frame written once, one after the other, for every client to
// replay from (DOOM III §3.2: each snapshot carries the latest commands of the other players in
// its PVS). Element i holds the bits a client writes for command i when the command it wrote
// before is command i-1 and no PVS member lies between their entities: the code of a skip of 0
// and the delta against command i-1. Those bits depend on nothing else, and a client checks
// both commands by value before it copies them, so the chain is right for any client of any
// frame; it is made per generation only so that it holds the frame's commands. The clients of
// a match see most players: all but two of a client's commands are then copied, in two
// stretches, instead of written field by field.
type cmdChain struct {
	ready bool
	ents  []chainEnt
	buf   []byte // the elements' bits, back to back
	w     bitmsg.Writer
}

// chainEnt is an element of a cmdChain: entity num's command (its key, cmdKey), its bits
// ending at end (starting where the element before ends).
type chainEnt struct {
	key   uint64
	pitch uint16
	num   game.EntityNum
	end   uint32
}

// cmdKey returns the fields of cmd other than Frame and Pitch, read in place as one word (less
// the padding byte after Up): two commands with the same key and Pitch write the same delta
// against any base, and are the same base for any command.
func cmdKey(cmd *game.UserCmd) uint64 {
	b := (*[16]byte)(unsafe.Pointer(cmd))
	return binary.LittleEndian.Uint64(b[4:12]) &^ (0xFF << 40)
}

// game.UserCmd's layout, as cmdKey reads it: the index is not 0, and the build fails, when a
// field moves. Bytes 4 to 11 hold Buttons, Forward, Right, Up, a padding byte and Yaw.
var _ = [1]struct{}{}[unsafe.Sizeof(game.UserCmd{})-16+
	unsafe.Offsetof(game.UserCmd{}.Buttons)-4+unsafe.Offsetof(game.UserCmd{}.Forward)-6+
	unsafe.Offsetof(game.UserCmd{}.Right)-7+unsafe.Offsetof(game.UserCmd{}.Up)-8+
	unsafe.Offsetof(game.UserCmd{}.Yaw)-10+unsafe.Offsetof(game.UserCmd{}.Pitch)-12]

// maxChainBits bounds an element's bits: the code of a skip of 0, then a delta's flags and
// fields (writeCmdDelta: 6 flags, 72 bits of fields).
const maxChainBits = 1 + 6 + 72

// reset forgets the chain, keeping its memory.
func (ch *cmdChain) reset() {
	ch.ready, ch.ents, ch.buf = false, ch.ents[:0], ch.buf[:0]
}

// chain returns the command chain of the generation, writing it from cmds if this is the first
// Build of the generation to ask: cmds in order, up to the first out of ascending entity order
// or out of range (the Build reports those), at most game.MaxEntities of them.
func (c *FrameCache) chain(cmds []game.PlayerCmd) *cmdChain {
	ch := &c.cmds
	if ch.ready {
		return ch
	}
	ch.ready = true
	cmds = cmds[:min(len(cmds), game.MaxEntities)]
	need := (len(cmds)*maxChainBits+7)/8 + 8
	if cap(ch.buf) < need {
		ch.buf = make([]byte, need)
	}
	ch.w.Reset(ch.buf[:need])
	var last game.UserCmd
	ents := ch.ents[:0]
	for i := range cmds {
		pc := &cmds[i]
		if i > 0 && pc.Entity <= cmds[i-1].Entity || pc.Entity >= game.MaxEntities {
			break
		}
		if writeCmdDelta(&ch.w, &last, &pc.Cmd, 0, 1) != nil || ch.w.Err() != nil {
			break
		}
		ents = append(ents, chainEnt{key: cmdKey(&pc.Cmd), pitch: pc.Cmd.Pitch, num: pc.Entity, end: uint32(ch.w.Len())})
		last = pc.Cmd
	}
	ch.ents = ents
	ch.buf = ch.w.Bytes()
	return ch
}

// writeBitsRange appends bits start to start+n of src to w.
func writeBitsRange(w *bitmsg.Writer, src []byte, start, n int) {
	if r := start & 7; r != 0 && n > 0 {
		lead := min(8-r, n)
		w.WriteBits(uint32(src[start>>3]>>r), lead)
		start, n = start+lead, n-lead
	}
	if n > 0 {
		bitops.WriteBitsFrom(w, src[start>>3:], n)
	}
}
