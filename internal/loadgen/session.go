package loadgen

// The light client once connected: reliable messages (apply S, disconnect;
// events and game messages are acknowledged by the channel and otherwise
// ignored), unreliable ones (load game, snapshots, path challenges), the
// command messages, the timers.

import (
	"fmt"
	"time"

	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/netchan"
	"github.com/snapwire/snapwire/internal/session"
	"github.com/snapwire/snapwire/internal/snapshot"
	"github.com/snapwire/snapwire/internal/usercmd"
)

// handler receives the channel's messages.
type handler Client

func (h *handler) Reliable(msg []byte) {
	c := (*Client)(h)
	kind, ok := session.ReliableKind(msg)
	if !ok {
		return
	}
	switch kind {
	case session.RelApply, session.RelApplyVerified:
		// DOOM III §5: the server says which received snapshot the common
		// base takes; the verified form carries the server's base hash.
		m, err := session.ParseApply(msg, c.lastApply)
		if err != nil {
			c.stats.ApplyErrors++
			return
		}
		c.lastApply = m.Seq
		if err := c.dec.Apply(snapshot.ApplyMessage{Seq: m.Seq}); err != nil {
			c.stats.ApplyErrors++
			return
		}
		c.stats.Applies++
		if m.BaseHash != 0 {
			c.stats.BaseChecks++
			if uint32(c.dec.Base().Hash())|1 != m.BaseHash {
				c.stats.BaseMismatches++
			}
		}
	case session.RelDisconnect:
		m, err := session.ParseDisconnect(msg)
		if err != nil {
			m.Reason = session.ReasonProtocolError
		}
		c.fail(&RefusedError{Reason: m.Reason})
	}
}

func (h *handler) Unreliable(typ netchan.MessageType, msg []byte) {
	c := (*Client)(h)
	if c.state != Connected {
		return
	}
	id, body, err := session.ParseServerHeader(msg)
	if err != nil {
		return
	}
	switch typ {
	case session.TypePathChallenge:
		if v, err := session.ParsePathChallenge(body); err == nil {
			c.pathChallenge, c.pathDue = v, true
		}
	case session.TypeLoadGame:
		settings, err := session.ParseLoadGame(body)
		if err != nil || id == c.gameID {
			return
		}
		if err := c.loadGame(c.lastNow, id, settings); err != nil {
			c.fail(err)
		}
	case session.TypeSnapshot:
		if id != c.gameID {
			return
		}
		c.r.Reset(body, len(body)*8)
		if err := c.dec.Decode(&c.r, &c.snap); err != nil {
			c.stats.DecodeErrors++
			return
		}
		c.stats.SnapshotBytes += uint64(len(body))
		c.acceptSnapshot(c.snap.Header)
	}
}

// acceptSnapshot counts a decoded snapshot and makes it the one the
// client acknowledges; a frame that goes back within a game ends the
// session (a hostile server).
func (c *Client) acceptSnapshot(h snapshot.Header) {
	if c.haveSnap && h.Frame < c.snapFrame {
		c.fail(fmt.Errorf("%w: snapshot frame went back from %d to %d", ErrProtocol, c.snapFrame, h.Frame))
		return
	}
	if c.haveSnap && h.Seq <= c.snapSeq {
		return // older than the one acknowledged
	}
	if c.haveSnap && h.Seq > c.snapSeq+1 {
		c.stats.SnapshotsLost += uint64(h.Seq - c.snapSeq - 1)
	}
	if c.stats.SnapshotsReceived == 0 {
		c.stats.FirstSnapshot = c.lastNow
	}
	c.stats.SnapshotsReceived++
	c.stats.LastSnapshot = c.lastNow
	if !c.haveSnap {
		// The first command is for the frame after the snapshot's.
		c.cf = h.Frame
	}
	c.haveSnap, c.snapSeq, c.snapFrame = true, h.Seq, h.Frame
	c.snapAt = c.lastNow
}

// commandFrame is the newest frame to command at now: the last
// snapshot's frame, plus the frames run since it arrived and in one round
// trip (by the time a command arrives the server has run those), plus
// one, so commands arrive just before their frame (DOOM III §3.3, fig. 4;
// the full client steers its clock with the server's lead reports
// instead). It never goes back.
func (c *Client) commandFrame(now time.Duration) game.Frame {
	ahead := (now - c.snapAt + c.ch.Stats().RTT) / c.frameDur
	ahead = min(ahead, time.Duration(usercmd.MaxCmds)) // a stalled link
	return max(c.cf, c.snapFrame+game.Frame(ahead)+1)
}

// command is the light client's command for frame f: run forward while
// turning, each client in its own direction, so that players move and
// snapshots carry changes.
func (c *Client) command(f game.Frame) game.UserCmd {
	return game.UserCmd{Frame: f, Forward: 100, Yaw: uint16(c.cfg.Seed*7919 + uint32(f)*91)}
}

