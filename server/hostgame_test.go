package server_test

// A game whose every entity state, event and message carries the tag of
// the match it belongs to, and a rig that runs a server.Host's matches and
// their clients in virtual time over netsim: the isolation tests of many
// matches per process (issue 25 part 2, host_test.go).

import (
	"fmt"
	"net/netip"
	"testing"
	"time"

	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/clienthook"
	"github.com/snapwire/snapwire/internal/serverhook"
	"github.com/snapwire/snapwire/netsim"
	"github.com/snapwire/snapwire/server"
	"github.com/snapwire/snapwire/token"
)

// The tag game's event kinds (the second field of every event's payload)
// and message kinds.
const (
	tagEvent game.EventID = 1

	kindUnreliable = 1 // an unreliable event every 6 frames
	kindReliable   = 2 // a reliable event every 30 frames
	kindSaved      = 3 // a saved reliable event at a map's first frame

	msgBroadcast = 1 // the server's broadcast every 20 frames
	msgEcho      = 2 // the server's echo of a client's message
	msgClient    = 3 // a client's message to its match
)

// tagEnt is the tag game's only entity type: the map's entities and the
// players alike, each carrying its match's tag.
type tagEnt struct {
	Tag    uint16
	Client game.ClientNum
	Owned  bool
	Moves  uint32
	g      *tagGame // on a client: where ReadSnapshot reports what it read
}

func (e *tagEnt) WriteSnapshot(w *bitmsg.DeltaWriter) {
	w.WriteUint16(e.Tag)
	w.WriteUint16(uint16(e.Client))
	w.WriteBool(e.Owned)
	w.WriteUint32(e.Moves)
}

func (e *tagEnt) ReadSnapshot(r *bitmsg.DeltaReader) {
	e.Tag, e.Client, e.Owned, e.Moves = r.ReadUint16(), game.ClientNum(r.ReadUint16()), r.ReadBool(), r.ReadUint32()
	if e.g != nil {
		e.g.saw(e.Tag)
	}
}

// Owner makes a player its client's (game.Owned): the table's
// PlayerEntity finds it.
func (e *tagEnt) Owner() (game.ClientNum, bool) { return e.Client, e.Owned }

// tagMsg is the tag game's message, both ways.
type tagMsg struct {
	Tag  uint16
	Kind uint8
}

func (m *tagMsg) WriteMessage(w *bitmsg.Writer) { w.WriteUint16(m.Tag); w.WriteUint8(m.Kind) }
func (m *tagMsg) ReadMessage(r *bitmsg.Reader)  { m.Tag, m.Kind = r.ReadUint16(), r.ReadUint8() }

// tagSettings are the settings of the tag game: the match's tag and its
// map, whose number of entities (2 + map) differs from map to map.
func tagSettings(tag uint16, mapN int) string { return fmt.Sprintf("tag=%d map=%d", tag, mapN) }

// tagGame is the game: on the server it sends the events and broadcasts;
// on a client (want set) it counts what it reads and what carries another
// tag.
type tagGame struct {
	*game.EntityTable
	tag    uint16
	frames int // frames run on the server since the map loaded
	// broadcast is the server's BroadcastMessage (set once the match
	// exists).
	broadcast func(game.Message) error

	want                     uint16 // a client's: the tag of the match it joined
	states, wrong, wrongLoad uint64
}

func newTagGame(want uint16) *tagGame {
	reg := game.NewRegistry()
	reg.MustRegister(game.EntityType{Name: "tag.Ent", New: func() game.Entity { return new(tagEnt) }})
	if err := reg.RegisterMessage("tag.Msg", func() game.Message { return new(tagMsg) }); err != nil {
		panic(err)
	}
	return &tagGame{EntityTable: game.NewEntityTable(reg), want: want}
}

// saw counts an entity state read on a client.
func (g *tagGame) saw(tag uint16) {
	g.states++
	if tag != g.want {
		g.wrong++
	}
}

// Load spawns the map's entities, each with the settings' tag.
func (g *tagGame) Load(settings string) error {
	var tag uint16
	var mapN int
	if _, err := fmt.Sscanf(settings, "tag=%d map=%d", &tag, &mapN); err != nil || mapN < 0 || mapN > 8 {
		return fmt.Errorf("tag game: settings %q", settings)
	}
	if err := g.EntityTable.Load(settings); err != nil {
		return err
	}
	g.tag, g.frames = tag, 0
	if g.want != 0 && tag != g.want {
		g.wrongLoad++
	}
	for range 2 + mapN {
		if _, err := g.AddEntity(1, &tagEnt{Tag: tag, g: g.client()}); err != nil {
			return err
		}
	}
	return nil
}

