package client_test

// Config.Match: the match a client asks to join on a server that hosts
// many (docs/PROTOCOL.md, "Matches"; issue 25).

import (
	"bytes"
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/internal/netchan"
	"github.com/snapwire/snapwire/internal/session"
	"github.com/snapwire/snapwire/internal/testgame"
	"github.com/snapwire/snapwire/internal/tokenwire"
	"github.com/snapwire/snapwire/netsim"
	"github.com/snapwire/snapwire/server"
	"github.com/snapwire/snapwire/token"
)

// The client sends Config.Match in every connect, with a token too (the
// server decides which match counts: the token's), and a plain server,
// which hosts only the default match (""), refuses both with "no such
// match", a lasting refusal.
//
// Guards against: a match lost between Config and the wire, or left out
// when the client holds a token; a server admitting a client to a match
// it does not host.
func TestConnectCarriesMatch(t *testing.T) {
	for _, secure := range []bool{false, true} {
		t.Run(fmt.Sprintf("secure=%v", secure), func(t *testing.T) {
			var s *sim
			cfg := server.Config{}
			ccfg := client.Config{Match: "duel-17"}
			if secure {
				cfg = secureConfig(&s)
				ccfg.Token = issueToken(t, token.Params{ClientID: 3, Match: "ffa-2"}, wallStart)
			}
			s = newSim(t, 93, netsim.LinkConfig{Latency: 20 * time.Millisecond}, cfg)
			var sent []string
			s.net.SetDropFilter(func(from, to netip.AddrPort, p []byte) bool {
				if from == clientAddr(0) && netchan.IsConnectionless(p) && len(p) > 4 && session.Kind(p[4]) == session.KindConnect {
					m, err := session.ParseConnect(p[4:])
					if err != nil {
						t.Errorf("the client's connect does not parse: %v", err)
					}
					if secure && len(m.Token) == 0 {
						t.Error("a connect without the token")
					}
					sent = append(sent, m.Match)
				}
				return false
			})
			sc := s.addClient(0, botLane, ccfg)
			s.run(2 * time.Second)
			if sc.c.State() != client.Disconnected || sc.c.Err() == nil || !strings.Contains(sc.c.Err().Error(), "no such match") {
				t.Fatalf("client: %v %v; want refused, no such match", sc.c.State(), sc.c.Err())
			}
			if len(sent) == 0 {
				t.Fatal("no connect seen")
			}
			for _, m := range sent {
				if m != "duel-17" {
					t.Fatalf("connects carried matches %q, want \"duel-17\"", sent)
				}
			}
		})
	}
}

// New refuses a match name a server could not parse, and says why.
func TestConfigMatchRefused(t *testing.T) {
	for _, bad := range []string{"duel 17", strings.Repeat("m", 33), "é"} {
		_, err := client.New(client.Config{Match: bad}, testgame.New(), client.InputFunc(nil), client.SendFunc(func(netip.AddrPort, []byte) {}))
		if err == nil || !strings.Contains(err.Error(), "Config.Match") {
			t.Errorf("Match %q: %v", bad, err)
		}
	}
}

// A refusal "no such match" is lasting: a client without a token gives
// up on the plain refuse at once, a client with one on the sealed refuse,
// and Err names the reason. A transient refusal (server full) does not
// end the handshake.
//
// Guards against: a client that retries a match the server does not host
// until its connect timeout.
func TestNoSuchMatchIsLasting(t *testing.T) {
	for _, c := range []struct {
		name   string
		secure bool
		why    session.Reason
		lasts  bool
	}{
		{"insecure, no such match", false, session.ReasonNoSuchMatch, true},
		{"secure, no such match", true, session.ReasonNoSuchMatch, true},
		{"insecure, server full", false, session.ReasonServerFull, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			var sent [][]byte
			ccfg := client.Config{Match: "duel-17"}
			if c.secure {
				ccfg.Token = issueToken(t, token.Params{Match: "duel-17"}, wallStart)
			}
			cl, err := client.New(ccfg, testgame.New(), client.InputFunc(nil),
				client.SendFunc(func(to netip.AddrPort, p []byte) { sent = append(sent, bytes.Clone(p)) }))
			if err != nil {
				t.Fatal(err)
			}
			cl.Connect(0, serverAddr)
			gc, err := session.ParseGetChallenge(sent[0][4:])
			if err != nil {
				t.Fatal(err)
			}
			cl.HandlePacket(0, netchan.AppendConnectionless(nil, session.Challenge{Nonce: gc.Nonce, Cookie: session.Cookie{1}}.Append(nil)))
			conn, err := session.ParseConnect(sent[len(sent)-1][4:])
			if err != nil || conn.Match != "duel-17" {
				t.Fatalf("connect: %+v %v", conn, err)
			}
			ref := session.Refuse{Nonce: gc.Nonce, Reason: c.why}
			answer := ref.Append(nil)
			if c.secure {
				answer = ref.AppendSealed(nil, &tokenwire.Of(ccfg.Token).ServerToClientKey, &[session.XNonceLen]byte{5})
			}
			cl.HandlePacket(time.Millisecond, netchan.AppendConnectionless(nil, answer))
			var re *client.RefusedError
			if !c.lasts {
				if cl.State() == client.Disconnected {
					t.Fatalf("gave up on a transient refusal: %v", cl.Err())
				}
				return
			}
			if cl.State() != client.Disconnected || !errors.As(cl.Err(), &re) || re.Reason != client.ReasonNoSuchMatch {
				t.Fatalf("after the refusal: %v %v", cl.State(), cl.Err())
			}
			if !strings.Contains(cl.Err().Error(), "no such match") {
				t.Errorf("error %q does not name the reason", cl.Err())
			}
		})
	}
}
