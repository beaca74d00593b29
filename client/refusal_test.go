package client_test

// Refusals the client retries after or waits on (issue 22, items 1 and 8).

import (
	"testing"
	"time"

	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/netsim"
	"github.com/snapwire/snapwire/server"
)

// Acceptance (issue 22, item 1): a transient refusal does not end the
// handshake. A client refused because the server is full tries again and
// gets in when a slot frees within its connect timeout.
//
// Guards against: a client that gives up on its first refusal whatever
// the reason.
func TestRetryWhenFull(t *testing.T) {
	s := newSim(t, 91, netsim.LinkConfig{Latency: 20 * time.Millisecond}, server.Config{MaxClients: 1})
	first := s.addClient(0, botLane, client.Config{})
	s.run(time.Second)
	second := s.addClient(1, botLane, client.Config{})
	s.run(3 * time.Second)
	if second.c.State() == client.Disconnected {
		t.Fatalf("second client while the server is full: %v %v", second.c.State(), second.c.Err())
	}
	first.c.Disconnect(s.now)
	s.run(6 * time.Second)
	if second.c.State() != client.Connected {
		t.Fatalf("second client after a slot freed: %v %v", second.c.State(), second.c.Err())
	}
}
