package client_test

import (
	"fmt"
	"math"
	"net/netip"
	"slices"
	"testing"
	"time"

	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/clienthook"
	"github.com/snapwire/snapwire/internal/serverhook"
	"github.com/snapwire/snapwire/internal/snapshot"
	"github.com/snapwire/snapwire/netsim"
	"github.com/snapwire/snapwire/server"
)

// The crowd game (issue 25, the bandwidth budget by priority): crowdSize
// walkers moving in straight lines across a square and bouncing off its
// walls, run by the server (no client steers them), and one standing player
// per client. Everything moves every frame, so a snapshot that holds an
// entity leaves the client with a stale state, and one that sends it writes
// it. Entity numbers are fixed: players 0..crowdMaxClients-1, walkers after.

const (
	crowdSize       = 256
	crowdMaxClients = 8
	crowdSide       = 1000 * 16 // the square's side in 1/16 units
)

// crowdWalker is a walker: position and velocity in 1/16 world units.
type crowdWalker struct{ X, Y, VX, VY int32 }

func (w *crowdWalker) WriteSnapshot(dw *bitmsg.DeltaWriter) {
	dw.WriteInt(w.X, 20)
	dw.WriteInt(w.Y, 20)
	dw.WriteInt(w.VX, 8)
	dw.WriteInt(w.VY, 8)
}
func (w *crowdWalker) ReadSnapshot(r *bitmsg.DeltaReader) {
	w.X, w.Y, w.VX, w.VY = r.ReadInt(20), r.ReadInt(20), r.ReadInt(8), r.ReadInt(8)
}
func (w *crowdWalker) Position() (x, y, z float32) { return float32(w.X) / 16, float32(w.Y) / 16, 0 }

// step moves the walker one frame, reflecting it off the walls.
func (w *crowdWalker) step() {
	if x := w.X + w.VX; x < 0 || x >= crowdSide {
		w.VX = -w.VX
	}
	if y := w.Y + w.VY; y < 0 || y >= crowdSide {
		w.VY = -w.VY
	}
	w.X += w.VX
	w.Y += w.VY
}

// crowdPlayer is a client's player, standing.
type crowdPlayer struct{ X, Y int32 }

func (p *crowdPlayer) WriteSnapshot(dw *bitmsg.DeltaWriter) {
	dw.WriteInt(p.X, 20)
	dw.WriteInt(p.Y, 20)
}
func (p *crowdPlayer) ReadSnapshot(r *bitmsg.DeltaReader) { p.X, p.Y = r.ReadInt(20), r.ReadInt(20) }
func (p *crowdPlayer) Position() (x, y, z float32)        { return float32(p.X) / 16, float32(p.Y) / 16, 0 }

type crowdGame struct {
	*game.EntityTable
	reg            *game.Registry
	player, walker game.TypeID
	client         bool
	// onFrame, if set, sees the server's world after each frame.
	onFrame func(f game.Frame)
}

func newCrowdGame(isClient bool) *crowdGame {
	g := &crowdGame{reg: game.NewRegistry(), client: isClient}
	g.player = g.reg.MustRegister(game.EntityType{Name: "crowd.player", New: func() game.Entity { return &crowdPlayer{} }})
	g.walker = g.reg.MustRegister(game.EntityType{Name: "crowd.walker", New: func() game.Entity { return &crowdWalker{} }})
	g.EntityTable = game.NewEntityTable(g.reg)
	return g
}

func (g *crowdGame) Registry() *game.Registry { return g.reg }

// Load spawns the walkers at positions and velocities drawn from their
// numbers (the same on the server and the clients: the map base).
func (g *crowdGame) Load(string) error {
	g.EntityTable = game.NewEntityTable(g.reg)
	for i := range crowdSize {
		e, err := g.Spawn(game.EntityNum(crowdMaxClients+i), g.walker)
		if err != nil {
			return err
		}
		h := uint32(i)*2654435761 + 12345
		w := e.(*crowdWalker)
		w.X, w.Y = int32(h%crowdSide), int32((h>>7)%crowdSide)
		w.VX, w.VY = int32(h>>3%41)-20, int32(h>>11%41)-20
		if w.VX == 0 && w.VY == 0 {
			w.VX = 7
		}
	}
	return nil
}

