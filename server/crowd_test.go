package server_test

// A crowd: hundreds of players in one match (issue 25 part 1), in virtual
// time over netsim, with a game cheap enough that the run takes seconds.

import (
	"fmt"
	"net/netip"
	"testing"
	"time"

	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/serverhook"
	"github.com/snapwire/snapwire/netsim"
	"github.com/snapwire/snapwire/server"
)

// crowdCell is the side of a cell of the crowd's grid, and the distance
// along each axis within which a player sees another (its cell and the
// eight around it).
const crowdCell = 100

// crowdPlayer is a player of the crowd: a position on the grid.
type crowdPlayer struct{ X, Y int16 }

func (p *crowdPlayer) WriteSnapshot(w *bitmsg.DeltaWriter) {
	w.WriteInt(int32(p.X), 16)
	w.WriteInt(int32(p.Y), 16)
}
func (p *crowdPlayer) ReadSnapshot(r *bitmsg.DeltaReader) {
	p.X, p.Y = int16(r.ReadInt(16)), int16(r.ReadInt(16))
}

// crowdGame is a game.Game for many players: client c's player is entity
// c, placed on a square grid by its number, 32 to a row, moving with its
// commands; its PVS is the players of the 3×3 cells around it, found
// through a per-frame cell index (a spatial grid: a client's cost follows
// what it sees, not the size of the match). No non-PVS state.
type crowdGame struct {
	*game.EntityTable
	reg   *game.Registry
	cells map[[2]int16][]game.EntityNum // the players of each cell, rebuilt each frame
}

func newCrowdRegistry() *game.Registry {
	r := game.NewRegistry()
	r.MustRegister(game.EntityType{Name: "crowd player", New: func() game.Entity { return &crowdPlayer{} }})
	return r
}

func newCrowdGame() *crowdGame {
	reg := newCrowdRegistry()
	return &crowdGame{EntityTable: game.NewEntityTable(reg), reg: reg, cells: map[[2]int16][]game.EntityNum{}}
}

func (g *crowdGame) Registry() *game.Registry { return g.reg }

func (g *crowdGame) Load(settings string) error {
	if settings != "crowd" {
		return fmt.Errorf("crowd: settings %q", settings)
	}
	g.EntityTable = game.NewEntityTable(g.reg)
	clear(g.cells)
	return nil
}

// crowdSpawn is where client c's player starts: 32 to a row, 60 apart.
func crowdSpawn(c game.ClientNum) (x, y int16) { return int16(c%32) * 60, int16(c/32) * 60 }

func (g *crowdGame) ClientConnected(c game.ClientNum) error {
	if int(c) >= game.MaxClients {
		return fmt.Errorf("crowd: client %d", c)
	}
	e, err := g.Spawn(game.EntityNum(c), 1)
	if err != nil {
		return err
	}
	p := e.(*crowdPlayer)
	p.X, p.Y = crowdSpawn(c)
	g.index()
	return nil
}

func (g *crowdGame) ClientDisconnected(c game.ClientNum) { g.Remove(game.EntityNum(c)); g.index() }

func (g *crowdGame) PlayerEntity(c game.ClientNum) (game.EntityNum, bool) {
	return game.EntityNum(c), int(c) < game.MaxClients
}

// RunFrame moves each commanded player along X by its command's Forward
// divided by 32.
func (g *crowdGame) RunFrame(t *game.Tick) {
	for _, pc := range t.Cmds {
		if e, typ := g.Entity(pc.Entity); typ == 1 {
			p := e.(*crowdPlayer)
			p.X += int16(pc.Cmd.Forward / 32)
		}
	}
	if !t.Predicting {
		g.index()
	}
}

func cellOf(p *crowdPlayer) [2]int16 { return [2]int16{p.X / crowdCell, p.Y / crowdCell} }

// index rebuilds the cell index from the players' positions.
func (g *crowdGame) index() {
	for k, v := range g.cells {
		g.cells[k] = v[:0]
	}
	for n, e := range g.Entities() {
		if p, ok := e.(*crowdPlayer); ok {
			k := cellOf(p)
			g.cells[k] = append(g.cells[k], n)
		}
	}
}

func (g *crowdGame) Visible(c game.ClientNum, set game.EntitySet) {
	e, typ := g.Entity(game.EntityNum(c))
	if typ != 1 {
		return
	}
	k := cellOf(e.(*crowdPlayer))
	for dx := int16(-1); dx <= 1; dx++ {
		for dy := int16(-1); dy <= 1; dy++ {
			for _, n := range g.cells[[2]int16{k[0] + dx, k[1] + dy}] {
				set.Add(n)
			}
		}
	}
}

func (g *crowdGame) State(c game.ClientNum, id game.StateID) game.Snapshotter { return nil }

// crowdAddr is the address of the crowd's client i: one IP address each,
// so the per-address limit does not apply.
func crowdAddr(i int) netip.AddrPort {
	return netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 9, byte(i / 200), byte(1 + i%200)}), 40000)
}

// crowdClient is one of the crowd's clients and the game it predicts.
type crowdClient struct {
	c *client.Client
	g *crowdGame
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
	r.srv, err = server.New(cfg, newCrowdGame(), "crowd", server.SendFunc(func(to netip.AddrPort, p []byte) { r.sep.WriteTo(p, to) }))
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
		g := newCrowdGame()
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
// of 1,024 slots. Every one is admitted with its own client number (above
// 255 for most: a u16 on the wire since session version 5), gets its
// player entity (entity c for client c) in its own world, and receives
// snapshots at the snapshot rate; its snapshots hold the players of its
// grid cells, not the match, and carry their commands. The server's
// snapshot bytes per client stay those of a small match.
//
// Guards against: a client number cut to 8 bits (clients above 255 would
// take another's entity), slot limits below 1,024, and snapshots or
// relayed commands that grow with the match.
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
		if typ != 1 {
			t.Fatalf("client %d (number %d): no player entity %d in its world", i, me, me)
		}
		// Its own entity, from the server's snapshots: in its spawn's row
		// (players move along X only), which a number cut to 8 bits
		// would not give.
		if _, y := crowdSpawn(me); e.(*crowdPlayer).Y != y {
			t.Errorf("client %d: player in row %d, spawned in row %d", me, e.(*crowdPlayer).Y, y)
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
func collect(g *crowdGame) []game.EntityNum {
	var out []game.EntityNum
	for n := range g.Entities() {
		out = append(out, n)
	}
	return out
}
