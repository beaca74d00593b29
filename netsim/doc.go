// Package netsim simulates the network under snapwire: the bottom layer of
// the DOOM III architecture (docs/ARCHITECTURE.md, "transport: UDP socket | netsim").
//
// DOOM III's network layer is built on UDP, which may lose, duplicate and
// reorder packets (DOOM III §3; Quake 3 protocol description, Fedoryński: "the individual
// datagrams may arrive out of order, duplicated, or not arrive at all").
// The message channel (netchan), the server and the client are tested
// against exactly those faults on Network, a link simulator in virtual
// time. Endpoints, addressed by netip.AddrPort and shaped like a
// non-blocking net.PacketConn, send datagrams whose fate is decided on
// send by the LinkConfig of the direction (SetLink, else SetDefault):
// latency, uniform jitter, loss, duplication, reordering (an extra random
// hold-back), a bandwidth cap with a bounded tail-drop queue, and an MTU.
// Packets wait in a heap ordered by arrival time (first-in first-out for
// equal times) and move to the destination's bounded inbox when the caller
// advances time with AdvanceTo. There are no goroutines and no wall clock;
// all randomness comes from a PCG generator seeded by New, so a seed and a
// sequence of calls always give the same deliveries, and a test of a whole
// match runs in milliseconds. Rebind changes an endpoint's address, as a
// NAT that changes a client's port does. Stats counts every outcome.
//
// The same LinkConfig model applies in real time to real programs through
// the UDP proxy behind the "snapwire proxy" command (internal/udpproxy),
// which reaches this package's link planner and packet schedule through
// internal/netsimhook: there is one model.
//
// A typical virtual-time test:
//
//	n := netsim.New(1)
//	n.SetDefault(netsim.LinkConfig{Latency: 50 * time.Millisecond, Loss: 0.05})
//	srv, _ := n.Listen(netip.MustParseAddrPort("10.0.0.1:27960"))
//	cli, _ := n.Listen(netip.MustParseAddrPort("10.0.0.2:50000"))
//	cli.WriteTo(packet, srv.Addr())
//	n.Advance(16 * time.Millisecond) // one step of the test loop
//	for { k, from, ok := srv.ReadFrom(buf); if !ok { break }; ... }
package netsim