// crowdSpot is where client c's player stands: spread over the square.
func crowdSpot(c game.ClientNum) (x, y int32) {
	return crowdSide/4 + int32(c%2)*crowdSide/2, crowdSide/4 + int32(c/2%2)*crowdSide/2
}

func (g *crowdGame) ClientConnected(c game.ClientNum) error {
	if c >= crowdMaxClients {
		return server.ErrConfig
	}
	e, err := g.Spawn(game.EntityNum(c), g.player)
	if err != nil {
		return err
	}
	p := e.(*crowdPlayer)
	p.X, p.Y = crowdSpot(c)
	return nil
}

func (g *crowdGame) ClientDisconnected(c game.ClientNum) { g.Remove(game.EntityNum(c)) }

func (g *crowdGame) PlayerEntity(c game.ClientNum) (game.EntityNum, bool) {
	e, _ := g.Entity(game.EntityNum(c))
	return game.EntityNum(c), e != nil
}

func (g *crowdGame) RunFrame(t *game.Tick) {
	for n := game.EntityNum(crowdMaxClients); n < crowdMaxClients+crowdSize; n++ {
		if e, _ := g.Entity(n); e != nil {
			e.(*crowdWalker).step()
		}
	}
	if !t.Predicting && g.onFrame != nil {
		g.onFrame(t.Frame)
	}
}

func (g *crowdGame) Visible(c game.ClientNum, set game.EntitySet) {
	for n := range g.Entities() {
		set.Add(n)
	}
}

func (g *crowdGame) State(game.ClientNum, game.StateID) game.Snapshotter { return nil }

// crowdRec holds the server's walkers of the last crowdRecFrames frames.
const crowdRecFrames = 1024

// crowdClient is one client of the crowd test and what it measured.
type crowdClient struct {
	c  *client.Client
	g  *crowdGame
	ep *netsim.Endpoint
	// written[n] holds the frames of the last snapshots received that wrote
	// walker n (a ring of 8, at written[n][k%8] for its k-th write).
	written                 [game.MaxEntities][8]game.Frame
	writes                  [game.MaxEntities]int
	snapshots, nearMissing  int
	vipMissing              int // crowdVIPGame: times a VIP walker was held
	stateChecks, mismatches int
	baseChecks, baseBad     int
	// The ages of the walkers' states after each snapshot, in frames: of
	// the nearest crowdNear, and of the others (far).
	nearAge, farAge       ageStat
	nearError, farError   errStat
	farAgeMax, nearAgeMax game.Frame
}

type ageStat struct{ sum, n float64 }

func (a *ageStat) add(v float64) { a.sum, a.n = a.sum+v, a.n+1 }
func (a ageStat) mean() float64  { return a.sum / max(a.n, 1) }

type errStat struct {
	ageStat
	max float64
}

func (e *errStat) add(v float64) { e.ageStat.add(v); e.max = max(e.max, v) }

// crowdNear is how many of the nearest walkers every snapshot must carry.
const crowdNear = 8

type crowdSim struct {
	t       *testing.T
	net     *netsim.Network
	srv     *server.Server
	sg      *crowdGame
	cls     []*crowdClient
	nodes   []netsim.Node
	now     time.Duration
	buf     []byte
	rec     [crowdRecFrames][crowdSize]crowdWalker
	mapBase [crowdSize]crowdWalker
	applied map[[2]uint64]uint64
	vip     bool // the server runs crowdVIPGame
}

// crowdVIPs: with crowdVIPGame, the first walkers, which the game makes
// the most relevant to every client wherever they are.
const crowdVIPs = 4

// crowdVIPGame is the crowd game with relevance of its own (the server's
// optional Relevance method): 1/distance² from the client's player, as the
// server's default, but a million for the VIP walkers.
type crowdVIPGame struct{ *crowdGame }

