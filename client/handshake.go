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

	"github.com/snapwire/snapwire/internal/netchan"
	"github.com/snapwire/snapwire/internal/session"
	"github.com/snapwire/snapwire/internal/tokenwire"
)

// Connect starts the handshake with the server at addr (DOOM III §3;
// docs/PROTOCOL.md ("Session protocol")): getchallenge, challenge, connect, accept.
func (c *Client) Connect(now time.Duration, addr netip.AddrPort) {
	c.server = addr
	// The nonce comes from crypto/rand, so an off-path attacker cannot
	// guess it and forge an answer (crypto/rand.Read does not fail).
	var nonce [8]byte
	_, _ = crand.Read(nonce[:])
	c.nonce = binary.LittleEndian.Uint64(nonce[:])
	c.state = Challenging
	c.tries = 0
	c.err = nil
	c.refusal, c.lasting, c.believeAt, c.quake3 = session.ReasonNone, session.ReasonNone, 0, ""
	c.lastingDetail = ""
	c.deadline = now + c.cfg.ConnectTimeout
	c.lastNow = now
	c.sendHandshake(now)
}

func (c *Client) sendOOB(payload []byte) {
	c.oob = netchan.AppendConnectionless(c.oob[:0], payload)
	c.send.Send(c.server, c.oob)
}

func (c *Client) sendHandshake(now time.Duration) {
	c.retryAt = now + c.cfg.hooks.ConnectRetry
	c.tries++
	switch c.state {
	case Challenging:
		c.sendOOB(session.GetChallenge{Nonce: c.nonce}.Append(nil))
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
		m := session.Connect{
			Nonce: c.nonce, Cookie: c.cookie, Version: session.Version,
			RegistryHash: c.reg.Hash(), Password: c.cfg.Password, Name: c.cfg.Name,
			Match: c.cfg.Match, // sent with a token too: the server decides (docs/PROTOCOL.md, "Matches")
		}
		if c.cfg.Token != nil {
			tok := tokenwire.Of(c.cfg.Token)
			m.Token = tok.AppendPrivate(nil)
			// A server where the token already opened a session resumes
			// it only for the holder of its key (docs/PROTOCOL.md,
			// "Reconnection").
			m.Proof = tokenwire.ResumeProof(&tok.ClientToServerKey, c.nonce, c.cookie)
		}
		c.sendOOB(m.Append(nil))
	}
}

func (c *Client) handleConnectionless(now time.Duration, p []byte) {
	if c.state == Challenging || c.state == Connecting {
		if reply, ok := quake3Reply(p); ok {
			// Unauthenticated, like a plain refuse: a client with a
			// token believes it only if no sealed answer comes within
			// ConnectRetry, so an off-path spoofer cannot end its
			// handshake with a forged Quake 3 packet.
			if c.cfg.Token == nil {
				c.fail(&Quake3Error{Server: c.server, Reply: reply})
			} else if c.believeAt == 0 {
				c.quake3 = reply
				c.believeAt = min(now+c.cfg.hooks.ConnectRetry, c.deadline)
			}
			return
		}
	}
	kind, ok := session.ConnectionlessKind(p)
	if !ok {
		return
	}
	switch kind {
	case session.KindChallenge:
		m, err := session.ParseChallenge(p)
		if err != nil || m.Nonce != c.nonce || c.state != Challenging {
			return
		}
		c.cookie = m.Cookie
		c.state = Connecting
		c.tries = 0
		c.sendHandshake(now)
	case session.KindAccept:
		if c.cfg.Token != nil {
			return // a client with a token takes only a sealed accept
		}
		m, err := session.ParseAccept(p)
		if err != nil || m.Nonce != c.nonce || (c.state != Connecting && c.state != Challenging) {
			return
		}
		c.accepted(now, m, nil)
	case session.KindSealedAccept:
		t := tokenwire.Of(c.cfg.Token)
		if n, ok := session.SealedAcceptNonce(p); t == nil || !ok || n != c.nonce || (c.state != Connecting && c.state != Challenging) {
			return
		}
		m, err := session.OpenSealedAccept(p, &t.ServerToClientKey)
		if err != nil {
			c.stats.HandshakeAuthFailures++
			return
		}
		c2s, s2c := tokenwire.SessionKeys(&t.ClientToServerKey, &t.ServerToClientKey, &m.Random, c.nonce)
		c.accepted(now, m.Accept, &netchan.Keys{Send: c2s, Recv: s2c})
	case session.KindRefuse:
		m, err := session.ParseRefuse(p)
		if err != nil || m.Nonce != c.nonce || (c.state != Connecting && c.state != Challenging) {
			return
		}
		c.refused(now, m, false)
	case session.KindSealedRefuse:
		t := tokenwire.Of(c.cfg.Token)
		if t == nil || (c.state != Connecting && c.state != Challenging) {
			return
		}
		m, err := session.OpenSealedRefuse(p, &t.ServerToClientKey)
		if err != nil {
			c.stats.HandshakeAuthFailures++
			return
		}
		if m.Nonce == c.nonce {
			c.refused(now, m, true)
		}
	}
}

