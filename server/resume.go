package server

// Reconnection (issue 25 part 3; docs/PROTOCOL.md, "Reconnection"): a
// secure session that falls silent keeps its slot, its player entity and
// its score for Advanced.ReconnectGrace; a connect with the same connect
// token and a resume proof takes the slot back in a new session that
// starts from the map base, as a joining client does (DOOM III §4.2), and
// the game is not told (no ClientDisconnected, no ClientConnected). After
// the grace the slot frees and the game's ClientDisconnected runs then.

import (
	"crypto/hmac"
	"log/slog"
	"math"
	"net/netip"
	"time"

	"github.com/snapwire/snapwire/internal/netchan"
	"github.com/snapwire/snapwire/internal/session"
	"github.com/snapwire/snapwire/internal/tokenwire"
)

// defaultReconnectGrace is Advanced.ReconnectGrace's default.
const defaultReconnectGrace = 20 * time.Second

// reservation is a secure client's standing for a resume: the MAC of the
// token that opened its session (what a resume must carry), and whether
// its slot is held for a silent session, until when.
type reservation struct {
	mac      [16]byte
	reserved bool
	until    time.Duration
}

// resumeNonces is how many resume nonces a token remembers (tokenUse):
// every nonce whose cookie is still valid, so no resume connect can be
// replayed (a cookie is accepted in its bucket and the next, so a nonce
// used in server bucket b can come again until bucket b+1).
const resumeNonces = 4

type resumeNonce struct {
	nonce  uint64
	bucket int64
	set    bool
}

// resumeNonceFree reports whether nonce may resume e's session at server
// bucket b, and the entry of e.resumed it may take: a nonce never used
// with the token while a cookie could carry it, in an entry whose nonce
// no valid cookie can carry any more. ok is false for a nonce used
// (replay), free is -1 when every entry is still needed (more than
// resumeNonces resumes in two cookie lifetimes).
func (e *tokenUse) resumeNonceFree(nonce uint64, b int64) (free int, ok bool) {
	if nonce == e.nonce {
		return -1, false
	}
	free = -1
	for i, r := range e.resumed {
		switch {
		case r.set && r.nonce == nonce:
			return -1, false
		case !r.set || r.bucket < b-1:
			if free < 0 {
				free = i
			}
		}
	}
	return free, true
}

// reconnectGrace is Advanced.ReconnectGrace resolved: 0 when off (an
// insecure server, or a negative setting).
func (s *Server) reconnectGrace() time.Duration {
	if s.opener == nil || s.cfg.ReconnectGrace < 0 {
		return 0
	}
	if s.cfg.ReconnectGrace == 0 {
		return defaultReconnectGrace
	}
	return s.cfg.ReconnectGrace
}

// silent handles client c, silent for its timeout at now: a secure client
// is reserved for the grace period, then dropped; an insecure one is
// dropped at once.
func (s *Server) silent(now time.Duration, c *client) {
	switch {
	case c.reserve.reserved && now < c.reserve.until:
		return
	case !c.reserve.reserved && s.reconnectGrace() > 0 && c.stats.Secure:
		s.reserveSlot(now, c)
		s.logEvent(slog.LevelInfo, "slot reserved", slog.Int("client", int(c.num)), slog.String("name", c.name),
			slog.String("addr", c.addr.String()), slog.Duration("grace", s.reconnectGrace()))
		return
	}
	s.stats.Timeouts++
	s.drop(c, session.ReasonTimeout, false)
}

// reserveSlot ends c's connection and holds its slot until now plus the
// grace period: its packets are no longer taken (its connection id is
// forgotten), it is sent nothing, its player runs with an empty command
// and its base holds no entity number back (recycle.go).
func (s *Server) reserveSlot(now time.Duration, c *client) {
	if s.byID[c.id] == c {
		delete(s.byID, c.id)
	}
	c.reserve.reserved = true
	c.reserve.until = now + s.reconnectGrace()
	c.leaveGame()
	c.evCursor = math.MaxUint64 // it holds no unreliable event back (events.go)
	s.stats.Reservations++
	s.stats.Reserved++
}