func (g crowdVIPGame) Relevance(c game.ClientNum, n game.EntityNum) float32 {
	if n >= crowdMaxClients && n < crowdMaxClients+crowdVIPs {
		return 1e6
	}
	e, _ := g.Entity(n)
	pos, ok := e.(client.Positioner)
	if !ok {
		return 1
	}
	x, y, _ := pos.Position()
	px, py := crowdSpot(c)
	dx, dy := x-float32(px)/16, y-float32(py)/16
	return 1 / max(dx*dx+dy*dy, 1e-6)
}

func newCrowdSim(t *testing.T, rate int, link netsim.LinkConfig, workers int, vip bool) *crowdSim {
	s := &crowdSim{t: t, net: netsim.New(25), sg: newCrowdGame(false), buf: make([]byte, 65536), applied: map[[2]uint64]uint64{}, vip: vip}
	s.net.SetDefault(link)
	if err := s.sg.Load(""); err != nil {
		t.Fatal(err)
	}
	for i := range crowdSize {
		e, _ := s.sg.Entity(game.EntityNum(crowdMaxClients + i))
		s.mapBase[i] = *e.(*crowdWalker)
	}
	addr := netip.MustParseAddrPort("10.25.0.1:27960")
	sep, err := s.net.Listen(addr)
	if err != nil {
		t.Fatal(err)
	}
	s.sg.onFrame = func(f game.Frame) {
		for i := range crowdSize {
			e, _ := s.sg.Entity(game.EntityNum(crowdMaxClients + i))
			s.rec[f%crowdRecFrames][i] = *e.(*crowdWalker)
		}
	}
	scfg := server.Config{MaxClients: crowdMaxClients, Rate: rate}
	scfg.VerifyBase, scfg.SnapshotWorkers = true, workers
	var g game.Game = s.sg
	if vip {
		g = crowdVIPGame{s.sg}
	}
	serverhook.Edit(&scfg, func(h *serverhook.Hooks) {
		h.Seed, h.Deterministic = 25, true
		h.OnApply = func(c game.ClientNum, seq snapshot.Seq, base *snapshot.CommonBase) {
			s.applied[[2]uint64{uint64(c), uint64(seq)}] = base.Hash()
		}
	})
	if s.srv, err = server.New(scfg, g, "", server.SendFunc(func(to netip.AddrPort, p []byte) { sep.WriteTo(p, to) })); err != nil {
		t.Fatal(err)
	}
	s.nodes = []netsim.Node{{Endpoint: sep, Receive: s.srv.HandlePacket, Advance: s.srv.Advance, Next: s.srv.Next}}
	for i := range 3 {
		s.addClient(i, addr)
	}
	return s
}

func (s *crowdSim) addClient(i int, srv netip.AddrPort) {
	a := netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 25, 1, byte(i + 1)}), uint16(42000+i))
	ep, err := s.net.Listen(a)
	if err != nil {
		s.t.Fatal(err)
	}
	cc := &crowdClient{g: newCrowdGame(true), ep: ep}
	ccfg := client.Config{Name: "crowd"}
	var h clienthook.Hooks
	h.OnSnapshot = func(snap *snapshot.Snapshot) { s.checkSnapshot(cc, snap) }
	h.OnApply = func(seq snapshot.Seq, base *snapshot.CommonBase) {
		if hash, ok := s.applied[[2]uint64{uint64(cc.c.ClientNum()), uint64(seq)}]; ok {
			cc.baseChecks++
			if hash != base.Hash() {
				cc.baseBad++
			}
		}
	}
	clienthook.Set(&ccfg, h)
	input := client.InputFunc(func(client.Input) game.UserCmd { return game.UserCmd{} })
	if cc.c, err = client.New(ccfg, cc.g, input, client.SendFunc(func(to netip.AddrPort, p []byte) { ep.WriteTo(p, to) })); err != nil {
		s.t.Fatal(err)
	}
	cc.c.Connect(s.now, srv)
	s.cls = append(s.cls, cc)
	s.nodes = append(s.nodes, netsim.Node{Endpoint: ep,
		Receive: func(now time.Duration, _ netip.AddrPort, p []byte) { cc.c.HandlePacket(now, p) },
		Advance: cc.c.Advance, Next: cc.c.Next})
}

