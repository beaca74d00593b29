package server

import (
	"net/netip"
	"testing"
	"time"

	"github.com/snapwire/snapwire/internal/serverhook"
	"github.com/snapwire/snapwire/internal/session"
	"github.com/snapwire/snapwire/internal/tokenwire"
	"github.com/snapwire/snapwire/token"
)

// Acceptance (issue 22, item 4): on a secure server with 8 slots, 8
// squatters from one IP address, each with its own valid token (as
// "serve --web-tokens" hands out to anyone), take MaxClientsPerIP slots
// and no more; 3 players from other addresses then all get in.
//
// Guards against: MaxClientsPerIP applied to the insecure handshake only,
// so that one host with tokens filled a secure server ("server full" for
// everyone else).
func TestSecureSquattersLeaveSlots(t *testing.T) {
	key := token.Key{3: 3}
	srvAddr := netip.MustParseAddrPort("192.0.2.200:27960")
	wall := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	s, r := newTest(t, serverhook.With(Config{MaxClients: 8, TokenKey: &key, ProtocolID: 9, PublicAddrs: []netip.AddrPort{srvAddr}},
		serverhook.Hooks{WallClock: func() time.Time { return wall }, Deterministic: true}))
	join := func(from netip.AddrPort, nonce uint64) session.Reason {
		tok, err := token.Issue(key, token.Params{ProtocolID: 9, ClientID: nonce, Servers: []netip.AddrPort{srvAddr}}, wall)
		if err != nil {
			t.Fatal(err)
		}
		m := goodConnect(nonce)
		m.Token = tokenwire.Of(tok).AppendPrivate(nil)
		ans := handshake(t, s, r, 0, from, m)
		// A secure server seals its answers once the token opened.
		if _, err := session.OpenSealedAccept(ans, &tokenwire.Of(tok).ServerToClientKey); err == nil {
			return session.ReasonNone
		}
		if ref, err := session.OpenSealedRefuse(ans, &tokenwire.Of(tok).ServerToClientKey); err == nil {
			return ref.Reason
		}
		ref, err := session.ParseRefuse(ans)
		if err != nil {
			t.Fatalf("answer to %v is neither accept nor refusal: %v", from, err)
		}
		return ref.Reason
	}
	squatter := netip.MustParseAddr("198.51.100.7")
	var squatted int
	for i := range 8 {
		why := join(netip.AddrPortFrom(squatter, uint16(40000+i)), uint64(100+i))
		switch {
		case why == session.ReasonNone:
			squatted++
		case why != session.ReasonTooManyFromIP:
			t.Errorf("squatter %d refused for %v, want %v", i, why, session.ReasonTooManyFromIP)
		}
	}
	if squatted != 4 { // Config.MaxClientsPerIP's default
		t.Errorf("%d squatters from one address got in, want 4", squatted)
	}
	for i := range 3 {
		from := netip.AddrPortFrom(netip.AddrFrom4([4]byte{203, 0, 113, byte(1 + i)}), 27000)
		if why := join(from, uint64(200+i)); why != session.ReasonNone {
			t.Errorf("player %d from %v refused: %v", i, from, why)
		}
	}
	if got := s.NumClients(); got != 4+3 {
		t.Errorf("%d clients, want 7", got)
	}
	if st := s.fullStats(); st.Throttled != 4 {
		t.Errorf("Stats.Throttled %d, want 4", st.Throttled)
	}
	t.Logf("squatters in: %d of 8", squatted)
}
