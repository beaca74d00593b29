package server_test

// Attacks on a server.Host (issue 25 part 2): the rig of the attack tests
// in virtual time on a host of many matches, and the attacks of the new
// kind, across matches.

import (
	"context"
	"encoding/binary"
	"fmt"
	"net/netip"
	"runtime"
	"testing"
	"time"

	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/loadgen"
	"github.com/snapwire/snapwire/internal/netchan"
	"github.com/snapwire/snapwire/internal/serverhook"
	"github.com/snapwire/snapwire/internal/session"
	"github.com/snapwire/snapwire/internal/testgame"
	"github.com/snapwire/snapwire/internal/testwait"
	"github.com/snapwire/snapwire/internal/tokenwire"
	"github.com/snapwire/snapwire/netsim"
	"github.com/snapwire/snapwire/server"
	"github.com/snapwire/snapwire/token"
)

// newSimRigSize returns newSimRig's rig, or with sz.matches a rig whose
// server is a Host of that many matches, each running the test game with
// cfg: r.srv is then the victims' match, the one in the middle, named
// r.match.
func newSimRigSize(t *testing.T, seed uint64, cfg server.Config, secure bool, sz serverSize) *simRig {
	t.Helper()
	if sz.matches == 0 {
		return newSimRig(t, seed, cfg, secure)
	}
	r := &simRig{t: t, net: netsim.New(seed), buf: make([]byte, 1<<16), eps: map[netip.AddrPort]*netsim.Endpoint{},
		spoof: map[netip.AddrPort]netip.AddrPort{}, match: "victims"}
	r.net.SetDefault(netsim.LinkConfig{Latency: 20 * time.Millisecond})
	var err error
	if r.sep, err = r.net.Listen(simServer); err != nil {
		t.Fatal(err)
	}
	serverhook.Set(&cfg, serverhook.Hooks{Seed: seed, Deterministic: true, WallClock: func() time.Time { return simWall.Add(r.now) }})
	if secure {
		cfg.TokenKey, cfg.ProtocolID, cfg.PublicAddrs = &simKey, simProtocol, []netip.AddrPort{simServer}
	}
	if r.host, err = server.NewHost(cfg, server.SendFunc(func(to netip.AddrPort, p []byte) { r.sep.WriteTo(p, to) })); err != nil {
		t.Fatal(err)
	}
	for i := range sz.matches {
		name := fmt.Sprintf("m%d", i)
		if i == sz.matches/2 {
			name = r.match
		}
		s, err := r.host.Create(0, name, cfg, testgame.New(), testgame.DefaultSettings)
		if err != nil {
			t.Fatal(err)
		}
		if name == r.match {
			r.srv = s
		}
	}
	receive := func(now time.Duration, from netip.AddrPort, p []byte) {
		if f, ok := r.spoof[from]; ok {
			from = f
		}
		r.host.HandlePacket(now, from, p)
	}
	r.nodes = []netsim.Node{{Endpoint: r.sep, Receive: receive, Advance: r.host.Advance, Next: r.host.Next}}
	return r
}

// stats sums the counters of the rig's matches: its server's, or every
// match of its host (what names no match is the first match's).
func (r *simRig) stats() serverhook.Stats {
	if r.host == nil {
		return serverhook.ServerStats(r.srv)
	}
	var sum serverhook.Stats
	for _, name := range r.host.Matches() {
		addStats(&sum, serverhook.ServerStats(r.host.Match(name)))
	}
	return sum
}

