package client_test

import (
	"fmt"
	"math"
	"net/netip"
	"testing"
	"time"

	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/clienthook"
	"github.com/snapwire/snapwire/internal/snapshot"
	"github.com/snapwire/snapwire/netsim"
	"github.com/snapwire/snapwire/server"
)

// The ships game: each client has a pilot (its player entity, a Predict
// type) and a ship it owns (game.Owned), both moved by the client's
// commands; a buoy drifts on its own and is interpolated (game.Interpolate)
// for comparison. The ship type's mode is Predict (today's default, DOOM
// III §2) or PredictOwner.
const (
	typePilot game.TypeID = 1
	typeShip  game.TypeID = 2
	typeBuoy  game.TypeID = 3

	shipPlayers = 8
	firstShip   = 16 // client c's ship is firstShip+c
	buoyNum     = 40
	shipSpeed   = 0.05 // units per frame per command unit
)

type pilot struct{ X, Y float32 }

func (p *pilot) WriteSnapshot(w *bitmsg.DeltaWriter) { w.WriteFloat(p.X); w.WriteFloat(p.Y) }
func (p *pilot) ReadSnapshot(r *bitmsg.DeltaReader)  { p.X, p.Y = r.ReadFloat(), r.ReadFloat() }
func (p *pilot) Position() (x, y, z float32)         { return p.X, p.Y, 0 }

// ship is owned by client OwnerNum when HasOwner: both are networked.
type ship struct {
	X, Y     float32
	OwnerNum uint8
	HasOwner bool
}

func (s *ship) WriteSnapshot(w *bitmsg.DeltaWriter) {
	w.WriteFloat(s.X)
	w.WriteFloat(s.Y)
	w.WriteUint8(s.OwnerNum)
	w.WriteBool(s.HasOwner)
}
func (s *ship) ReadSnapshot(r *bitmsg.DeltaReader) {
	s.X, s.Y, s.OwnerNum, s.HasOwner = r.ReadFloat(), r.ReadFloat(), r.ReadUint8(), r.ReadBool()
}
func (s *ship) Position() (x, y, z float32)                 { return s.X, s.Y, 0 }
func (s *ship) Owner() (c game.ClientNum, ok bool)          { return game.ClientNum(s.OwnerNum), s.HasOwner }
func (s *ship) Interpolate(from, to game.Entity, f float32) { lerpShip(s, from.(*ship), to.(*ship), f) }

func lerpShip(s, a, b *ship, f float32) {
	*s = *b
	s.X = a.X + float32((b.X-a.X)*f)
	s.Y = a.Y + float32((b.Y-a.Y)*f)
}

type buoy struct{ X, VX float32 }

func (b *buoy) WriteSnapshot(w *bitmsg.DeltaWriter) { w.WriteFloat(b.X); w.WriteFloat(b.VX) }
func (b *buoy) ReadSnapshot(r *bitmsg.DeltaReader)  { b.X, b.VX = r.ReadFloat(), r.ReadFloat() }
func (b *buoy) Position() (x, y, z float32)         { return b.X, 0, 0 }
func (b *buoy) Interpolate(from, to game.Entity, f float32) {
	a, c := from.(*buoy), to.(*buoy)
	*b = *c
	b.X = a.X + float32((c.X-a.X)*f)
}

type shipGame struct {
	*game.EntityTable
	reg *game.Registry
	// handoff is the server frame at which client 0's ship passes to
	// client 1 (0: never).
	handoff game.Frame
}

func newShipGame(shipMode game.PredictionMode, handoff game.Frame) *shipGame {
	reg := game.NewRegistry()
	reg.MustRegister(game.EntityType{Name: "pilot", New: func() game.Entity { return &pilot{} }})
	reg.MustRegister(game.EntityType{Name: "ship", New: func() game.Entity { return &ship{} }, Mode: shipMode})
	reg.MustRegister(game.EntityType{Name: "buoy", New: func() game.Entity { return &buoy{} }, Mode: game.Interpolate})
	return &shipGame{EntityTable: game.NewEntityTable(reg), reg: reg, handoff: handoff}
}

func (g *shipGame) Registry() *game.Registry { return g.reg }

func (g *shipGame) Load(string) error {
	g.EntityTable = game.NewEntityTable(g.reg)
	e, err := g.Spawn(buoyNum, typeBuoy)
	if err != nil {
		return err
	}
	e.(*buoy).X, e.(*buoy).VX = 100, 1.5
	return nil
}

