package client

// What the client sends once connected (ioq3 cl_input.c CL_WritePacket,
// CL_CreateNewCommands; CL_Netchan_Transmit): reliable commands queued,
// user commands created each frame, and client messages written, scrambled
// and fragmented onto the netchan.

import (
	"fmt"
	"time"

	"github.com/snapwire/snapwire/internal/q3/msg"
	"github.com/snapwire/snapwire/internal/q3/netchan"
)

// AddCommand queues a reliable client command (ioq3 CL_AddReliableCommand).
// It fails when MaxReliableCommands are waiting for an acknowledgement.
func (c *Client) AddCommand(text string) error {
	if c.reliableSeq-c.reliableAck >= msg.MaxReliableCommands {
		return ErrOverflow
	}
	c.reliableSeq++
	c.reliable[c.reliableSeq&(msg.MaxReliableCommands-1)] = text
	return nil
}

// Say queues "say TEXT".
func (c *Client) Say(text string) error { return c.AddCommand("say " + text) }

func (c *Client) transmitRaw(p []byte) {
	c.stats.BytesOut += int64(len(p))
	c.stats.PacketsOut++
	c.send(p)
}

// writePacket is ioq3 CL_WritePacket + CL_Netchan_Transmit.
func (c *Client) writePacket(now time.Duration) {
	if c.phase == Active && c.haveTimeDelta {
		c.newCommand(now)
	}
	c.cm.ServerID = c.serverID
	c.cm.MessageAck = c.st.ServerMessageSequence
	c.cm.ReliableAck = c.st.ServerCommandSequence
	c.ops = c.ops[:0]
	for i := c.reliableAck + 1; i <= c.reliableSeq; i++ {
		cc := &c.ccs[i&(msg.MaxReliableCommands-1)]
		cc.Seq, cc.Text = i, c.reliable[i&(msg.MaxReliableCommands-1)]
		c.ops = append(c.ops, cc)
	}
	seq := c.ch.OutgoingSequence
	if c.cmdNumber > 0 {
		old := &c.outPackets[(seq-1-int32(c.cfg.PacketDup))&msg.PacketMask]
		count := c.cmdNumber - old.cmdNumber
		count = min(max(count, 0), msg.MaxPacketUsercmds, c.cmdNumber)
		if count > 0 {
			c.move.NoDelta = !c.st.Snap.Valid || c.st.ServerMessageSequence != c.st.Snap.MessageNum ||
				(c.rec != nil && c.rec.waiting)
			c.move.Cmds = c.move.Cmds[:0]
			for n := c.cmdNumber - count + 1; n <= c.cmdNumber; n++ {
				c.move.Cmds = append(c.move.Cmds, c.cmds[n&cmdMask])
			}
			c.ops = append(c.ops, &c.move)
		}
	}
	p := &c.outPackets[seq&msg.PacketMask]
	p.cmdNumber, p.realtime = c.cmdNumber, now
	p.serverTime = c.cmds[c.cmdNumber&cmdMask].ServerTime
	c.cm.Ops = c.ops

	c.w.Reset(c.wbuf[:0], msg.MaxMsgLen)
	lastCmd := c.st.ServerCommand(c.cm.ReliableAck)
	if err := msg.WriteClientMessage(&c.w, &c.cm, c.st.ChecksumFeed, lastCmd); err != nil {
		c.fail(fmt.Errorf("client: writing packet: %w", err))
		return
	}
	out := c.w.Bytes()
	c.wbuf = out[:0]
	if c.framing == netchan.Legacy {
		netchan.ClientXOR(out, c.challenge, c.cm.ServerID, c.cm.MessageAck, lastCmd)
	}
	var err error
	c.pkt, err = c.ch.Transmit(c.pkt[:0], out)
	if err != nil {
		c.fail(fmt.Errorf("client: %w", err))
		return
	}
	c.transmitRaw(c.pkt)
	for c.ch.UnsentFragments() {
		c.pkt = c.ch.TransmitNextFragment(c.pkt[:0])
		c.transmitRaw(c.pkt)
	}
}

// newCommand is ioq3 CL_CreateNewCommands for one frame.
func (c *Client) newCommand(now time.Duration) {
	t := int32(now/time.Millisecond) + c.timeDelta
	if t <= c.lastCmdTime {
		t = c.lastCmdTime + 1
	}
	c.lastCmdTime = t
	c.cmdNumber++
	cmd := &c.cmds[c.cmdNumber&cmdMask]
	*cmd = msg.UserCmd{ServerTime: t}
	if c.cfg.Input != nil {
		c.cfg.Input(cmd)
		cmd.ServerTime = t
	}
}
