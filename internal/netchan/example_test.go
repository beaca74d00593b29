package netchan_test

import (
	"fmt"

	"github.com/snapwire/snapwire/internal/netchan"
)

type printer struct{}

func (printer) Reliable(msg []byte) { fmt.Printf("reliable %q\n", msg) }
func (printer) Unreliable(typ netchan.MessageType, msg []byte) {
	fmt.Printf("unreliable type %d %q\n", typ, msg)
}

// A server and a client channel share a connection id. The reliable
// message rides in the same packet as the snapshot and is delivered first.
func Example() {
	server := netchan.New(netchan.Config{}, 0x2b7a)
	client := netchan.New(netchan.Config{}, 0x2b7a)

	if err := server.QueueReliable([]byte("apply snapshot 41")); err != nil {
		panic(err)
	}
	var wire [][]byte
	err := server.Send(0, 1, []byte("snapshot 42"), func(p []byte) {
		wire = append(wire, append([]byte(nil), p...)) // p is only valid during the call
	})
	if err != nil {
		panic(err)
	}
	for _, p := range wire {
		id, _ := netchan.PeekConnID(p) // a server would find the channel by this id
		fmt.Printf("packet of %d bytes for connection %04x\n", len(p), id)
		if err := client.Receive(0, p, printer{}); err != nil {
			panic(err)
		}
	}
	fmt.Println("client acknowledges", client.LastReceivedSequence())
	// Output:
	// packet of 38 bytes for connection 2b7a
	// reliable "apply snapshot 41"
	// unreliable type 1 "snapshot 42"
	// client acknowledges 1
}