func (g *shipGame) ClientConnected(c game.ClientNum) error {
	if c >= shipPlayers {
		return fmt.Errorf("ships: client %d out of range", c)
	}
	p, err := g.Spawn(game.EntityNum(c), typePilot)
	if err != nil {
		return err
	}
	s, err := g.Spawn(firstShip+game.EntityNum(c), typeShip)
	if err != nil {
		return err
	}
	*p.(*pilot) = pilot{X: 1000, Y: float32(100 * int(c))}
	*s.(*ship) = ship{X: 1000, Y: float32(100*int(c) + 50), OwnerNum: uint8(c), HasOwner: true}
	return nil
}

func (g *shipGame) ClientDisconnected(c game.ClientNum) {
	g.Remove(game.EntityNum(c))
	g.Remove(firstShip + game.EntityNum(c))
}

func (g *shipGame) PlayerEntity(c game.ClientNum) (game.EntityNum, bool) {
	return game.EntityNum(c), c < shipPlayers
}

// RunFrame moves each pilot and every ship its client owns by the pilot's
// command, and the buoy by its velocity.
func (g *shipGame) RunFrame(t *game.Tick) {
	if !t.Predicting && g.handoff != 0 && t.Frame == g.handoff {
		if e, typ := g.Entity(firstShip); typ == typeShip {
			e.(*ship).OwnerNum = 1
		}
	}
	for _, pc := range t.Cmds {
		dx := float32(float32(pc.Cmd.Forward) * shipSpeed)
		dy := float32(float32(pc.Cmd.Right) * shipSpeed)
		if e, typ := g.Entity(pc.Entity); typ == typePilot {
			p := e.(*pilot)
			p.X, p.Y = p.X+dx, p.Y+dy
		}
		for n := game.EntityNum(firstShip); n < firstShip+shipPlayers; n++ {
			if e, typ := g.Entity(n); typ == typeShip {
				if s := e.(*ship); s.HasOwner && game.EntityNum(s.OwnerNum) == pc.Entity {
					s.X, s.Y = s.X+dx, s.Y+dy
				}
			}
		}
	}
	if e, typ := g.Entity(buoyNum); typ == typeBuoy {
		b := e.(*buoy)
		b.X += b.VX
		if b.X < 0 || b.X > 2000 {
			b.VX = -b.VX
		}
	}
}

func (g *shipGame) Visible(c game.ClientNum, set game.EntitySet) {
	for n := range g.Entities() {
		set.Add(n)
	}
}

func (g *shipGame) State(game.ClientNum, game.StateID) game.Snapshotter { return nil }

// shipCommand is client i's command for frame f: it changes every 41 and
// 67 frames, so the other clients' predictions of its pilot and ship
// (from its last command) go wrong when it does.
func shipCommand(i int, f game.Frame) game.UserCmd {
	return game.UserCmd{
		Forward: [5]int8{100, -60, 0, 127, -127}[(int(f)/41+2*i)%5],
		Right:   [5]int8{0, 40, -40, 80, -20}[(int(f)/67+i)%5],
	}
}

// errSum accumulates distances.
type errSum struct {
	n        int
	sum, max float64
}

func (e *errSum) add(d float64) { e.n++; e.sum += d; e.max = max(e.max, d) }
func (e errSum) mean() float64 {
	if e.n == 0 {
		return 0
	}
	return e.sum / float64(e.n)
}
func (e errSum) String() string {
	return fmt.Sprintf("mean %.4f max %.4f over %d", e.mean(), e.max, e.n)
}

// shipClient is one client of a ships run and what the test measured on
// it after the warm-up.
type shipClient struct {
	c     *client.Client
	g     *shipGame
	ep    *netsim.Endpoint
	codec *snapshot.StateCodec
	// ownErr is the distance, at each snapshot's frame, between where the
	// client predicted a ship it owns (in that snapshot) and the snapshot.
	ownErr errSum
	// selfErr is the same for its pilot (its player entity).
	selfErr errSum
	// Frames behind (ShownTime) of the ships it owns, the others' ships
	// and the buoy, at every frame after the warm-up.
	ownLag, otherLag, buoyLag errSum
	checked                   game.Frame // last frame whose ShownTime was read
	// lag16 is ship 16's lag by frame, for the handoff test.
	lag16 map[game.Frame]float64
	self  client.PredictionError // Stats.Self after the warm-up
	other client.PredictionError // Stats.Others after the warm-up
}

type shipRun struct {
	net   *netsim.Network
	srv   *server.Server
	sg    *shipGame
	cls   []*shipClient
	nodes []netsim.Node
	now   time.Duration
	warm  time.Duration
	buf   []byte
}

