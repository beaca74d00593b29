package loadgen

import (
	"errors"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/refgame"
	"github.com/snapwire/snapwire/internal/serverhook"
	"github.com/snapwire/snapwire/internal/session"
	"github.com/snapwire/snapwire/netsim"
	"github.com/snapwire/snapwire/server"
	"github.com/snapwire/snapwire/token"
)

var serverAddr = netip.MustParseAddrPort("10.0.0.1:27960")

func lightAddr(i int) netip.AddrPort {
	return netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 0, 1, byte(i + 1)}), uint16(40000+i))
}

// lightSim is a server of the arena and light clients on a simulated
// network, in virtual time.
type lightSim struct {
	t     *testing.T
	net   *netsim.Network
	srv   *server.Server
	cls   []*Client
	nodes []netsim.Node
	now   time.Duration
	buf   []byte
}

func newLightSim(t *testing.T, seed uint64, link netsim.LinkConfig, scfg server.Config) *lightSim {
	t.Helper()
	s := &lightSim{t: t, net: netsim.New(seed), buf: make([]byte, 65536)}
	s.net.SetDefault(link)
	sep, err := s.net.Listen(serverAddr)
	if err != nil {
		t.Fatal(err)
	}
	scfg.VerifyBase = true // every apply carries the server's base hash
	s.srv, err = server.New(scfg, refgame.NewGame(), refgame.Config{MaxPlayers: 16}.String(), server.SendFunc(func(to netip.AddrPort, p []byte) { sep.WriteTo(p, to) }))
	if err != nil {
		t.Fatal(err)
	}
	s.nodes = append(s.nodes, netsim.Node{Endpoint: sep, Receive: s.srv.HandlePacket, Advance: s.srv.Advance, Next: s.srv.Next})
	return s
}

func (s *lightSim) add(cfg Config, b *Bases) *Client {
	s.t.Helper()
	ep, err := s.net.Listen(lightAddr(len(s.cls)))
	if err != nil {
		s.t.Fatal(err)
	}
	c, err := New(cfg, b, session.SendFunc(func(to netip.AddrPort, p []byte) { ep.WriteTo(p, to) }))
	if err != nil {
		s.t.Fatal(err)
	}
	c.Connect(s.now, serverAddr)
	s.cls = append(s.cls, c)
	s.nodes = append(s.nodes, netsim.Node{
		Endpoint: ep, Receive: func(now time.Duration, _ netip.AddrPort, p []byte) { c.HandlePacket(now, p) },
		Advance: c.Advance, Next: c.Next,
	})
	return c
}

func (s *lightSim) run(d time.Duration) { s.now = s.net.Run(s.now, s.now+d, s.nodes, s.buf) }

func arenaBases() *Bases { return NewBases(func() game.Game { return refgame.NewGame() }) }

// checkClients checks that every light client played the whole run: 20
// snapshots a second from its first one, lost ones within loss, every base
// hash equal to the server's, and the server running its commands.
func checkClients(t *testing.T, s *lightSim, maxLossFrac float64) {
	t.Helper()
	for i, c := range s.cls {
		st := c.Stats()
		if st.State != Connected {
			t.Errorf("client %d: %v (%v)", i, st.State, c.Err())
			continue
		}
		span := (s.now - st.FirstSnapshot).Seconds()
		if rate := float64(st.SnapshotsReceived) / span; rate < 20*(1-maxLossFrac)-1 || rate > 21 {
			t.Errorf("client %d: %.1f snapshots/s over %.1f s (%d received, %d lost)", i, rate, span, st.SnapshotsReceived, st.SnapshotsLost)
		}
		if st.BaseChecks == 0 || st.BaseMismatches != 0 || st.DecodeErrors != 0 || st.ApplyErrors != 0 {
			t.Errorf("client %d: %d base checks, %d mismatches, %d decode errors, %d apply errors",
				i, st.BaseChecks, st.BaseMismatches, st.DecodeErrors, st.ApplyErrors)
		}
		cs, ok := serverhook.Client(s.srv, c.ClientNum())
		if !ok || cs.FramesRun == 0 {
			t.Errorf("client %d: on the server %v, %+v", i, ok, cs)
			continue
		}
		// The commands arrive before their frames run (a command repeated
		// for a frame whose own was lost or late counts as Duplicated).
		if early := float64(cs.CmdsEarly) / float64(cs.FramesRun); early < 0.9-maxLossFrac {
			t.Errorf("client %d: %d of %d frames had their command early (%d late, %d duplicated)",
				i, cs.CmdsEarly, cs.FramesRun, cs.LateCmds, cs.Duplicated)
		}
	}
}

// Light clients play a match of the arena in virtual time: every one
// connects, receives every snapshot, keeps its common base equal to the
// server's (every apply carries the server's hash) and commands frames
// before the server runs them.
func TestLightClientsPlay(t *testing.T) {
	s := newLightSim(t, 1, netsim.LinkConfig{Latency: 30 * time.Millisecond, Jitter: 5 * time.Millisecond},
		server.Config{MaxClients: 16, Advanced: server.Advanced{MaxClientsPerIP: 1}})
	b := arenaBases()
	for i := range 16 {
		s.add(Config{Name: "light", Seed: uint32(i)}, b)
	}
	s.run(10 * time.Second)
	checkClients(t, s, 0)
	for i, c := range s.cls {
		if st := c.Stats(); st.SnapshotsLost != 0 || st.RTT < 60*time.Millisecond || st.RTT > 200*time.Millisecond {
			t.Errorf("client %d: %d snapshots lost, RTT %v over a 30 ms link", i, st.SnapshotsLost, st.RTT)
		}
	}
}

