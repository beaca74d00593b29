package client_test

import (
	"bytes"
	"fmt"
	"net/netip"
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

// The spawner game: every entity number comes from game.EntityTable.Add,
// the players' too (the client learns its own from its player state).
// The server spawns a shot or a crate every other frame and removes each
// after 1 to 30 frames. Every entity carries a serial, unique per spawn,
// so the tests tell a reused number from the entity that had it.

type spawnPlayer struct {
	Serial uint32
	X      int32
}

func (p *spawnPlayer) WriteSnapshot(w *bitmsg.DeltaWriter) {
	w.WriteUint32(p.Serial)
	w.WriteInt(p.X, 24)
}
func (p *spawnPlayer) ReadSnapshot(r *bitmsg.DeltaReader) {
	p.Serial, p.X = r.ReadUint32(), r.ReadInt(24)
}
func (p *spawnPlayer) serial() uint32 { return p.Serial }

type spawnShot struct {
	Serial uint32
	X, VX  int32
	expiry game.Frame // server only
}

func (s *spawnShot) WriteSnapshot(w *bitmsg.DeltaWriter) {
	w.WriteUint32(s.Serial)
	w.WriteInt(s.X, 24)
	w.WriteInt(s.VX, 8)
}
func (s *spawnShot) ReadSnapshot(r *bitmsg.DeltaReader) {
	s.Serial, s.X, s.VX = r.ReadUint32(), r.ReadInt(24), r.ReadInt(8)
}
func (s *spawnShot) serial() uint32 { return s.Serial }

type spawnCrate struct {
	Serial uint32
	HP     uint8
	expiry game.Frame // server only
}

func (c *spawnCrate) WriteSnapshot(w *bitmsg.DeltaWriter) {
	w.WriteUint32(c.Serial)
	w.WriteUint8(c.HP)
}
func (c *spawnCrate) ReadSnapshot(r *bitmsg.DeltaReader) {
	c.Serial, c.HP = r.ReadUint32(), r.ReadUint8()
}
func (c *spawnCrate) serial() uint32 { return c.Serial }

// spawnMe is a client's own non-PVS state: its player's number.
type spawnMe struct {
	Num  game.EntityNum
	Have bool
}

func (m *spawnMe) WriteSnapshot(w *bitmsg.DeltaWriter) {
	w.WriteBool(m.Have)
	w.WriteBits(uint32(m.Num), 12)
}
func (m *spawnMe) ReadSnapshot(r *bitmsg.DeltaReader) {
	m.Have, m.Num = r.ReadBool(), game.EntityNum(r.ReadBits(12))
}

const (
	spawnMaxClients = 8
	spawnLife       = 30 // frames, at most
)

type spawnGame struct {
	*game.EntityTable
	reg                 *game.Registry
	player, shot, crate game.TypeID
	me                  [spawnMaxClients]spawnMe // by client; a client uses me[0]
	client              bool
	serials             uint32
	last                game.Frame // the last frame run
	// onAdd and onRemove, if set, see the server's spawns and removals:
	// firstAbsent is the first frame whose snapshots lack the entity.
	onAdd    func(n game.EntityNum, serial uint32)
	onRemove func(n game.EntityNum, firstAbsent game.Frame)
	onLoad   func()
}

func newSpawnGame(isClient bool) *spawnGame {
	g := &spawnGame{reg: game.NewRegistry(), client: isClient}
	g.player = g.reg.MustRegister(game.EntityType{Name: "spawn.player", New: func() game.Entity { return &spawnPlayer{} }})
	g.shot = g.reg.MustRegister(game.EntityType{Name: "spawn.shot", New: func() game.Entity { return &spawnShot{} }})
	g.crate = g.reg.MustRegister(game.EntityType{Name: "spawn.crate", New: func() game.Entity { return &spawnCrate{} }})
	g.reg.MustRegisterState(game.StateType{Name: "spawn.me", New: func() game.Snapshotter { return &spawnMe{} }})
	g.EntityTable = game.NewEntityTable(g.reg)
	return g
}

func (g *spawnGame) Registry() *game.Registry { return g.reg }

func (g *spawnGame) Load(string) error {
	g.EntityTable = game.NewEntityTable(g.reg)
	g.me = [spawnMaxClients]spawnMe{}
	if g.onLoad != nil {
		g.onLoad()
	}
	return nil
}

func (g *spawnGame) add(typ game.TypeID) (game.EntityNum, game.Entity, error) {
	n, e, err := g.Add(typ)
	if err != nil {
		return 0, nil, err
	}
	g.serials++
	switch v := e.(type) {
	case *spawnPlayer:
		v.Serial = g.serials
	case *spawnShot:
		v.Serial = g.serials
	case *spawnCrate:
		v.Serial = g.serials
	}
	if g.onAdd != nil {
		g.onAdd(n, g.serials)
	}
	return n, e, nil
}

// remove removes entity n; during frame f's RunFrame, or between frames
// (f = 0), when the next frame's snapshots are the first without it.
func (g *spawnGame) remove(n game.EntityNum, f game.Frame) {
	g.Remove(n)
	if f == 0 {
		f = g.last + 1
	}
	if g.onRemove != nil {
		g.onRemove(n, f)
	}
}

func (g *spawnGame) ClientConnected(c game.ClientNum) error {
	n, _, err := g.add(g.player)
	if err != nil {
		return err
	}
	g.me[c] = spawnMe{Num: n, Have: true}
	return nil
}

func (g *spawnGame) ClientDisconnected(c game.ClientNum) {
	if g.me[c].Have {
		g.remove(g.me[c].Num, 0)
		g.me[c] = spawnMe{}
	}
}

func (g *spawnGame) PlayerEntity(c game.ClientNum) (game.EntityNum, bool) {
	if g.client {
		c = 0
	}
	if int(c) >= len(g.me) {
		return 0, false
	}
	return g.me[c].Num, g.me[c].Have
}

func (g *spawnGame) RunFrame(t *game.Tick) {
	for _, pc := range t.Cmds {
		if e, typ := g.Entity(pc.Entity); typ == g.player {
			e.(*spawnPlayer).X += int32(pc.Cmd.Forward)
		}
	}
	var expired [game.MaxEntities]bool
	for n, e := range g.Entities() {
		switch v := e.(type) {
		case *spawnShot:
			v.X += v.VX
			expired[n] = v.expiry <= t.Frame
		case *spawnCrate:
			expired[n] = v.expiry <= t.Frame
		}
	}
	if t.Predicting {
		return // the server spawns and removes (game.Tick)
	}
	for n := range expired {
		if expired[n] {
			g.remove(game.EntityNum(n), t.Frame)
		}
	}
	if t.Frame%2 == 0 {
		life := 1 + game.Frame(g.serials*7)%spawnLife
		if (g.serials/3)%2 == 0 {
			if _, e, err := g.add(g.shot); err == nil {
				s := e.(*spawnShot)
				s.VX, s.expiry = int32(g.serials%9)-4, t.Frame+life
			}
		} else if _, e, err := g.add(g.crate); err == nil {
			c := e.(*spawnCrate)
			c.HP, c.expiry = uint8(g.serials), t.Frame+life
		}
	}
	g.last = t.Frame
}

func (g *spawnGame) Visible(c game.ClientNum, set game.EntitySet) {
	for n := range g.Entities() {
		set.Add(n)
	}
}

func (g *spawnGame) State(c game.ClientNum, id game.StateID) game.Snapshotter {
	if g.client || int(c) >= len(g.me) {
		return &g.me[0]
	}
	return &g.me[c]
}

type serialer interface{ serial() uint32 }

// spawnClient is one client of the spawn test and what it checked.
type spawnClient struct {
	c  *client.Client
	g  *spawnGame
	ep *netsim.Endpoint
	// seqFrame maps the snapshots it received to their frames.
	seqFrame map[snapshot.Seq]game.Frame
	// shown[n] is the serial of entity n in the last snapshot received (0:
	// not in its PVS); based[n] the same in the last base applied.
	shown, based                          [game.MaxEntities]uint32
	game                                  game.GameID // of shown and based
	stateChecks, stateMismatches, jumps   int
	baseChecks, baseMismatches, baseJumps int
}

// spawnSim runs the spawner game's server and clients over netsim.
type spawnSim struct {
	t     *testing.T
	net   *netsim.Network
	srv   *server.Server
	sg    *spawnGame
	sep   *netsim.Endpoint
	cls   []*spawnClient
	nodes []netsim.Node
	now   time.Duration
	buf   []byte
	codec *snapshot.StateCodec
	// The server's side: the states of each recent frame, the hash, seq
	// and PVS of each client's base after each apply.
	rec     map[game.Frame]map[game.EntityNum][]byte
	applied map[[2]uint64]uint64
	baseSeq [spawnMaxClients]snapshot.Seq
	basePVS [spawnMaxClients]snapshot.PVS
	bySlot  [spawnMaxClients]*spawnClient
	// entered[c] is the first frame whose snapshots client c may get
	// (it was in the game when the frame ran).
	entered  [spawnMaxClients]game.Frame
	inGame   [spawnMaxClients]bool
	addr     netip.AddrPort
	freedAt  map[game.EntityNum]game.Frame // first frame without the removed entity
	adds     int
	reuses   int
	maxNum   game.EntityNum
	reuseBad []string
}

func newSpawnSim(t *testing.T, seed uint64, link netsim.LinkConfig) *spawnSim {
	s := &spawnSim{t: t, net: netsim.New(seed), sg: newSpawnGame(false), buf: make([]byte, 65536),
		codec: snapshot.NewStateCodec(), rec: map[game.Frame]map[game.EntityNum][]byte{},
		applied: map[[2]uint64]uint64{}, freedAt: map[game.EntityNum]game.Frame{},
		addr: netip.MustParseAddrPort("10.9.0.1:27960")}
	s.net.SetDefault(link)
	var err error
	if s.sep, err = s.net.Listen(s.addr); err != nil {
		t.Fatal(err)
	}
	s.sg.onAdd = s.onAdd
	s.sg.onRemove = func(n game.EntityNum, f game.Frame) { s.freedAt[n] = f }
	s.sg.onLoad = func() { clear(s.freedAt) } // a new table: its numbers were never used
	scfg := server.Config{MaxClients: spawnMaxClients}
	scfg.VerifyBase = true
	serverhook.Edit(&scfg, func(h *serverhook.Hooks) {
		h.Seed, h.Deterministic = seed, true
		h.OnFrame = s.onFrame
		h.OnApply = func(c game.ClientNum, seq snapshot.Seq, base *snapshot.CommonBase) {
			s.applied[[2]uint64{uint64(c), uint64(seq)}] = base.Hash()
			s.baseSeq[c], s.basePVS[c] = seq, *base.PVS()
		}
	})
	s.srv, err = server.New(scfg, s.sg, "", server.SendFunc(func(to netip.AddrPort, p []byte) { s.sep.WriteTo(p, to) }))
	if err != nil {
		t.Fatal(err)
	}
	s.nodes = []netsim.Node{{Endpoint: s.sep, Receive: s.srv.HandlePacket, Advance: s.srv.Advance, Next: s.srv.Next}}
	return s
}

// onAdd checks a number Add handed out again: every client in the game
// has applied a snapshot without the entity that had it, and its base
// (on the server) does not hold that entity in its PVS.
func (s *spawnSim) onAdd(n game.EntityNum, serial uint32) {
	s.adds++
	s.maxNum = max(s.maxNum, n)
	freed, reused := s.freedAt[n]
	if !reused {
		return
	}
	s.reuses++
	delete(s.freedAt, n)
	s.noteEntries(s.srv.Frame() + 1) // the frame running
	for _, cs := range serverhook.Clients(s.srv) {
		if !cs.InGame {
			continue
		}
		seq := s.baseSeq[cs.Num]
		sc := s.bySlot[cs.Num]
		f, ok := game.Frame(0), false
		if sc != nil {
			f, ok = sc.seqFrame[seq]
		}
		switch {
		case freed <= s.entered[cs.Num]:
			// It entered the game after the removal: none of its
			// snapshots held the entity.
		case seq == 0 || !ok:
			s.reuseBad = append(s.reuseBad, fmt.Sprintf("number %d reused at frame %d (serial %d) while client %d is on the map base", n, s.srv.Frame()+1, serial, cs.Num))
		case f < freed:
			s.reuseBad = append(s.reuseBad, fmt.Sprintf("number %d reused at frame %d while client %d's base holds frame %d, before the removal (first absent at %d)", n, s.srv.Frame()+1, cs.Num, f, freed))
		case s.basePVS[cs.Num].Has(n):
			s.reuseBad = append(s.reuseBad, fmt.Sprintf("number %d reused at frame %d while client %d's base holds it in its PVS", n, s.srv.Frame()+1, cs.Num))
		}
	}
}

func (s *spawnSim) onFrame(f game.Frame) {
	s.noteEntries(f)
	delete(s.rec, f-256)
	m := map[game.EntityNum][]byte{}
	for n, e := range s.sg.Entities() {
		st, bits, err := s.codec.Save(e)
		if err != nil {
			s.t.Fatal(err)
		}
		_, typ := s.sg.Entity(n)
		m[n] = append([]byte{byte(typ)}, st[:(bits+7)/8]...)
	}
	s.rec[f] = m
}

// noteEntries records, during or after frame f, the clients that entered
// the game since the last call.
func (s *spawnSim) noteEntries(f game.Frame) {
	var in [spawnMaxClients]bool
	for _, cs := range serverhook.Clients(s.srv) {
		in[cs.Num] = cs.InGame
		if cs.InGame && !s.inGame[cs.Num] {
			s.entered[cs.Num] = f
			s.baseSeq[cs.Num], s.basePVS[cs.Num] = 0, snapshot.PVS{}
		}
	}
	s.inGame = in
}

func (s *spawnSim) addClient(i int) *spawnClient {
	t := s.t
	a := netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 9, 1, byte(i + 1)}), uint16(41000+i))
	ep, err := s.net.Listen(a)
	if err != nil {
		t.Fatal(err)
	}
	sc := &spawnClient{g: newSpawnGame(true), ep: ep, seqFrame: map[snapshot.Seq]game.Frame{}}
	ccfg := client.Config{Name: "spawn"}
	var h clienthook.Hooks
	h.OnSnapshot = func(snap *snapshot.Snapshot) { s.checkSnapshot(sc, snap) }
	h.OnApply = func(seq snapshot.Seq, base *snapshot.CommonBase) { s.checkBase(sc, seq, base) }
	clienthook.Set(&ccfg, h)
	input := client.InputFunc(func(in client.Input) game.UserCmd {
		return game.UserCmd{Forward: int8((int(in.Frame)/40+i)%3*50 - 50)}
	})
	sc.c, err = client.New(ccfg, sc.g, input, client.SendFunc(func(to netip.AddrPort, p []byte) { ep.WriteTo(p, to) }))
	if err != nil {
		t.Fatal(err)
	}
	sc.c.Connect(s.now, s.addr)
	s.cls = append(s.cls, sc)
	s.nodes = append(s.nodes, netsim.Node{Endpoint: ep,
		Receive: func(now time.Duration, _ netip.AddrPort, p []byte) { sc.c.HandlePacket(now, p) },
		Advance: sc.c.Advance, Next: sc.c.Next})
	return sc
}

