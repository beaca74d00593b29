package snapshot

import (
	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/game"
)

// writeCmdDelta writes cmd delta-compressed against base exactly as game.WriteUserCmdDelta
// does (DOOM III §4.2: per field of the command table a 0 bit if it equals the base's, else a
// 1 bit and the value), with the fields gathered in a 64-bit accumulator and handed to w 32
// bits at a time instead of two calls per field. A movement of -128 goes to
// game.WriteUserCmdDelta, which reports the range error and writes nothing. cmds_test.go
// compares the two bit for bit.
func writeCmdDelta(w *bitmsg.Writer, base, cmd *game.UserCmd) error {
	if cmd.Forward == -128 || cmd.Right == -128 || cmd.Up == -128 {
		return game.WriteUserCmdDelta(w, base, cmd)
	}
	var acc uint64
	n := 0
	field := func(v, b uint32, bits int) {
		if v == b {
			n++ // a 0 bit
		} else {
			acc |= (uint64(v)<<1 | 1) << uint(n)
			n += 1 + bits
		}
		if n >= 32 {
			w.WriteBits(uint32(acc), 32)
			acc >>= 32
			n -= 32
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
	if n > 0 {
		w.WriteBits(uint32(acc), n)
	}
	return nil
}
