package client

// Game messages (game.Message), both ways: the game's reliable, in-order
// messages riding the channel's reliable stream with the session's own
// (DOOM III §3; docs/PROTOCOL.md, "Game messages"). The client sends them
// with SendMessage and hands the server's to Config.OnMessage after each
// packet. The server is held to the same bounds as the client: a message
// over session.MaxGameMessageLen, or one that does not decode, ends the
// session with an error naming its type.

import (
	"fmt"
	"time"

	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/session"
)

// SendMessage sends game message m to the server: reliable and in order
// with every other message the client sends, in the next command packet
// and every one after until acknowledged. m's type must be registered
// (game.Registry.RegisterMessage) and its payload at most 1024 bytes; the
// server also limits how many a client sends (a burst, then a rate: by
// default 64, then 16 per second) and drops a client beyond them
// (ReasonMessageFlood).
//
// The queue is bounded: while the server has not acknowledged 8 KiB of
// reliable messages, SendMessage returns an error and does not send m;
// every message sent before still arrives. Like every Client method it
// runs on the goroutine that runs the client: from the game's code or
// Config.OnMessage, or through Runner.Do.
func (c *Client) SendMessage(m game.Message) error {
	if c.state != Connected {
		return ErrNotConnected
	}
	p, err := c.msgs.Encode(m, session.MaxGameMessageLen)
	if err != nil {
		return err
	}
	if n := c.ch.Stats().ReliableOutstanding; n+len(p) > session.MaxGameMessageQueue {
		return fmt.Errorf("client: the server has not acknowledged %d bytes of reliable messages (limit %d): game message not sent",
			n, session.MaxGameMessageQueue)
	}
	if err := c.ch.QueueReliable(p); err != nil {
		return fmt.Errorf("client: game message not sent: %w", err)
	}
	return nil
}

// clientMessages is the server's game messages the packet being handled
// delivered, kept in one arena until it is through.
type clientMessages struct {
	inbox []byte
	ends  []int
}

// receiveMessage keeps a game message the channel delivered; one larger
// than any server may send ends the session.
func (c *Client) receiveMessage(msg []byte) {
	if n := len(msg) - session.GameMessageHeaderLen; n > session.MaxGameMessageLen {
		c.fail(fmt.Errorf("%w: game message of %d bytes, limit %d", ErrProtocol, n, session.MaxGameMessageLen))
		return
	}
	in := &c.inMsgs
	in.inbox = append(in.inbox, msg...)
	in.ends = append(in.ends, len(in.inbox))
}

// deliverMessages hands the game messages the last packet delivered to
// Config.OnMessage, those before a disconnect in the same packet included.
// One that does not decode ends the session: the client tells the server
// it leaves, and Err names the message type.
func (c *Client) deliverMessages(now time.Duration) {
	in := &c.inMsgs
	state := c.state // Disconnected already if the packet ended the session
	start := 0
	for _, end := range in.ends {
		p := in.inbox[start:end]
		start = end
		m, _, err := c.msgs.Decode(p, session.MaxGameMessageLen)
		if err != nil {
			if c.state == Connected {
				c.Disconnect(now)
				c.fail(fmt.Errorf("%w: %w", ErrProtocol, err))
			}
			break
		}
		c.stats.GameMessages++
		if c.cfg.OnMessage != nil {
			c.cfg.OnMessage(m)
		}
		if c.state != state {
			break // the game disconnected
		}
	}
	in.inbox, in.ends = in.inbox[:0], in.ends[:0]
}