// client is g on a client, nil on the server.
func (g *tagGame) client() *tagGame {
	if g.want == 0 {
		return nil
	}
	return g
}

// Spawn spawns an entity a snapshot brings, reporting to g.
func (g *tagGame) Spawn(n game.EntityNum, t game.TypeID) (game.Entity, error) {
	e, err := g.EntityTable.Spawn(n, t)
	if te, ok := e.(*tagEnt); ok {
		te.g = g.client()
	}
	return e, err
}

func (g *tagGame) ClientConnected(c game.ClientNum) error {
	_, err := g.AddEntity(1, &tagEnt{Tag: g.tag, Client: c, Owned: true})
	return err
}

// RunFrame moves the players; on the server it sends the frame's events
// and broadcast, each carrying the tag.
func (g *tagGame) RunFrame(t *game.Tick) {
	for _, pc := range t.Cmds {
		if e, _ := g.Entity(pc.Entity); e != nil && pc.Cmd.Forward != 0 {
			e.(*tagEnt).Moves++
		}
	}
	if t.Predicting {
		return
	}
	g.frames++
	ev := func(kind uint8) *bitmsg.Writer {
		w := bitmsg.NewWriter(make([]byte, 8))
		w.WriteUint16(g.tag)
		w.WriteUint8(kind)
		return w
	}
	if g.frames == 1 {
		t.Events.ServerSendEvent(0, tagEvent, ev(kindSaved), true)
	}
	if g.frames%6 == 0 {
		t.Events.SendUnreliableEvent(0, tagEvent, ev(kindUnreliable))
	}
	if g.frames%30 == 0 {
		t.Events.ServerSendEvent(0, tagEvent, ev(kindReliable), false)
	}
	if g.frames%20 == 0 && g.broadcast != nil {
		g.broadcast(&tagMsg{Tag: g.tag, Kind: msgBroadcast})
	}
}

// tagClient is a client of the tag game and what it received: counts by
// kind, and the things that carried another match's tag.
type tagClient struct {
	c     *client.Client
	g     *tagGame
	match string
	want  uint16
	// events and msgs count by kind what carried the right tag; wrong
	// counts what did not.
	events [4]uint64
	msgs   [4]uint64
	wrong  uint64
}

// tagMatch is one of the host's matches in a test, with the messages its
// server received from its clients.
type tagMatch struct {
	name       string
	tag        uint16
	srv        *server.Server
	g          *tagGame
	got, wrong uint64 // client messages with its tag, and with another
}

// hostRig is a Host and its clients on a netsim network, with a wall
// clock that follows virtual time.
type hostRig struct {
	t      testing.TB
	net    *netsim.Network
	h      *server.Host
	sep    *netsim.Endpoint
	now    time.Duration
	nodes  []netsim.Node
	buf    []byte
	secure bool
}

func newHostRig(t testing.TB, seed uint64, secure bool) *hostRig {
	t.Helper()
	r := &hostRig{t: t, net: netsim.New(seed), buf: make([]byte, 1<<16), secure: secure}
	r.net.SetDefault(netsim.LinkConfig{Latency: 20 * time.Millisecond})
	var err error
	if r.sep, err = r.net.Listen(simServer); err != nil {
		t.Fatal(err)
	}
	cfg := server.Config{}
	serverhook.Set(&cfg, serverhook.Hooks{Seed: seed, Deterministic: true, WallClock: func() time.Time { return simWall.Add(r.now) }})
	if secure {
		cfg.TokenKey, cfg.ProtocolID, cfg.PublicAddrs = &simKey, simProtocol, []netip.AddrPort{simServer}
	}
	r.h, err = server.NewHost(cfg, server.SendFunc(func(to netip.AddrPort, p []byte) { r.sep.WriteTo(p, to) }))
	if err != nil {
		t.Fatal(err)
	}
	r.nodes = []netsim.Node{{Endpoint: r.sep, Receive: r.h.HandlePacket, Advance: r.h.Advance, Next: r.h.Next}}
	return r
}

func (r *hostRig) run(until time.Duration) { r.now = r.net.Run(r.now, until, r.nodes, r.buf) }

// create creates match name running the tag game with tag and map mapN;
// its server echoes each client message to its sender.
func (r *hostRig) create(name string, tag uint16, mapN int) *tagMatch {
	r.t.Helper()
	m := &tagMatch{name: name, tag: tag, g: newTagGame(0)}
	cfg := server.Config{Advanced: server.Advanced{VerifyBase: true}, OnMessage: func(from game.ClientNum, msg game.Message) {
		tm := msg.(*tagMsg)
		if tm.Tag != m.tag || tm.Kind != msgClient {
			m.wrong++
		} else {
			m.got++
		}
		m.srv.SendMessage(from, &tagMsg{Tag: tm.Tag, Kind: msgEcho})
	}}
	var err error
	if m.srv, err = r.h.Create(r.now, name, cfg, m.g, tagSettings(tag, mapN)); err != nil {
		r.t.Fatal(err)
	}
	m.g.broadcast = m.srv.BroadcastMessage
	return m
}

