package guide_test

import (
	"fmt"

	"github.com/snapwire/snapwire/examples/guide"
	"github.com/snapwire/snapwire/game"
)

// The game alone, with its messages, as the server runs it: two players
// join, the first is it and stands; the second walks up its column into
// the first, is tagged and announced, and walks on, waiting 60 frames
// before it can tag back. A client predicts with the same RunFrame (the
// network part is Example_netsim and docs/GUIDE.md).
func Example() {
	g := guide.NewChat()
	g.Announce = func(m game.Message) error {
		fmt.Printf("announced: client %d is %s\n", m.(*guide.Say).From, m.(*guide.Say).Text)
		return nil
	}
	if err := g.Load(""); err != nil {
		panic(err)
	}
	for c := range game.ClientNum(2) {
		if err := g.ClientConnected(c); err != nil {
			panic(err)
		}
	}
	it, _ := g.PlayerEntity(0)
	other, _ := g.PlayerEntity(1)
	cmds := []game.PlayerCmd{{Entity: it}, {Entity: other, Cmd: game.UserCmd{Forward: 1}}}
	for f := game.Frame(1); f <= 20; f++ {
		g.RunFrame(&game.Tick{Frame: f, Cmds: cmds, Events: game.Discard})
	}
	for _, e := range g.Entities() {
		fmt.Printf("%+v\n", *e.(*guide.Dot))
	}
	// Output:
	// announced: client 1 is it
	// {X:0 Y:0 It:false Wait:0 Client:0}
	// {X:0 Y:-4 It:true Wait:49 Client:1}
}
