package server_test

// Attacks on a real server over real UDP sockets on loopback, as an
// off-path attacker would make them: the attacker's host is 127.0.0.2 (and
// 127.0.0.3 plays a victim of reflection), the players are on 127.0.0.1.
// Every loop is bounded in count and time.

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/acceptance"
	"github.com/snapwire/snapwire/internal/netchan"
	"github.com/snapwire/snapwire/internal/serverhook"
	"github.com/snapwire/snapwire/internal/session"
	"github.com/snapwire/snapwire/internal/testgame"
	"github.com/snapwire/snapwire/internal/testwait"
	"github.com/snapwire/snapwire/server"
	"github.com/snapwire/snapwire/token"
)

const attackProtocol = 0xA77AC4

var attackKey = token.Key{1: 1, 2: 2}

type match struct {
	t       *testing.T
	srv     *server.Runner
	name    string // the victims' match: "" on a server of one match
	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	clients []*client.Runner
	errs    chan error
	// bystanders checks the host variant's clients of the other matches
	// once the match is stopped (startBystanders).
	bystanders func()
}

// startMatch runs a server (secure when secure is set) and n clients: a
// server of one match, or with sz.matches a host of that many, each
// running the test game with cfg, the victims' match among them and the
// n clients in it, and bystanders in some of the others
// (startBystanders: light clients, each on an address of its own, as
// Advanced.MaxClientsPerIP counts an address's clients across the host).
func startMatch(t *testing.T, sz serverSize, cfg server.Config, secure bool, n int) *match {
	t.Helper()
	if secure {
		cfg.TokenKey, cfg.ProtocolID = &attackKey, attackProtocol
	}
	srv, err := listenSweep(sz, cfg)
	if err != nil {
		t.Fatal(err)
	}
	m := &match{t: t, srv: srv, errs: make(chan error, n)}
	m.ctx, m.cancel = context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(m.stop)
	m.wg.Add(1)
	go func() { defer m.wg.Done(); srv.Run(m.ctx) }()
	m.name = createMatches(t, m.ctx, srv, sz, cfg)
	for i := range n {
		ccfg := client.Config{Match: m.name}
		if secure {
			tok, err := token.Issue(attackKey, token.Params{ProtocolID: attackProtocol, ClientID: uint64(i),
				Servers: []netip.AddrPort{srv.Addr()}, Match: m.name}, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			ccfg.Token = tok
		}
		r, err := client.Dial(srv.Addr().String(), ccfg, testgame.New(),
			client.InputFunc(func(in client.Input) game.UserCmd { return game.UserCmd{Forward: 40} }))
		if err != nil {
			t.Fatal(err)
		}
		m.clients = append(m.clients, r)
		m.wg.Add(1)
		go func() { defer m.wg.Done(); m.errs <- r.Run(m.ctx) }()
	}
	m.bystanders = startBystanders(t, m.ctx, srv, sz, cfg.Password, secure, n)
	m.waitSnapshots(20, 10*time.Second)
	return m
}

// listenSweep binds the server of an attack: a Runner serving one match
// (server.Listen), or with sz.matches a host with none yet.
func listenSweep(sz serverSize, cfg server.Config) (*server.Runner, error) {
	if sz.matches > 0 {
		return server.ListenHost("127.0.0.1:0", cfg)
	}
	return server.Listen("127.0.0.1:0", cfg, testgame.New(), testgame.DefaultSettings)
}

// createMatches creates the host variant's sz.matches matches on srv (once
// it runs), each running the test game with cfg, and returns the victims'
// match's name, the one in the middle; "" on a server of one match.
func createMatches(t *testing.T, ctx context.Context, srv *server.Runner, sz serverSize, cfg server.Config) string {
	t.Helper()
	if sz.matches == 0 {
		return ""
	}
	var err error
	srv.DoHost(ctx, func(now time.Duration, h *server.Host) {
		for i := range sz.matches {
			name := fmt.Sprintf("m%d", i)
			if i == sz.matches/2 {
				name = "victims"
			}
			if _, err = h.Create(now, name, cfg, testgame.New(), testgame.DefaultSettings); err != nil {
				return
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return "victims"
}

func (m *match) stop() {
	if m.bystanders != nil {
		m.bystanders()
		m.bystanders = nil // stop may be called again (Cleanup)
	}
	m.cancel()
	m.wg.Wait()
}

// snapshots returns each client's snapshot count and whether it is connected.
func (m *match) snapshots() ([]uint64, bool) {
	out := make([]uint64, len(m.clients))
	all := true
	for i, r := range m.clients {
		r.Do(m.ctx, func(now time.Duration, c *client.Client) {
			out[i] = c.Stats().SnapshotsReceived
			all = all && c.State() == client.Connected
		})
	}
	return out, all
}

// waitSnapshots waits until every client received at least n more snapshots.
func (m *match) waitSnapshots(n uint64, limit time.Duration) {
	m.t.Helper()
	start, _ := m.snapshots()
	deadline := time.Now().Add(limit)
	for {
		now, ok := m.snapshots()
		done := true
		for i := range now {
			done = done && now[i] >= start[i]+n
		}
		if done && ok {
			return
		}
		if time.Now().After(deadline) {
			m.t.Fatalf("clients stuck at %v snapshots (connected %v)", now, ok)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// server runs f on the server's goroutine with the victims' match.
func (m *match) server(f func(s *server.Server)) {
	m.srv.DoHost(m.ctx, func(now time.Duration, h *server.Host) {
		if s := h.Match(m.name); s != nil {
			f(s)
		}
	})
}

// hostStats sums the counters of the host's matches (on a server of one
// match, its own): what the socket's attacker met, wherever the host
// routed it (a connect that opens no match goes to the first match).
func (m *match) hostStats() serverhook.Stats {
	var sum serverhook.Stats
	m.srv.DoHost(m.ctx, func(now time.Duration, h *server.Host) {
		for _, name := range h.Matches() {
			addStats(&sum, serverhook.ServerStats(h.Match(name)))
		}
	})
	return sum
}

// addStats adds st's counters (its uint64 fields) to sum's.
func addStats(sum *serverhook.Stats, st serverhook.Stats) {
	a, b := reflect.ValueOf(sum).Elem(), reflect.ValueOf(st)
	for i := range a.NumField() {
		if f := a.Field(i); f.Kind() == reflect.Uint64 {
			f.SetUint(f.Uint() + b.Field(i).Uint())
		}
	}
}

func (m *match) clientAddrs() map[netchan.ConnID]netip.AddrPort {
	out := map[netchan.ConnID]netip.AddrPort{}
	m.server(func(s *server.Server) {
		for _, cs := range s.AppendClients(nil) {
			out[netchan.ConnID(cs.ConnID)] = cs.Addr
		}
	})
	return out
}

// attacker binds a UDP socket on the given loopback host.
func attacker(t *testing.T, host string) *net.UDPConn {
	t.Helper()
	c, err := net.ListenUDP("udp", net.UDPAddrFromAddrPort(netip.MustParseAddrPort(host+":0")))
	if err != nil {
		t.Skipf("cannot bind %s (loopback aliases): %v", host, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// forged returns the forged packets of the sweep for one connection id: a
// reliable "disconnect" (kick), an idle packet (hijack: a newer sequence
// from the attacker's address) and a command packet (injection), each with
// two sequence guesses 32,768 apart so one of them is "newer" whatever the
// channel's sequence; and each of those again with the encrypted flag and
// a random 16-byte tag.
func forged(id netchan.ConnID) [][]byte {
	var out [][]byte
	hdr := func(flags, typ byte, seq uint16) []byte {
		b := []byte{flags, typ, 0, 0, 0, 0, 0, 0}
		binary.LittleEndian.PutUint16(b[2:], uint16(id))
		binary.LittleEndian.PutUint16(b[4:], seq)
		return b
	}
	const (
		flagReliable  = 1 << 2
		flagEncrypted = 1 << 5
	)
	for _, seq := range []uint16{100, 100 + 32768} {
		kick := append(hdr(flagReliable, 0, seq), 1<<4|1, 2, byte(session.RelDisconnect), byte(session.ReasonClientLeft))
		idle := hdr(0, byte(session.TypeIdle), seq)
		cmds := append(hdr(0, byte(session.TypeCommands), seq), 0, 0, 0, 0, 1, 0xFF, 0xFF, 0xFF, 0xFF)
		for _, p := range [][]byte{kick, idle, cmds} {
			out = append(out, p)
			enc := append([]byte(nil), p...)
			enc[0] |= flagEncrypted
			var tag [16]byte
			rand.Read(tag[:])
			out = append(out, append(enc, tag[:]...))
		}
	}
	return out
}

// sweep sends forged packets (those of forged selected by keep) for every
// connection id from conn to the server, paced so the server's reader
// mostly keeps up; it returns the packets and bytes sent.
func sweep(t *testing.T, conn *net.UDPConn, to netip.AddrPort, keep func(i int) bool) (pkts, bytes int) {
	deadline := time.Now().Add(60 * time.Second)
	for id := range 1 << 16 {
		for i, p := range forged(netchan.ConnID(id)) {
			if !keep(i) {
				continue
			}
			if _, err := conn.WriteToUDPAddrPort(p, to); err != nil {
				t.Fatal(err)
			}
			pkts++
			bytes += len(p)
		}
		if id%32 == 31 {
			time.Sleep(time.Millisecond)
			if time.Now().After(deadline) {
				t.Fatal("sweep took over 60 s")
			}
		}
	}
	return pkts, bytes
}

// Acceptance: sweeping all 65,536 connection ids with forged kick, hijack
// and command packets ends no session, moves no address and runs no forged
// command: every forged packet that names a live connection is dropped as
// unauthenticated or malformed before it touches the session.
//
// Guards against: routing by connection id alone (the server once moved a
// session to the source of any packet with a newer sequence), a channel
// that delivers before authenticating, and an address change on a packet
// that did not authenticate.
func TestAttackConnIDSweepSecure(t *testing.T) {
	acceptance.Require(t, "attack-udp")
	forSlots(t, 0, attackConnIDSweepSecure)
}

func attackConnIDSweepSecure(t *testing.T, sz serverSize) {
	m := startMatch(t, sz, server.Config{MaxClients: sz.slots}, true, 4)
	before := m.clientAddrs()
	att := attacker(t, "127.0.0.2")
	victim := attacker(t, "127.0.0.3") // reflection: the "victim" sends the forgeries
	all := func(int) bool { return true }
	hijack := func(i int) bool { return i%6 == 2 || i%6 == 3 } // the idle packets, plaintext and encrypted
	pkts, sent := sweep(t, att, m.srv.Addr(), all)
	vpkts, vsent := sweep(t, victim, m.srv.Addr(), hijack)
	m.waitSnapshots(20, 10*time.Second) // the match goes on
	checkUnmoved(t, before, m.clientAddrs())
	var st serverhook.Stats
	m.server(func(s *server.Server) { st = serverhook.ServerStats(s) })
	_, dropped := m.srv.ReadStats()
	hit := 4 * (len(forged(0)) + 4) // packets naming a live connection, from both sources
	t.Logf("sweep: %d + %d packets (%d + %d bytes); server: %d auth failures, %d bad, %d unknown connection, %d reader drops, %d address changes",
		pkts, vpkts, sent, vsent, st.AuthFailures, st.BadPackets, st.UnknownConn, dropped, st.AddrChanges)
	if st.AddrChanges != 0 || st.Disconnects != 0 {
		t.Errorf("%d address changes, %d disconnects", st.AddrChanges, st.Disconnects)
	}
	// Every forged packet that named a live connection and was read is
	// rejected (the reader may drop some when the burst outruns it).
	if got := int(st.AuthFailures + st.BadPackets); got > hit || got < hit-int(dropped) {
		t.Errorf("%d auth failures + %d bad packets, want the %d forged packets that named a live connection (less %d reader drops)",
			st.AuthFailures, st.BadPackets, hit, dropped)
	}
	if st.AuthFailures == 0 {
		t.Error("no packet failed authentication: the encrypted forgeries were not checked")
	}
	// Reflection: nothing came back to the victim.
	victim.SetReadDeadline(time.Now().Add(500 * time.Millisecond))
	buf := make([]byte, 2048)
	got := 0
	for range 1000 {
		n, _, err := victim.ReadFromUDPAddrPort(buf)
		if err != nil {
			break
		}
		got += n
	}
	if got > vsent {
		t.Errorf("reflection: %d bytes to the victim for %d sent", got, vsent)
	}
	t.Logf("reflection: %d bytes to the victim for its %d bytes of forgeries", got, vsent)
}

// The same sweep against an insecure server from another IP address: the
// sessions stay where they are, because an insecure session takes packets
// only from its client's IP address. (An attacker who spoofs that IP can
// still inject: that is what the insecure handshake means.)
//
// Guards against: an insecure session accepting a packet from a new IP.
func TestAttackConnIDSweepInsecure(t *testing.T) {
	acceptance.Require(t, "attack-udp")
	forSlots(t, 0, attackConnIDSweepInsecure)
}

func attackConnIDSweepInsecure(t *testing.T, sz serverSize) {
	m := startMatch(t, sz, server.Config{MaxClients: sz.slots}, false, 4)
	before := m.clientAddrs()
	att := attacker(t, "127.0.0.2")
	sweep(t, att, m.srv.Addr(), func(int) bool { return true })
	m.waitSnapshots(20, 10*time.Second)
	checkUnmoved(t, before, m.clientAddrs())
	var st serverhook.Stats
	m.server(func(s *server.Server) { st = serverhook.ServerStats(s) })
	if st.WrongSource == 0 || st.AddrChanges != 0 || st.Disconnects != 0 {
		t.Errorf("wrong source %d, address changes %d, disconnects %d", st.WrongSource, st.AddrChanges, st.Disconnects)
	}
}

// handshake sends one connectionless payload from conn and returns the
// answer to it: the first packet that echoes nonce (nil after the
// timeout). Every answer read, to this request or an earlier one, must be
// no larger than the request (all requests here are of the minimum size).
func handshake(t *testing.T, conn *net.UDPConn, to netip.AddrPort, nonce uint64, payload []byte) []byte {
	t.Helper()
	pkt := netchan.AppendConnectionless(nil, payload)
	if _, err := conn.WriteToUDPAddrPort(pkt, to); err != nil {
		t.Fatal(err)
	}
	conn.SetReadDeadline(time.Now().Add(time.Second))
	buf := make([]byte, 2048)
	for range 10000 {
		n, _, err := conn.ReadFromUDPAddrPort(buf)
		if err != nil {
			return nil
		}
		if n > len(pkt) {
			t.Errorf("answer of %d bytes to a request of %d", n, len(pkt))
		}
		if n >= 13 && binary.LittleEndian.Uint64(buf[5:]) == nonce {
			return buf[4:n]
		}
	}
	return nil
}

func cookieFor(t *testing.T, conn *net.UDPConn, to netip.AddrPort) session.Cookie {
	t.Helper()
	ans := handshake(t, conn, to, 5, session.GetChallenge{Nonce: 5}.Append(nil))
	ch, err := session.ParseChallenge(ans)
	if err != nil {
		t.Fatalf("challenge %x: %v", ans, err)
	}
	return ch.Cookie
}

func refusal(t *testing.T, ans []byte) session.Reason {
	t.Helper()
	r, err := session.ParseRefuse(ans)
	if err != nil {
		if _, err := session.ParseAccept(ans); err == nil {
			return session.ReasonNone
		}
		t.Fatalf("answer %x: %v", ans, err)
	}
	return r.Reason
}

// Acceptance: connect floods with bad cookies store nothing, and a valid
// cookie reused for a flood of connects is cut off after
// MaxConnectAttempts on an insecure server (a secure one refuses each bad
// token and counts nothing); no answer is larger than its request
// (handshake asserts it for every exchange).
//
// Guards against: state stored before the cookie is checked, and an
// unbounded number of connects per cookie.
func TestAttackConnectFloods(t *testing.T) {
	acceptance.Require(t, "attack-udp")
	forSlots(t, 16, attackConnectFloods)
}

func attackConnectFloods(t *testing.T, sz serverSize) {
	for _, secure := range []bool{true, false} {
		m := startMatch(t, sz, server.Config{MaxClients: sz.slots}, secure, 1)
		att := attacker(t, "127.0.0.2")
		to := m.srv.Addr()
		// Bad cookies: 2,000 connects, all refused, nothing stored.
		for i := range 2000 {
			var c session.Cookie
			binary.LittleEndian.PutUint64(c[:], uint64(i))
			p := netchan.AppendConnectionless(nil, session.Connect{Nonce: uint64(1e9 + i), Cookie: c, Version: session.Version, Match: m.name}.Append(nil))
			att.WriteToUDPAddrPort(p, to)
			if i%50 == 49 {
				time.Sleep(time.Millisecond)
			}
		}
		// The refusals fill the socket's buffer; read them before asking.
		buf := make([]byte, 2048)
		for range 5000 {
			att.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
			n, _, err := att.ReadFromUDPAddrPort(buf)
			if err != nil {
				break
			}
			if n > session.ConnectLen+4 {
				t.Fatalf("a %d-byte answer to a bad cookie", n)
			}
		}
		// A valid cookie, reused: bad tokens (secure) or good connects
		// (insecure), until the server cuts the address off.
		cookie := cookieFor(t, att, to)
		var reasons []session.Reason
		count := map[session.Reason]int{}
		for i := range 40 {
			tok := []byte(nil)
			if secure {
				tok = make([]byte, 200)
				rand.Read(tok)
			}
			ans := handshake(t, att, to, uint64(1e6+i), session.Connect{Nonce: uint64(1e6 + i), Cookie: cookie, Version: session.Version,
				RegistryHash: testgame.New().Registry().Hash(), Token: tok, Match: m.name}.Append(nil))
			if ans == nil {
				t.Fatal("no answer")
			}
			reasons = append(reasons, refusal(t, ans))
			count[reasons[i]]++
		}
		var st serverhook.Stats
		var clients int
		m.server(func(s *server.Server) { clients = s.NumClients() })
		st = m.hostStats() // a connect that opens no match is refused by the first one
		t.Logf("secure=%v: answers %v; stats: bad cookies %d, throttled %d, tokens refused %d, clients %d",
			secure, count, st.BadCookies, st.Throttled, st.TokensRefused, clients)
		// The kernel and the reader may drop part of the burst on a busy
		// machine, so the count the server read is a figure here; the
		// verdict is that it refused them (none stored: the client count
		// below). TestSimAttackConnectFloods (package client) counts all
		// 2000 on the core.
		_, drops := m.srv.ReadStats()
		t.Logf("secure=%v: %d of 2000 bad cookies read and refused (%d reader drops)", secure, st.BadCookies, drops)
		if st.BadCookies == 0 {
			t.Errorf("secure=%v: none of 2000 bad cookies counted", secure)
		}
		wantLast := session.ReasonTooManyAttempts
		if secure {
			wantLast = session.ReasonTokenInvalid // nothing is counted before a token opens (issue 22)
		}
		if reasons[len(reasons)-1] != wantLast {
			t.Errorf("secure=%v: connects with one cookie: last reason %v, want %v", secure, reasons[len(reasons)-1], wantLast)
		}
		wantClients := 1 // the match's own
		if !secure {
			wantClients += 4 // MaxClientsPerIP from the attacker's address
		}
		if clients != wantClients {
			t.Errorf("secure=%v: %d clients, want %d", secure, clients, wantClients)
		}
		m.stop()
	}
}

// Acceptance: one IP address cannot take every slot of an insecure server;
// another address still gets in.
//
// Guards against: a missing per-address connection limit.
func TestAttackSlotExhaustion(t *testing.T) {
	acceptance.Require(t, "attack-udp")
	forSlots(t, 8, attackSlotExhaustion)
}

func attackSlotExhaustion(t *testing.T, sz serverSize) {
	m := startMatch(t, sz, server.Config{MaxClients: sz.slots}, false, 0)
	to := m.srv.Addr()
	reg := testgame.New().Registry().Hash()
	var got []session.Reason
	for i := range 8 {
		att := attacker(t, "127.0.0.2") // a new port per connect, like many clients behind one address
		cookie := cookieFor(t, att, to)
		ans := handshake(t, att, to, uint64(i+1), session.Connect{Nonce: uint64(i + 1), Cookie: cookie, Version: session.Version, RegistryHash: reg, Match: m.name}.Append(nil))
		got = append(got, refusal(t, ans))
	}
	for i, r := range got {
		want := session.ReasonNone
		if i >= 4 {
			want = session.ReasonTooManyFromIP
		}
		if r != want {
			t.Errorf("connect %d from 127.0.0.2: %v, want %v", i, r, want)
		}
	}
	other := attacker(t, "127.0.0.3")
	cookie := cookieFor(t, other, to)
	if r := refusal(t, handshake(t, other, to, 99, session.Connect{Nonce: 99, Cookie: cookie, Version: session.Version, RegistryHash: reg, Match: m.name}.Append(nil))); r != session.ReasonNone {
		t.Errorf("another address refused: %v", r)
	}
}

// Acceptance: password guessing is cut off after MaxPasswordFailures wrong
// passwords per address and cookie lifetime, even when the next guess is
// right.
//
// Guards against: unbounded password attempts.
func TestAttackPasswordGuessing(t *testing.T) {
	acceptance.Require(t, "attack-udp")
	forSlots(t, 0, attackPasswordGuessing)
}

func attackPasswordGuessing(t *testing.T, sz serverSize) {
	m := startMatch(t, sz, server.Config{MaxClients: sz.slots, Password: "hunter2", Advanced: server.Advanced{CookieLifetime: time.Minute}}, false, 0)
	to := m.srv.Addr()
	att := attacker(t, "127.0.0.2")
	cookie := cookieFor(t, att, to)
	reg := testgame.New().Registry().Hash()
	var got []session.Reason
	for i, pw := range []string{"a", "b", "c", "d", "hunter2"} {
		ans := handshake(t, att, to, uint64(i+1), session.Connect{Nonce: uint64(i + 1), Cookie: cookie, Version: session.Version, RegistryHash: reg, Password: pw, Match: m.name}.Append(nil))
		got = append(got, refusal(t, ans))
	}
	want := []session.Reason{session.ReasonWrongPassword, session.ReasonWrongPassword, session.ReasonWrongPassword,
		session.ReasonTooManyAttempts, session.ReasonTooManyAttempts}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("guess %d: %v, want %v", i, got[i], want[i])
		}
	}
}

// loneClientStats reads the counters of the server's match named match
// and those of its one client (zero when it has not exactly one) on its
// goroutine.
func loneClientStats(ctx context.Context, srv *server.Runner, match string) (serverhook.ClientStats, serverhook.Stats) {
	var cs serverhook.ClientStats
	var st serverhook.Stats
	srv.DoHost(ctx, func(now time.Duration, h *server.Host) {
		s := h.Match(match)
		if s == nil {
			return
		}
		st = serverhook.ServerStats(s)
		if all := s.AppendClients(nil); len(all) == 1 {
			cs, _ = serverhook.Client(s, all[0].Num)
		}
	})
	return cs, st
}

// Acceptance: replayed packets are rejected and counted. A relay on the
// path between a client and the server records the client's packets; the
// attacker replays every one of them to the server, from the relay's own
// address and from its own, after the session moved on. None is delivered
// twice, none moves the session, and each is counted as late or duplicate
// (same address) or dropped.
//
// Guards against: a channel that accepts an authentic packet twice.
func TestAttackReplay(t *testing.T) {
	acceptance.Require(t, "attack-udp")
	forSlots(t, 0, attackReplay)
}

func attackReplay(t *testing.T, sz serverSize) {
	cfg := server.Config{MaxClients: sz.slots, TokenKey: &attackKey, ProtocolID: attackProtocol}
	srv, err := listenSweep(sz, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	wg.Add(1)
	go func() { defer wg.Done(); srv.Run(ctx) }()
	name := createMatches(t, ctx, srv, sz, cfg)
	// The relay: client <-> relay <-> server, recording client packets.
	relay, err := net.ListenUDP("udp", net.UDPAddrFromAddrPort(netip.MustParseAddrPort("127.0.0.1:0")))
	if err != nil {
		t.Fatal(err)
	}
	defer relay.Close()
	relayAddr := relay.LocalAddr().(*net.UDPAddr).AddrPort()
	toServer, err := net.ListenUDP("udp", net.UDPAddrFromAddrPort(netip.MustParseAddrPort("127.0.0.1:0")))
	if err != nil {
		t.Fatal(err)
	}
	defer toServer.Close()
	var mu sync.Mutex
	var recorded [][]byte
	var clientAddr netip.AddrPort
	wg.Add(2)
	go func() { // client -> server
		defer wg.Done()
		buf := make([]byte, 2048)
		for {
			n, from, err := relay.ReadFromUDPAddrPort(buf)
			if err != nil {
				return
			}
			mu.Lock()
			clientAddr = from
			if !netchan.IsConnectionless(buf[:n]) && len(recorded) < 5000 {
				recorded = append(recorded, append([]byte(nil), buf[:n]...))
			}
			mu.Unlock()
			toServer.WriteToUDPAddrPort(buf[:n], srv.Addr())
		}
	}()
	go func() { // server -> client
		defer wg.Done()
		buf := make([]byte, 2048)
		for {
			n, _, err := toServer.ReadFromUDPAddrPort(buf)
			if err != nil {
				return
			}
			mu.Lock()
			to := clientAddr
			mu.Unlock()
			relay.WriteToUDPAddrPort(buf[:n], to)
		}
	}()
	tok, err := token.Issue(attackKey, token.Params{ProtocolID: attackProtocol, Servers: []netip.AddrPort{srv.Addr()}, Match: name}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	cr, err := client.Dial(relayAddr.String(), client.Config{Token: tok, Match: name}, testgame.New(),
		client.InputFunc(func(in client.Input) game.UserCmd { return game.UserCmd{Forward: 40} }))
	if err != nil {
		t.Fatal(err)
	}
	cctx, ccancel := context.WithCancel(ctx)
	defer ccancel()
	wg.Add(1)
	go func() { defer wg.Done(); cr.Run(cctx) }()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var n uint64
		cr.Do(ctx, func(now time.Duration, c *client.Client) { n = c.Stats().SnapshotsReceived })
		if n >= 30 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("client not playing through the relay")
		}
		time.Sleep(20 * time.Millisecond)
	}
	mu.Lock()
	replay := append([][]byte(nil), recorded...)
	mu.Unlock()
	statsOf := func() (serverhook.ClientStats, serverhook.Stats) { return loneClientStats(ctx, srv, name) }
	cs0, _ := statsOf()
	att := attacker(t, "127.0.0.2")
	for i, p := range replay {
		toServer.WriteToUDPAddrPort(p, srv.Addr()) // from the session's own address
		att.WriteToUDPAddrPort(p, srv.Addr())      // from another
		if i%64 == 63 {
			time.Sleep(time.Millisecond)
		}
	}
	// Until the server has counted the replays it read (bounded: the
	// reader may drop some of the burst).
	var cs1 serverhook.ClientStats
	var st serverhook.Stats
	var late uint64
	testwait.Until(5*time.Second, func() bool {
		cs1, st = statsOf()
		late = (cs1.Channel.DroppedLate + cs1.Channel.DroppedDuplicate) - (cs0.Channel.DroppedLate + cs0.Channel.DroppedDuplicate)
		return late >= uint64(2*len(replay))
	})
	t.Logf("replayed %d packets twice: %d counted late or duplicate on the session; address %v -> %v; %d address changes",
		len(replay), late, cs0.Addr, cs1.Addr, st.AddrChanges)
	if cs1.Addr != cs0.Addr || st.AddrChanges != 0 {
		t.Errorf("replays moved the session: %v -> %v (%d changes)", cs0.Addr, cs1.Addr, st.AddrChanges)
	}
	if late < uint64(2*len(replay))*9/10 {
		t.Errorf("%d of %d replayed packets counted as late or duplicate", late, 2*len(replay))
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Fatal("test ran out of time")
	}
}

// Acceptance: reflection through rebinding is at most 3x. An on-path
// attacker rewrites the source of one genuine (authenticated) client
// packet to a victim's address: the server moves the session there, but
// sends the victim no more than 3 times the bytes that packet had until
// the victim echoes the path challenge sent to it.
//
// Guards against: sending at full rate to an unconfirmed address.
func TestRebindReflectionBounded(t *testing.T) { forSlots(t, 0, rebindReflectionBounded) }

func rebindReflectionBounded(t *testing.T, sz serverSize) {
	key := token.Key{9: 9}
	srvAddr := netip.MustParseAddrPort("10.0.0.1:27960")
	real := netip.MustParseAddrPort("10.0.0.2:40000")
	victim := netip.MustParseAddrPort("10.9.9.9:53")
	var toClient [][]byte
	toVictim := 0
	cfg := server.Config{MaxClients: sz.slots, TokenKey: &key, ProtocolID: 1, PublicAddrs: []netip.AddrPort{srvAddr}}
	send := server.SendFunc(func(to netip.AddrPort, p []byte) {
		switch to {
		case real:
			toClient = append(toClient, append([]byte(nil), p...))
		case victim:
			toVictim += len(p)
		}
	})
	srv, core, name := sweepCore(t, sz, cfg, send)
	tok, err := token.Issue(key, token.Params{ProtocolID: 1, Servers: []netip.AddrPort{srvAddr}, Match: name}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	var toServer [][]byte
	cl, err := client.New(client.Config{Token: tok, Match: name}, testgame.New(), client.InputFunc(func(in client.Input) game.UserCmd { return game.UserCmd{} }),
		client.SendFunc(func(to netip.AddrPort, p []byte) { toServer = append(toServer, append([]byte(nil), p...)) }))
	if err != nil {
		t.Fatal(err)
	}
	cl.Connect(0, srvAddr)
	now := time.Duration(0)
	step := func(from netip.AddrPort, deliver bool) {
		now += 5 * time.Millisecond
		pk := toServer
		toServer = nil
		if deliver {
			for _, p := range pk {
				core.HandlePacket(now, from, p)
			}
		}
		for _, p := range toClient {
			cl.HandlePacket(now, p)
		}
		toClient = toClient[:0]
		core.Advance(now)
		cl.Advance(now)
	}
	for range 200 {
		step(real, true)
	}
	if cl.State() != client.Connected {
		t.Fatalf("client: %v %v", cl.State(), cl.Err())
	}
	// One genuine packet, its source rewritten to the victim's.
	for len(toServer) == 0 {
		step(real, true)
	}
	forgedFrom := toServer[len(toServer)-1]
	toServer = nil
	core.HandlePacket(now, victim, forgedFrom)
	cs, _ := serverhook.Client(srv, 0)
	if cs.Addr != victim || !cs.AddrPending {
		t.Fatalf("session at %v (pending %v) after the rewritten packet", cs.Addr, cs.AddrPending)
	}
	for range 200 { // 1 s in which nothing more comes from the victim
		step(victim, false)
	}
	st := serverhook.ServerStats(srv)
	t.Logf("victim got %d bytes for one %d-byte packet; %d packets held back", toVictim, len(forgedFrom), st.UnconfirmedDrops)
	if toVictim > 3*len(forgedFrom) || st.UnconfirmedDrops == 0 { // 3x: room for the path challenge (issue 22)
		t.Fatalf("reflection: %d bytes to the victim for %d received (%d held back)", toVictim, len(forgedFrom), st.UnconfirmedDrops)
	}
	// The genuine client speaks again from its own address: the session
	// moves back at once (its packets are newer).
	for range 20 {
		step(real, true)
	}
	if cs, _ := serverhook.Client(srv, 0); cs.Addr != real || cs.AddrPending {
		t.Fatalf("session at %v (pending %v) after the client spoke again", cs.Addr, cs.AddrPending)
	}
}

// packetCore is what drives a server core in virtual time: a Server, or
// a Host of many.
type packetCore interface {
	HandlePacket(now time.Duration, from netip.AddrPort, pkt []byte)
	Advance(now time.Duration)
}

// sweepCore returns the server core of an attack in virtual time: a
// Server running the test game, or with sz.matches a Host of that many
// matches, each running it with cfg; srv is the victims' match (the one in
// the middle, named name), core what the packets go to.
func sweepCore(t *testing.T, sz serverSize, cfg server.Config, send server.Sender) (srv *server.Server, core packetCore, name string) {
	t.Helper()
	if sz.matches == 0 {
		srv, err := server.New(cfg, testgame.New(), testgame.DefaultSettings, send)
		if err != nil {
			t.Fatal(err)
		}
		return srv, srv, ""
	}
	h, err := server.NewHost(cfg, send)
	if err != nil {
		t.Fatal(err)
	}
	for i := range sz.matches {
		mn := fmt.Sprintf("m%d", i)
		if i == sz.matches/2 {
			mn = "victims"
		}
		if _, err := h.Create(0, mn, cfg, testgame.New(), testgame.DefaultSettings); err != nil {
			t.Fatal(err)
		}
	}
	return h.Match("victims"), h, "victims"
}

// checkUnmoved checks that the 4 sessions of before are all there, each at
// its address.
func checkUnmoved(t *testing.T, before, after map[netchan.ConnID]netip.AddrPort) {
	t.Helper()
	if len(after) != 4 {
		t.Fatalf("%d sessions left of 4", len(after))
	}
	for id, a := range before {
		if after[id] != a {
			t.Errorf("connection %d moved from %v to %v", id, a, after[id])
		}
	}
}
