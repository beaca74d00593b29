package netsim_test

import (
	"fmt"
	"net/netip"
	"time"

	"github.com/snapwire/snapwire/netsim"
)

func ExampleNetwork() {
	n := netsim.New(1)
	n.SetDefault(netsim.LinkConfig{Latency: 50 * time.Millisecond})
	server, _ := n.Listen(netip.MustParseAddrPort("10.0.0.1:27960"))
	client, _ := n.Listen(netip.MustParseAddrPort("10.0.0.2:50000"))

	client.WriteTo([]byte("connect"), server.Addr())
	// step to each delivery instead of polling every millisecond
	for t, ok := n.NextDelivery(); ok; t, ok = n.NextDelivery() {
		n.AdvanceTo(t)
		buf := make([]byte, 1400)
		for {
			k, from, ok := server.ReadFrom(buf)
			if !ok {
				break
			}
			fmt.Printf("%v: %q from %v\n", n.Now(), buf[:k], from)
		}
	}
	fmt.Printf("%+v\n", n.Stats())
	// Output:
	// 50ms: "connect" from 10.0.0.2:50000
	// {Sent:1 Delivered:1 Lost:0 Duplicated:0 Reordered:0 DroppedMTU:0 DroppedQueue:0 DroppedUnbound:0 DroppedInbox:0 Filtered:0 BytesSent:7 BytesDelivered:7}
}