// Acceptance (issue 25 part 2, attacks across matches), in virtual time on
// a host of 8 matches. The attacker plays in match m0 and goes for the
// victims' match: a connect naming the victims' match with a token for
// m0 joins m0, not the victims' (secure); a genuine packet of the
// attacker's session with its connection id rewritten to the victim's,
// and the sweep's forged packets (forged) naming the victim's connection,
// sent from the attacker's own client address, move nothing and end
// nothing: on a secure host they fail the victim's session's
// authentication (the attacker's keys are not the victim's); on an
// insecure one they come from another IP address than the victim's, as on
// a server of one match.
//
// Guards against: a token's match overridden by the connect's, and a
// session reachable from another match's client (keys or addresses
// shared across the host's matches).
func TestHostAttackAcrossMatches(t *testing.T) {
	for _, secure := range []bool{true, false} {
		t.Run(fmt.Sprintf("secure=%v", secure), func(t *testing.T) { hostAttackAcrossMatches(t, secure) })
	}
}

func hostAttackAcrossMatches(t *testing.T, secure bool) {
	r := newSimRigSize(t, 52, server.Config{}, secure, serverSize{matches: 8})
	att, vic, att2 := netip.MustParseAddrPort("10.66.0.1:40000"), netip.MustParseAddrPort("10.5.0.1:40000"), netip.MustParseAddrPort("10.66.0.2:40000")
	cfgFor := func(match, tokenMatch string) client.Config {
		cfg := client.Config{Match: match}
		if secure {
			cfg.Token = r.token(token.Params{Match: tokenMatch})
		}
		return cfg
	}
	a := r.addClient(att, cfgFor("m0", "m0"))
	v := r.addClient(vic, cfgFor(r.match, r.match))
	var mixed *client.Client
	if secure {
		mixed = r.addClient(att2, cfgFor(r.match, "m0")) // the token for m0, the connect naming the victims'
	}
	var genuine []byte
	r.net.SetDropFilter(func(from, to netip.AddrPort, p []byte) bool {
		if from == att && !netchan.IsConnectionless(p) {
			genuine = append(genuine[:0], p...) // the latest
		}
		return false
	})
	r.run(3 * time.Second)
	r.net.SetDropFilter(nil)
	m0 := r.host.Match("m0")
	if a.State() != client.Connected || v.State() != client.Connected || genuine == nil {
		t.Fatalf("attacker %v %v, victim %v %v", a.State(), a.Err(), v.State(), v.Err())
	}
	if mixed != nil && (mixed.State() != client.Connected || mixed.GameID() != m0.GameID()) {
		t.Errorf("token for m0 naming the victims' match: %v %v, game %x (m0's %x)", mixed.State(), mixed.Err(), mixed.GameID(), m0.GameID())
	}
	if r.srv.NumClients() != 1 {
		t.Errorf("%d clients in the victims' match, want its 1", r.srv.NumClients())
	}
	vs := serverhook.Clients(r.srv)[0]
	before := serverhook.ServerStats(r.srv)
	// The attacker's genuine packet, naming the victim's connection.
	binary.LittleEndian.PutUint16(genuine[2:], uint16(vs.ConnID))
	pkts := append([][]byte{genuine}, forged(vs.ConnID)...)
	for _, p := range pkts {
		r.eps[att].WriteTo(p, simServer)
	}
	r.run(r.now + time.Second)
	after := serverhook.ServerStats(r.srv)
	vs2, _ := serverhook.Client(r.srv, vs.Num)
	auth, bad, wrong := after.AuthFailures-before.AuthFailures, after.BadPackets-before.BadPackets, after.WrongSource-before.WrongSource
	t.Logf("secure=%v: %d packets naming the victim's connection from the attacker's client: %d auth failures, %d bad, %d wrong source",
		secure, len(pkts), auth, bad, wrong)
	if v.State() != client.Connected || a.State() != client.Connected || vs2.Addr != vic || after.AddrChanges != 0 || after.Disconnects != 0 {
		t.Errorf("victim %v at %v, attacker %v; %d address changes, %d disconnects", v.State(), vs2.Addr, a.State(), after.AddrChanges, after.Disconnects)
	}
	if secure && (auth == 0 || auth+bad != uint64(len(pkts))) {
		t.Errorf("%d auth failures + %d bad packets, want all %d rejected, the encrypted ones by authentication", auth, bad, len(pkts))
	}
	if !secure && (wrong == 0 || wrong+bad != uint64(len(pkts))) {
		t.Errorf("%d from the wrong source + %d bad packets, want all %d rejected", wrong, bad, len(pkts))
	}
}

