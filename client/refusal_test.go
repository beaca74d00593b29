package client_test

// Refusals the client retries after or waits on (issue 22, items 1 and 8).

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"testing"
	"time"

	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/internal/clienthook"
	"github.com/snapwire/snapwire/internal/netchan"
	"github.com/snapwire/snapwire/internal/serverhook"
	"github.com/snapwire/snapwire/internal/session"
	"github.com/snapwire/snapwire/internal/testgame"
	"github.com/snapwire/snapwire/netsim"
	"github.com/snapwire/snapwire/server"
	"github.com/snapwire/snapwire/token"
)

// Acceptance (issue 22, item 1): a transient refusal does not end the
// handshake. A client refused because the server is full tries again and
// gets in when a slot frees within its connect timeout, with a token (the
// server takes the same connect again: no session was opened with it) and
// without.
//
// Guards against: a client that gives up on its first refusal whatever
// the reason.
func TestRetryWhenFull(t *testing.T) {
	for _, secure := range []bool{false, true} {
		t.Run(fmt.Sprintf("secure=%v", secure), func(t *testing.T) {
			var s *sim
			cfg := server.Config{MaxClients: 1}
			if secure {
				cfg = secureConfig(&s)
				cfg.MaxClients = 1
			}
			s = newSim(t, 91, netsim.LinkConfig{Latency: 20 * time.Millisecond}, cfg)
			var ccfg [2]client.Config
			if secure {
				for i := range ccfg {
					ccfg[i].Token = issueToken(t, token.Params{ClientID: uint64(i)}, wallStart)
				}
			}
			first := s.addClient(0, botLane, ccfg[0])
			s.run(time.Second)
			second := s.addClient(1, botLane, ccfg[1])
			s.run(3 * time.Second)
			if second.c.State() == client.Disconnected {
				t.Fatalf("second client while the server is full: %v %v", second.c.State(), second.c.Err())
			}
			first.c.Disconnect(s.now)
			s.run(6 * time.Second)
			if second.c.State() != client.Connected {
				t.Fatalf("second client after a slot freed: %v %v", second.c.State(), second.c.Err())
			}
		})
	}
}

// Acceptance (issue 22, item 8): an observer on the path cannot break a
// secure handshake. For every getchallenge and connect it sees, it
// answers first (its link to the client is faster than the server's) with
// forged refusals (lasting reasons), a forged plain accept and a forged
// sealed accept, all with the right nonce. The client connects all the
// same, with the server's sealed accept, and plays.
//
// Guards against: a client that believes an unauthenticated refuse on
// arrival, or an accept it cannot authenticate.
func TestForgedHandshakeAnswers(t *testing.T) {
	var s *sim
	s = newSim(t, 92, netsim.LinkConfig{Latency: 30 * time.Millisecond}, secureConfig(&s))
	observer, err := s.net.Listen(netip.MustParseAddrPort("10.6.6.6:5000"))
	if err != nil {
		t.Fatal(err)
	}
	me := clientAddr(0)
	s.net.SetLink(observer.Addr(), me, netsim.LinkConfig{}) // no latency: its answers win the race
	forged := 0
	s.net.SetDropFilter(func(from, to netip.AddrPort, p []byte) bool {
		if from != me || !netchan.IsConnectionless(p) || len(p) < 4+11 {
			return false
		}
		var nonce uint64
		switch session.Kind(p[4]) {
		case session.KindGetChallenge:
			nonce = binary.LittleEndian.Uint64(p[4+3:])
		case session.KindConnect:
			nonce = binary.LittleEndian.Uint64(p[4+1:])
		default:
			return false
		}
		for _, why := range []session.Reason{session.ReasonTokenInvalid, session.ReasonWrongVersion, session.ReasonTokenReused} {
			observer.WriteTo(netchan.AppendConnectionless(nil, session.Refuse{Nonce: nonce, Reason: why}.Append(nil)), me)
		}
		observer.WriteTo(netchan.AppendConnectionless(nil, session.Accept{Nonce: nonce, ConnID: 0x4444, FrameDur: 1000, Settings: "x"}.Append(nil)), me)
		// A Quake 3 server's answer is no more authenticated than a refuse.
		observer.WriteTo(netchan.AppendConnectionless(nil, []byte("disconnect")), me)
		var k [32]byte
		var xn [session.XNonceLen]byte
		observer.WriteTo(netchan.AppendConnectionless(nil, session.SealedAccept{Accept: session.Accept{Nonce: nonce, ConnID: 0x4444, FrameDur: 1000}}.AppendSealed(nil, &k, &xn)), me)
		forged++
		return false
	})
	sc := s.addClient(0, botLane, client.Config{Token: issueToken(t, token.Params{}, wallStart)})
	s.run(3 * time.Second)
	st := clienthook.CountersOf(sc.c)
	t.Logf("%d handshake messages answered by forgeries; the client counted %d refusals and %d sealed accepts that failed to open; %d snapshots",
		forged, st.Refusals, st.HandshakeAuthFailures, st.SnapshotsReceived)
	if sc.c.State() != client.Connected || st.SnapshotsReceived < 40 {
		t.Fatalf("client: %v %v, %d snapshots", sc.c.State(), sc.c.Err(), st.SnapshotsReceived)
	}
	if forged == 0 || st.Refusals == 0 || st.HandshakeAuthFailures == 0 {
		t.Errorf("the forgeries did not reach the client: %d sent, %d refusals, %d auth failures", forged, st.Refusals, st.HandshakeAuthFailures)
	}
	if cs, ok := serverhook.Client(s.srv, sc.c.ClientNum()); !ok || cs.ConnID == 0x4444 {
		t.Errorf("the client is not in the server's session: %+v", cs)
	}
}

