package guide_test

import (
	"fmt"

	"github.com/snapwire/snapwire/examples/guide"
	"github.com/snapwire/snapwire/game"
)

// The game alone, as the server runs it: a player joins, and three frames
// of its "forward 2" command move its dot; the client predicts it with the
// same RunFrame (the network part is TestGuide and docs/GUIDE.md).
func Example() {
	g := guide.New()
	if err := g.Load(""); err != nil {
		panic(err)
	}
	if err := g.ClientConnected(0); err != nil {
		panic(err)
	}
	n, _ := g.PlayerEntity(0)
	for f := game.Frame(1); f <= 3; f++ {
		g.RunFrame(&game.Tick{Frame: f, Cmds: []game.PlayerCmd{{Entity: n, Cmd: game.UserCmd{Forward: 2}}}, Events: game.Discard})
	}
	e, _ := g.Entity(n)
	fmt.Println("dot at", e.(*guide.Dot).X)
	// Output: dot at 6
}
