package server_test

// A token's create time and timeout (issue 22, item 8), in virtual time.

import (
	"errors"
	"net/netip"
	"testing"
	"time"

	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/server"
	"github.com/snapwire/snapwire/token"
)

// Acceptance (issue 22, item 8): a token whose create time is an hour
// ahead of the server's clock is refused, one a few seconds ahead (clock
// skew) is not, and the server applies a token's session timeout: a
// client with a 2 s token falls silent and is dropped after 2 s, not the
// server's 10 s.
//
// Guards against: a server that ignores the token's create time (a token
// dated ahead outlives its lifetime) and its timeout, which the token
// docs say the server applies.
func TestTokenCreateTimeAndTimeout(t *testing.T) {
	r := newSimRig(t, 21, server.Config{}, true)
	issue := func(ahead, timeout time.Duration) *token.Token {
		tok, err := token.Issue(simKey, token.Params{ProtocolID: simProtocol, Servers: []netip.AddrPort{simServer},
			Lifetime: 2 * time.Hour, Timeout: timeout}, simWall.Add(r.now+ahead))
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	future := r.addClient(netip.MustParseAddrPort("10.0.1.1:40000"), client.Config{Token: issue(time.Hour, 0)})
	skewed := r.addClient(netip.MustParseAddrPort("10.0.1.2:40000"), client.Config{Token: issue(5*time.Second, 0)})
	short := r.addClient(netip.MustParseAddrPort("10.0.1.3:40000"), client.Config{Token: issue(0, 2*time.Second), Timeout: time.Minute})
	r.run(2 * time.Second)
	var ref *client.RefusedError
	if !errors.As(future.Err(), &ref) || ref.Reason != client.ReasonTokenNotYetValid {
		t.Errorf("token created an hour ahead: %v %v", future.State(), future.Err())
	}
	if skewed.State() != client.Connected || short.State() != client.Connected {
		t.Fatalf("token 5 s ahead: %v %v; token with a 2 s timeout: %v %v", skewed.State(), skewed.Err(), short.State(), short.Err())
	}
	shortNum := short.ClientNum()
	// The short-timeout client falls silent.
	silent := netip.MustParseAddrPort("10.0.1.3:40000")
	r.net.SetDropFilter(func(from, to netip.AddrPort, p []byte) bool { return from == silent })
	cut := r.now
	for r.now < cut+12*time.Second {
		r.run(r.now + 100*time.Millisecond)
		if _, ok := r.srv.Client(shortNum); !ok {
			break
		}
	}
	gone := r.now - cut
	t.Logf("the client with a 2 s token timeout was dropped %v after it fell silent", gone)
	if gone < 2*time.Second || gone > 2500*time.Millisecond {
		t.Errorf("dropped %v after falling silent, want the token's 2 s", gone)
	}
	if _, ok := r.srv.Client(skewed.ClientNum()); !ok || skewed.State() != client.Connected {
		t.Errorf("the other client was dropped: %v", skewed.Err())
	}
}
