package server

// Per-session keys and one session per token (issue 22, item 3).

import (
	"fmt"
	"net/netip"
	"testing"
	"time"

	"github.com/snapwire/snapwire/internal/serverhook"
	"github.com/snapwire/snapwire/internal/session"
	"github.com/snapwire/snapwire/internal/tokenwire"
	"github.com/snapwire/snapwire/token"
)

// anyAccept checks that b is an accept: plain (insecure server) or sealed
// (secure server; its seal is checked by the client's tests).
func anyAccept(b []byte) error {
	if _, ok := session.SealedAcceptNonce(b); ok {
		return nil
	}
	_, err := session.ParseAccept(b)
	return err
}

// Acceptance (issue 22, item 3): no two sessions share a (key, nonce). A
// token that lists two servers opens a session on each, and on the first
// server the same connect is replayed, within the cookie's lifetime,
// after its session ended; with 20 sessions of other tokens, every
// session's two channel keys differ from every other session's. Within a
// session the channel never repeats a nonce (netchan), so distinct keys
// mean no (key, nonce) is ever used twice.
//
// Guards against: the session keys taken from the token as they are (two
// sessions of one token encrypt with one key and the same sequence
// numbers as nonces: C1 xor C2 = P1 xor P2), and a replayed connect
// accepted as a retransmission once its session had ended.
func TestSessionKeysNeverShared(t *testing.T) {
	key := token.Key{4: 4, 8: 8}
	srvA, srvB := netip.MustParseAddrPort("192.0.2.201:27960"), netip.MustParseAddrPort("192.0.2.202:27960")
	wall := time.Unix(1_800_000_000, 0)
	issue := func() *token.Token {
		tok, err := token.Issue(key, token.Params{ProtocolID: 9, Servers: []netip.AddrPort{srvA, srvB}}, wall)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	owner := map[[32]byte]string{}
	// record takes the keys of the session from `from`.
	record := func(name string, s *Server, from netip.AddrPort) {
		t.Helper()
		for _, c := range s.slots {
			if c == nil || c.addr != from {
				continue
			}
			k := c.ch.Config().Keys
			if k == nil {
				t.Fatalf("%s: a session without keys", name)
			}
			for _, x := range [][32]byte{k.Send, k.Recv} {
				if prev, dup := owner[x]; dup && prev != name {
					t.Errorf("sessions %s and %s share a key", prev, name)
				}
				owner[x] = name
			}
		}
	}
	shared := issue()
	for i, srvAddr := range []netip.AddrPort{srvA, srvB} {
		s, r := newTest(t, serverhook.With(Config{TokenKey: &key, ProtocolID: 9, PublicAddrs: []netip.AddrPort{srvAddr}}, serverhook.Hooks{WallClock: func() time.Time { return wall }}))
		m := goodConnect(1)
		m.Token = tokenwire.Of(shared).AppendPrivate(nil)
		if err := anyAccept(handshake(t, s, r, 0, addr(1), m)); err != nil {
			t.Fatalf("server %d: %v", i, err)
		}
		record(fmt.Sprintf("server %d, first", i), s, addr(1))
		if i == 0 {
			// The session ends; the same connect is replayed 1 s later.
			s.Kick(time.Second, 0)
			r.take()
			ans := handshake(t, s, r, time.Second, addr(1), m)
			if s.NumClients() != 0 {
				record("server 0, replayed connect", s, addr(1))
			}
			ref, err := session.OpenSealedRefuse(ans, &tokenwire.Of(shared).ServerToClientKey)
			if err != nil || ref.Reason != session.ReasonTokenReused {
				t.Errorf("replayed connect after the session ended: %x %v, want a refusal (token already used)", ans, err)
			}
			for j := range 20 {
				m := goodConnect(uint64(100 + j))
				m.Token = tokenwire.Of(issue()).AppendPrivate(nil)
				if err := anyAccept(handshake(t, s, r, time.Second, addr(10+j), m)); err != nil {
					t.Fatal(err)
				}
				record(fmt.Sprintf("server 0, token %d", j), s, addr(10+j))
				for _, c := range s.slots {
					if c != nil && c.addr == addr(10+j) {
						s.Kick(time.Second, c.num)
					}
				}
				r.take()
			}
		}
	}
	if len(owner) != 2*(2+20) {
		t.Errorf("%d distinct keys, want %d", len(owner), 2*(2+20))
	}
}
