package client

// The connectionless handshake (DOOM III §3; docs/PROTOCOL.md, "Session
// protocol"): getchallenge, challenge, connect (with a connect token when
// configured), accept or refuse, resent until answered or timed out.

import (
	crand "crypto/rand"
	"encoding/binary"
	"fmt"
	"net/netip"
	"time"

	"github.com/snapwire/snapwire/netchan"
	"github.com/snapwire/snapwire/proto"
)

// Connect starts the handshake with the server at addr (DOOM III §3;
// docs/PROTOCOL.md ("Session protocol")): getchallenge, challenge, connect, accept.
func (c *Client) Connect(now time.Duration, addr netip.AddrPort) {
	c.server = addr
	var nonce [8]byte
	if _, err := crand.Read(nonce[:]); err != nil {
		c.nonce = c.rng.Uint64()
	} else {
		c.nonce = binary.LittleEndian.Uint64(nonce[:])
	}
	c.state = Challenging
	c.tries = 0
	c.err = nil
	c.deadline = now + c.cfg.ConnectTimeout
	c.lastNow = now
	c.sendHandshake(now)
}

func (c *Client) sendOOB(payload []byte) {
	c.oob = netchan.AppendConnectionless(c.oob[:0], payload)
	c.send.Send(c.server, c.oob)
}

func (c *Client) sendHandshake(now time.Duration) {
	c.retryAt = now + c.cfg.ConnectRetry
	c.tries++
	switch c.state {
	case Challenging:
		c.sendOOB(proto.GetChallenge{Nonce: c.nonce}.Append(nil))
		if c.tries > 2 {
			// Two getchallenges unanswered (a second, by default):
			// perhaps a Quake 3 server, which ignores ours but answers
			// its own (Quake 3 protocol, connectionless "getchallenge";
			// ioq3 adds a client challenge) with "challengeResponse". A
			// snapwire server answers neither this nor anything but its
			// handshake here. Not sooner, so that a snapwire server
			// whose first answer was lost never sees the probe.
			c.sendOOB(fmt.Appendf(nil, "getchallenge %d", c.nonce&0x7fffffff))
		}
	case Connecting:
		m := proto.Connect{
			Nonce: c.nonce, Cookie: c.cookie, Version: proto.Version,
			RegistryHash: c.reg.Hash(), Password: c.cfg.Password, Name: c.cfg.Name,
		}
		if c.cfg.Token != nil {
			m.Token = c.cfg.Token.AppendPrivate(nil)
		}
		c.sendOOB(m.Append(nil))
	}
}

func (c *Client) handleConnectionless(now time.Duration, p []byte) {
	if c.state == Challenging || c.state == Connecting {
		if reply, ok := quake3Reply(p); ok {
			c.fail(&Quake3Error{Server: c.server, Reply: reply})
			return
		}
	}
	kind, ok := proto.ConnectionlessKind(p)
	if !ok {
		return
	}
	switch kind {
	case proto.KindChallenge:
		m, err := proto.ParseChallenge(p)
		if err != nil || m.Nonce != c.nonce || c.state != Challenging {
			return
		}
		c.cookie = m.Cookie
		c.state = Connecting
		c.tries = 0
		c.sendHandshake(now)
	case proto.KindAccept:
		m, err := proto.ParseAccept(p)
		if err != nil || m.Nonce != c.nonce || c.state != Connecting {
			return
		}
		c.me = m.Client
		c.frameDur = time.Duration(m.FrameDur) * time.Microsecond
		cfg := c.cfg.Channel
		if t := c.cfg.Token; t != nil {
			cfg.Keys = &netchan.Keys{Send: t.ClientToServerKey, Recv: t.ServerToClientKey}
		}
		c.ch = netchan.New(cfg, m.ConnID)
		c.state = Connected
		c.lastRecv = now
		c.nextSend = now
		if err := c.loadGame(m.GameID, m.Settings); err != nil {
			c.fail(err)
		}
	case proto.KindRefuse:
		m, err := proto.ParseRefuse(p)
		if err != nil || m.Nonce != c.nonce || (c.state != Connecting && c.state != Challenging) {
			return
		}
		c.fail(&RefusedError{Reason: m.Reason})
	}
}

// quake3Commands are the connectionless commands a Quake 3 server sends
// (Quake 3 protocol description; ioq3 sv_main.c, sv_client.c). Their
// first byte is a letter; a snapwire payload's is a small Kind.
var quake3Commands = [...]string{
	"challengeResponse", "connectResponse", "print", "disconnect",
	"infoResponse", "statusResponse", "getserversResponse", "getserversExtResponse",
}

// quake3Reply reports whether the connectionless payload p (after the
// 0xffffffff marker) is a Quake 3 server's command, and which.
func quake3Reply(p []byte) (string, bool) {
	for _, cmd := range quake3Commands {
		if len(p) >= len(cmd) && string(p[:len(cmd)]) == cmd &&
			(len(p) == len(cmd) || p[len(cmd)] <= ' ' || p[len(cmd)] == '\\') {
			return cmd, true
		}
	}
	return "", false
}