// Acceptance (issue 25 part 2): a flood of connects naming matches the
// host does not have stores nothing. From one address with one valid
// cookie, 20,000 connects each naming another match (secure: each with a
// valid token of its own naming it) are all refused with "no such match"
// by the first match, each answer no larger than its request; the host
// still has its matches and no client, no connect was counted against the
// address (a good connect from it then gets in), and the heap after them
// is within 1 MB of before.
//
// Guards against: a host that creates or remembers something per match
// name it is asked for, and tokens bound (the used-token table) by a
// match that refuses them.
func TestHostAttackNoSuchMatchFlood(t *testing.T) {
	for _, secure := range []bool{true, false} {
		t.Run(fmt.Sprintf("secure=%v", secure), func(t *testing.T) { hostAttackNoSuchMatchFlood(t, secure) })
	}
}

func hostAttackNoSuchMatchFlood(t *testing.T, secure bool) {
	const flood = 20000
	var answers [][]byte
	cfg := server.Config{}
	serverhook.Set(&cfg, serverhook.Hooks{Seed: 53, Deterministic: true, WallClock: func() time.Time { return simWall }})
	if secure {
		cfg.TokenKey, cfg.ProtocolID, cfg.PublicAddrs = &simKey, simProtocol, []netip.AddrPort{simServer}
	}
	h, err := server.NewHost(cfg, server.SendFunc(func(to netip.AddrPort, p []byte) { answers = append(answers, append([]byte(nil), p...)) }))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 4 {
		if _, err := h.Create(0, fmt.Sprintf("m%d", i), server.Config{}, testgame.New(), testgame.DefaultSettings); err != nil {
			t.Fatal(err)
		}
	}
	from := netip.MustParseAddrPort("10.66.0.1:40000")
	now := time.Second
	exchange := func(payload []byte) []byte {
		answers = answers[:0]
		pkt := netchan.AppendConnectionless(nil, payload)
		h.HandlePacket(now, from, pkt)
		if len(answers) != 1 {
			t.Fatalf("%d answers to a request", len(answers))
		}
		if len(answers[0]) > len(pkt) {
			t.Fatalf("an answer of %d bytes to a request of %d", len(answers[0]), len(pkt))
		}
		return answers[0][4:]
	}
	ch, err := session.ParseChallenge(exchange(session.GetChallenge{Nonce: 1}.Append(nil)))
	if err != nil {
		t.Fatal(err)
	}
	reg := testgame.New().Registry().Hash()
	connect := func(nonce uint64, match string) session.Reason {
		m := session.Connect{Nonce: nonce, Cookie: ch.Cookie, Version: session.Version, RegistryHash: reg, Match: match}
		var key *[32]byte
		if secure {
			tok, err := token.Issue(simKey, token.Params{ProtocolID: simProtocol, ClientID: nonce, Servers: []netip.AddrPort{simServer}, Match: match}, simWall)
			if err != nil {
				t.Fatal(err)
			}
			m.Token = tokenwire.Of(tok).AppendPrivate(nil)
			key = &tokenwire.Of(tok).ServerToClientKey
		}
		ans := exchange(m.Append(nil))
		if key != nil {
			if _, err := session.OpenSealedAccept(ans, key); err == nil {
				return session.ReasonNone
			}
			if ref, err := session.OpenSealedRefuse(ans, key); err == nil {
				return ref.Reason
			}
		}
		if _, err := session.ParseAccept(ans); err == nil {
			return session.ReasonNone
		}
		ref, err := session.ParseRefuse(ans)
		if err != nil {
			t.Fatalf("answer %x: %v", ans, err)
		}
		return ref.Reason
	}
	var ms0, ms1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms0)
	for i := range flood {
		if why := connect(uint64(100+i), fmt.Sprintf("nope-%d", i)); why != session.ReasonNoSuchMatch {
			t.Fatalf("connect %d to no match: %v", i, why)
		}
	}
	answers = nil
	runtime.GC()
	runtime.ReadMemStats(&ms1)
	grew := int64(ms1.HeapAlloc) - int64(ms0.HeapAlloc)
	if got := h.Matches(); len(got) != 4 || h.NumClients() != 0 {
		t.Errorf("after the flood: matches %q, %d clients", got, h.NumClients())
	}
	if grew > 1<<20 {
		t.Errorf("the heap grew %d bytes over %d connects to no match", grew, flood)
	}
	// Nothing counted against the address: a connect to a match gets in.
	if why := connect(99, "m2"); why != session.ReasonNone || h.Match("m2").NumClients() != 1 {
		t.Errorf("a good connect after the flood: %v", why)
	}
	st := serverhook.ServerStats(h.Match("m0"))
	t.Logf("secure=%v: %d connects to no match refused; heap %+d bytes; first match: %d refused, %d tokens refused, %d throttled",
		secure, flood, grew, st.Refused, st.TokensRefused, st.Throttled)
}

