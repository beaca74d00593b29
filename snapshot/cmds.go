package snapshot

import (
	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/game"
)

// writeCmdDelta writes the ncode bits of code (a next code, writeNext; 0 bits for none), then
// cmd delta-compressed against base exactly as game.WriteUserCmdDelta does (DOOM III §4.2: per
// field of the command table a 0 bit if it equals the base's, else a 1 bit and the value), with
// the code and the fields gathered in a 64-bit accumulator and handed to w in one or two calls
// instead of two per field. A movement of -128 goes to game.WriteUserCmdDelta, which reports
// the range error and writes nothing. cmds_test.go compares the two bit for bit.
func writeCmdDelta(w *bitmsg.Writer, base, cmd *game.UserCmd, code uint32, ncode int) error {
	if cmd.Forward == -128 || cmd.Right == -128 || cmd.Up == -128 {
		w.WriteBits64(uint64(code), ncode)
		return game.WriteUserCmdDelta(w, base, cmd)
	}
	// The field table of game.WriteUserCmdDelta: Buttons 16, Forward 8, Right 8, Up 8 bits (at
	// most 44 bits with their flags, after a code of at most 20 bits: one word), then Yaw 16 and
	// Pitch 16 (at most 34).
	acc, n := uint64(code)&(1<<uint(ncode)-1), uint(ncode) // ncode <= 26
	if n > 20 {
		w.WriteBits64(acc, int(n))
		acc, n = 0, 0
	}
	acc, n = cmdField(acc, n, uint64(cmd.Buttons), uint64(base.Buttons), 16)
	acc, n = cmdField(acc, n, uint64(uint8(cmd.Forward)), uint64(uint8(base.Forward)), 8)
	acc, n = cmdField(acc, n, uint64(uint8(cmd.Right)), uint64(uint8(base.Right)), 8)
	acc, n = cmdField(acc, n, uint64(uint8(cmd.Up)), uint64(uint8(base.Up)), 8)
	if n > 30 {
		w.WriteBits64(acc, int(n))
		acc, n = 0, 0
	}
	acc, n = cmdField(acc, n, uint64(cmd.Yaw), uint64(base.Yaw), 16)
	acc, n = cmdField(acc, n, uint64(cmd.Pitch), uint64(base.Pitch), 16)
	w.WriteBits64(acc, int(n))
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
