package client

import (
	"errors"
	"net/netip"
	"time"

	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/netsim"
)

// simAddrs is how many addresses DialSim tries: 10.1.0.1 to 10.1.255.255,
// port 50000.
const simAddrs = 1<<16 - 1

// DialSim is Dial on the link simulator: it binds the first free address
// of network n from 10.1.0.1:50000 up (each client its own IP address, as
// players at home have), creates a client of game g, connects it at the
// network's time to the server at addr ("10.0.0.1:27960", as given to
// server.ListenSim), and returns it with the netsim.Node that Network.Run
// drives it as. Packets from any address but the server's are dropped, as
// Dial's socket drops them. The client's address is the node's
// Endpoint.Addr.
func DialSim(n *netsim.Network, addr string, cfg Config, g game.Game, input InputSource) (*Client, netsim.Node, error) {
	server, err := netip.ParseAddrPort(addr)
	if err != nil {
		return nil, netsim.Node{}, err
	}
	var ep *netsim.Endpoint
	err = netsim.ErrAddrInUse
	for i := 1; i <= simAddrs && errors.Is(err, netsim.ErrAddrInUse); i++ {
		ep, err = n.Listen(netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 1, byte(i >> 8), byte(i)}), 50000))
	}
	if err != nil {
		return nil, netsim.Node{}, err
	}
	c, err := New(cfg, g, input, SendFunc(func(to netip.AddrPort, p []byte) { ep.WriteTo(p, to) }))
	if err != nil {
		ep.Close()
		return nil, netsim.Node{}, err
	}
	c.Connect(n.Now(), server)
	receive := func(now time.Duration, from netip.AddrPort, p []byte) {
		if fromServer(from, server) {
			c.HandlePacket(now, p)
		}
	}
	return c, netsim.Node{Endpoint: ep, Receive: receive, Advance: c.Advance, Next: c.Next}, nil
}