// startBystanders connects a light client (internal/loadgen, each on an
// address of its own in 127.1.0.0/16) to every eighth of the host
// variant's matches, the victims' excepted (the others run without
// clients: with one in each, the sweeps starved the host's goroutine on
// this 2-core machine, shared with the attacker, the victims' clients and
// other test runs), with cfg's password, and waits until the host holds them
// and want clients more (the victims'). The returned check, called once
// the attack is over and before the server stops, ends the bystanders'
// run and reports each one that was not still playing then: an attack on
// the victims' match must not reach the other matches either. On a
// server of one match it does nothing.
func startBystanders(t *testing.T, ctx context.Context, srv *server.Runner, sz serverSize, password string, secure bool, want int) (check func()) {
	t.Helper()
	if sz.matches == 0 {
		return func() {}
	}
	var names []string
	for i := 0; i < sz.matches; i += 8 {
		if i != sz.matches/2 {
			names = append(names, fmt.Sprintf("m%d", i))
		}
	}
	cfg := loadgen.RunConfig{Server: srv.Addr(), Clients: len(names), Bases: loadgen.NewBases(func() game.Game { return testgame.New() }),
		Config: func(i int) (loadgen.Config, error) {
			c := loadgen.Config{Match: names[i], Password: password, Seed: uint32(i + 1)}
			if secure {
				tok, err := token.Issue(attackKey, token.Params{ProtocolID: attackProtocol, ClientID: uint64(10000 + i),
					Servers: []netip.AddrPort{srv.Addr()}, Match: names[i]}, time.Now())
				if err != nil {
					return c, err
				}
				c.Token = tok
			}
			return c, nil
		}}
	done := make(chan loadgen.Result, 1)
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		res, err := loadgen.Run(ctx, cfg)
		if err != nil {
			t.Errorf("bystanders: %v", err)
		}
		done <- res
	}()
	in := func() bool {
		n := 0
		srv.DoHost(ctx, func(now time.Duration, h *server.Host) { n = h.NumClients() })
		return n >= len(names)+want
	}
	if !testwait.Until(10*time.Second, in) {
		cancel()
		<-done
		t.Fatalf("the %d bystanders did not all connect", len(names))
	}
	return func() {
		cancel()
		res := <-done
		lost := 0
		for i, err := range res.Errs {
			if err != nil {
				lost++
				if lost <= 3 {
					t.Errorf("bystander in %s: %v", names[i], err)
				}
			}
		}
		if lost == 0 {
			t.Logf("%d bystanders in the other matches, all playing to the end", len(names))
		} else {
			t.Errorf("%d of %d bystanders not playing at the end", lost, len(names))
		}
	}
}
