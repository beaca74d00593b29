package client

// The session once connected: the channel's reliable messages (apply S,
// events, disconnect) and unreliable ones (load game, snapshots), game
// loads with the common base initialised from the map (DOOM III §3.1,
// §4.2, §5, §8), and events handed to their entities.

import (
	"fmt"
	"time"

	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/events"
	"github.com/snapwire/snapwire/internal/netchan"
	"github.com/snapwire/snapwire/internal/session"
	"github.com/snapwire/snapwire/internal/snapshot"
)

// Game reloads a server may ask for: at most maxLoads per loadWindow.
const (
	maxLoads   = 8
	loadWindow = 10 * time.Second
)

// loadGame loads the game the server names and initialises the common
// base from the map right after loading (DOOM III §8), as the server did.
func (c *Client) loadGame(id game.GameID, settings string) error {
	if err := c.g.Load(settings); err != nil {
		return fmt.Errorf("client: load %q: %w", settings, err)
	}
	dec, err := snapshot.NewDecoder(c.reg)
	if err != nil {
		return err
	}
	if err := dec.Base().Init(c.g, nil); err != nil {
		return err
	}
	c.stats.LoadGames++
	c.dec = dec
	c.lastApply = 0 // the server resets its own when the client enters the game
	c.gameID, c.settings = id, settings
	c.clockSet, c.haveSnap = false, false
	c.cf, c.snapSeq, c.snapFrame = 0, 0, 0
	c.cmds = [cmdRing]ownCmd{}
	c.lastCmd = game.UserCmd{}
	c.firstCmd = 0
	c.leads = c.leads[:0]
	c.others = c.others[:0]
	c.pvs.Clear()
	*c.dormant = [game.MaxEntities]dormant{}
	clear(c.interp)
	c.offsets.reset()
	c.sentN = 0
	c.knownArrived, c.lastSentLast = 0, 0
	for i := range c.preds {
		c.preds[i].frame = -1
	}
	if c.cfg.hooks.TargetLead > 0 {
		c.target = c.cfg.hooks.TargetLead
	} else {
		c.target = c.frameDur
	}
	return nil
}

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
		if c.dec == nil {
			return
		}
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
		if c.cfg.hooks.OnApply != nil {
			c.cfg.hooks.OnApply(m.Seq, c.dec.Base())
		}
	case session.RelEvents:
		id, n, body, err := session.ParseEventsHeader(msg)
		if err != nil || id != c.gameID {
			return
		}
		c.r.Reset(body, len(body)*8)
		for range n {
			ev := &c.relEv
			*ev = game.Event{}
			if events.Read(&c.r, ev, c.evbuf[:]) != nil {
				return
			}
			ev.Reliable = true
			c.stats.ReliableEvents++
			c.deliver(ev, true)
		}
	case session.RelGameMessage:
		if c.state == Connected {
			c.receiveMessage(msg)
		}
	case session.RelDisconnect:
		m, err := session.ParseDisconnect(msg)
		if err != nil {
			m.Reason = session.ReasonProtocolError
		}
		c.fail(&RefusedError{Reason: Reason(m.Reason)})
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
		// Echoed once the packet is through (HandlePacket), whatever the
		// game id: the server is validating the address it reached us at.
		if v, err := session.ParsePathChallenge(body); err == nil {
			c.pathChallenge, c.pathDue = v, true
		}
	case session.TypeLoadGame:
		settings, err := session.ParseLoadGame(body)
		if err != nil || id == c.gameID {
			return
		}
		// Loading a game is costly: a server asking for one after another
		// is hostile or broken.
		if c.lastNow-c.loadsStart > loadWindow {
			c.loadsStart, c.loads = c.lastNow, 0
		}
		if c.loads++; c.loads > maxLoads {
			c.fail(fmt.Errorf("%w: %d game loads within %v", ErrProtocol, c.loads, loadWindow))
			return
		}
		if err := c.loadGame(id, settings); err != nil {
			c.fail(err)
		}
	case session.TypeSnapshot:
		if id != c.gameID || c.dec == nil {
			c.stats.WrongGame++
			return
		}
		if c.cfg.hooks.OnSnapshotData != nil {
			c.cfg.hooks.OnSnapshotData(body, c.dec.Base())
		}
		c.stats.SnapshotBytes += uint64(len(body))
		c.r.Reset(body, len(body)*8)
		if err := c.dec.Decode(&c.r, &c.snap); err != nil {
			c.stats.DecodeErrors++
			if ce := codecMismatch(err); ce != nil {
				c.fail(ce)
			}
			return
		}
		c.onSnapshot(c.lastNow)
	}
}

// deliver passes an event to its entity (in the world, or dormant).
func (c *Client) deliver(ev *game.Event, reliable bool) {
	if c.cfg.hooks.OnEvent != nil {
		c.cfg.hooks.OnEvent(ev, reliable)
	}
	e, _, _ := c.Entity(ev.Entity)
	if rcv, ok := e.(game.EventReceiver); ok {
		ev.Payload(&c.evr)
		rcv.ReceiveEvent(ev.ID, ev.Frame, &c.evr)
	}
}
