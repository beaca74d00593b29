package guide

import (
	"fmt"
	"time"

	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/netsim"
	"github.com/snapwire/snapwire/server"
)

// The guide's program: a server and two clients of the tag game over a
// simulated link (50 ms each way, 5% loss), 5 s of virtual time that run
// in a few milliseconds. Client n walks up at n units a frame: the first
// to join is it and stands; the second walks up into it from 16 below, is
// tagged and walks on. Each client prints its error (none) and whether
// the second dot (entity 1), as the client predicts it, is it.
func Example_netsim() {
	net := netsim.New(1)
	net.SetDefault(netsim.LinkConfig{Latency: 50 * time.Millisecond, Loss: 0.05})
	_, node, _ := server.ListenSim(net, "10.0.0.1:27960", server.Config{}, New(), "")
	walk := client.InputFunc(func(in client.Input) game.UserCmd { return game.UserCmd{Forward: int8(in.Client)} })
	c0, node0, _ := client.DialSim(net, "10.0.0.1:27960", client.Config{}, New(), walk)
	c1, node1, _ := client.DialSim(net, "10.0.0.1:27960", client.Config{}, New(), walk)
	net.Run(0, 5*time.Second, []netsim.Node{node, node0, node1}, make([]byte, 2048))
	for _, c := range []*client.Client{c0, c1} {
		e, _, _ := c.Entity(1)
		fmt.Println(c.Err(), e.(*Dot).It)
	}
	// Output:
	// <nil> true
	// <nil> true
}