func newShipRun(t *testing.T, mode game.PredictionMode, handoff game.Frame, link netsim.LinkConfig, clients int) *shipRun {
	t.Helper()
	r := &shipRun{net: netsim.New(11), sg: newShipGame(mode, handoff), warm: 2 * time.Second, buf: make([]byte, 65536)}
	r.net.SetDefault(link)
	sep, err := r.net.Listen(serverAddr)
	if err != nil {
		t.Fatal(err)
	}
	r.srv, err = server.New(server.Config{Advanced: server.Advanced{VerifyBase: true}}, r.sg, "",
		server.SendFunc(func(to netip.AddrPort, p []byte) { sep.WriteTo(p, to) }))
	if err != nil {
		t.Fatal(err)
	}
	r.nodes = []netsim.Node{{Endpoint: sep, Receive: r.srv.HandlePacket, Advance: r.srv.Advance, Next: r.srv.Next}}
	for i := range clients {
		sc := &shipClient{g: newShipGame(mode, 0), codec: snapshot.NewStateCodec(), lag16: map[game.Frame]float64{}}
		if sc.ep, err = r.net.Listen(clientAddr(i)); err != nil {
			t.Fatal(err)
		}
		var cfg client.Config
		hooks := clienthook.Get(&cfg)
		hooks.OnSnapshot = func(s *snapshot.Snapshot) { r.onSnapshot(t, sc, s) }
		clienthook.Set(&cfg, hooks)
		ep := sc.ep
		sc.c, err = client.New(cfg, sc.g, client.InputFunc(func(in client.Input) game.UserCmd { return shipCommand(i, in.Frame) }),
			client.SendFunc(func(to netip.AddrPort, p []byte) { ep.WriteTo(p, to) }))
		if err != nil {
			t.Fatal(err)
		}
		sc.c.Connect(0, serverAddr)
		r.cls = append(r.cls, sc)
		r.nodes = append(r.nodes, netsim.Node{Endpoint: sc.ep,
			Receive: func(now time.Duration, _ netip.AddrPort, p []byte) { sc.c.HandlePacket(now, p) },
			Advance: sc.c.Advance, Next: sc.c.Next})
	}
	return r
}

// onSnapshot measures the owner's prediction error on its ships: the
// position it predicted for the snapshot's frame against the snapshot's.
func (r *shipRun) onSnapshot(t *testing.T, sc *shipClient, s *snapshot.Snapshot) {
	if r.now < r.warm {
		return
	}
	for i := range s.Entities {
		es := &s.Entities[i]
		if me, _ := sc.g.PlayerEntity(sc.c.ClientNum()); es.Num == me {
			if px, py, _, ok := clienthook.PredictedPosition(sc.c, es.Num, s.Header.Frame); ok {
				var p pilot
				if err := sc.codec.Load(&p, es.State, es.Bits); err != nil {
					t.Fatalf("pilot %d: %v", es.Num, err)
				}
				sc.selfErr.add(math.Hypot(float64(px-p.X), float64(py-p.Y)))
			}
		}
		if es.Type != typeShip {
			continue
		}
		var sh ship
		if err := sc.codec.Load(&sh, es.State, es.Bits); err != nil {
			t.Fatalf("ship %d: %v", es.Num, err)
		}
		if owner, ok := sh.Owner(); !ok || owner != sc.c.ClientNum() {
			continue
		}
		if px, py, _, ok := clienthook.PredictedPosition(sc.c, es.Num, s.Header.Frame); ok {
			sc.ownErr.add(math.Hypot(float64(px-sh.X), float64(py-sh.Y)))
		}
	}
}

// run plays to until in steps of 500 ms; after the warm-up it reads every
// client's ShownTime for the frames of each step (within its window).
func (r *shipRun) run(t *testing.T, until time.Duration) {
	for r.now < until {
		r.now = r.net.Run(r.now, min(r.now+500*time.Millisecond, until), r.nodes, r.buf)
		for _, sc := range r.cls {
			if r.now >= r.warm && sc.c.State() != client.Connected {
				t.Fatalf("client: %v %v", sc.c.State(), sc.c.Err())
			}
			if r.now <= r.warm {
				sc.checked = sc.c.Frame()
				sc.self, sc.other = sc.c.Stats().Self, sc.c.Stats().Others
				continue
			}
			r.readShown(sc)
		}
	}
}

