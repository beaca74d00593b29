package play

import (
	"math"

	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/refgame"
)

// Input is the state of the player's controls in one frame: movement keys
// in screen directions (the map is drawn with +X to the right and +Y
// down), the mouse in world units, and the buttons.
type Input struct {
	Up, Down, Left, Right bool
	Fire                  bool // left mouse button
	Use                   bool // E or right mouse button: doors and lights
	AimX, AimY            float32
	Aim                   bool // AimX, AimY are valid (the mouse is over the map)
}

// Command maps the controls to an arena command for the player p: the view
// looks at the mouse (arena: yaw 0 along +X, 16384 along +Y), and the
// movement keys, which move on the screen's axes whatever the view, are
// turned into Forward (along the view) and Right (refgame.World.movePlayer:
// 90 degrees clockwise of it on the arena's axes) at full speed. Without
// an aim the view keeps lastYaw.
func Command(in Input, p *refgame.Player, lastYaw uint16, f game.Frame) game.UserCmd {
	cmd := game.UserCmd{Frame: f, Yaw: lastYaw}
	if in.Aim && p != nil {
		if dx, dy := float64(in.AimX-p.X), float64(in.AimY-p.Y); dx != 0 || dy != 0 {
			a := math.Atan2(dy, dx) // -pi..pi, +Y is +pi/2 as in the arena
			cmd.Yaw = uint16(int64(math.Round(a/(2*math.Pi)*65536)) & 0xffff)
		}
	}
	var mx, my float64
	if in.Right {
		mx++
	}
	if in.Left {
		mx--
	}
	if in.Down {
		my++
	}
	if in.Up {
		my--
	}
	if l := math.Hypot(mx, my); l > 0 {
		mx, my = mx/l, my/l
		yaw := float64(cmd.Yaw) / 65536 * 2 * math.Pi
		fx, fy := math.Cos(yaw), math.Sin(yaw)
		rx, ry := fy, -fx // the arena's right vector
		cmd.Forward = axis(mx*fx + my*fy)
		cmd.Right = axis(mx*rx + my*ry)
	}
	if in.Fire {
		cmd.Buttons |= refgame.ButtonAttack
	}
	if in.Use {
		cmd.Buttons |= refgame.ButtonUse
	}
	return cmd
}

// axis scales -1..1 to a command axis.
func axis(v float64) int8 {
	return int8(math.Round(min(max(v, -1), 1) * 127))
}
