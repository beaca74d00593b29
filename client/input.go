package client

import "github.com/snapwire/snapwire/game"

// Input is what the client tells its InputSource each frame: the frame the
// command is for, the client it serves and that client's player entity, so
// one input function (a bot, a keyboard mapping) can serve any client and
// read its own player from the world without asking the client.
type Input struct {
	// Frame is the frame the command is for (UserCmd.Frame, DOOM III §3.3).
	Frame game.Frame
	// Client is the slot the server gave this client (Client.ClientNum).
	Client game.ClientNum
	// Player is the client's player entity (game.Game's PlayerEntity),
	// valid when HasPlayer.
	Player    game.EntityNum
	HasPlayer bool
}

// inputFor is the Input for frame f.
func (c *Client) inputFor(f game.Frame) Input {
	in := Input{Frame: f, Client: c.me}
	in.Player, in.HasPlayer = c.g.PlayerEntity(c.me)
	return in
}