func (r *shipRun) readShown(sc *shipClient) {
	me := sc.c.ClientNum()
	for f := sc.checked + 1; f <= sc.c.Frame(); f++ {
		if t, ok := sc.c.ShownTime(buoyNum, f); ok {
			sc.buoyLag.add(float64(f) - t)
		}
		for n := game.EntityNum(firstShip); n < firstShip+shipPlayers; n++ {
			t, ok := sc.c.ShownTime(n, f)
			if !ok {
				continue
			}
			lag := float64(f) - t
			if n == firstShip {
				sc.lag16[f] = lag
			}
			e, _, _ := sc.c.Entity(n)
			if owner, owned := e.(*ship).Owner(); owned && owner == me {
				sc.ownLag.add(lag)
			} else {
				sc.otherLag.add(lag)
			}
		}
	}
	sc.checked = sc.c.Frame()
}

// finish checks the invariants and takes the statistics since the
// warm-up.
func (r *shipRun) finish(t *testing.T) {
	t.Helper()
	for i, sc := range r.cls {
		ctr := clienthook.CountersOf(sc.c)
		if ctr.BaseMismatches != 0 || ctr.BaseChecks == 0 || ctr.DecodeErrors != 0 {
			t.Errorf("client %d: %d of %d bases differ from the server's, %d decode errors", i, ctr.BaseMismatches, ctr.BaseChecks, ctr.DecodeErrors)
		}
		st := sc.c.Stats()
		sc.self = subError(st.Self, sc.self)
		sc.other = subError(st.Others, sc.other)
	}
}

func subError(a, b client.PredictionError) client.PredictionError {
	return client.PredictionError{Samples: a.Samples - b.Samples, Wrong: a.Wrong - b.Wrong, Sum: a.Sum - b.Sum, Max: a.Max}
}

// Owner-predicted entities (issue 24, Netcode for Entities'
// owner-predicted ghosts) against today's Predict mode, on the same
// scenario (three clients, 60 ms ± 15 ms, 5% loss, 12 s): the owner's
// prediction error on its own ship is no larger than the self error of
// today's Predict mode (its pilot, moved by the same commands), and no
// larger than its error on the same ship when every client predicts it;
// the owner shows its ship at its own frame while the other clients show
// it between two snapshots, as far behind as the interpolated buoy, and
// drop it from their prediction error; the common bases stay equal to the
// server's.
func TestOwnerPredicted(t *testing.T) {
	link := netsim.LinkConfig{Latency: 60 * time.Millisecond, Jitter: 30 * time.Millisecond, Loss: 0.2}
	const clients, until = 3, 12 * time.Second
	today := newShipRun(t, game.Predict, 0, link, clients)
	today.run(t, until)
	today.finish(t)
	owned := newShipRun(t, game.PredictOwner, 0, link, clients)
	owned.run(t, until)
	owned.finish(t)

	for i := range clients {
		a, b := today.cls[i], owned.cls[i]
		t.Logf("client %d, Predict: self %v, own ship %v, others' ships lag %v; Others %d samples",
			i, a.selfErr, a.ownErr, a.otherLag, a.other.Samples)
		t.Logf("client %d, PredictOwner: own ship %v, lag own %v others' %v buoy %v; Others %d samples",
			i, b.ownErr, b.ownLag, b.otherLag, b.buoyLag, b.other.Samples)
		if a.selfErr.n < 100 || b.ownErr.n < 100 || a.ownErr.n < 100 {
			t.Fatalf("client %d: too few samples: self %d, own ship %d/%d", i, a.selfErr.n, a.ownErr.n, b.ownErr.n)
		}
		// Today's self error is Stats.Self; with PredictOwner, Self
		// holds the pilot and the ship.
		if a.self.Samples != uint64(a.selfErr.n) || math.Abs(a.self.Sum-a.selfErr.sum) > 1e-6 ||
			b.self.Samples != uint64(b.selfErr.n+b.ownErr.n) || math.Abs(b.self.Sum-b.selfErr.sum-b.ownErr.sum) > 1e-6 {
			t.Errorf("client %d: Stats.Self %+v / %+v, measured pilot %v, pilot %v and ship %v", i, a.self, b.self, a.selfErr, b.selfErr, b.ownErr)
		}
		if b.ownErr.mean() > a.selfErr.mean() || b.ownErr.max > a.selfErr.max {
			t.Errorf("client %d: owner's error on its ship %v above today's self error %v", i, b.ownErr, a.selfErr)
		}
		if b.ownErr.mean() > a.ownErr.mean() {
			t.Errorf("client %d: owner's error on its ship %v, above %v when every client predicts it", i, b.ownErr, a.ownErr)
		}
		// Shown times: predicted ships at their frame; interpolated ones
		// one snapshot interval (3 frames at 20 Hz) plus the latency
		// behind, like the buoy.
		if a.ownLag.max != 0 || a.otherLag.max != 0 || b.ownLag.max != 0 || b.ownLag.n == 0 {
			t.Errorf("client %d: predicted ships shown behind their frame: Predict %v / %v, own %v", i, a.ownLag, a.otherLag, b.ownLag)
		}
		if b.otherLag.n == 0 || b.otherLag.mean() < 3 || math.Abs(b.otherLag.mean()-b.buoyLag.mean()) > 1 {
			t.Errorf("client %d: others' ships shown %v behind, the interpolated buoy %v", i, b.otherLag, b.buoyLag)
		}
		// The others' ships leave the prediction error: Others holds
		// their pilots only (half as many samples), Self the pilot and
		// the ship.
		if 4*b.other.Samples > 3*a.other.Samples || 4*b.self.Samples < 7*a.self.Samples {
			t.Errorf("client %d: samples Predict self %d others %d, PredictOwner self %d others %d",
				i, a.self.Samples, a.other.Samples, b.self.Samples, b.other.Samples)
		}
	}
}