// checkSnapshot compares the client's world at the snapshot's frame with
// the server's states, and checks that no entity number went from one
// entity to another between two snapshots in a row: the client sees the
// removed entity leave before its number returns.
func (s *spawnSim) checkSnapshot(sc *spawnClient, snap *snapshot.Snapshot) {
	sc.sameGame()
	if sc.c.ClientNum() < spawnMaxClients {
		s.bySlot[sc.c.ClientNum()] = sc
	}
	sc.seqFrame[snap.Header.Seq] = snap.Header.Frame
	want := s.rec[snap.Header.Frame]
	var shown [game.MaxEntities]uint32
	for n := range snap.PVS.All() {
		e, typ := sc.g.Entity(n)
		if e == nil {
			sc.stateMismatches++
			continue
		}
		shown[n] = e.(serialer).serial()
		if prev := sc.shown[n]; prev != 0 && prev != shown[n] {
			sc.jumps++
		}
		if want != nil {
			sc.stateChecks++
			st, bits, err := s.codec.Save(e)
			if err != nil || !bytes.Equal(append([]byte{byte(typ)}, st[:(bits+7)/8]...), want[n]) {
				sc.stateMismatches++
			}
		}
	}
	sc.shown = shown
}

// checkBase compares the client's base with the server's after the same
// apply, and checks that no number in the base's PVS went from one entity
// to another from one applied snapshot to the next.
func (s *spawnSim) checkBase(sc *spawnClient, seq snapshot.Seq, base *snapshot.CommonBase) {
	sc.sameGame()
	if hash, ok := s.applied[[2]uint64{uint64(sc.c.ClientNum()), uint64(seq)}]; ok {
		sc.baseChecks++
		if hash != base.Hash() {
			sc.baseMismatches++
		}
	}
	var based [game.MaxEntities]uint32
	for n := range base.PVS().All() {
		typ, st, bits := base.Entity(n)
		e, err := sc.g.reg.New(typ)
		if err != nil || s.codec.Load(e, st, bits) != nil {
			sc.baseMismatches++
			continue
		}
		based[n] = e.(serialer).serial()
		if prev := sc.based[n]; prev != 0 && prev != based[n] {
			sc.baseJumps++
		}
	}
	sc.based = based
}