// nearest returns the walkers (indexes) of frame f ordered by distance from
// client c's spot, nearest first.
func (s *crowdSim) nearest(f game.Frame, c game.ClientNum, order []int) []int {
	px, py := crowdSpot(c)
	ws := &s.rec[f%crowdRecFrames]
	dist := func(i int) int64 {
		dx, dy := int64(ws[i].X-px), int64(ws[i].Y-py)
		return dx*dx + dy*dy
	}
	order = order[:0]
	for i := range crowdSize {
		order = append(order, i)
	}
	slices.SortFunc(order, func(a, b int) int {
		if da, db := dist(a), dist(b); da != db {
			return int(da - db)
		}
		return a - b
	})
	return order
}

// checkSnapshot checks a snapshot the client just wrote into its world
// (frame F): every walker it wrote has the server's state of F; every
// walker it held has the state of one of the last frames a snapshot wrote
// it or the map base's (its base state: the common base is exact), whose
// distance from F is the walker's age; the crowdNear nearest walkers are
// written.
func (s *crowdSim) checkSnapshot(cc *crowdClient, snap *snapshot.Snapshot) {
	f := snap.Header.Frame
	if s.srv.Frame()-f >= crowdRecFrames-8 {
		return
	}
	cc.snapshots++
	written := make(map[game.EntityNum]bool, len(snap.Entities))
	for _, es := range snap.Entities {
		if es.Changed {
			written[es.Num] = true
		}
	}
	order := s.nearest(f, cc.c.ClientNum(), make([]int, 0, crowdSize))
	for rank, i := range order {
		n := game.EntityNum(crowdMaxClients + i)
		e, _ := cc.g.Entity(n)
		if e == nil {
			cc.mismatches++
			continue
		}
		got := *e.(*crowdWalker)
		cc.stateChecks++
		var age game.Frame
		if written[n] {
			if got != s.rec[f%crowdRecFrames][i] {
				cc.mismatches++
			}
			cc.written[n][cc.writes[n]%8] = f
			cc.writes[n]++
		} else {
			age = -1
			for k := cc.writes[n] - 1; k >= 0 && k >= cc.writes[n]-8; k-- {
				g := cc.written[n][k%8]
				if f-g < crowdRecFrames-8 && got == s.rec[g%crowdRecFrames][i] {
					age = f - g
					break
				}
			}
			if age < 0 && got == s.mapBase[i] {
				age = f // its base state is still the map base's (no write applied yet)
			}
			if age < 0 {
				cc.mismatches++
				continue
			}
		}
		if s.vip && i < crowdVIPs && !written[n] {
			cc.vipMissing++
		}
		if rank < crowdNear {
			if !written[n] {
				cc.nearMissing++
			}
			cc.nearAge.add(float64(age))
			cc.nearAgeMax = max(cc.nearAgeMax, age)
		} else {
			cc.farAge.add(float64(age))
			cc.farAgeMax = max(cc.farAgeMax, age)
		}
	}
}

// measureErrors compares where each client showed the walkers at frame f
// (its prediction from the states it had) with where the server had them.
func (s *crowdSim) measureErrors(f game.Frame) {
	order := make([]int, 0, crowdSize)
	for _, cc := range s.cls {
		order = s.nearest(f, cc.c.ClientNum(), order)
		for rank, i := range order {
			x, y, _, ok := clienthook.PredictedPosition(cc.c, game.EntityNum(crowdMaxClients+i), f)
			if !ok {
				continue
			}
			wx, wy, _ := s.rec[f%crowdRecFrames][i].Position()
			d := math.Hypot(float64(x-wx), float64(y-wy))
			if rank < crowdNear {
				cc.nearError.add(d)
			} else {
				cc.farError.add(d)
			}
		}
	}
}

