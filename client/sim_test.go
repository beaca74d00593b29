package client_test

import (
	"bytes"
	"hash"
	"hash/fnv"
	"net/netip"
	"testing"
	"time"

	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/clienthook"
	"github.com/snapwire/snapwire/internal/netchan"
	"github.com/snapwire/snapwire/internal/serverhook"
	"github.com/snapwire/snapwire/internal/session"
	"github.com/snapwire/snapwire/internal/snapshot"
	"github.com/snapwire/snapwire/internal/testgame"
	"github.com/snapwire/snapwire/netsim"
	"github.com/snapwire/snapwire/server"
)

var serverAddr = netip.MustParseAddrPort("10.0.0.1:27960")

func clientAddr(i int) netip.AddrPort {
	return netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 0, 1, byte(i + 1)}), uint16(40000+i))
}

// frameStates is the server's authoritative state of one frame.
type frameStates struct {
	frame game.Frame
	ents  map[game.EntityNum][]byte
	types map[game.EntityNum]game.TypeID
}

type simClient struct {
	c      *client.Client
	g      *testgame.Game
	ep     *netsim.Endpoint
	mode   botMode
	events map[[3]int64]int // unreliable events seen: (entity, id, frame)
	dupEv  int
	// checks
	stateChecks, stateMismatch int
	baseChecks, baseMismatch   int
	onSnap                     func(*snapshot.Snapshot)
}

type botMode int

const (
	botWander   botMode = iota // changes direction, sometimes drifts across lanes and uses doors
	botLane                    // stays in its lane: never touches another player
	botConstant                // never changes its command
)

type sim struct {
	t       testing.TB
	net     *netsim.Network
	srv     *server.Server
	sg      *testgame.Game
	sep     *netsim.Endpoint
	cls     []*simClient
	now     time.Duration
	rec     [512]frameStates
	codec   *snapshot.StateCodec
	buf     []byte
	record  bool
	applied map[[2]uint64]uint64 // (client, seq) -> server base hash after applying
	scfg    server.Config
	// sent hashes every snapshot packet the server sent, in order.
	sent hash.Hash64
	// simNodes is nodes(nil), rebuilt when a client is added.
	simNodes []netsim.Node
	// wrap, if set, gives the game a client added next predicts with,
	// around its testgame (sc.g).
	wrap func(sc *simClient) game.Game
}

