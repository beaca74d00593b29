// Package follow follows one Quake 3 connection passively, from the
// packets of both directions as a third party on the path sees them: it
// sets up both ends' netchans when the server accepts the connection
// (connectResponse, ioq3 Netchan_Setup), decides the framing from the first
// netchan packet (legacy, or ioq3's checksum), reassembles fragments, undoes
// the legacy XOR scrambling with the keys the handshake and the messages
// themselves give (the challenge, the sequence, the last reliable command
// each side acknowledged: ioq3 CL_Netchan_Decode, SV_Netchan_Decode), and
// parses every server and client message, feeding the client's state.
//
// Package capture follows the connections of a pcap with it, package proxy
// the live traffic it forwards; each counts and logs what it gets.
package follow

import (
	"github.com/snapwire/snapwire/internal/q3/msg"
	"github.com/snapwire/snapwire/internal/q3/netchan"
)

// Conn is one connection being followed. Its zero value waits for the
// handshake: set Challenge from challengeResponse or connectResponse, call
// Setup on connectResponse, then Process each netchan packet.
type Conn struct {
	// Challenge keys the ioq3 checksum and the legacy XOR.
	Challenge int32
	// Ready is set by Setup: the netchan can be followed.
	Ready bool
	// Framing is decided on the first netchan packet after Setup.
	Framing netchan.Framing
	// State is the client's state, built from the server's messages.
	State msg.ClientState

	framed bool
	cl, sv *netchan.Chan                   // cl processes server packets, sv client packets
	cmds   [msg.MaxReliableCommands]string // client commands by sequence, as the server stored them
	buf    []byte
}

// Setup starts the netchan on both ends, as the client and the server do
// on connectResponse (ioq3 Netchan_Setup): fresh sequences, client state
// and commands; the framing is decided again on the next packet.
func (c *Conn) Setup(qport uint16) {
	*c = Conn{Challenge: c.Challenge, Ready: true, Framing: c.Framing, buf: c.buf}
	c.cl = netchan.NewChan(netchan.ClientToServer, netchan.Legacy, qport, c.Challenge)
	c.sv = netchan.NewChan(netchan.ServerToClient, netchan.Legacy, 0, c.Challenge)
}

// Packet is what one netchan packet gave.
type Packet struct {
	// Header is the packet's header in the connection's framing, unless
	// HeaderErr.
	Header    netchan.Header
	HeaderErr error
	// Complete: a whole message came out. It is false for a fragment short
	// of the last one and for a packet the netchan dropped (a duplicate or
	// out of order).
	Complete bool
	// Seq is the message's sequence, Dropped the packets the netchan saw
	// missing before it.
	Seq, Dropped int32
	// Data is the message, unscrambled; valid until the next Process.
	Data []byte
	// Server or Client is the parsed message (the ops before any error),
	// by direction; ParseErr the parser's error.
	Server   *msg.ServerMessage
	Client   *msg.ClientMessage
	ParseErr error
}

// Process follows one netchan packet sent in direction d; the connection
// must be Ready. The error is the netchan's, for a packet it refused.
func (c *Conn) Process(d netchan.Direction, pkt []byte) (Packet, error) {
	if !c.framed {
		// The ioq3 checksum (challenge ^ seq*challenge) matches or it does not.
		c.framed, c.Framing = true, netchan.Legacy
		if h, _, err := netchan.ParseHeader(pkt, d, netchan.Checksummed); err == nil && h.Checksum == netchan.GenChecksum(c.Challenge, h.Sequence) {
			c.Framing = netchan.Checksummed
		}
		c.cl.Framing, c.sv.Framing = c.Framing, c.Framing
	}
	var p Packet
	p.Header, _, p.HeaderErr = netchan.ParseHeader(pkt, d, c.Framing)
	ch := c.cl
	if d == netchan.ClientToServer {
		ch = c.sv
	}
	m, seq, ok, err := ch.Process(pkt)
	if err != nil || !ok {
		return p, err
	}
	p.Complete, p.Seq, p.Dropped = true, seq, ch.Dropped
	c.buf = append(c.buf[:0], m...) // the XOR works in place
	p.Data = c.buf
	var r msg.Reader
	r.Reset(p.Data) // the engine reads the key's inputs from the still scrambled message
	if d == netchan.ServerToClient {
		if c.Framing == netchan.Legacy {
			ack := r.ReadInt32() // CL_Netchan_Decode
			netchan.ServerXOR(p.Data, c.Challenge, seq, c.cmds[ack&(msg.MaxReliableCommands-1)])
		}
		p.Server, p.ParseErr = c.State.ParseServerMessage(p.Data, seq)
		return p, nil
	}
	if c.Framing == netchan.Legacy {
		serverID, msgAck, relAck := r.ReadInt32(), r.ReadInt32(), r.ReadInt32() // SV_Netchan_Decode
		netchan.ClientXOR(p.Data, c.Challenge, serverID, msgAck, c.State.ServerCommand(relAck))
	}
	p.Client, p.ParseErr = msg.ParseClientMessage(p.Data, c.State.ChecksumFeed, c.State.ServerCommand)
	if p.Client != nil {
		for _, o := range p.Client.Ops {
			if cc, ok := o.(*msg.ClientCommand); ok {
				c.cmds[cc.Seq&(msg.MaxReliableCommands-1)] = cc.Text
			}
		}
	}
	return p, nil
}