// Acceptance (issue 25, the bandwidth budget by priority): 256 walkers
// moving every frame, three clients over links of 40 ms with 5% loss, and
// a Rate that holds about a fifth of the crowd's changes per snapshot; the
// snapshots built on the match's goroutine, by two workers
// (Advanced.SnapshotWorkers), and with the game's relevance, which puts 4
// VIP walkers in every snapshot wherever they are. No
// snapshot is skipped (each is trimmed to the budget instead); every
// snapshot carries the 8 walkers nearest the client's player; the far
// walkers are sent in turn (their states' mean age bounded); the written
// states are the server's and the held ones the base's (0 state
// mismatches), and the bases agree (0 base mismatches, checked by hash
// after every apply). The figures (ages, prediction error near and far,
// bytes) are logged for BENCHMARKS.md.
//
// Guards against: the old whole-snapshot skip, a trimmed snapshot that
// breaks the common base (a held entity recorded as sent), a priority that
// starves the far walkers or drops the near ones, a rate overrun.
func TestCrowdWithinRate(t *testing.T) {
	for _, tc := range []struct {
		name    string
		workers int
		vip     bool
	}{{"serial", 0, false}, {"workers", 2, false}, {"relevance", 0, true}} {
		t.Run(tc.name, func(t *testing.T) { crowdWithinRate(t, tc.workers, tc.vip) })
	}
}

func crowdWithinRate(t *testing.T, workers int, vip bool) {
	const rate = 8000 // bytes a second: about 370 bytes a snapshot at 20 Hz
	s := newCrowdSim(t, rate, netsim.LinkConfig{Latency: 40 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.05}, workers, vip)
	s.now = s.net.Run(s.now, 3*time.Second, s.nodes, s.buf) // connected, past the map base's spawn burst
	before := make([]serverhook.ClientStats, len(s.cls))
	bytesBefore := make([]uint64, len(s.cls))
	for i, cc := range s.cls {
		if cc.c.State() != client.Connected {
			t.Fatalf("client %d: %v %v", i, cc.c.State(), cc.c.Err())
		}
		before[i], _ = serverhook.Client(s.srv, cc.c.ClientNum())
		pub, _ := s.srv.Client(cc.c.ClientNum())
		bytesBefore[i] = pub.BytesOut
		*cc = crowdClient{c: cc.c, g: cc.g, ep: cc.ep, written: cc.written, writes: cc.writes}
	}
	const dur = 20 * time.Second
	end := s.now + dur
	for s.now < end {
		s.now = s.net.Run(s.now, s.now+100*time.Millisecond, s.nodes, s.buf)
		s.measureErrors(s.srv.Frame() - 1)
	}
	if par := serverhook.ServerStats(s.srv).ParallelSnapshotFrames; (workers > 1) != (par > 0) {
		t.Errorf("%d frames' snapshots built by workers, with %d workers", par, workers)
	}
	for i, cc := range s.cls {
		st, _ := serverhook.Client(s.srv, cc.c.ClientNum())
		b := before[i]
		sent, skipped := st.SnapshotsSent-b.SnapshotsSent, st.SnapshotsSkipped-b.SnapshotsSkipped
		trimmed, held := st.SnapshotsTrimmed-b.SnapshotsTrimmed, st.EntitiesHeld-b.EntitiesHeld
		pub, _ := s.srv.Client(cc.c.ClientNum())
		bytesOut := pub.BytesOut - bytesBefore[i]
		ctr := clienthook.CountersOf(cc.c)
		t.Logf("client %d: %d snapshots sent, %d skipped, %d trimmed (%.0f of %d entities held on average), %d rebuilds; %.0f B/s of UDP payload",
			i, sent, skipped, trimmed, float64(held)/float64(max(trimmed, 1)), crowdSize+len(s.cls), st.BudgetRebuilds-b.BudgetRebuilds, float64(bytesOut)/dur.Seconds())
		t.Logf("client %d: %d snapshots checked; state age near %.2f frames (max %d), far %.1f frames (max %d); prediction error near %.3f (max %.2f), far %.2f (max %.1f) units",
			i, cc.snapshots, cc.nearAge.mean(), cc.nearAgeMax, cc.farAge.mean(), cc.farAgeMax,
			cc.nearError.mean(), cc.nearError.max, cc.farError.mean(), cc.farError.max)
		if skipped != 0 {
			t.Errorf("client %d: %d snapshots skipped", i, skipped)
		}
		if trimmed < sent*9/10 || sent < uint64(dur.Seconds()*20*0.95) {
			t.Errorf("client %d: %d of %d snapshots trimmed: the rate does not bind", i, trimmed, sent)
		}
		if float64(bytesOut) > rate*dur.Seconds() {
			t.Errorf("client %d: %d bytes sent in %v, over the rate %d B/s", i, bytesOut, dur, rate)
		}
		if cc.nearMissing != 0 || cc.vipMissing != 0 {
			t.Errorf("client %d: %d times one of the %d nearest walkers was held, %d times a VIP", i, cc.nearMissing, crowdNear, cc.vipMissing)
		}
		if cc.snapshots < 300 || cc.stateChecks < 300*crowdSize || cc.baseChecks < 300 {
			t.Errorf("client %d: only %d snapshots, %d state and %d base checks", i, cc.snapshots, cc.stateChecks, cc.baseChecks)
		}
		if cc.mismatches != 0 || cc.baseBad != 0 || ctr.BaseMismatches != 0 || ctr.DecodeErrors != 0 || ctr.ApplyErrors != 0 {
			t.Errorf("client %d: %d state and %d (%d) base mismatches, %d decode and %d apply errors",
				i, cc.mismatches, cc.baseBad, ctr.BaseMismatches, ctr.DecodeErrors, ctr.ApplyErrors)
		}
		// Fiedler's accumulator sends every walker in turn: at about a fifth
		// of the crowd a snapshot (3 frames apart), the far walkers' states
		// are some 25 frames old on average (measured); 60 would mean
		// starvation.
		if m := cc.farAge.mean(); m > 60 || cc.farAge.n == 0 {
			t.Errorf("client %d: far walkers' mean age %.1f frames", i, m)
		}
		if cc.nearError.mean() > cc.farError.mean() {
			t.Errorf("client %d: prediction error near %.3f above far %.3f", i, cc.nearError.mean(), cc.farError.mean())
		}
	}
}

