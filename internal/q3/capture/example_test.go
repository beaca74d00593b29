package capture_test

import (
	"fmt"
	"os"

	"github.com/snapwire/snapwire/internal/q3/capture"
	"github.com/snapwire/snapwire/internal/q3/msg"
	"github.com/snapwire/snapwire/internal/q3/oob"
)

// Decoding a packet capture of a real session (an ioq3 server and client,
// OpenArena, protocol 68; q3/testdata/README.md describes it): the
// decoder follows the handshake, derives the keys of the legacy XOR
// scrambling from it, reassembles fragments and parses every message in
// both directions.
func ExampleDecodePcap() {
	f, err := os.Open("../testdata/session-68.pcap")
	if err != nil {
		panic(err)
	}
	defer f.Close()
	s, err := capture.DecodePcap(f, capture.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%d packets: %d connectionless, %d fragments, %d undecoded, %d dropped, %d parse errors\n",
		s.Packets, s.OOB, s.Fragments, s.Undecoded, s.Dropped, s.ParseErrors)
	fmt.Printf("%d server messages (%d snapshots), %d client messages (%d user commands)\n",
		s.ServerMessages, s.Snapshots, s.ClientMessages, s.Usercmds)
	for _, c := range s.Connections {
		fmt.Printf("%s -> %s: protocol %d, %s, client %d %q\n", c.Client, c.Server, c.Protocol, c.Framing, c.ClientNum, c.Userinfo["name"])
	}
	info, _ := oob.ParseInfo(s.Configstrings[msg.CSServerInfo], oob.BigInfoString)
	fmt.Println("map:", info.Value("mapname"))
	// Output:
	// 733 packets: 4 connectionless, 4 fragments, 0 undecoded, 0 dropped, 0 parse errors
	// 310 server messages (309 snapshots), 416 client messages (818 user commands)
	// 127.0.0.1:27980 -> 127.0.0.1:27970: protocol 68, legacy, client 3 "fixture68"
	// map: oa_dm2
}