func newSim(t testing.TB, seed uint64, link netsim.LinkConfig, scfg server.Config) *sim {
	t.Helper()
	s := &sim{t: t, net: netsim.New(seed), sg: testgame.New(), codec: snapshot.NewStateCodec(), buf: make([]byte, 65536), record: true}
	s.net.SetDefault(link)
	var err error
	s.sep, err = s.net.Listen(serverAddr)
	if err != nil {
		t.Fatal(err)
	}
	scfg.VerifyBase = true
	s.applied = map[[2]uint64]uint64{}
	serverhook.Edit(&scfg, func(h *serverhook.Hooks) {
		h.Seed = seed
		h.OnFrame = s.onFrame
		h.OnApply = func(c game.ClientNum, seq snapshot.Seq, base *snapshot.CommonBase) {
			s.applied[[2]uint64{uint64(c), uint64(seq)}] = base.Hash()
		}
	})
	s.scfg = scfg
	s.sent = fnv.New64a()
	s.srv, err = server.New(scfg, s.sg, testgame.DefaultSettings, server.SendFunc(func(to netip.AddrPort, p []byte) {
		if !netchan.IsConnectionless(p) && len(p) >= netchan.HeaderLen && p[1] == byte(session.TypeSnapshot) {
			s.sent.Write(p) // the handshake's packets carry the clients' random nonces
		}
		s.sep.WriteTo(p, to)
	}))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func (s *sim) onFrame(f game.Frame) {
	if !s.record {
		return
	}
	fs := &s.rec[int(f)%len(s.rec)]
	fs.frame = f
	if fs.ents == nil {
		fs.ents = map[game.EntityNum][]byte{}
		fs.types = map[game.EntityNum]game.TypeID{}
	}
	clear(fs.ents)
	clear(fs.types)
	for n, e := range s.sg.Entities() {
		st, bits, err := s.codec.Save(e)
		if err != nil {
			s.t.Fatal(err)
		}
		fs.ents[n] = append([]byte(nil), st[:(bits+7)/8]...)
		_, typ := s.sg.Entity(n)
		fs.types[n] = typ
	}
}

func botInput(sc *simClient, i int) client.InputFunc {
	return func(in client.Input) game.UserCmd {
		f := in.Frame
		var cmd game.UserCmd
		switch sc.mode {
		case botConstant:
			cmd.Forward = 50
		case botLane:
			phase := (int(f)/97 + i) % 4
			cmd.Forward = [4]int8{100, 0, -100, 60}[phase]
			cmd.Yaw = uint16(phase * 1000)
		case botWander:
			phase := (int(f)/53 + 3*i) % 6
			cmd.Forward = [6]int8{120, -80, 0, 127, -127, 40}[phase]
			cmd.Right = [6]int8{0, 30, -30, 0, 60, -60}[(int(f)/71+i)%6]
			if (int(f)+17*i)%240 == 0 {
				cmd.Buttons = 1
			}
		}
		return cmd
	}
}

func (s *sim) addClient(i int, mode botMode, ccfg client.Config) *simClient {
	s.t.Helper()
	ep, err := s.net.Listen(clientAddr(i))
	if err != nil {
		s.t.Fatal(err)
	}
	sc := &simClient{g: testgame.New(), ep: ep, mode: mode, events: map[[3]int64]int{}}
	ccfg.Name = "bot"
	hooks := clienthook.Get(&ccfg)
	hooks.OnSnapshot = func(snap *snapshot.Snapshot) {
		s.checkStates(sc, snap.Header, &snap.PVS)
		if sc.onSnap != nil {
			sc.onSnap(snap)
		}
	}
	hooks.OnApply = func(seq snapshot.Seq, base *snapshot.CommonBase) {
		if hash, ok := s.applied[[2]uint64{uint64(sc.c.ClientNum()), uint64(seq)}]; ok {
			sc.baseChecks++
			if hash != base.Hash() {
				sc.baseMismatch++
			}
		}
	}
	hooks.OnEvent = func(ev *game.Event, reliable bool) {
		if !reliable {
			k := [3]int64{int64(ev.Entity), int64(ev.ID), int64(ev.Frame)}
			sc.events[k]++
			if sc.events[k] > 1 {
				sc.dupEv++
			}
		}
	}
	clienthook.Set(&ccfg, hooks)
	var g game.Game = sc.g
	if s.wrap != nil {
		g = s.wrap(sc)
	}
	sc.c, err = client.New(ccfg, g, botInput(sc, i), client.SendFunc(func(to netip.AddrPort, p []byte) {
		ep.WriteTo(p, to)
	}))
	if err != nil {
		s.t.Fatal(err)
	}
	sc.c.Connect(s.now, serverAddr)
	s.cls = append(s.cls, sc)
	return sc
}

// checkStates compares the client's world at the snapshot's frame with the
// server's recorded states, bit for bit.
func (s *sim) checkStates(sc *simClient, h snapshot.Header, pvs *snapshot.PVS) {
	fs := &s.rec[int(h.Frame)%len(s.rec)]
	if !s.record || fs.frame != h.Frame {
		return
	}
	for n := range pvs.All() {
		e, typ := sc.g.Entity(n)
		want, ok := fs.ents[n]
		sc.stateChecks++
		if e == nil || !ok || typ != fs.types[n] {
			sc.stateMismatch++
			continue
		}
		st, bits, err := s.codec.Save(e)
		if err != nil || !bytes.Equal(st[:(bits+7)/8], want) {
			sc.stateMismatch++
		}
	}
}

// run steps the simulation to until: network deliveries, the server's
// frames and the clients' frames and sends, in time order.
func (s *sim) run(until time.Duration) {
	s.now = s.net.Run(s.now, until, s.nodes(nil), s.buf)
}

// nodes returns the server and the clients as netsim nodes; with obs, each
// client runs its frames before its packets and obs[i] looks at client i
// after its frames and before and after each packet.
func (s *sim) nodes(obs []observer) []netsim.Node {
	if obs == nil && len(s.simNodes) == 1+len(s.cls) {
		return s.simNodes
	}
	nodes := []netsim.Node{{Endpoint: s.sep, Receive: s.srv.HandlePacket, Advance: s.srv.Advance, Next: s.srv.Next}}
	for i, sc := range s.cls {
		nd := netsim.Node{Endpoint: sc.ep,
			Receive: func(now time.Duration, _ netip.AddrPort, p []byte) { sc.c.HandlePacket(now, p) },
			Advance: func(now time.Duration) { sc.c.Advance(now) },
			Next:    func() time.Duration { return sc.c.Next() }}
		if obs != nil {
			o := obs[i]
			nd.AdvanceFirst = true
			nd.Receive = func(now time.Duration, _ netip.AddrPort, p []byte) {
				o.beforePacket(sc)
				sc.c.HandlePacket(now, p)
				o.afterPacket(sc)
			}
			nd.Advance = func(now time.Duration) { sc.c.Advance(now); o.afterFrames(sc) }
		}
		nodes = append(nodes, nd)
	}
	if obs == nil {
		s.simNodes = nodes
	}
	return nodes
}
