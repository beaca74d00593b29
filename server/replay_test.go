package server_test

// A connect replayed after its session ended (issue 22, item 3), in
// virtual time over netsim.

import (
	"bytes"
	"net/netip"
	"testing"
	"time"

	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/internal/netchan"
	"github.com/snapwire/snapwire/internal/session"
	"github.com/snapwire/snapwire/server"
	"github.com/snapwire/snapwire/token"
)

// Acceptance (issue 22, item 3): an observer on the path records a
// player's connect; the player plays and leaves; the observer replays the
// connect, within its cookie's lifetime, from the player's address and
// from its own. Both are refused: the first for its token (one that has
// opened a session opens no other, whatever the address and nonce), the
// second already for its cookie.
//
// Guards against: the used-token table taking the same address and nonce
// for a retransmission even after the session ended, which opened a
// second session with the first one's keys and nonces (AEAD nonce reuse).
func TestReplayedConnectAfterSessionEnds(t *testing.T) {
	forSlots(t, 0, replayedConnectAfterSessionEnds)
}

func replayedConnectAfterSessionEnds(t *testing.T, sz serverSize) {
	r := newSimRigSize(t, 31, server.Config{MaxClients: sz.slots}, true, sz)
	player := netip.MustParseAddrPort("10.0.1.1:40000")
	var connect []byte
	r.net.SetDropFilter(func(from, to netip.AddrPort, p []byte) bool {
		if from == player && connect == nil && netchan.IsConnectionless(p) && len(p) > 4 && session.Kind(p[4]) == session.KindConnect {
			connect = bytes.Clone(p)
		}
		return false
	})
	c := r.addClient(player, client.Config{Token: r.token(token.Params{Match: r.match}), Match: r.match})
	r.run(3 * time.Second)
	if c.State() != client.Connected || connect == nil {
		t.Fatalf("player: %v %v (connect recorded: %v)", c.State(), c.Err(), connect != nil)
	}
	c.Disconnect(r.now)
	r.run(r.now + 500*time.Millisecond)
	if r.srv.NumClients() != 0 {
		t.Fatal("the player's session did not end")
	}
	observer, err := r.net.Listen(netip.MustParseAddrPort("10.6.6.6:5000"))
	if err != nil {
		t.Fatal(err)
	}
	r.eps[player].WriteTo(connect, simServer) // spoofed: the player's own address
	observer.WriteTo(connect, simServer)
	r.run(r.now + 500*time.Millisecond)
	st := r.stats() // the cookie's refusal is the first match's on a host
	t.Logf("after the replays: %d clients, %d connects accepted, %d tokens refused", r.srv.NumClients(), st.Connects, st.TokensRefused)
	if r.srv.NumClients() != 0 || st.Connects != 1 {
		t.Errorf("a replayed connect opened a session: %d clients, %d connects", r.srv.NumClients(), st.Connects)
	}
	// From the player's address it is refused for its token; from the
	// observer's, its cookie (bound to the player's address) is wrong.
	if st.TokensRefused != 1 || st.BadCookies != 1 {
		t.Errorf("%d replays refused for their token (want 1), %d for their cookie (want 1)", st.TokensRefused, st.BadCookies)
	}
}