// sameGame forgets what the client saw in the game before the last map
// change: its world and base start again from the new map.
func (sc *spawnClient) sameGame() {
	if id := sc.c.GameID(); id != sc.game {
		sc.game, sc.shown, sc.based = id, [game.MaxEntities]uint32{}, [game.MaxEntities]uint32{}
		clear(sc.seqFrame)
	}
}

func (s *spawnSim) run(until time.Duration) { s.now = s.net.Run(s.now, until, s.nodes, s.buf) }

// TestSpawnNumbersReusedUnderLoss: entities spawned with EntityTable.Add
// and removed every few frames, five clients over links losing 20% of
// packets, one joining late and one leaving: no number returns while a
// client's base holds the removed entity (checked on the server at each
// reuse, and on each client from its snapshots and its base), numbers are
// recycled (the highest stays low), and the bases and states agree.
func TestSpawnNumbersReusedUnderLoss(t *testing.T) {
	s := newSpawnSim(t, 24, netsim.LinkConfig{Latency: 40 * time.Millisecond, Jitter: 15 * time.Millisecond, Loss: 0.2})
	for i := range 3 {
		s.addClient(i)
	}
	leaver := s.addClient(3)
	s.run(2 * time.Second)
	s.addClient(4) // joins late: starts from the map base
	s.run(4 * time.Second)
	leaver.c.Disconnect(s.now) // its player's number is held, then recycled
	s.run(7 * time.Second)
	if err := s.srv.ChangeMap("again"); err != nil { // a new table; every client re-enters
		t.Fatal(err)
	}
	s.run(13 * time.Second)

	for _, m := range s.reuseBad {
		t.Error(m)
	}
	if st := serverhook.ServerStats(s.srv); st.MapChanges != 1 {
		t.Errorf("%d map changes", st.MapChanges)
	}
	for i, sc := range s.cls {
		if sc != leaver && (sc.c.State() != client.Connected || sc.c.Err() != nil) {
			t.Errorf("client %d: %v, %v", i, sc.c.State(), sc.c.Err())
		}
		ctr := clienthook.CountersOf(sc.c)
		t.Logf("client %d: %d snapshots (%d lost), %d state checks, %d base checks, %d applies",
			i, ctr.SnapshotsReceived, ctr.SnapshotsLost, sc.stateChecks, sc.baseChecks, ctr.Applies)
		if sc.jumps != 0 || sc.baseJumps != 0 {
			t.Errorf("client %d: %d numbers changed entity between snapshots, %d between applied bases", i, sc.jumps, sc.baseJumps)
		}
		if sc.stateMismatches != 0 || sc.baseMismatches != 0 || ctr.BaseMismatches != 0 || ctr.DecodeErrors != 0 || ctr.ApplyErrors != 0 {
			t.Errorf("client %d: %d state and %d (%d) base mismatches, %d decode and %d apply errors",
				i, sc.stateMismatches, sc.baseMismatches, ctr.BaseMismatches, ctr.DecodeErrors, ctr.ApplyErrors)
		}
		if least := 1000 / (1 + 2*btoi(sc == leaver)); sc.stateChecks < least || sc.baseChecks < 20 || ctr.BaseChecks < 20 {
			t.Errorf("client %d: only %d state checks and %d (%d) base checks", i, sc.stateChecks, sc.baseChecks, ctr.BaseChecks)
		}
	}
	t.Logf("%d spawns, %d numbers reused, highest number %d", s.adds, s.reuses, s.maxNum)
	if s.adds < 300 || s.reuses < s.adds/2 {
		t.Errorf("%d spawns, %d reused numbers: the test does not exercise recycling", s.adds, s.reuses)
	}
	if s.maxNum >= 64 {
		t.Errorf("highest entity number %d: numbers are not recycled", s.maxNum)
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