// accepted opens the session the server admitted, with the session keys
// of a sealed accept (nil: insecure).
func (c *Client) accepted(now time.Duration, m session.Accept, keys *netchan.Keys) {
	c.me = m.Client
	c.frameDur = time.Duration(m.FrameDur) * time.Microsecond
	cfg := c.cfg.hooks.Channel
	cfg.Keys = keys
	c.ch = netchan.New(cfg, m.ConnID)
	c.state = Connected
	c.refusal, c.lasting, c.believeAt, c.quake3 = session.ReasonNone, session.ReasonNone, 0, ""
	c.pathDue = false
	c.lastRecv = now
	c.nextSend = now
	if err := c.loadGame(m.GameID, m.Settings); err != nil {
		c.fail(err)
	}
}

// transient reports whether a refusal may go away by itself within a
// connect timeout, so the client tries again: a slot may free, an
// address's attempt budget refills with the next cookie lifetime, and an
// expired cookie is replaced by a new challenge.
func transient(why session.Reason) bool {
	switch why {
	case session.ReasonServerFull, session.ReasonTooManyAttempts, session.ReasonTooManyFromIP, session.ReasonBadCookie:
		return true
	}
	return false
}

// refused takes a refusal of this handshake. A transient one makes the
// client try again (a new challenge for a bad cookie, the same connect
// otherwise) until the connect timeout, which then reports it. A lasting
// one sealed with the token's key (sealed) is believed at once. A plain
// refuse carries no authentication, so anyone who sees the connect can
// forge one: a client with a token believes a lasting one only after
// ConnectRetry (or at the connect timeout, if sooner) without an
// authenticated accept: a forged refuse races the server's answer to the
// same connect, which arrives within a round trip. A client without a
// token has nothing authenticated to wait for and believes it at once.
// A wrong registry's refusal names what differs from the server's registry
// digest, in the client's own names (session.ExplainRegistry): a forged
// digest can change which of them, not add words of its own.
func (c *Client) refused(now time.Duration, m session.Refuse, sealed bool) {
	c.stats.Refusals++
	why := m.Reason
	c.refusal = why
	detail := ""
	if why == session.ReasonWrongRegistry {
		detail, _ = session.ExplainRegistry(c.reg, []byte(m.Digest))
	}
	switch {
	case transient(why):
		if why == session.ReasonBadCookie {
			c.state = Challenging
		}
		c.retryAt = max(c.retryAt, now+2*c.cfg.hooks.ConnectRetry)
	case c.cfg.Token == nil || sealed:
		c.fail(&RefusedError{Reason: Reason(why), Detail: detail})
	case c.believeAt == 0:
		c.lasting, c.lastingDetail = why, detail
		c.believeAt = min(now+c.cfg.hooks.ConnectRetry, c.deadline)
		c.retryAt = max(c.retryAt, c.believeAt) // the accept, if any, is on its way
	}
}

// handshakeTimers gives up at the connect timeout (with the last
// refusal's reason, if any), believes a lasting refusal at believeAt, and
// resends at retryAt.
func (c *Client) handshakeTimers(now time.Duration) {
	switch {
	case now >= c.deadline && c.refusal != session.ReasonNone:
		c.fail(c.lastRefusal())
	case (now >= c.deadline || (c.believeAt != 0 && now >= c.believeAt)) && c.quake3 != "" && c.lasting == session.ReasonNone:
		c.fail(&Quake3Error{Server: c.server, Reply: c.quake3})
	case now >= c.deadline:
		c.fail(&NoAnswerError{Server: c.server, After: c.cfg.ConnectTimeout, State: c.state})
	case c.believeAt != 0 && now >= c.believeAt:
		c.fail(&RefusedError{Reason: Reason(c.lasting), Detail: c.lastingDetail})
	case now >= c.retryAt:
		c.sendHandshake(now)
	}
}

// lastRefusal is the error for the last refusal at the connect timeout,
// with the lasting refusal's detail if that is the one.
func (c *Client) lastRefusal() *RefusedError {
	if c.refusal == c.lasting {
		return &RefusedError{Reason: Reason(c.refusal), Detail: c.lastingDetail}
	}
	return &RefusedError{Reason: Reason(c.refusal)}
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
