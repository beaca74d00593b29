package lockstep_test

import (
	"crypto/rand"
	"fmt"
	"time"

	"github.com/snapwire/snapwire/examples/guide"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/lockstep"
)

// Two peers of the guide game, their packets handed over directly: each
// runs a frame only with both commands, and both end in the same state.
// The match key authenticates their packets; whoever starts a match makes
// one (crypto/rand, or "snapwire token keygen") and hands it to every peer.
func Example() {
	var key lockstep.MatchKey
	rand.Read(key[:])
	var peers [2]*lockstep.Peer
	var games [2]*guide.Game
	for i := range 2 {
		games[i] = guide.New()
		games[i].Load("")
		right := int8(1 + i) // peer 0 moves 1 a frame, peer 1 moves 2
		p, err := lockstep.New(lockstep.Config{Peers: 2, Me: i, Key: key}, games[i],
			func(f game.Frame) game.UserCmd { return game.UserCmd{Right: right} },
			func(to int, pkt []byte) { peers[to].HandlePacket(i, pkt) })
		if err != nil {
			panic(err)
		}
		peers[i] = p
	}
	for now := time.Duration(0); now <= time.Second; now += time.Millisecond {
		peers[0].Advance(now)
		peers[1].Advance(now)
	}
	for i, g := range games {
		a, _ := g.Entity(0)
		b, _ := g.Entity(1)
		fmt.Printf("peer %d at frame %d: dots at %d and %d\n", i, peers[i].Frame(), a.(*guide.Dot).X, b.(*guide.Dot).X)
	}
	// Output:
	// peer 0 at frame 60: dots at 56 and 112
	// peer 1 at frame 60: dots at 56 and 112
}
