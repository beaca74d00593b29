package session

// The outgoing side of a core: how the server and client cores, which do
// no I/O, hand their datagrams to whoever owns the socket.

import "net/netip"

// Sender sends one UDP datagram to an address; pkt is valid only during
// the call. The server and client cores send every packet through one: a
// UDP socket in their runners, a simulated network (package netsim) in
// tests.
type Sender interface {
	Send(to netip.AddrPort, pkt []byte)
}

// SendFunc adapts a function to Sender.
type SendFunc func(to netip.AddrPort, pkt []byte)

// Send implements Sender.
func (f SendFunc) Send(to netip.AddrPort, pkt []byte) { f(to, pkt) }
