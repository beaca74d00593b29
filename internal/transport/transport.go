// Package transport is the contract between the server's real-time runner
// (server.Runner, on a UDP socket) and a second transport beside that
// socket, such as the WebRTC data channels that carry browsers' packets
// (cmd/internal/rtc). It sits at the bottom of the stack (docs/ARCHITECTURE.md),
// below the server, so that a transport implements it without importing the
// server, and the server attaches any transport without knowing it.
//
// A transport gives each of its peers a synthetic address in its Prefix.
// The runner sends a packet for an address in Prefix to the transport's
// Send instead of the socket, and drops every datagram the socket reads
// from such an address (a spoof: no real host has one). The transport hands
// each packet a peer sends to the runner's Inject, which passes it to the
// goroutine that owns the server core (one goroutine owns a match), so the
// core handles it like a datagram.
package transport

import "net/netip"

// Transport carries the server's packets for the addresses in its Prefix.
type Transport interface {
	// Prefix is the range of addresses the transport gives its peers; it
	// does not change. The UDP socket drops every datagram whose source is
	// in it, so a spoofed datagram cannot speak for a peer of the
	// transport.
	Prefix() netip.Prefix
	// Send sends p to to, an address in Prefix, or drops it (an unknown
	// peer, a full buffer: lost packets to the protocol). It runs on the
	// goroutine that owns the server, must not block and must not keep p.
	Send(to netip.AddrPort, p []byte)
}

// Host is a runner a Transport attaches to (a server.Runner, as
// serverhook.Host returns it).
type Host interface {
	// Attach routes the sends to addresses in prefix to send, and has the
	// socket drop datagrams from them. It must be called before the runner
	// runs, at most once.
	Attach(prefix netip.Prefix, send func(to netip.AddrPort, p []byte)) error
	// Inject hands the server core a packet from from, an address in the
	// attached prefix, on the goroutine that owns the core. It copies pkt,
	// never blocks, is safe from any goroutine, and returns false when it
	// drops the packet.
	Inject(from netip.AddrPort, pkt []byte) bool
}

// Attach attaches t to h: h sends to t the packets for t's addresses.
func Attach(h Host, t Transport) error { return h.Attach(t.Prefix(), t.Send) }
