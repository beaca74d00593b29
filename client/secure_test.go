package client_test

import (
	"errors"
	"net/netip"
	"testing"
	"time"

	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/internal/serverhook"
	"github.com/snapwire/snapwire/internal/tokenwire"
	"github.com/snapwire/snapwire/netsim"
	"github.com/snapwire/snapwire/server"
	"github.com/snapwire/snapwire/token"
)

const testProtocol = 0x736e6170

var (
	secureKey = token.Key{7: 7, 31: 31}
	wallStart = time.Unix(1_800_000_000, 0)
)

// secureConfig is a server configuration that requires tokens, with a
// wall clock that follows the simulation's virtual time.
func secureConfig(s **sim) server.Config {
	return serverhook.With(server.Config{
		TokenKey: &secureKey, ProtocolID: testProtocol, PublicAddrs: []netip.AddrPort{serverAddr},
	}, serverhook.Hooks{WallClock: func() time.Time { return wallStart.Add((*s).now) }})
}

func issueToken(t testing.TB, p token.Params, at time.Time) *token.Token {
	t.Helper()
	if p.ProtocolID == 0 {
		p.ProtocolID = testProtocol
	}
	if p.Servers == nil {
		p.Servers = []netip.AddrPort{serverAddr}
	}
	tok, err := token.Issue(secureKey, p, at)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// Acceptance (secure sessions): clients with tokens play over a lossy link
// with every channel packet encrypted, and every invariant holds.
func TestSecureSessions(t *testing.T) {
	var s *sim
	s = newSim(t, 81, netsim.LinkConfig{Latency: 40 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.1}, secureConfig(&s))
	for i := range 4 {
		tok := issueToken(t, token.Params{ClientID: uint64(100 + i), UserData: []byte("team=red")}, wallStart)
		s.addClient(i, botLane, client.Config{Token: tok})
	}
	s.run(20 * time.Second)
	checkInvariants(t, s)
	for i := range 4 {
		cs, ok := serverhook.Client(s.srv, s.cls[i].c.ClientNum())
		if !ok || !cs.Secure || cs.TokenClientID != uint64(100+i) || string(cs.UserData) != "team=red" {
			t.Errorf("client %d on the server: %+v", i, cs)
		}
	}
	if st := serverhook.ServerStats(s.srv); st.AuthFailures != 0 || st.Connects != 4 {
		t.Errorf("server: %d authentication failures, %d connects", st.AuthFailures, st.Connects)
	}
}

// Acceptance (tokens): expired, wrong protocol, wrong server, tampered and
// reused tokens, and a valid token from a second address, are each refused
// with a reason the client can print. Resumes are off here: with them, the
// token's holder moves its session to the second address
// (TestResumeProcessRestart).
func TestTokenRefusals(t *testing.T) {
	var s *sim
	cfg := secureConfig(&s)
	cfg.ReconnectGrace = -1
	s = newSim(t, 82, netsim.LinkConfig{Latency: 10 * time.Millisecond}, cfg)
	used := issueToken(t, token.Params{}, wallStart)
	tampered := issueToken(t, token.Params{}, wallStart)
	tokenwire.Of(tampered).Sealed[3] ^= 0x10
	cases := []struct {
		name string
		tok  *token.Token
		want client.Reason
	}{
		{"no token", nil, client.ReasonTokenRequired},
		{"expired", issueToken(t, token.Params{Lifetime: time.Second}, wallStart.Add(-5*time.Second)), client.ReasonTokenExpired},
		{"wrong protocol", issueToken(t, token.Params{ProtocolID: 99}, wallStart), client.ReasonTokenWrongProto},
		{"wrong server", issueToken(t, token.Params{Servers: []netip.AddrPort{netip.MustParseAddrPort("10.0.0.9:27960")}}, wallStart), client.ReasonTokenWrongServer},
		{"tampered", tampered, client.ReasonTokenInvalid},
		{"first use", used, client.ReasonNone},
		{"same token from a second address", used, client.ReasonTokenOtherAddress},
	}
	for i, c := range cases {
		sc := s.addClient(i, botLane, client.Config{Token: c.tok})
		s.run(s.now + time.Second)
		var ref *client.RefusedError
		switch {
		case c.want == client.ReasonNone:
			if sc.c.State() != client.Connected {
				t.Errorf("%s: %v %v", c.name, sc.c.State(), sc.c.Err())
			}
		case !errors.As(sc.c.Err(), &ref) || ref.Reason != c.want:
			t.Errorf("%s: err %v, want refusal %q", c.name, sc.c.Err(), c.want)
		default:
			t.Logf("%s: %v", c.name, sc.c.Err())
		}
	}
	// The first user leaves; its token cannot start a second session, even
	// from its own address.
	first := s.cls[5]
	first.c.Disconnect(s.now)
	s.run(s.now + 500*time.Millisecond)
	again, err := client.New(client.Config{Token: used, Name: "again"}, first.g, client.InputFunc(nil), client.SendFunc(func(to netip.AddrPort, p []byte) {
		first.ep.WriteTo(p, to)
	}))
	if err != nil {
		t.Fatal(err)
	}
	first.c = again
	again.Connect(s.now, serverAddr)
	s.run(s.now + time.Second)
	var ref *client.RefusedError
	if !errors.As(again.Err(), &ref) || ref.Reason != client.ReasonTokenReused {
		t.Errorf("reused token: %v %v", again.State(), again.Err())
	}
	if st := serverhook.ServerStats(s.srv); st.TokensRefused != 7 || s.srv.NumClients() != 0 {
		t.Errorf("%d token refusals counted (want 7), %d clients", st.TokensRefused, s.srv.NumClients())
	}
}

// A secure server's client keeps its session across a NAT rebinding to a
// new IP address and port: the address moves on an authenticated packet.
func TestSecureRebind(t *testing.T) {
	var s *sim
	s = newSim(t, 83, netsim.LinkConfig{Latency: 30 * time.Millisecond}, secureConfig(&s))
	sc := s.addClient(0, botLane, client.Config{Token: issueToken(t, token.Params{}, wallStart)})
	s.run(3 * time.Second)
	newAddr := netip.MustParseAddrPort("10.0.9.9:51234")
	if err := sc.ep.Rebind(newAddr); err != nil {
		t.Fatal(err)
	}
	before := sc.c.Stats().SnapshotsReceived
	s.run(8 * time.Second)
	cs, ok := serverhook.Client(s.srv, 0)
	if !ok || cs.Addr != newAddr || cs.AddrPending || sc.c.State() != client.Connected {
		t.Fatalf("after rebind: server sees %v (ok %v, pending %v), client %v", cs.Addr, ok, cs.AddrPending, sc.c.State())
	}
	if got := sc.c.Stats().SnapshotsReceived - before; got < 90 {
		t.Errorf("%d snapshots after the rebind", got)
	}
	if st := serverhook.ServerStats(s.srv); st.AddrChanges != 1 {
		t.Errorf("%d address changes", st.AddrChanges)
	}
	checkInvariants(t, s)
}

// An insecure session never moves to another IP address: only the port may
// change (the spoofer must at least spoof the client's IP).
func TestInsecureKeepsIP(t *testing.T) {
	s := newSim(t, 84, netsim.LinkConfig{Latency: 30 * time.Millisecond}, server.Config{})
	sc := s.addClient(0, botLane, client.Config{})
	s.run(2 * time.Second)
	if err := sc.ep.Rebind(netip.MustParseAddrPort("10.0.9.9:51234")); err != nil {
		t.Fatal(err)
	}
	s.run(4 * time.Second)
	cs, ok := serverhook.Client(s.srv, 0)
	if !ok || cs.Addr != clientAddr(0) {
		t.Fatalf("insecure session moved to %v", cs.Addr)
	}
	if serverhook.ServerStats(s.srv).WrongSource == 0 {
		t.Fatal("packets from the other IP not counted")
	}
}
