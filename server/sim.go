package server

import (
	"net/netip"

	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/netsim"
)

// ListenSim is Listen on the link simulator: it binds addr (an IP address
// and a port, "10.0.0.1:27960") on network n, creates a server of game g
// that sends through that endpoint, and returns it with the netsim.Node
// that Network.Run drives it as (its packets to HandlePacket, its time to
// Advance and Next). A test of a game in virtual time is then ListenSim, a
// client.DialSim per player and Network.Run (docs/GUIDE.md).
func ListenSim(n *netsim.Network, addr string, cfg Config, g game.Game, settings string) (*Server, netsim.Node, error) {
	at, err := netip.ParseAddrPort(addr)
	if err != nil {
		return nil, netsim.Node{}, err
	}
	ep, err := n.Listen(at)
	if err != nil {
		return nil, netsim.Node{}, err
	}
	s, err := New(cfg, g, settings, SendFunc(func(to netip.AddrPort, p []byte) { ep.WriteTo(p, to) }))
	if err != nil {
		ep.Close()
		return nil, netsim.Node{}, err
	}
	return s, netsim.Node{Endpoint: ep, Receive: s.HandlePacket, Advance: s.Advance, Next: s.Next}, nil
}
