package server_test

// The handshake cannot be locked by one host (issue 22, item 1): in
// virtual time over netsim, no real socket.

import (
	"encoding/binary"
	"fmt"
	"net/netip"
	"testing"
	"time"

	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/netchan"
	"github.com/snapwire/snapwire/internal/serverhook"
	"github.com/snapwire/snapwire/internal/session"
	"github.com/snapwire/snapwire/internal/testgame"
	"github.com/snapwire/snapwire/netsim"
	"github.com/snapwire/snapwire/server"
	"github.com/snapwire/snapwire/token"
)

var (
	simServer = netip.MustParseAddrPort("10.0.0.1:27960")
	simKey    = token.Key{3: 3, 30: 30}
	simWall   = time.Unix(1_800_000_000, 0)
)

const simProtocol = 0x10c0

// simRig is a server core and its clients on a netsim network, with a
// wall clock that follows virtual time.
type simRig struct {
	t     *testing.T
	net   *netsim.Network
	srv   *server.Server
	sep   *netsim.Endpoint
	now   time.Duration
	nodes []netsim.Node
	buf   []byte
	eps   map[netip.AddrPort]*netsim.Endpoint // the clients'
	// spoof maps an endpoint's address to the source address the server
	// sees for its packets: a host that forges its source.
	spoof map[netip.AddrPort]netip.AddrPort
	// host, match: a rig whose srv is the match named match on host
	// (newSimHostRig); host nil on a rig of one server.
	host  *server.Host
	match string
}

func newSimRig(t *testing.T, seed uint64, cfg server.Config, secure bool) *simRig {
	t.Helper()
	r := &simRig{t: t, net: netsim.New(seed), buf: make([]byte, 1<<16), eps: map[netip.AddrPort]*netsim.Endpoint{},
		spoof: map[netip.AddrPort]netip.AddrPort{}}
	r.net.SetDefault(netsim.LinkConfig{Latency: 20 * time.Millisecond})
	var err error
	if r.sep, err = r.net.Listen(simServer); err != nil {
		t.Fatal(err)
	}
	serverhook.Set(&cfg, serverhook.Hooks{Seed: seed, Deterministic: true, WallClock: func() time.Time { return simWall.Add(r.now) }})
	if secure {
		cfg.TokenKey, cfg.ProtocolID, cfg.PublicAddrs = &simKey, simProtocol, []netip.AddrPort{simServer}
	}
	r.srv, err = server.New(cfg, testgame.New(), testgame.DefaultSettings, server.SendFunc(func(to netip.AddrPort, p []byte) {
		r.sep.WriteTo(p, to)
	}))
	if err != nil {
		t.Fatal(err)
	}
	receive := func(now time.Duration, from netip.AddrPort, p []byte) {
		if f, ok := r.spoof[from]; ok {
			from = f
		}
		r.srv.HandlePacket(now, from, p)
	}
	r.nodes = []netsim.Node{{Endpoint: r.sep, Receive: receive, Advance: r.srv.Advance, Next: r.srv.Next}}
	return r
}

// token issues a token for the rig's server, created now (wall clock).
func (r *simRig) token(p token.Params) *token.Token {
	r.t.Helper()
	p.ProtocolID = simProtocol
	if p.Servers == nil {
		p.Servers = []netip.AddrPort{simServer}
	}
	tok, err := token.Issue(simKey, p, simWall.Add(r.now))
	if err != nil {
		r.t.Fatal(err)
	}
	return tok
}

// addClient binds a client core at addr and starts its handshake now.
func (r *simRig) addClient(addr netip.AddrPort, cfg client.Config) *client.Client {
	r.t.Helper()
	ep, err := r.net.Listen(addr)
	if err != nil {
		r.t.Fatal(err)
	}
	r.eps[addr] = ep
	c, err := client.New(cfg, testgame.New(), client.InputFunc(func(in client.Input) game.UserCmd { return game.UserCmd{Forward: 30} }),
		client.SendFunc(func(to netip.AddrPort, p []byte) { ep.WriteTo(p, to) }))
	if err != nil {
		r.t.Fatal(err)
	}
	c.Connect(r.now, simServer)
	r.nodes = append(r.nodes, netsim.Node{Endpoint: ep,
		Receive: func(now time.Duration, _ netip.AddrPort, p []byte) { c.HandlePacket(now, p) },
		Advance: c.Advance, Next: c.Next})
	return c
}

func (r *simRig) run(until time.Duration) { r.now = r.net.Run(r.now, until, r.nodes, r.buf) }

// portFlood is one host that asks for a cookie from each of many ports at
// the start of every cookie lifetime and sends a padded connect (with a
// random token to a secure server) from each port that got one: what
// filled the old per-cookie attempt table.
type portFlood struct {
	eps      []*netsim.Endpoint
	secure   bool
	window   time.Duration
	nextPort int           // next port to ask a cookie for in this round
	roundAt  time.Duration // start of the next round
	sent     int           // bytes sent
	answers  map[string]int
	buf      []byte
}

