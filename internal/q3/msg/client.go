package msg

import (
	"errors"
	"fmt"
)

// ErrBadClientMessage is a malformed client-to-server message.
var ErrBadClientMessage = errors.New("msg: bad client message")

// ClientMessage is one client-to-server message after the netchan (and, in
// the legacy protocol, the XOR) is removed (Quake 3 protocol description, Fedoryński:
// "Client-to-server packet"; ioq3 CL_WritePacket / SV_ExecuteClientMessage):
//
//	serverId (32) | messageAcknowledge (32) | reliableAcknowledge (32) |
//	{ clc_clientCommand (8) | seq (32) | text } |
//	[ clc_move or clc_moveNoDelta (8) | count (8) | count usercmd deltas ] | clc_EOF (8)
type ClientMessage struct {
	ServerID    int32 // sv_serverid of the gamestate the client is in
	MessageAck  int32 // last server message received (delta base for the server)
	ReliableAck int32 // last server command received
	Ops         []ClientOp
}

// ClientOp is *ClientCommand or *Move.
type ClientOp interface{ Op() ClcOp }

// ClientCommand is clc_clientCommand: a reliable text command.
type ClientCommand struct {
	Seq  int32
	Text string
}

// Op implements ClientOp.
func (*ClientCommand) Op() ClcOp { return ClcClientCommand }

// Move is clc_move / clc_moveNoDelta: the latest user commands, each
// delta-compressed from the one before (the first from an all-zero
// command) with the usercmd XOR key.
type Move struct {
	NoDelta bool // clc_moveNoDelta: ask for a non-delta snapshot
	Cmds    []UserCmd
}

// Op implements ClientOp.
func (m *Move) Op() ClcOp {
	if m.NoDelta {
		return ClcMoveNoDelta
	}
	return ClcMove
}

// ParseClientMessage parses a client message. checksumFeed is the feed of
// the gamestate the client is in and lastServerCommand the text of server
// command number ReliableAck (both feed the usercmd key, see UsercmdKey);
// lastServerCommand may be nil when the message carries no move.
func ParseClientMessage(data []byte, checksumFeed int32, lastServerCommand func(seq int32) string) (*ClientMessage, error) {
	r := NewReader(data)
	m := &ClientMessage{}
	m.ServerID = r.ReadInt32()
	m.MessageAck = r.ReadInt32()
	m.ReliableAck = r.ReadInt32()
	for {
		if r.err != nil {
			return m, r.err
		}
		op := ClcOp(r.ReadUint8())
		if r.err != nil {
			return m, r.err
		}
		switch op {
		case ClcEOF:
			return m, nil
		case ClcNop:
		case ClcClientCommand:
			c := &ClientCommand{Seq: r.ReadInt32(), Text: r.ReadString()}
			if r.err == nil {
				m.Ops = append(m.Ops, c)
			}
		case ClcMove, ClcMoveNoDelta:
			n := int(r.ReadUint8())
			if r.err != nil {
				return m, r.err
			}
			if n < 1 || n > MaxPacketUsercmds {
				return m, fmt.Errorf("%w: usercmd count %d", ErrBadClientMessage, n)
			}
			var last string
			if lastServerCommand != nil {
				last = lastServerCommand(m.ReliableAck)
			}
			key := UsercmdKey(checksumFeed, m.MessageAck, last)
			mv := &Move{NoDelta: op == ClcMoveNoDelta, Cmds: make([]UserCmd, n)}
			var from UserCmd
			for i := range mv.Cmds {
				ReadDeltaUsercmdKey(r, key, &from, &mv.Cmds[i])
				from = mv.Cmds[i]
			}
			if r.err == nil {
				m.Ops = append(m.Ops, mv)
			}
		default:
			return m, fmt.Errorf("%w: op %v", ErrBadClientMessage, op)
		}
	}
}

// WriteClientMessage writes m as ioq3 CL_WritePacket and CL_Netchan_Transmit
// do, ending with clc_EOF. lastServerCommand is the text of server command
// m.ReliableAck, for the usercmd key.
func WriteClientMessage(w *Writer, m *ClientMessage, checksumFeed int32, lastServerCommand string) error {
	w.WriteInt32(m.ServerID)
	w.WriteInt32(m.MessageAck)
	w.WriteInt32(m.ReliableAck)
	key := UsercmdKey(checksumFeed, m.MessageAck, lastServerCommand)
	for _, o := range m.Ops {
		switch o := o.(type) {
		case *ClientCommand:
			w.WriteUint8(uint8(ClcClientCommand))
			w.WriteInt32(o.Seq)
			w.WriteString(o.Text)
		case *Move:
			if len(o.Cmds) < 1 || len(o.Cmds) > MaxPacketUsercmds {
				return fmt.Errorf("%w: usercmd count %d", ErrBadClientMessage, len(o.Cmds))
			}
			w.WriteUint8(uint8(o.Op()))
			w.WriteUint8(uint8(len(o.Cmds)))
			var from UserCmd
			for i := range o.Cmds {
				WriteDeltaUsercmdKey(w, key, &from, &o.Cmds[i])
				from = o.Cmds[i]
			}
		default:
			return fmt.Errorf("%w: unknown op %T", ErrBadClientMessage, o)
		}
	}
	w.WriteUint8(uint8(ClcEOF))
	return w.Err()
}