// sendCommands sends one command message: the client header (game id,
// last snapshot received), then the commands from the first frame not
// sent in the last packetDup+1 messages to the newest, each
// delta-compressed against the one before. Before the first snapshot it
// sends the header alone.
func (c *Client) sendCommands(now time.Duration) {
	c.w.Reset(c.buf[:])
	h := session.ClientHeader{GameID: c.gameID}
	if c.haveSnap {
		h.Ack = c.snapSeq
	}
	c.w.WriteUint32(uint32(h.GameID))
	c.w.WriteUint32(uint32(h.Ack))
	typ := session.TypeIdle
	if c.haveSnap {
		hi := c.commandFrame(now)
		lo := max(c.sentHi[c.sentN%len(c.sentHi)]+1, hi-usercmd.MaxCmds+1, c.snapFrame+1)
		c.msg.Cmds = c.msg.Cmds[:0]
		// Counted in int64: a hostile server's frame near the top of the
		// range must not wrap the loop (usercmd.Message.Append then
		// refuses the frames, and the header goes alone).
		for k := range max(min(int64(hi)-int64(lo)+1, usercmd.MaxCmds), 0) {
			c.msg.Cmds = append(c.msg.Cmds, c.command(lo+game.Frame(k)))
		}
		c.msg.Lead = time.Duration(hi-c.snapFrame) * c.frameDur
		if len(c.msg.Cmds) > 0 && c.msg.Append(&c.w, game.UserCmd{}) == nil {
			typ = session.TypeCommands
			c.stats.CommandsSent += uint64(len(c.msg.Cmds))
			c.cf = hi
			c.sentHi[c.sentN%len(c.sentHi)] = hi
			c.sentN++
		}
	}
	if c.w.Err() != nil {
		return
	}
	c.ch.Send(now, typ, c.w.Bytes(), c.emitFn)
	c.stats.CommandPackets++
}

// Next is when the client next has something to do.
func (c *Client) Next() time.Duration {
	switch c.state {
	case Challenging, Connecting:
		return c.retryAt
	case Connected:
		return max(c.nextSend, c.lastNow+time.Millisecond)
	}
	return c.lastNow + time.Second
}

// Advance moves the client to now: handshake resends and timeout, the
// command message due, the session timeout.
func (c *Client) Advance(now time.Duration) {
	now = max(now, c.lastNow)
	c.lastNow = now
	switch c.state {
	case Challenging, Connecting:
		switch {
		case now >= c.deadline && c.refusal != session.ReasonNone:
			c.fail(fmt.Errorf("%w; the last refusal: %v", ErrConnectTimeout, c.refusal))
		case now >= c.deadline:
			c.fail(ErrConnectTimeout)
		case now >= c.retryAt:
			c.sendHandshake(now)
		}
		return
	case Connected:
	default:
		return
	}
	if now-c.lastRecv > c.cfg.Timeout {
		c.fail(ErrTimeout)
		return
	}
	if now >= c.nextSend {
		c.sendCommands(now)
		iv := time.Second / time.Duration(c.cfg.CmdRate)
		// On schedule, without drifting by the driver's lateness (but
		// never more than one interval behind).
		c.nextSend = max(c.nextSend+iv, now)
	}
}

// HandlePacket processes one datagram from the server.
func (c *Client) HandlePacket(now time.Duration, pkt []byte) {
	now = max(now, c.lastNow)
	c.lastNow = now
	if netchan.IsConnectionless(pkt) {
		c.handleConnectionless(now, pkt[4:])
		return
	}
	if c.state != Connected {
		return
	}
	before := c.ch.LastReceivedSequence()
	if c.ch.Receive(now, pkt, (*handler)(c)) != nil {
		return
	}
	if c.ch.LastReceivedSequence() != before {
		c.lastRecv = now
	}
	if c.pathDue && c.state == Connected {
		// The server checks that we receive at the address it now sees
		// (docs/PROTOCOL.md, "NAT"): echo its challenge at once.
		c.pathDue = false
		h := session.ClientHeader{GameID: c.gameID, Ack: c.snapSeq}
		c.ch.Send(now, session.TypePathResponse, session.AppendPathResponse(c.buf[:0], h, c.pathChallenge), c.emitFn)
	}
}

// Disconnect leaves the server cleanly: a reliable disconnect message in
// three packets (nothing waits for the acknowledgement), as the client
// does.
func (c *Client) Disconnect(now time.Duration) {
	if c.state == Connected && c.ch.QueueReliable(session.Disconnect{Reason: session.ReasonClientLeft}.Append(nil)) == nil {
		for range 3 {
			c.ch.Send(now, netchan.TypeNone, nil, c.emitFn)
		}
	}
	c.state, c.err = Disconnected, nil
}