// secureHandshake runs a client with a token through getchallenge and
// connect against a server core and returns the client, waiting for its
// answer, and the server's sealed accept, not yet delivered.
func secureHandshake(t testing.TB) (*client.Client, []byte) {
	var toC, toS [][]byte
	cfg := serverhook.With(server.Config{TokenKey: &secureKey, ProtocolID: testProtocol, PublicAddrs: []netip.AddrPort{serverAddr}},
		serverhook.Hooks{WallClock: func() time.Time { return wallStart }})
	srv, err := server.New(cfg, testgame.New(), testgame.DefaultSettings, server.SendFunc(func(to netip.AddrPort, p []byte) {
		toC = append(toC, bytes.Clone(p))
	}))
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New(client.Config{Token: issueToken(t, token.Params{}, wallStart)}, testgame.New(), client.InputFunc(nil),
		client.SendFunc(func(to netip.AddrPort, p []byte) { toS = append(toS, bytes.Clone(p)) }))
	if err != nil {
		t.Fatal(err)
	}
	c.Connect(0, serverAddr)
	srv.HandlePacket(0, clientAddr(0), toS[0]) // getchallenge
	c.HandlePacket(0, toC[0])                  // challenge
	srv.HandlePacket(0, clientAddr(0), toS[1]) // connect
	if c.State() != client.Connecting || len(toC) != 2 {
		t.Fatalf("handshake: %v, %d answers", c.State(), len(toC))
	}
	return c, toC[1]
}

// FuzzSecureHandshakeAnswers hands a client with a token, waiting for its
// accept, one hostile connectionless packet (its nonce patched to the
// client's, so the fuzzer gets past the nonce check), then the server's
// real sealed accept: no panic, the hostile packet never connects it, and
// the real accept always does.
func FuzzSecureHandshakeAnswers(f *testing.F) {
	_, acc := secureHandshake(f)
	f.Add(acc)
	f.Add(netchan.AppendConnectionless(nil, session.Refuse{Nonce: 1, Reason: session.ReasonTokenInvalid}.Append(nil)))
	f.Add(netchan.AppendConnectionless(nil, session.Refuse{Nonce: 1, Reason: session.ReasonBadCookie}.Append(nil)))
	f.Add(netchan.AppendConnectionless(nil, session.Accept{Nonce: 1, FrameDur: 1}.Append(nil)))
	f.Add(acc[:40])
	var k [32]byte
	var xn [session.XNonceLen]byte
	f.Add(netchan.AppendConnectionless(nil, session.Refuse{Nonce: 1, Reason: session.ReasonWrongPassword}.AppendSealed(nil, &k, &xn)))
	digest := string(session.RegistryDigest(newBallGame(ballCodec{healthBits: 7}, true).Registry()))
	f.Add(netchan.AppendConnectionless(nil, session.Refuse{Nonce: 1, Reason: session.ReasonWrongRegistry, Digest: digest}.Append(nil)))
	f.Add(netchan.AppendConnectionless(nil, session.Refuse{Nonce: 1, Reason: session.ReasonWrongRegistry, Digest: digest}.AppendSealed(nil, &k, &xn)))
	f.Fuzz(func(t *testing.T, in []byte) {
		c, acc := secureHandshake(t)
		in = bytes.Clone(in)
		if len(in) >= 4+9 && netchan.IsConnectionless(in) {
			copy(in[5:13], acc[5:13]) // the client's nonce
		}
		c.HandlePacket(time.Millisecond, in)
		c.Advance(2 * time.Millisecond)
		if c.State() == client.Connected {
			t.Fatalf("a hostile packet connected the client: % x", in)
		}
		c.HandlePacket(3*time.Millisecond, acc)
		if c.State() != client.Connected {
			t.Fatalf("the real accept after % x: %v %v", in, c.State(), c.Err())
		}
	})
}

// A refusal made after the token opened is sealed with the token's key,
// so the client believes it at once instead of waiting out ConnectRetry.
func TestSealedRefusalBelievedAtOnce(t *testing.T) {
	var s *sim
	cfg := secureConfig(&s)
	cfg.Password = "pw"
	s = newSim(t, 93, netsim.LinkConfig{Latency: 20 * time.Millisecond}, cfg)
	sc := s.addClient(0, botLane, client.Config{Token: issueToken(t, token.Params{}, wallStart), Password: "wrong"})
	for s.now < time.Second && sc.c.State() != client.Disconnected {
		s.run(s.now + 5*time.Millisecond)
	}
	var ref *client.RefusedError
	if !errors.As(sc.c.Err(), &ref) || ref.Reason != client.ReasonWrongPassword || s.now > 150*time.Millisecond {
		t.Fatalf("after %v: %v %v", s.now, sc.c.State(), sc.c.Err())
	}
	t.Logf("sealed refusal believed %v after the connect began (ConnectRetry 500 ms)", s.now)
}
