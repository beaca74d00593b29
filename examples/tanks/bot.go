package tanks

import (
	"math"

	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/game"
)

// BotCommand is a simple opponent's input (a client.InputFunc), read from
// the game as the client sees it: turn towards the nearest other tank in
// play, close in to 200 units, and fire when facing it. Without a target
// it circles. It runs on the client's goroutine, as its input callback.
func (g *Game) BotCommand(in client.Input) game.UserCmd {
	n := in.Player
	me := g.tankAt(n)
	if !in.HasPlayer || me == nil || !me.Alive() {
		return game.UserCmd{}
	}
	var target *Tank
	best := float32(math.MaxFloat32)
	for m, e := range g.Entities() {
		if t, ok := e.(*Tank); ok && m != n && t.Alive() {
			if d := (t.X-me.X)*(t.X-me.X) + (t.Y-me.Y)*(t.Y-me.Y); d < best {
				target, best = t, d
			}
		}
	}
	if target == nil {
		return game.UserCmd{Forward: 100, Right: 40}
	}
	want := math.Atan2(float64(target.Y-me.Y), float64(target.X-me.X))
	turn := int8(uint8(math.Round(want*256/(2*math.Pi))) - me.Heading) // -128..127 headings to turn left
	cmd := game.UserCmd{Forward: 127}
	switch {
	case turn > 2:
		cmd.Right = -127
	case turn < -2:
		cmd.Right = 127
	}
	if best < 200*200 {
		cmd.Forward = 0
	}
	if turn >= -4 && turn <= 4 {
		cmd.Buttons |= ButtonFire
	}
	return cmd
}