// Project rule: the server serving clients within their rate by priority
// (ordering the PVS, building to the budget, building again after an
// overflow) allocates nothing in steady state, and neither do the clients
// predicting the walkers they were not sent.
func TestCrowdWithinRateAllocs(t *testing.T) {
	st := newCrowdSteady(t)
	st.run(40 * time.Second)
	before := serverhook.Clients(st.srv)
	if len(before) != 3 {
		t.Fatalf("%d clients connected", len(before))
	}
	if allocs := testing.AllocsPerRun(50, func() { st.run(100 * time.Millisecond) }); allocs != 0 {
		t.Errorf("%v allocations per 100 ms (server and 3 clients within the rate)", allocs)
	}
	for i, a := range serverhook.Clients(st.srv) {
		b := before[i]
		if a.SnapshotsTrimmed-b.SnapshotsTrimmed < 90 || a.SnapshotsSkipped != b.SnapshotsSkipped || a.BudgetRebuilds == 0 {
			t.Errorf("client %d: %d snapshots trimmed, %d skipped, %d rebuilds in all: not the budgeted path",
				a.Num, a.SnapshotsTrimmed-b.SnapshotsTrimmed, a.SnapshotsSkipped-b.SnapshotsSkipped, a.BudgetRebuilds)
		}
	}
}

