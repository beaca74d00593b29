package server_test

// A crowd: hundreds of players in one match (issue 25 part 1), in virtual
// time over netsim, with a game cheap enough that the run takes seconds.

import (
	"net/netip"
	"testing"
	"time"

	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/crowdgame"
	"github.com/snapwire/snapwire/internal/serverhook"
	"github.com/snapwire/snapwire/netsim"
	"github.com/snapwire/snapwire/server"
)

// crowdAddr is the address of the crowd's client i: one IP address each,
// so the per-address limit does not apply.
func crowdAddr(i int) netip.AddrPort {
	return netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 9, byte(i / 200), byte(1 + i%200)}), 40000)
}

// crowdClient is one of the crowd's clients and the game it predicts.
type crowdClient struct {
	c *client.Client
	g *crowdgame.Game
}

// newCrowd returns a rig with a server of slots player slots running the
// crowd game, and n clients connecting to it at once.
func newCrowd(t testing.TB, slots, n int) (*simRig, []crowdClient) {
	r := &simRig{net: netsim.New(25), buf: make([]byte, 1<<16), eps: map[netip.AddrPort]*netsim.Endpoint{}}
	r.net.SetDefault(netsim.LinkConfig{Latency: 20 * time.Millisecond})
	var err error
	if r.sep, err = r.net.Listen(simServer); err != nil {
		t.Fatal(err)
	}
	cfg := server.Config{MaxClients: slots}
	serverhook.Set(&cfg, serverhook.Hooks{Seed: 25, Deterministic: true})
	r.srv, err = server.New(cfg, crowdgame.New(), crowdgame.Settings, server.SendFunc(func(to netip.AddrPort, p []byte) { r.sep.WriteTo(p, to) }))
	if err != nil {
		t.Fatal(err)
	}
	r.nodes = []netsim.Node{{Endpoint: r.sep, Receive: r.srv.HandlePacket, Advance: r.srv.Advance, Next: r.srv.Next}}
	cls := make([]crowdClient, n)
	for i := range cls {
		ep, err := r.net.Listen(crowdAddr(i))
		if err != nil {
			t.Fatal(err)
		}
		g := crowdgame.New()
		fwd := int8(i%5 - 2) // -2..2: every player moves a little
		c, err := client.New(client.Config{}, g, client.InputFunc(func(in client.Input) game.UserCmd { return game.UserCmd{Forward: fwd * 32} }),
			client.SendFunc(func(to netip.AddrPort, p []byte) { ep.WriteTo(p, to) }))
		if err != nil {
			t.Fatal(err)
		}
		c.Connect(0, simServer)
		r.nodes = append(r.nodes, netsim.Node{Endpoint: ep,
			Receive: func(now time.Duration, _ netip.AddrPort, p []byte) { c.HandlePacket(now, p) },
			Advance: c.Advance, Next: c.Next})
		cls[i] = crowdClient{c, g}
	}
	return r, cls
}

// Acceptance (issue 25 part 1): 400 clients connect at once to a server
// of 1,024 slots. Every one is admitted with its own client number (144
// above 255: a u16 on the wire since session version 5), gets its player
// entity (entity c for client c) in its own world, and receives snapshots
// at the snapshot rate; its world holds the players of its grid cells,
// not the match (the size of a client-snapshot: TestCrowdSteadyState).
//
// Guards against: a client number cut to 8 bits (clients above 255 would
// take another's entity), slot limits below 1,024, and snapshots that
// carry the whole match.
func TestCrowd(t *testing.T) {
	const n = 400
	r, cls := newCrowd(t, game.MaxClients, n)
	r.run(2 * time.Second)
	snaps := make([]uint64, n)
	for i, cc := range cls {
		snaps[i] = cc.c.Stats().SnapshotsReceived
	}
	r.run(r.now + time.Second)
	if got := r.srv.NumClients(); got != n {
		t.Fatalf("%d clients connected of %d", got, n)
	}
	seen := map[game.ClientNum]int{}
	high := 0
	for i, cc := range cls {
		c := cc.c
		if c.State() != client.Connected {
			t.Fatalf("client %d: %v %v", i, c.State(), c.Err())
		}
		me := c.ClientNum()
		if j, dup := seen[me]; dup {
			t.Fatalf("clients %d and %d both have number %d", j, i, me)
		}
		seen[me] = i
		if me > 255 {
			high++
		}
		e, typ := cc.g.Entity(game.EntityNum(me))
		if typ != crowdgame.TypePlayer {
			t.Fatalf("client %d (number %d): no player entity %d in its world", i, me, me)
		}
		// Its own entity, from the server's snapshots: in its spawn's row
		// (players move along X only), which a number cut to 8 bits
		// would not give.
		if _, y := crowdgame.Spawn(me); e.(*crowdgame.Player).Y != y {
			t.Errorf("client %d: player in row %d, spawned in row %d", me, e.(*crowdgame.Player).Y, y)
		}
		// 20 Hz for the last second, within one snapshot.
		if got := c.Stats().SnapshotsReceived - snaps[i]; got < 19 {
			t.Errorf("client %d: %d snapshots in a second", me, got)
		}
		// Its world holds its neighbours, not the match: at most the
		// 3×3 cells around it (players 60 apart: 2 to a cell side).
		if k := len(collect(cc.g)); k < 2 || k > 36 {
			t.Errorf("client %d: %d players in its world", me, k)
		}
	}
	if high != n-256 {
		t.Errorf("%d clients numbered above 255, want %d", high, n-256)
	}
	st := serverhook.ServerStats(r.srv)
	if ns := r.net.Stats(); ns.DroppedInbox != 0 {
		t.Errorf("the network dropped %d packets at full inboxes", ns.DroppedInbox)
	}
	t.Logf("%d clients (%d numbered above 255): %d connects, %d bad packets", n, high, st.Connects, st.BadPackets)
}

// collect returns the player entities in g's world.
func collect(g *crowdgame.Game) []game.EntityNum {
	var out []game.EntityNum
	for n := range g.Entities() {
		out = append(out, n)
	}
	return out
}
