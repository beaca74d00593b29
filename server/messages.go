package server

// Game messages (game.Message), both ways: the game's reliable, in-order
// messages riding the channel's reliable stream with the session's own
// (DOOM III §3: reliable messages are "sent with every unreliable message
// until acknowledged"; docs/PROTOCOL.md, "Game messages"). The server
// sends them with SendMessage and BroadcastMessage and hands a client's to
// Config.OnMessage. A client is held to Advanced's limits: a message
// larger than MaxGameMessageBytes, or more than GameMessageBurst at once
// and GameMessageRate per second after, drops it (ReasonMessageFlood).
// Its messages are checked as its packets arrive and handed to the game
// after each packet, so a flood costs the server one packet's work and no
// other client waits for it.

import (
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/ratelimit"
	"github.com/snapwire/snapwire/internal/session"
)

// Defaults and bounds of Advanced's game message limits.
const (
	defaultGameMessageBurst = 64
	defaultGameMessageRate  = 16
	maxGameMessageRate      = 1000 // the bucket counts in milliseconds
)

func (c *config) messageDefaults() {
	if c.MaxGameMessageBytes <= 0 || c.MaxGameMessageBytes > session.MaxGameMessageLen {
		c.MaxGameMessageBytes = session.MaxGameMessageLen
	}
	if c.GameMessageBurst <= 0 {
		c.GameMessageBurst = defaultGameMessageBurst
	}
	if c.GameMessageRate <= 0 {
		c.GameMessageRate = defaultGameMessageRate
	}
	c.GameMessageRate = min(c.GameMessageRate, maxGameMessageRate)
}

// newMessageBucket returns a client's game message bucket (Advanced).
func (c *config) newMessageBucket() *ratelimit.Bucket {
	return ratelimit.NewBucket(c.GameMessageBurst, time.Second/time.Duration(c.GameMessageRate))
}

// SendMessage sends game message m to client to: reliable and in order
// with every other message the server sends it, in the next packet to it
// and every one after until acknowledged. m's type must be registered
// (game.Registry.RegisterMessage) and its payload at most 1024 bytes.
// It returns ErrNoClient when no client is connected at to, or its slot is
// held for a resume (Advanced.ReconnectGrace): the resumed client starts
// afresh from the map base, as a joining one.
//
// The client's queue is bounded: while it has not acknowledged 8 KiB of
// reliable messages (it is slow, or its link is down), SendMessage
// returns an error and does not send m; the client stays connected and
// every message sent before arrives. A game that must not skip one can
// kick the client then. Like every Server method it runs on the goroutine
// that runs the server: from the game's code or Config.OnMessage, or
// through Runner.Do.
func (s *Server) SendMessage(to game.ClientNum, m game.Message) error {
	if int(to) >= len(s.slots) || s.slots[to] == nil || s.slots[to].reserve.reserved {
		return ErrNoClient
	}
	p, err := s.msgs.Encode(m, session.MaxGameMessageLen)
	if err != nil {
		return err
	}
	return s.slots[to].queueMessage(p)
}

// BroadcastMessage sends game message m to every connected client as
// SendMessage does; the error names the clients whose queue was full
// (each of the others gets m).
func (s *Server) BroadcastMessage(m game.Message) error {
	p, err := s.msgs.Encode(m, session.MaxGameMessageLen)
	if err != nil {
		return err
	}
	var errs []error
	for _, c := range s.slots {
		if c != nil && !c.reserve.reserved {
			if err := c.queueMessage(p); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// queueMessage queues an encoded game message when the client's
// outstanding reliable bytes leave room for it (session.MaxGameMessageQueue).
func (c *client) queueMessage(p []byte) error {
	if n := c.ch.Stats().ReliableOutstanding; n+len(p) > session.MaxGameMessageQueue {
		c.stats.GameMessagesRefused++
		return fmt.Errorf("server: client %d has not acknowledged %d bytes of reliable messages (limit %d): game message not sent",
			c.num, n, session.MaxGameMessageQueue)
	}
	if err := c.ch.QueueReliable(p); err != nil {
		c.stats.GameMessagesRefused++
		return fmt.Errorf("server: client %d: game message not sent: %w", c.num, err)
	}
	c.stats.GameMessagesOut++
	return nil
}

// clientMessages is a client's incoming game messages: those the packet
// being handled delivered, kept until it is through (inbox, one arena),
// and the limits' state.
type clientMessages struct {
	bucket *ratelimit.Bucket
	inbox  []byte
	ends   []int
	// flood is why the client broke Advanced's limits ("": it did not).
	flood string
}

// receiveMessage checks a game message the channel delivered at now
// against the limits and keeps it for deliverMessages. A message beyond
// them marks the client as flooding, and every later one of the packet is
// ignored.
func (c *client) receiveMessage(now time.Duration, msg []byte) {
	in := &c.inMsgs
	if in.flood != "" {
		return
	}
	cfg := &c.s.cfg
	if n := len(msg) - session.GameMessageHeaderLen; n > cfg.MaxGameMessageBytes {
		in.flood = fmt.Sprintf("game message of %d bytes, limit %d", n, cfg.MaxGameMessageBytes)
		return
	}
	if !in.bucket.Allow(now) {
		in.flood = fmt.Sprintf("more than %d game messages at once or %d per second", cfg.GameMessageBurst, cfg.GameMessageRate)
		return
	}
	in.inbox = append(in.inbox, msg...)
	in.ends = append(in.ends, len(in.inbox))
}

// deliverMessages hands the game messages the last packet delivered to
// Config.OnMessage, then drops the client if it broke a limit (a message
// that does not decode breaks the protocol).
func (c *client) deliverMessages() {
	in := &c.inMsgs
	if len(in.ends) == 0 && in.flood == "" {
		return
	}
	s := c.s
	start := 0
	for _, end := range in.ends {
		p := in.inbox[start:end]
		start = end
		m, _, err := s.msgs.Decode(p, s.cfg.MaxGameMessageBytes)
		if err != nil {
			in.inbox, in.ends = in.inbox[:0], in.ends[:0]
			s.logEvent(slog.LevelWarn, "bad game message", slog.Int("client", int(c.num)), slog.String("error", err.Error()))
			s.drop(c, session.ReasonProtocolError, true)
			return
		}
		c.stats.GameMessagesIn++
		if s.cfg.OnMessage != nil {
			s.cfg.OnMessage(c.num, m)
		}
		if s.slots[c.num] != c {
			break // the game kicked it
		}
	}
	in.inbox, in.ends = in.inbox[:0], in.ends[:0]
	if in.flood != "" && s.slots[c.num] == c {
		s.logEvent(slog.LevelWarn, "message flood", slog.Int("client", int(c.num)), slog.String("addr", c.addr.String()),
			slog.String("limit", in.flood))
		s.drop(c, session.ReasonMessageFlood, true)
	}
}