// newCrowdSteady is the crowd game's server within 8000 B/s and three
// clients, over the allocation-free pipe of steady_test.go.
func newCrowdSteady(t *testing.T) *steady {
	st := &steady{p: pipe{latency: 30 * time.Millisecond}}
	cfg := server.Config{MaxClients: crowdMaxClients, Rate: 8000}
	var err error
	st.srv, err = server.New(serverhook.With(cfg, serverhook.Hooks{Seed: 25}), newCrowdGame(false), "",
		server.SendFunc(func(to netip.AddrPort, pkt []byte) { st.p.push(st.now, serverAddr, to, pkt) }))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		from := clientAddr(i)
		c, err := client.New(client.Config{}, newCrowdGame(true), client.InputFunc(func(client.Input) game.UserCmd { return game.UserCmd{} }),
			client.SendFunc(func(to netip.AddrPort, pkt []byte) { st.p.push(st.now, from, to, pkt) }))
		if err != nil {
			t.Fatal(err)
		}
		c.Connect(0, serverAddr)
		st.cls = append(st.cls, c)
	}
	return st
}

// Rates far below the crowd's changes (500 to 3000 B/s), over a lossless
// link: snapshots carry what fits, down to none of the walkers, and those
// in which nothing fits are skipped and counted (only at the two lowest
// rates); a build over the budget is retracted, so
// the snapshots the client receives are numbered without gaps (no loss
// counted) and the bases and states agree.
//
// Guards against: a retracted snapshot that used its sequence number (the
// client would count a loss), a skip counted as sent or the reverse, the
// skip returning while something fits.
func TestCrowdStarvedRate(t *testing.T) {
	for _, rate := range []int{500, 800, 1500, 3000} {
		t.Run(fmt.Sprint(rate), func(t *testing.T) {
			s := newCrowdSim(t, rate, netsim.LinkConfig{Latency: 40 * time.Millisecond}, 0, false)
			s.now = s.net.Run(s.now, 10*time.Second, s.nodes, s.buf)
			for i, cc := range s.cls {
				st, _ := serverhook.Client(s.srv, cc.c.ClientNum())
				ctr := clienthook.CountersOf(cc.c)
				t.Logf("client %d at %d B/s: %d snapshots sent, %d skipped, %d trimmed, %d rebuilds; %d received, %d lost",
					i, rate, st.SnapshotsSent, st.SnapshotsSkipped, st.SnapshotsTrimmed, st.BudgetRebuilds, ctr.SnapshotsReceived, ctr.SnapshotsLost)
				if cc.c.State() != client.Connected {
					t.Fatalf("client %d: %v %v", i, cc.c.State(), cc.c.Err())
				}
				if ctr.SnapshotsLost != 0 || ctr.SnapshotsReceived < st.SnapshotsSent-4 {
					t.Errorf("client %d: %d snapshots lost, %d received of %d sent over a lossless link", i, ctr.SnapshotsLost, ctr.SnapshotsReceived, st.SnapshotsSent)
				}
				// Below about 1000 B/s the packet's and the snapshot's headers
				// alone (with UDP/IP's 28 bytes) outgrow what the rate refills
				// in 50 ms (25 bytes at 500 B/s, 40 at 800).
				if (rate < 1000) != (st.SnapshotsSkipped > 0) || st.SnapshotsSent < 50 {
					t.Errorf("client %d: %d snapshots skipped and %d sent at %d B/s", i, st.SnapshotsSkipped, st.SnapshotsSent, rate)
				}
				if st.SnapshotsTrimmed < st.SnapshotsSent/2 {
					t.Errorf("client %d: %d rebuilds, %d of %d trimmed: the budget does not bind", i, st.BudgetRebuilds, st.SnapshotsTrimmed, st.SnapshotsSent)
				}
				if cc.mismatches != 0 || cc.baseBad != 0 || ctr.BaseMismatches != 0 || ctr.DecodeErrors != 0 || ctr.ApplyErrors != 0 || cc.baseChecks < 50 {
					t.Errorf("client %d: %d state and %d (%d) base mismatches in %d checks, %d decode and %d apply errors",
						i, cc.mismatches, cc.baseBad, ctr.BaseMismatches, cc.baseChecks, ctr.DecodeErrors, ctr.ApplyErrors)
				}
			}
		})
	}
}
