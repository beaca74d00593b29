package proxy_test

import (
	"fmt"
	"net/netip"
	"os"
	"time"

	"github.com/snapwire/snapwire/internal/q3/oob"
	"github.com/snapwire/snapwire/internal/q3/proxy"
	"github.com/snapwire/snapwire/netsim"
)

// The proxy core between a client and a server, in virtual time: a
// getchallenge from the client crosses a 40 ms link up, the server's
// answer a 40 ms link down, and the tap logs both, parsed. The caller
// (Run, or a test) writes each Delivery to the server or the client.
func Example() {
	server := netip.MustParseAddrPort("192.0.2.1:27960")
	client := netip.MustParseAddrPort("198.51.100.5:27960")
	link := netsim.LinkConfig{Latency: 40 * time.Millisecond}
	p, _ := proxy.New(proxy.Config{Target: server, Up: link, Down: link, Log: os.Stdout})

	ask, _ := (&oob.GetChallenge{ClientChallenge: "1760966064", GameName: "Quake3Arena"}).Append(nil)
	p.FromClient(0, client, ask)
	out, _, next, _ := p.Advance(0)
	fmt.Println("nothing yet:", len(out), "next at", next)
	out, _, _, _ = p.Advance(next)
	fmt.Println(out[0].Client, out[0].Dir)

	answer, _ := (&oob.ChallengeResponse{Challenge: -642195320, ClientChallenge: 1760966064, Protocol: 68, NArgs: 3}).Append(nil)
	p.FromServer(50*time.Millisecond, client, answer)
	out, _, _, _ = p.Advance(90 * time.Millisecond)
	fmt.Println(out[0].Client, out[0].Dir, "connectionless messages decoded:", p.Tap().Stats().OOB)
	// Output:
	// nothing yet: 0 next at 40ms
	//    0.040 198.51.100.5:27960 C->S oob getchallenge 1760966064 Quake3Arena
	// 198.51.100.5:27960 C->S
	//    0.090 198.51.100.5:27960 S->C oob challengeResponse -642195320 1760966064 68
	// 198.51.100.5:27960 S->C connectionless messages decoded: 2
}
