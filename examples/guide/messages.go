package guide

import "github.com/snapwire/snapwire/game"

// Say is a game message both ways: a client's taunt to the server, and
// the server's line to every client: a relayed taunt, or "it" from the
// player who was just tagged. Declared like the entity's fields.
//
//snap:message
type Say struct {
	From game.ClientNum `snap:"bits=6"`
	Text string         `snap:"max=40"`
}

// Chat is the game with its messages: it embeds the game, registers Say
// and adds Relay and the tag's announcement to its frame. Growing a game
// is embedding it and overriding what changes.
type Chat struct {
	*Game
	// Announce sends a line to every client: on the server, the
	// server's BroadcastMessage; on a client nothing (RunFrame predicts).
	Announce func(game.Message) error
}

// NewChat returns the game with its messages: both ends register the same
// entity and message types in one order.
func NewChat() *Chat {
	g := New()
	g.Registry().RegisterMessage("guide.Say", func() game.Message { return new(Say) })
	return &Chat{g, func(game.Message) error { return nil }}
}

// Relay passes a client's taunt on to everyone, signed with its sender
// (server.Config.OnMessage).
func (g *Chat) Relay(from game.ClientNum, m game.Message) {
	if say, ok := m.(*Say); ok {
		g.Announce(&Say{From: from, Text: say.Text})
	}
}

// RunFrame runs the game's frame and, on the server, announces the player
// whose dot became it (a client predicting skips it: an effect that must
// happen once, game.Tick.Predicting).
func (g *Chat) RunFrame(t *game.Tick) {
	before := g.it()
	g.Game.RunFrame(t)
	if after := g.it(); after != nil && after != before && !t.Predicting {
		g.Announce(&Say{From: after.Client, Text: "it"})
	}
}

// it is the dot that is it, or nil.
func (g *Chat) it() *Dot {
	for _, e := range g.Entities() {
		if d, ok := e.(*Dot); ok && d.It {
			return d
		}
	}
	return nil
}
