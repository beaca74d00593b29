package netsim

import (
	"net/netip"
	"time"
)

// Node is one I/O-free protocol core on a Network, as Run drives it: a
// server.Server or a client.Client (or a game's own core), bound to an
// Endpoint, with the three calls every snapwire core has. server.ListenSim
// and client.DialSim create a core with its Node in one call.
type Node struct {
	Endpoint *Endpoint
	// Receive hands the core one packet that arrived for it.
	Receive func(now time.Duration, from netip.AddrPort, p []byte)
	// Advance runs what is due at now: frames, sends.
	Advance func(now time.Duration)
	// Next is the time the core next needs Advance.
	Next func() time.Duration
	// AdvanceFirst runs Advance before the node's packets of a step as
	// well as after everyone's, so a frame due is run before the packets
	// that arrived with it (a test that looks at the core between the two
	// sets it).
	AdvanceFirst bool
}

// Run steps the network and nodes in virtual time from now to until and
// returns until. Each step delivers the packets due, hands every node its
// packets in node order, then calls every node's Advance; the next step is
// the earliest of the nodes' Next and the next delivery, and at least one
// microsecond later, so a node that always asks for now cannot stall it.
// buf receives each packet (a packet longer than buf is truncated, as on a
// socket); Run allocates nothing.
func (n *Network) Run(now, until time.Duration, nodes []Node, buf []byte) time.Duration {
	for now < until {
		n.AdvanceTo(now)
		for i := range nodes {
			nd := &nodes[i]
			if nd.AdvanceFirst {
				nd.Advance(now)
			}
			for {
				k, from, ok := nd.Endpoint.ReadFrom(buf)
				if !ok {
					break
				}
				nd.Receive(now, from, buf[:k])
			}
		}
		for i := range nodes {
			nodes[i].Advance(now)
		}
		next := until
		for i := range nodes {
			next = min(next, nodes[i].Next())
		}
		if t, ok := n.NextDelivery(); ok {
			next = min(next, t)
		}
		now = max(next, now+time.Microsecond)
	}
	return until
}
