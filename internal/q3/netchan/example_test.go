package netchan_test

import (
	"bytes"
	"fmt"

	"github.com/snapwire/snapwire/internal/q3/netchan"
)

// A server sends a 3000-byte message (a gamestate, say): it leaves in
// FragmentSize pieces, the last one shorter, and the client's end
// reassembles it (ioq3 Netchan_Transmit, Netchan_Process).
func Example() {
	server := netchan.NewChan(netchan.ServerToClient, netchan.Legacy, 0, 0)
	client := netchan.NewChan(netchan.ClientToServer, netchan.Legacy, 1234, 0)
	message := bytes.Repeat([]byte("gamestate "), 300)

	pkt, err := server.Transmit(nil, message)
	if err != nil {
		panic(err)
	}
	for {
		h, n, _ := netchan.ParseHeader(pkt, netchan.ServerToClient, netchan.Legacy)
		fmt.Printf("%v, %d bytes of message\n", h, len(pkt)-n)
		got, seq, ok, err := client.Process(pkt)
		if ok {
			fmt.Println("message", seq, "whole:", bytes.Equal(got, message), err)
		}
		if !server.UnsentFragments() {
			break
		}
		pkt = server.TransmitNextFragment(nil)
	}
	// Output:
	// seq=1 fragment=0,1300, 1300 bytes of message
	// seq=1 fragment=1300,1300, 1300 bytes of message
	// seq=1 fragment=2600,400, 400 bytes of message
	// message 1 whole: true <nil>
}