// A ship changing hands (the server gives client 0's ship to client 1 at
// frame 360, then client 1's commands move it): client 1, interpolating
// it until the new owner reaches it in a snapshot, predicts it from then
// on; client 0 predicts it until then and interpolates it after; the
// bases stay equal to the server's.
func TestOwnerHandoff(t *testing.T) {
	link := netsim.LinkConfig{Latency: 60 * time.Millisecond, Jitter: 30 * time.Millisecond, Loss: 0.2}
	const handoff = 360
	r := newShipRun(t, game.PredictOwner, handoff, link, 2)
	r.run(t, 12*time.Second)
	r.finish(t)
	// The clients run about 10 frames ahead of the server here; a
	// second around the handoff is left out.
	for i, sc := range r.cls {
		var before, after errSum
		for f, lag := range sc.lag16 {
			switch {
			case f < handoff-30:
				before.add(lag)
			case f > handoff+30:
				after.add(lag)
			}
		}
		me := sc.c.ClientNum()
		wantBefore, wantAfter := me == 0, me == 1 // predicted by its owner
		if before.n < 60 || after.n < 60 || (before.max == 0) == !wantBefore || (after.max == 0) == !wantAfter ||
			(!wantBefore && before.mean() < 3) || (!wantAfter && after.mean() < 3) {
			t.Errorf("client %d: ship 16 shown %v behind before the handoff, %v after", me, before, after)
		}
		if sc.ownErr.n == 0 {
			t.Errorf("client %d: no prediction error measured on its own ship", i)
		}
	}
}

// Project rule for owner-predicted entities: with every ship a
// PredictOwner entity (its owner's predicted, the others' interpolated)
// the clients and the server allocate nothing in steady state, over the
// allocation-free pipe of TestClientSteadyStateAllocs.
func TestOwnerPredictedSteadyStateAllocs(t *testing.T) {
	st := &steady{p: pipe{latency: 30 * time.Millisecond}}
	var err error
	st.srv, err = server.New(server.Config{Advanced: server.Advanced{VerifyBase: true}}, newShipGame(game.PredictOwner, 0), "",
		server.SendFunc(func(to netip.AddrPort, pkt []byte) { st.p.push(st.now, serverAddr, to, pkt) }))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		from := clientAddr(i)
		c, err := client.New(client.Config{}, newShipGame(game.PredictOwner, 0),
			client.InputFunc(func(in client.Input) game.UserCmd { return shipCommand(i, in.Frame) }),
			client.SendFunc(func(to netip.AddrPort, pkt []byte) { st.p.push(st.now, from, to, pkt) }))
		if err != nil {
			t.Fatal(err)
		}
		c.Connect(0, serverAddr)
		st.cls = append(st.cls, c)
	}
	st.run(20 * time.Second)
	before := make([]uint64, len(st.cls))
	for i, c := range st.cls {
		if c.State() != client.Connected {
			t.Fatalf("client %d: %v %v", i, c.State(), c.Err())
		}
		before[i] = c.Stats().SnapshotsReceived
	}
	if allocs := testing.AllocsPerRun(50, func() { st.run(100 * time.Millisecond) }); allocs != 0 {
		t.Errorf("%v allocations per 100 ms (server and 3 clients)", allocs)
	}
	for i, c := range st.cls {
		shown, ok := c.ShownTime(firstShip+game.EntityNum((c.ClientNum()+1)%3), c.Frame())
		if got := c.Stats().SnapshotsReceived - before[i]; got < 50 || !ok || shown >= float64(c.Frame()) {
			t.Errorf("client %d: %d snapshots during the runs, another's ship shown at %v (%v) at frame %d", i, got, shown, ok, c.Frame())
		}
	}
}
