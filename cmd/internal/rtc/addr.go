package rtc

import (
	"encoding/binary"
	"net/netip"
)

// Prefix is the range of the synthetic addresses given to peers: 100::/64,
// the IPv6 discard-only address block (RFC 6666). It is reserved so that
// traffic to it is discarded; no real host sends from it, so it cannot
// collide with a UDP client, and server.Runner drops datagrams claiming a
// source in it (transport.Transport.Prefix).
var Prefix = netip.MustParsePrefix("100::/64")

// peerPort is the port of every synthetic address: the peer id is in the
// address, the port only makes it an AddrPort.
const peerPort = 1

// PeerAddr is the synthetic address of peer id: 100::/64 with id in the
// low 64 bits.
func PeerAddr(id uint64) netip.AddrPort {
	a := Prefix.Addr().As16()
	binary.BigEndian.PutUint64(a[8:], id)
	return netip.AddrPortFrom(netip.AddrFrom16(a), peerPort)
}

// peerID is the id in a synthetic address, false for any other address.
func peerID(ap netip.AddrPort) (uint64, bool) {
	if !Prefix.Contains(ap.Addr()) || ap.Port() != peerPort {
		return 0, false
	}
	a := ap.Addr().As16()
	return binary.BigEndian.Uint64(a[8:]), true
}
