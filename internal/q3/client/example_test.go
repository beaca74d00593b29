package client_test

import (
	"fmt"
	"os"

	"github.com/snapwire/snapwire/internal/q3/capture"
	"github.com/snapwire/snapwire/internal/q3/client"
)

// The client core fed, in virtual time, the server's side of a recorded
// session with an ioq3 server (q3/testdata/session-71.pcap, protocol 71),
// answering as the recorded client did (same client challenge and qport):
// it follows the handshake, loads the gamestate, parses every snapshot and
// is dropped by the server's final disconnect. A live client does the
// same with Dial, which wraps the core in a UDP socket.
func Example() {
	f, _ := os.Open("../testdata/session-71.pcap")
	defer f.Close()
	packets, err := capture.ReadDatagrams(f)
	if err != nil {
		panic(err)
	}
	var sent int
	c, _ := client.New(client.Config{Protocol: 71, ClientChallenge: -1832221471, QPort: 10933},
		func(pkt []byte) { sent++ })
	phases := []client.Phase{c.Phase()}
	for _, d := range packets {
		if d.Src.Port() != 27971 { // the server's packets only
			continue
		}
		c.Advance(d.Time)
		c.HandlePacket(d.Time, d.Payload)
		if p := c.Phase(); p != phases[len(phases)-1] {
			phases = append(phases, p)
		}
	}
	st := c.Stats()
	fmt.Println(phases, c.Err())
	fmt.Printf("%s, map %s, client %d, %d snapshots (%d invalid), %d parse errors, %d packets sent\n",
		st.Framing, st.Map, st.ClientNum, st.Snapshots, st.InvalidSnapshots, st.ParseErrors, sent)
	// Output:
	// [challenging connecting connected primed active disconnected] client: disconnected: disconnected
	// ioq3-checksum, map oa_dm3, client 0, 303 snapshots (0 invalid), 0 parse errors, 305 packets sent
}
