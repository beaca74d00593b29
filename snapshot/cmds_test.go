package snapshot

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/game"
)

// TestWriteCmdDeltaMatchesGame: the encoder's command delta writes exactly the bits of
// game.WriteUserCmdDelta, after every bit offset and after a next code of every length, for
// random commands and bases (equal and unequal fields, -127..127 movements, the -128 range
// error).
func TestWriteCmdDeltaMatchesGame(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	randCmd := func(like *game.UserCmd) game.UserCmd {
		c := game.UserCmd{Buttons: game.Buttons(rng.Uint32()), Forward: int8(rng.IntN(255) - 127),
			Right: int8(rng.IntN(255) - 127), Up: int8(rng.IntN(255) - 127),
			Yaw: uint16(rng.Uint32()), Pitch: uint16(rng.Uint32())}
		if like != nil { // keep some fields equal to the base
			if rng.IntN(2) == 0 {
				c.Buttons = like.Buttons
			}
			if rng.IntN(2) == 0 {
				c.Forward = like.Forward
			}
			if rng.IntN(2) == 0 {
				c.Right = like.Right
			}
			if rng.IntN(2) == 0 {
				c.Up = like.Up
			}
			if rng.IntN(2) == 0 {
				c.Yaw = like.Yaw
			}
			if rng.IntN(2) == 0 {
				c.Pitch = like.Pitch
			}
		}
		return c
	}
	b1, b2 := make([]byte, 64), make([]byte, 64)
	for i := range 20000 {
		base := randCmd(nil)
		cmd := randCmd(&base)
		if i%50 == 0 {
			cmd.Right = -128
		}
		if i%7 == 0 {
			cmd = base
		}
		lead := 1 + rng.IntN(32) // bits written before the command
		w1, w2 := bitmsg.NewWriter(b1), bitmsg.NewWriter(b2)
		clear(b1)
		clear(b2)
		w1.WriteBits(rng.Uint32()>>(32-lead), lead)
		w2.WriteBitsFrom(w1.Bytes(), w1.Len())
		// Half the commands come after a next code, which writeCmdDelta takes along.
		code, n := uint32(0), 0
		if i%2 == 1 {
			code, n = nextCode(rng.IntN(game.MaxEntities))
			w1.WriteBits(code, n) // writeNext's bits
			lead += n
		}
		err1 := game.WriteUserCmdDelta(w1, &base, &cmd)
		err2 := writeCmdDelta(w2, &base, &cmd, code, n)
		if (err1 == nil) != (err2 == nil) || (err1 != nil && !errors.Is(err2, game.ErrRange)) {
			t.Fatalf("errors differ: %v / %v", err1, err2)
		}
		if w1.Len() != w2.Len() || !bytes.Equal(w1.Bytes(), w2.Bytes()) {
			t.Fatalf("cmd %+v base %+v: %d bits %x, want %d bits %x", cmd, base, w2.Len(), w2.Bytes(), w1.Len(), w1.Bytes())
		}
		if got, want := w2.Len()-lead, game.UserCmdDeltaBits(&base, &cmd); err2 == nil && got != want {
			t.Fatalf("%d bits, want %d", got, want)
		}
	}
}

// TestWriteCmdDeltaOverflow: a writer too short for the command ends with ErrOverflow, as
// with game.WriteUserCmdDelta.
func TestWriteCmdDeltaOverflow(t *testing.T) {
	base := game.UserCmd{}
	cmd := game.UserCmd{Buttons: 3, Forward: 5, Right: -7, Up: 1, Yaw: 100, Pitch: 200}
	for size := range 10 {
		w := bitmsg.NewWriter(make([]byte, size))
		if err := writeCmdDelta(w, &base, &cmd, 0, 0); err != nil {
			t.Fatal(err)
		}
		if want := size*8 < game.UserCmdDeltaBits(&base, &cmd); (w.Err() != nil) != want {
			t.Fatalf("%d bytes: err %v, want overflow %v", size, w.Err(), want)
		}
	}
}
