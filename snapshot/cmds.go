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
	acc, n := uint64(code)&(1<<uint(ncode)-1), ncode // ncode <= 26
	field := func(v, b uint32, bits int) {
		if n+1+bits > 64 {
			w.WriteBits64(acc, n)
			acc, n = 0, 0
		}
		if v == b {
			n++ // a 0 bit
		} else {
			acc |= (uint64(v)<<1 | 1) << uint(n)
			n += 1 + bits
		}
	}
	// The field table of game.WriteUserCmdDelta: Buttons 16, Forward 8, Right 8, Up 8, Yaw 16,
	// Pitch 16 bits.
	field(uint32(cmd.Buttons), uint32(base.Buttons), 16)
	field(uint32(uint8(cmd.Forward)), uint32(uint8(base.Forward)), 8)
	field(uint32(uint8(cmd.Right)), uint32(uint8(base.Right)), 8)
	field(uint32(uint8(cmd.Up)), uint32(uint8(base.Up)), 8)
	field(uint32(cmd.Yaw), uint32(base.Yaw), 16)
	field(uint32(cmd.Pitch), uint32(base.Pitch), 16)
	w.WriteBits64(acc, n)
	return nil
}
