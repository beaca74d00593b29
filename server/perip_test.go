package server_test

import (
	"net/netip"
	"testing"
	"time"

	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/internal/serverhook"
	"github.com/snapwire/snapwire/server"
	"github.com/snapwire/snapwire/token"
)

// The per-address limit counts each client at its current address (issue
// 25: a count per IP address, no scan of the slots): with one client per
// IP address, a client whose NAT rebinds from A to B frees A for another
// client and takes B's place; one leaving frees its address.
//
// Guards against: counts left at an old address after a validated
// rebinding (a host locked out by a client no longer there, or one
// address holding more than its share), and counts not freed on leave.
func TestPerIPCountFollowsAddress(t *testing.T) {
	r := newSimRig(t, 25, server.Config{Advanced: server.Advanced{MaxClientsPerIP: 1}}, true)
	a, b := netip.MustParseAddr("10.0.1.1"), netip.MustParseAddr("10.0.7.7")
	at := func(ip netip.Addr, port uint16) netip.AddrPort { return netip.AddrPortFrom(ip, port) }
	join := func(addr netip.AddrPort) *client.Client {
		t.Helper()
		c := r.addClient(addr, client.Config{Token: r.token(token.Params{})})
		r.run(r.now + time.Second)
		return c
	}
	// throttled reports whether the server refused a connect by its
	// per-address limits since the last call.
	var seen uint64
	throttled := func() bool {
		n := serverhook.ServerStats(r.srv).Throttled
		defer func() { seen = n }()
		return n > seen
	}
	first := join(at(a, 40000))
	if first.State() != client.Connected {
		t.Fatalf("first client: %v %v", first.State(), first.Err())
	}
	// A second client from A is refused, and keeps asking.
	waiting := join(at(a, 40001))
	if waiting.State() == client.Connected || !throttled() {
		t.Fatalf("a second client from %v: %v %v", a, waiting.State(), waiting.Err())
	}
	if err := r.eps[at(a, 40000)].Rebind(at(b, 51000)); err != nil {
		t.Fatal(err)
	}
	r.run(r.now + 3*time.Second)
	if cs, _ := serverhook.Client(r.srv, first.ClientNum()); cs.Addr != at(b, 51000) || cs.AddrPending {
		t.Fatalf("the first client is at %v (pending %v)", cs.Addr, cs.AddrPending)
	}
	if waiting.State() != client.Connected {
		t.Fatalf("the waiting client from %v after the first moved to %v: %v %v", a, b, waiting.State(), waiting.Err())
	}
	throttled()
	if c := join(at(b, 40003)); c.State() == client.Connected || !throttled() {
		t.Fatalf("a second client from %v: %v %v", b, c.State(), c.Err())
	}
	next := join(at(a, 40002))
	if next.State() == client.Connected || !throttled() {
		t.Fatalf("a second client from %v: %v %v", a, next.State(), next.Err())
	}
	waiting.Disconnect(r.now)
	r.run(r.now + 3*time.Second)
	// The next client from A, still asking, takes A's place; the second
	// from B is still refused.
	if next.State() != client.Connected || r.srv.NumClients() != 2 {
		t.Errorf("after the client from %v left: the next from %v %v, %d clients", a, a, next.State(), r.srv.NumClients())
	}
}