// reservedFor returns the client whose session the token with mac opened,
// or nil.
func (s *Server) reservedFor(mac [16]byte) *client {
	for _, c := range s.slots {
		if c != nil && c.stats.Secure && c.reserve.mac == mac {
			return c
		}
	}
	return nil
}

// resume handles a connect whose token already opened a session on this
// server, and reports whether it did (false: the connect is a first one,
// handled as before). The connect must carry the token's resume proof for
// its own nonce and cookie and a nonce never used with the token; then
// the token's live or reserved session ends and a new one takes its slot.
// Anything else is refused as a reused token (16), as before resumes.
func (s *Server) resume(now time.Duration, from netip.AddrPort, m session.Connect) bool {
	if s.reconnectGrace() == 0 || len(m.Token) < 16 {
		return false
	}
	var mac [16]byte
	copy(mac[:], m.Token[len(m.Token)-16:]) // the sealed part's tag (tokenwire.Private.MAC)
	e, ok := s.usedTokens.m[mac]
	if !ok || !e.opened {
		return false
	}
	p, err := s.opener.Open(m.Token, s.cfg.WallClock())
	if err != nil {
		s.stats.TokensRefused++
		s.refuse(from, m.Nonce, tokenRefusal(err))
		return true
	}
	key := &p.ServerToClientKey
	bucket := s.bucket(now)
	proof := tokenwire.ResumeProof(&p.ClientToServerKey, m.Nonce, m.Cookie)
	free, fresh := e.resumeNonceFree(m.Nonce, bucket)
	old := s.reservedFor(mac)
	switch {
	case !hmac.Equal(proof[:], m.Proof[:]) || !fresh || old == nil:
		s.stats.TokensRefused++
		s.refuseKey(from, m.Nonce, session.ReasonTokenReused, key)
		return true
	case free < 0:
		s.stats.Throttled++
		s.refuseKey(from, m.Nonce, session.ReasonTooManyAttempts, key)
		return true
	}
	// The holder of the token's key says its session is gone (a restarted
	// process, a new network): hold the slot for it.
	if !old.reserve.reserved {
		s.reserveSlot(now, old)
	}
	s.resuming = old
	ok = s.admissible(from, m, bucket, key)
	s.resuming = nil
	if !ok {
		return true
	}
	e.resumed[free] = resumeNonce{nonce: m.Nonce, bucket: bucket, set: true}
	s.usedTokens.m[mac] = e
	s.resumeSlot(now, from, m, p, old)
	return true
}

// resumeSlot gives old's slot to a new session for the connect m, without
// telling the game, and answers with the accept.
func (s *Server) resumeSlot(now time.Duration, from netip.AddrPort, m session.Connect, p *tokenwire.Private, old *client) {
	var id netchan.ConnID
	for id == 0 || s.byID[id] != nil {
		id = netchan.ConnID(s.ids.Uint32())
	}
	s.stats.Reserved--
	s.stats.Resumes++
	s.departed.add(old)
	c := newClient(s, old.num, id, from, m, now, p)
	s.perIP.remove(old.addr.Addr()) // the slot's count moves to its new address
	s.perIP.add(from.Addr())
	s.slots[c.num] = c
	s.byID[id] = c
	s.snapCache.Invalidate()
	s.logEvent(slog.LevelInfo, "resume", slog.Int("client", int(c.num)), slog.String("name", c.name),
		slog.String("addr", from.String()), slog.Int("conn", int(id)),
		slog.Duration("reserved_for", max(0, now-(old.reserve.until-s.reconnectGrace()))))
	c.enterGame()
	if s.slots[c.num] != c {
		return // its reliable queue could not take the saved events (admit)
	}
	s.sendOOB(from, s.accept(c))
}