func newPortFlood(t *testing.T, n *netsim.Network, host netip.Addr, ports int, secure bool, window time.Duration) *portFlood {
	f := &portFlood{secure: secure, window: window, answers: map[string]int{}, buf: make([]byte, 2048), nextPort: ports}
	for i := range ports {
		ep, err := n.Listen(netip.AddrPortFrom(host, uint16(20000+i)))
		if err != nil {
			t.Fatal(err)
		}
		f.eps = append(f.eps, ep)
	}
	return f
}

const floodBatch = 500 // getchallenges per step: 4,200 ports in 9 ms

func (f *portFlood) send(ep *netsim.Endpoint, payload []byte) {
	p := netchan.AppendConnectionless(nil, payload)
	f.sent += len(p)
	ep.WriteTo(p, simServer)
}

func (f *portFlood) advance(now time.Duration) {
	if now >= f.roundAt {
		f.nextPort, f.roundAt = 0, f.roundAt+f.window
	}
	for end := min(f.nextPort+floodBatch, len(f.eps)); f.nextPort < end; f.nextPort++ {
		f.send(f.eps[f.nextPort], session.GetChallenge{Nonce: uint64(f.nextPort)}.Append(nil))
	}
	for i, ep := range f.eps {
		for ep.Pending() > 0 {
			k, _, _ := ep.ReadFrom(f.buf)
			if !netchan.IsConnectionless(f.buf[:k]) {
				continue // an accepted connect's channel (insecure server)
			}
			p := f.buf[4:k]
			switch kind, _ := session.ConnectionlessKind(p); kind {
			case session.KindChallenge:
				ch, err := session.ParseChallenge(p)
				if err != nil {
					continue
				}
				m := session.Connect{Nonce: uint64(now)<<16 | uint64(i), Cookie: ch.Cookie, Version: session.Version,
					RegistryHash: testgame.NewRegistry().Hash(), Name: "flood"}
				if f.secure {
					m.Token = make([]byte, 200)
					binary.LittleEndian.PutUint64(m.Token, m.Nonce)
				}
				f.send(ep, m.Append(nil))
			case session.KindRefuse:
				ref, _ := session.ParseRefuse(p)
				f.answers[ref.Reason.String()]++
			default:
				f.answers[fmt.Sprintf("kind %d", kind)]++
			}
		}
	}
}

func (f *portFlood) next() time.Duration {
	if f.nextPort < len(f.eps) {
		return 0 // the next batch: Run steps at least 1 µs later
	}
	return f.roundAt
}

// Acceptance (issue 22, item 1): one host sending connects from 4,200
// ports, renewed at every cookie lifetime (about 0.5 MB/s), does not keep
// anyone else out: three players from other addresses connect during the
// flood and play, on a secure server (the flood has no token) and on an
// insecure one.
//
// Guards against: connect attempts counted per address and port in a
// bounded table that refuses every connect while it is full, with entries
// made before the token is checked (4,096 entries: 4,200 ports filled it
// and every player was refused "too many connect or password attempts");
// and a client that gives up on the first refusal even when it is
// transient.
func TestLockoutManyPorts(t *testing.T) {
	for _, secure := range []bool{true, false} {
		t.Run(fmt.Sprintf("secure=%v", secure), func(t *testing.T) {
			r := newSimRig(t, 11, server.Config{MaxClients: 8}, secure)
			r.net.SetInboxLimit(1 << 14)
			const window = 10 * time.Second // the default cookie lifetime
			flood := newPortFlood(t, r.net, netip.MustParseAddr("10.6.6.6"), 4200, secure, window)
			r.nodes = append(r.nodes, netsim.Node{Endpoint: flood.eps[0],
				Receive: func(time.Duration, netip.AddrPort, []byte) {}, Advance: flood.advance, Next: flood.next})
			// The flood owns the table of the second cookie lifetime before
			// the players come.
			r.run(12 * time.Second)
			var players []*client.Client
			for i := range 3 {
				var cfg client.Config
				if secure {
					cfg.Token = r.token(token.Params{ClientID: uint64(i)})
				}
				players = append(players, r.addClient(netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 0, 1, byte(i + 1)}), 40000), cfg))
			}
			r.run(25 * time.Second)
			st := r.srv.Stats()
			rate := float64(flood.sent) / r.now.Seconds()
			t.Logf("flood: %.0f B/s from 4,200 ports, answers %v; server: %d refused, %d throttled, %d tokens refused, %d connects",
				rate, flood.answers, st.Refused, st.Throttled, st.TokensRefused, st.Connects)
			if rate < 400e3 {
				t.Errorf("the flood sent only %.0f B/s", rate)
			}
			for i, c := range players {
				if c.State() != client.Connected || c.Stats().SnapshotsReceived < 200 {
					t.Errorf("player %d: %v (%v), %d snapshots", i, c.State(), c.Err(), c.Stats().SnapshotsReceived)
				}
			}
			if secure && flood.answers[session.ReasonTokenInvalid.String()] < 2*4000 {
				t.Errorf("the flood's connects were not all refused for their token: %v", flood.answers)
			}
		})
	}
}
