package q3_test

import (
	"fmt"

	"github.com/snapwire/snapwire/internal/q3/msg"
	"github.com/snapwire/snapwire/internal/q3/netchan"
	"github.com/snapwire/snapwire/internal/q3/oob"
)

// How the layers compose on the way from an ioq3 server to its client
// (protocol 71): the handshake's connectionless packets (oob) give the
// challenge that keys the netchan checksum; a server message is written
// as a bit stream (msg, every byte coded with huffman's fixed code),
// framed and sequenced (netchan); the client undoes both and folds the
// message into its state.
func Example() {
	accept, _ := (&oob.ConnectResponse{Challenge: -642195320, HasChallenge: true}).Append(nil)
	m, _ := oob.ParseServerPacket(accept)
	challenge := m.(*oob.ConnectResponse).Challenge
	server := netchan.NewChan(netchan.ServerToClient, netchan.Checksummed, 0, challenge)
	client := netchan.NewChan(netchan.ClientToServer, netchan.Checksummed, 28363, challenge)

	w := msg.NewWriter(make([]byte, msg.MaxMsgLen), msg.MaxMsgLen)
	say := &msg.ServerCommand{Seq: 1, Text: `print "welcome to oa_dm2\n"`}
	err := msg.WriteServerMessage(w, &msg.ServerMessage{Ops: []msg.ServerOp{say}}, nil)
	pkt, _ := server.Transmit(nil, w.Bytes())
	fmt.Println(w.Bits(), "bits of Huffman-coded message,", len(pkt), "bytes with the netchan header", err)

	data, seq, ok, err := client.Process(pkt)
	var st msg.ClientState
	got, perr := st.ParseServerMessage(data, seq)
	fmt.Println("sequence", seq, ok, err, "ops", len(got.Ops), perr)
	fmt.Printf("server command %d: %q\n", st.ServerCommandSequence, st.ServerCommands[1])
	// Output:
	// 247 bits of Huffman-coded message, 39 bytes with the netchan header <nil>
	// sequence 1 true <nil> ops 1 <nil>
	// server command 1: "print \"welcome to oa_dm2\\n\""
}
