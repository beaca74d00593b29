package client_test

import (
	"errors"
	"net/netip"
	"testing"
	"time"

	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/crowdgame"
	"github.com/snapwire/snapwire/netsim"
	"github.com/snapwire/snapwire/server"
)

// TestListenSimDialSim: a server from server.ListenSim and three clients
// from client.DialSim, each on its own address, connect and play over the
// link simulator driven by nothing but their nodes; a packet to a client
// from another address than the server's does not reach it; an address
// in use and a game that does not load are errors that leave the network as it was.
func TestListenSimDialSim(t *testing.T) {
	net := netsim.New(7)
	net.SetDefault(netsim.LinkConfig{Latency: 30 * time.Millisecond, Loss: 0.05})
	const at = "10.0.0.1:27960"
	srv, node, err := server.ListenSim(net, at, server.Config{}, crowdgame.New(), crowdgame.Settings)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := server.ListenSim(net, "10.0.0.1:99999", server.Config{}, crowdgame.New(), crowdgame.Settings); err == nil {
		t.Error("a server on port 99999: no error")
	}
	if _, _, err := client.DialSim(net, "nowhere", client.Config{}, crowdgame.New(), nil); err == nil {
		t.Error("a client of the server at \"nowhere\": no error")
	}
	if _, _, err := server.ListenSim(net, at, server.Config{}, crowdgame.New(), crowdgame.Settings); !errors.Is(err, netsim.ErrAddrInUse) {
		t.Errorf("a second server on %v: %v, want netsim.ErrAddrInUse", at, err)
	}
	other := netip.MustParseAddrPort("10.0.0.9:27960")
	if _, _, err := server.ListenSim(net, other.String(), server.Config{}, crowdgame.New(), "no such map"); err == nil {
		t.Error("a server whose game does not load: no error")
	}
	if _, err := net.Listen(other); err != nil {
		t.Errorf("the refused server's address is still bound: %v", err)
	}
	nodes := []netsim.Node{node}
	var clients []*client.Client
	for i := range 3 {
		c, node, err := client.DialSim(net, at, client.Config{}, crowdgame.New(), client.InputFunc(func(client.Input) game.UserCmd { return game.UserCmd{Forward: 16} }))
		if err != nil {
			t.Fatal(err)
		}
		if want := netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 1, 0, byte(1 + i)}), 50000); node.Endpoint.Addr() != want {
			t.Errorf("client %d on %v, want %v (the next free address)", i, node.Endpoint.Addr(), want)
		}
		clients = append(clients, c)
		nodes = append(nodes, node)
	}
	now := net.Run(0, 2*time.Second, nodes, make([]byte, 2048))
	seen := map[game.ClientNum]bool{}
	for i, c := range clients {
		if c.State() != client.Connected || c.Err() != nil || c.Stats().SnapshotsReceived == 0 {
			t.Errorf("client %d: %v, %v, %d snapshots", i, c.State(), c.Err(), c.Stats().SnapshotsReceived)
		}
		seen[c.ClientNum()] = true
	}
	if len(seen) != 3 || srv.Stats().Connects != 3 {
		t.Errorf("client numbers %v, the server accepted %d; want 3 each", seen, srv.Stats().Connects)
	}
	before := clients[0].Stats().BytesIn
	nodes[1].Receive(now, other, make([]byte, 64))
	if got := clients[0].Stats().BytesIn; got != before {
		t.Errorf("a packet from %v reached the client: BytesIn %d, was %d", other, got, before)
	}
	nodes[1].Receive(now, netip.MustParseAddrPort(at), make([]byte, 64))
	if got := clients[0].Stats().BytesIn; got == before {
		t.Error("a packet from the server's address did not reach the client (the test above proves nothing)")
	}
}