// token issues a token for the rig's server admitting to match, created
// now (wall clock).
func (r *hostRig) token(match string, id uint64) *token.Token {
	r.t.Helper()
	tok, err := token.Issue(simKey, token.Params{ProtocolID: simProtocol, ClientID: id, Servers: []netip.AddrPort{simServer}, Match: match},
		simWall.Add(r.now))
	if err != nil {
		r.t.Fatal(err)
	}
	return tok
}

// join binds a client of the tag game at addr and starts its handshake
// now: to match (named in its connect, and in its token on a secure
// host), expecting tag. cfg's Match and Token are set when empty.
func (r *hostRig) join(addr netip.AddrPort, match string, want uint16, cfg client.Config) *tagClient {
	r.t.Helper()
	ep, err := r.net.Listen(addr)
	if err != nil {
		r.t.Fatal(err)
	}
	tc := &tagClient{g: newTagGame(want), match: match, want: want}
	if cfg.Match == "" {
		cfg.Match = match
	}
	if r.secure && cfg.Token == nil {
		cfg.Token = r.token(match, uint64(addr.Addr().As4()[3])<<16|uint64(addr.Addr().As4()[2]))
	}
	cfg.OnMessage = func(m game.Message) {
		tm := m.(*tagMsg)
		if tm.Tag != want || (tm.Kind != msgBroadcast && tm.Kind != msgEcho) {
			tc.wrong++
			return
		}
		tc.msgs[tm.Kind]++
	}
	clienthook.Set(&cfg, clienthook.Hooks{OnEvent: func(ev *game.Event, reliable bool) {
		var rd bitmsg.Reader
		ev.Payload(&rd)
		tag, kind := rd.ReadUint16(), rd.ReadUint8()
		if tag != want || kind < kindUnreliable || kind > kindSaved || reliable != (kind != kindUnreliable) {
			tc.wrong++
			return
		}
		tc.events[kind]++
	}})
	tc.c, err = client.New(cfg, tc.g, client.InputFunc(func(in client.Input) game.UserCmd { return game.UserCmd{Forward: 20} }),
		client.SendFunc(func(to netip.AddrPort, p []byte) { ep.WriteTo(p, to) }))
	if err != nil {
		r.t.Fatal(err)
	}
	tc.c.Connect(r.now, simServer)
	r.nodes = append(r.nodes, netsim.Node{Endpoint: ep,
		Receive: func(now time.Duration, _ netip.AddrPort, p []byte) { tc.c.HandlePacket(now, p) },
		Advance: tc.c.Advance, Next: tc.c.Next})
	return tc
}

// say sends the client's message to its match, when connected.
func (tc *tagClient) say() {
	if tc.c.State() == client.Connected {
		tc.c.SendMessage(&tagMsg{Tag: tc.want, Kind: msgClient})
	}
}

// check reports what the client received that was not its match's, and
// that it received its match's entities, events (of each kind) and
// messages (broadcasts and echoes) and common base checks: none of it
// may be missing, or the test would pass on a client that received
// nothing.
func (tc *tagClient) check(t testing.TB, name string) {
	t.Helper()
	var world, wrongWorld int
	for _, e := range tc.g.Entities() {
		world++
		if e.(*tagEnt).Tag != tc.want {
			wrongWorld++
		}
	}
	ctr := clienthook.CountersOf(tc.c)
	if tc.wrong != 0 || tc.g.wrong != 0 || tc.g.wrongLoad != 0 || wrongWorld != 0 || ctr.BaseMismatches != 0 {
		t.Errorf("%s: another match's things: %d events or messages, %d entity states, %d map loads, %d entities in its world; %d base mismatches",
			name, tc.wrong, tc.g.wrong, tc.g.wrongLoad, wrongWorld, ctr.BaseMismatches)
	}
	if tc.g.states == 0 || world == 0 || tc.events[kindUnreliable] == 0 || tc.events[kindReliable] == 0 || tc.events[kindSaved] == 0 ||
		tc.msgs[msgBroadcast] == 0 || tc.msgs[msgEcho] == 0 || ctr.BaseChecks == 0 {
		t.Errorf("%s: its match's things missing: %d entity states, %d entities, events %v, messages %v, %d base checks",
			name, tc.g.states, world, tc.events[1:], tc.msgs[1:3], ctr.BaseChecks)
	}
}
