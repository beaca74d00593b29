package client

// Server messages (ioq3 cl_parse.c CL_ParseServerMessage): parsed into the
// client state, the gamestate and snapshots checked and counted, server
// commands acted on (cs, disconnect), and the cl_shownet-like log.

import (
	"fmt"
	"strconv"
	"time"

	"github.com/snapwire/snapwire/internal/q3/msg"
	"github.com/snapwire/snapwire/internal/q3/oob"
)

// readLong reads the first 32-bit value of a message, as the engine does
// before unscrambling; it yields 0 on a short message.
func readLong(m []byte) int32 {
	var r msg.Reader
	r.Reset(m)
	return r.ReadInt32()
}

func (c *Client) parseServerMessage(now time.Duration, data []byte, seq int32) error {
	sm, err := c.st.ParseServerMessage(data, seq)
	c.stats.ServerMessages++
	if sm != nil {
		// ioq3 CL_ParseServerMessage: an acknowledge older than the window
		// means the server is confused; treat everything as acknowledged.
		c.reliableAck = sm.ReliableAck
		if c.reliableAck < c.reliableSeq-msg.MaxReliableCommands || c.reliableAck > c.reliableSeq {
			c.reliableAck = c.reliableSeq
		}
		if c.cfg.Log != nil {
			c.logMessage(len(data), sm, err)
		}
		for _, o := range sm.Ops {
			switch o := o.(type) {
			case *msg.Gamestate:
				c.gamestate(now, o)
			case *msg.Snapshot:
				c.snapshot(now, o)
			}
		}
	}
	c.serverCommands()
	if err != nil {
		c.addError(&c.stats.ParseErrors, fmt.Errorf("seq %d: %w", seq, err))
		return err
	}
	if c.rec != nil {
		c.rec.message(c, sm, data, seq)
	}
	return nil
}

func (c *Client) gamestate(now time.Duration, g *msg.Gamestate) {
	c.executed = g.CommandSeq
	sys, _ := oob.ParseInfo(c.st.Configstrings[msg.CSSystemInfo], oob.BigInfoString)
	id, _ := strconv.Atoi(sys.Value("sv_serverid"))
	c.serverID = int32(id)
	si, _ := oob.ParseInfo(c.st.Configstrings[msg.CSServerInfo], oob.BigInfoString)
	c.stats.Map = si.Value("mapname")
	c.prevSnap = -1
	c.haveTimeDelta = false
	if c.phase < Primed || c.phase == Active {
		c.phase = Primed
	}
	c.nextPacket = now
	c.logf("gamestate: map %s serverId %d clientNum %d checksumFeed %d", c.stats.Map, c.serverID, g.ClientNum, g.ChecksumFeed)
	if c.rec != nil {
		c.rec.gamestate(c, g)
	}
}

