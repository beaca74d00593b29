package usercmd_test

import (
	"fmt"

	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/usercmd"
)

// A client's user commands as its command message carries them (DOOM III
// §3.3): each delta-compressed against the one before, so a player who
// keeps running forward and turns pays for the yaw alone, and a command
// equal to the last costs a bit a field.
func ExampleWriteDelta() {
	cmds := []game.UserCmd{
		{Forward: 127, Yaw: 16384},
		{Forward: 127, Yaw: 16400},
		{Forward: 127, Yaw: 16400},
		{Forward: 127, Yaw: 16400, Buttons: 1},
	}
	w := bitmsg.NewWriter(make([]byte, 64))
	var base game.UserCmd // the first is sent against the zero command
	for i := range cmds {
		before := w.Len()
		usercmd.WriteDelta(w, &base, &cmds[i])
		c := cmds[i]
		fmt.Printf("forward %d yaw %d buttons %d: %d bits\n", c.Forward, c.Yaw, c.Buttons, w.Len()-before)
		base = cmds[i]
	}

	r := bitmsg.NewReader(w.Bytes(), w.Len())
	var got, prev game.UserCmd
	same := true
	for i := range cmds {
		err := usercmd.ReadDelta(r, &prev, &got)
		same = same && err == nil && got == cmds[i]
		prev = got
	}
	fmt.Println("read back the same:", same, w.Err())
	// Output:
	// forward 127 yaw 16384 buttons 0: 30 bits
	// forward 127 yaw 16400 buttons 0: 22 bits
	// forward 127 yaw 16400 buttons 0: 6 bits
	// forward 127 yaw 16400 buttons 1: 22 bits
	// read back the same: true <nil>
}
