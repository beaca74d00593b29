package client_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/clienthook"
	"github.com/snapwire/snapwire/internal/testgame"
	"github.com/snapwire/snapwire/internal/testwait"
	"github.com/snapwire/snapwire/server"
)

// view is what a reader copied out of a client in one Do.
type view struct {
	stats    client.Stats
	visible  int
	mine     vec // the local player's position as the world holds it
	offset   vec // its render correction
	shown    float64
	frac     float32
	entities int // entities in the game's own world
}

// Reading a running server's and client's world and statistics from other
// goroutines through Runner.Do (the documented way, package docs) while
// they play over real UDP on 127.0.0.1: a renderer per client copies
// positions, offsets, shown time and statistics out as fast as it can,
// and a status reader copies the server's statistics, its clients and
// its world's positions. Under go test -race any read outside the owner
// goroutine is reported; the copies must show the game going on.
func TestRunnerDoReadsRaceFree(t *testing.T) {
	sg := testgame.New()
	srv, err := server.Listen("127.0.0.1:0", server.Config{Advanced: server.Advanced{VerifyBase: true}}, sg, testgame.DefaultSettings)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*testwait.Hang)
	defer cancel()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); srv.Run(ctx) }()

	const clients = 2
	rctx, stopReaders := context.WithCancel(ctx)
	var runners []*client.Runner
	var games []*testgame.Game
	for range clients {
		g := testgame.New()
		r, err := client.Dial(srv.Addr().String(), client.Config{}, g,
			client.InputFunc(func(in client.Input) game.UserCmd { return game.UserCmd{Forward: 40} }))
		if err != nil {
			t.Fatal(err)
		}
		runners, games = append(runners, r), append(games, g)
		wg.Add(1)
		go func() { defer wg.Done(); r.Run(ctx) }()
	}

	// The renderers: each keeps the last view it copied and how many.
	views := make([]view, clients)
	reads := make([]int, clients)
	var readers sync.WaitGroup
	for i, r := range runners {
		readers.Add(1)
		go func() {
			defer readers.Done()
			var v view
			copyOut := func(now time.Duration, c *client.Client) {
				v.stats, v.frac = c.Stats(), c.FrameFraction()
				v.visible = 0
				for range c.Visible() {
					v.visible++
				}
				me := game.EntityNum(c.ClientNum())
				if e, _, _ := c.Entity(me); e != nil {
					v.mine, _ = positionOf(e)
				}
				v.offset[0], v.offset[1], v.offset[2] = c.VisualOffset(me)
				v.shown, _ = c.ShownTime(me, c.Frame())
				v.entities = 0
				for range games[i].Entities() {
					v.entities++
				}
			}
			for r.Do(rctx, copyOut) {
				views[i] = v // the renderer's own copy, drawn here
				reads[i]++
			}
		}()
	}
	// The status reader: the server's figures and world.
	var srvStats server.Stats
	var srvClients []server.ClientStats
	players := map[game.EntityNum]vec{}
	srvReads := 0
	readers.Add(1)
	go func() {
		defer readers.Done()
		for srv.Do(rctx, func(now time.Duration, s *server.Server) {
			srvStats, srvClients = s.Stats(), s.AppendClients(srvClients[:0])
			for n, e := range sg.Entities() {
				if _, typ := sg.Entity(n); typ == testgame.TypePlayer {
					players[n], _ = positionOf(e)
				}
			}
		}) {
			srvReads++
		}
	}()

	// Wait, through Do as well, until every client has 60 snapshots.
	for i, r := range runners {
		var st client.Stats
		if !testwait.Until(testwait.Hang, func() bool {
			r.Do(ctx, func(now time.Duration, c *client.Client) { st = c.Stats() })
			return st.SnapshotsReceived >= 60
		}) {
			t.Fatalf("client %d stuck: %+v", i, st)
		}
	}
	stopReaders()
	readers.Wait()

	for i, r := range runners {
		v := views[i]
		var ctr clienthook.Counters
		r.Do(ctx, func(now time.Duration, c *client.Client) { ctr = clienthook.CountersOf(c) })
		if reads[i] == 0 || v.stats.State != client.Connected || v.stats.SnapshotsReceived == 0 || v.visible == 0 || v.entities == 0 ||
			v.mine == (vec{}) || v.frac < 0 || v.frac > 1 || v.shown <= 0 {
			t.Errorf("client %d: %d reads, last %+v", i, reads[i], v)
		}
		if ctr.BaseMismatches != 0 || ctr.DecodeErrors != 0 {
			t.Errorf("client %d: %d base mismatches, %d decode errors", i, ctr.BaseMismatches, ctr.DecodeErrors)
		}
	}
	if srvReads == 0 || srvStats.Frames == 0 || len(srvClients) != clients || len(players) != clients {
		t.Errorf("server: %d reads, last %+v, %d clients, players %v", srvReads, srvStats, len(srvClients), players)
	}
	t.Logf("reads: clients %v, server %d", reads, srvReads)
	cancel()
	wg.Wait()
}