func (c *Client) snapshot(now time.Duration, s *msg.Snapshot) {
	if !s.Valid {
		c.stats.InvalidSnapshots++
		return
	}
	c.stats.Snapshots++
	if c.stats.Snapshots == 1 {
		c.stats.ServerTimeFirst = s.ServerTime
	} else if s.ServerTime <= c.stats.ServerTimeLast {
		c.stats.TimeNotRising++
	}
	c.stats.ServerTimeLast = s.ServerTime
	c.stats.CommandTimeLast = s.PS.CommandTime

	// Clock: ioq3 CL_AdjustTimeDelta, simplified: reset on a large error,
	// move halfway on a medium one, creep by a millisecond otherwise.
	nowMs := int32(now / time.Millisecond)
	d := s.ServerTime - nowMs
	switch diff := d - c.timeDelta; {
	case !c.haveTimeDelta || diff > 500 || diff < -500:
		c.timeDelta, c.haveTimeDelta = d, true
	case diff > 100 || diff < -100:
		c.timeDelta += diff / 2
	case diff > 0:
		c.timeDelta++
	case diff < 0:
		c.timeDelta--
	}

	// Ping: ioq3 CL_ParseSnapshot, the newest packet whose command the
	// server has run.
	for i := int32(0); i < msg.PacketBackup; i++ {
		p := &c.outPackets[(c.ch.OutgoingSequence-1-i)&msg.PacketMask]
		if p.cmdNumber > 0 && s.PS.CommandTime >= p.serverTime {
			c.stats.PingMs = int((now - p.realtime) / time.Millisecond)
			break
		}
	}

	// Entities: which we saw, which moved since the previous snapshot.
	var prev *msg.Snapshot
	if c.prevSnap >= 0 {
		prev = c.st.DeltaSnapshot(c.prevSnap)
	}
	j := 0
	for i := range s.Entities {
		e := &s.Entities[i]
		if !c.seenEnt[e.Number] {
			c.seenEnt[e.Number] = true
			c.stats.EntitiesSeen++
		}
		if prev == nil {
			continue
		}
		for j < len(prev.Entities) && prev.Entities[j].Number < e.Number {
			j++
		}
		if j < len(prev.Entities) && prev.Entities[j].Number == e.Number &&
			prev.Entities[j].Pos.Base != e.Pos.Base && !c.movedEnt[e.Number] {
			c.movedEnt[e.Number] = true
			c.stats.EntitiesMoved++
			if e.EType == etPlayer {
				c.stats.PlayersMoved++
			}
		}
	}
	c.prevSnap = s.MessageNum
	if c.phase == Primed {
		c.phase = Active
		c.activeSince = now
		c.logf("active at server time %d", s.ServerTime)
	}
}

// etPlayer is ET_PLAYER (bg_public.h entityType_t).
const etPlayer = 1

// serverCommands handles the server commands not seen yet, as cgame does
// (CL_GetServerCommand): configstring changes and the disconnect command.
func (c *Client) serverCommands() {
	for c.executed < c.st.ServerCommandSequence {
		c.executed++
		if c.st.ServerCommandSequence-c.executed >= msg.MaxReliableCommands {
			continue // overwritten before we looked (cannot happen in one message)
		}
		text := c.st.ServerCommand(c.executed)
		c.stats.ServerCommands++
		args := oob.Tokenize(text)
		if len(args) == 0 {
			continue
		}
		switch args[0] {
		case "disconnect":
			reason := "server disconnected"
			if len(args) > 1 {
				reason = args[1]
			}
			c.fail(fmt.Errorf("%w: %s", ErrDisconnected, reason))
		case "cs":
			if len(args) >= 2 {
				if i, err := strconv.Atoi(args[1]); err == nil && i >= 0 && i < msg.MaxConfigstrings {
					v := ""
					if len(args) > 2 {
						v = args[2]
					}
					c.st.Configstrings[i], c.st.ConfigstringSet[i] = v, true
				}
			}
		}
	}
}

// logMessage prints a server message like cl_shownet 2 (ioq3
// CL_ParseServerMessage's SHOWNET lines).
func (c *Client) logMessage(n int, m *msg.ServerMessage, err error) {
	w := c.cfg.Log
	fmt.Fprintf(w, "%d: seq %d reliableAck %d\n", n, m.Sequence, m.ReliableAck)
	for _, o := range m.Ops {
		switch o := o.(type) {
		case *msg.ServerCommand:
			fmt.Fprintf(w, "  svc_serverCommand %d %q\n", o.Seq, o.Text)
		case *msg.Gamestate:
			fmt.Fprintf(w, "  svc_gamestate commandSeq %d configstrings %d baselines %d clientNum %d\n",
				o.CommandSeq, len(o.Configstrings), len(o.Baselines), o.ClientNum)
		case *msg.Snapshot:
			fmt.Fprintf(w, "  svc_snapshot serverTime %d delta %d flags %#x entities %d valid %v\n",
				o.ServerTime, o.DeltaNum, o.Flags, len(o.Entities), o.Valid)
		default:
			fmt.Fprintf(w, "  %v\n", o.Op())
		}
	}
	if err != nil {
		fmt.Fprintf(w, "  ERROR %v\n", err)
	}
}