// Over 10% loss the light clients' bases stay equal to the server's and
// the lost snapshots are counted.
func TestLightClientsLoss(t *testing.T) {
	s := newLightSim(t, 2, netsim.LinkConfig{Latency: 40 * time.Millisecond, Loss: 0.1}, server.Config{MaxClients: 8, Advanced: server.Advanced{MaxClientsPerIP: 1}})
	b := arenaBases()
	for i := range 8 {
		s.add(Config{Seed: uint32(i)}, b)
	}
	s.run(20 * time.Second)
	checkClients(t, s, 0.2)
	for i, c := range s.cls {
		st := c.Stats()
		if loss := float64(st.SnapshotsLost) / float64(st.SnapshotsLost+st.SnapshotsReceived); loss < 0.03 || loss > 0.2 {
			t.Errorf("client %d: %.3f of snapshots lost over a 10%% loss link", i, loss)
		}
	}
}

// Secure: light clients with connect tokens play on a server that
// requires them; one with a token for another server gets no session.
func TestLightClientsSecure(t *testing.T) {
	key := token.Key{1: 1, 30: 30}
	wallStart := time.Unix(1_800_000_000, 0)
	var s *lightSim
	scfg := serverhook.With(server.Config{TokenKey: &key, ProtocolID: 7, PublicAddrs: []netip.AddrPort{serverAddr}},
		serverhook.Hooks{WallClock: func() time.Time { return wallStart.Add(s.now) }})
	s = newLightSim(t, 3, netsim.LinkConfig{Latency: 20 * time.Millisecond}, scfg)
	b := arenaBases()
	issue := func(id uint64, srv netip.AddrPort) *token.Token {
		tok, err := token.Issue(key, token.Params{ProtocolID: 7, ClientID: id, Servers: []netip.AddrPort{srv}, Lifetime: time.Minute, Timeout: 5 * time.Second}, wallStart)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	for i := range 4 {
		s.add(Config{Token: issue(uint64(i+1), serverAddr), Seed: uint32(i)}, b)
	}
	wrong := s.add(Config{Token: issue(99, netip.MustParseAddrPort("10.0.0.2:27960"))}, b)
	s.run(12 * time.Second)
	good := s.cls[:4]
	s.cls = good
	checkClients(t, s, 0)
	// A server ignores a token that does not name it (docs/PROTOCOL.md,
	// "Connect tokens"): the client gives up at its connect timeout.
	if wrong.State() != Disconnected || !errors.Is(wrong.Err(), ErrConnectTimeout) {
		t.Errorf("client with another server's token: %v, %v", wrong.State(), wrong.Err())
	}
	for _, c := range good {
		if cs, _ := serverhook.Client(s.srv, c.ClientNum()); !cs.Secure {
			t.Errorf("client %d: not secure on the server", c.ClientNum())
		}
	}
}

// A full server: the clients beyond its slots retry until their connect
// timeout, then fail naming the server's refusal.
func TestLightClientsServerFull(t *testing.T) {
	s := newLightSim(t, 4, netsim.LinkConfig{Latency: 10 * time.Millisecond}, server.Config{MaxClients: 4, Advanced: server.Advanced{MaxClientsPerIP: 1}})
	b := arenaBases()
	for i := range 6 {
		s.add(Config{Seed: uint32(i)}, b)
	}
	s.run(12 * time.Second)
	connected, full := 0, 0
	for _, c := range s.cls {
		switch {
		case c.State() == Connected:
			connected++
		case errors.Is(c.Err(), ErrConnectTimeout) && strings.Contains(c.Err().Error(), session.ReasonServerFull.String()):
			full++
		default:
			t.Errorf("client: %v, %v", c.State(), c.Err())
		}
	}
	if connected != 4 || full != 2 {
		t.Errorf("%d connected, %d refused as full; want 4 and 2", connected, full)
	}
}

// Light clients in steady state (snapshots decoded, applies, commands)
// allocate nothing, and neither does the server with them.
func TestLightClientsSteadyStateAllocs(t *testing.T) {
	s := newLightSim(t, 5, netsim.LinkConfig{Latency: 20 * time.Millisecond}, server.Config{MaxClients: 8, Advanced: server.Advanced{MaxClientsPerIP: 1}})
	b := arenaBases()
	for i := range 8 {
		s.add(Config{Seed: uint32(i)}, b)
	}
	s.run(5 * time.Second)
	if allocs := testing.AllocsPerRun(5, func() { s.run(time.Second) }); allocs != 0 {
		t.Errorf("%.1f allocations per second of play", allocs)
	}
	checkClients(t, s, 0)
}

// A hostile server's snapshot frame at the top of the frame range leaves
// the client sending its header alone: no command loop wraps around.
func TestCommandsAtFrameRangeEnd(t *testing.T) {
	var sent int
	c, err := New(Config{}, arenaBases(), session.SendFunc(func(netip.AddrPort, []byte) { sent++ }))
	if err != nil {
		t.Fatal(err)
	}
	c.Connect(0, serverAddr)
	c.accepted(time.Millisecond, session.Accept{Nonce: c.nonce, ConnID: 1, GameID: 1, FrameDur: 16667,
		Settings: refgame.Config{MaxPlayers: 16}.String()}, nil)
	if c.State() != Connected {
		t.Fatal(c.Err())
	}
	for _, f := range []game.Frame{1<<31 - 1, 1<<31 - 2, -1 << 31} {
		c.haveSnap, c.snapFrame, c.cf, c.snapAt = true, f, f, time.Second
		before := c.stats.CommandsSent
		c.sendCommands(2 * time.Second)
		if c.stats.CommandsSent != before && f < 0 {
			t.Errorf("frame %d: %d commands sent", f, c.stats.CommandsSent-before)
		}
	}
	if sent < 3 {
		t.Errorf("%d packets sent, want a header at least for each", sent)
	}
}
