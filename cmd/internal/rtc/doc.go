// Package rtc is snapwire's second transport: WebRTC data channels, so
// that a browser (which cannot open a UDP socket) plays in the same match
// as UDP clients, through the same server core.
//
// Layers (docs/ARCHITECTURE.md): rtc sits beside the UDP socket at the
// bottom of the stack, below the server: it implements the contract of
// internal/transport and imports no server package. Each data-channel message is one netchan packet,
// unchanged; the channel is unordered with no retransmission
// (ordered=false, maxRetransmits=0: RFC 8831 §6.1, partial reliability
// of RFC 3758), so it keeps UDP's semantics — packets may be lost or
// reordered and netchan deals with both (DOOM III §3) — and a lost
// packet is never resent by SCTP behind the protocol's back.
//
// The server side (Server) answers signalling over HTTP: the client POSTs
// an SDP offer with its ICE candidates already gathered and gets the
// answer with the server's (non-trickle ICE, RFC 8829 §3.5.1 gathering
// before the answer is returned). Each peer gets a synthetic address in
// Prefix, 100::/64, the IPv6 discard-only block of RFC 6666: no datagram
// from a real host has such a source, and server.Runner's UDP socket drops
// any that claims one, so a peer's address names it and nothing else.
// Server implements transport.Transport, and Attach attaches it to a
// runner (transport.Host: serverhook.Host of a server.Runner): the core's sends to a peer's
// address become data-channel messages, and every message a peer sends
// enters the core through the runner's Inject, on the goroutine that owns the match (one
// goroutine owns a match; docs/ARCHITECTURE.md).
//
// The Go client side (Dial) is pion on both ends: tests, and "snapwire
// play --connect http://…". The browser's side is internal/play's js
// transport over the browser's own RTCPeerConnection.
//
// Everything from the network is hostile: the offer's size is bounded,
// the number of peers is bounded in all, per address, and per address
// while their channels are not open yet (Config.MaxHalfOpenPerIP), a peer
// whose channel does not open in Config.ConnectTimeout is closed,
// messages longer than the advertised maximum close the peer, and text
// messages are dropped.
package rtc
