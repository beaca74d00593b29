package guide

import (
	"testing"
	"time"

	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/netsim"
	"github.com/snapwire/snapwire/server"
)

// TestChat: the game with its messages over the link simulator (50 ms,
// 5% loss), as Example_netsim runs the game: the second client taunts
// after 2 s, and both clients hear its taunt, relayed by the server, and
// the server's announcement of the tag once each.
func TestChat(t *testing.T) {
	net, world, heard := netsim.New(1), NewChat(), map[Say]int{}
	net.SetDefault(netsim.LinkConfig{Latency: 50 * time.Millisecond, Loss: 0.05})
	srv, node, err := server.ListenSim(net, "10.0.0.1:27960", server.Config{OnMessage: world.Relay}, world, "")
	if err != nil {
		t.Fatal(err)
	}
	world.Announce = srv.BroadcastMessage
	nodes := []netsim.Node{node}
	var clients []*client.Client
	walk := client.InputFunc(func(in client.Input) game.UserCmd { return game.UserCmd{Forward: int8(in.Client)} })
	for range 2 {
		cfg := client.Config{OnMessage: func(m game.Message) { heard[*m.(*Say)]++ }}
		c, node, err := client.DialSim(net, "10.0.0.1:27960", cfg, NewChat(), walk)
		if err != nil {
			t.Fatal(err)
		}
		clients, nodes = append(clients, c), append(nodes, node)
	}
	now := net.Run(0, 2*time.Second, nodes, make([]byte, 2048))
	if err := clients[1].SendMessage(&Say{Text: "too slow"}); err != nil {
		t.Fatal(err)
	}
	net.Run(now, 5*time.Second, nodes, make([]byte, 2048))
	for _, c := range clients {
		if c.Err() != nil {
			t.Errorf("client %d: %v", c.ClientNum(), c.Err())
		}
	}
	if want := (map[Say]int{{1, "too slow"}: 2, {1, "it"}: 2}); len(heard) != 2 || heard[Say{1, "too slow"}] != 2 || heard[Say{1, "it"}] != 2 {
		t.Errorf("lines heard: %v, want %v", heard, want)
	}
}
