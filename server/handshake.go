package server

// The connectionless handshake (docs/PROTOCOL.md, "Session protocol"):
// stateless challenge cookies, getchallenge, connect with or without a
// connect token, refusals, and the accept that creates a client.

import (
	"crypto/hmac"
	crand "crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"log/slog"
	"net/netip"
	"time"

	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/netchan"
	"github.com/snapwire/snapwire/internal/session"
	"github.com/snapwire/snapwire/internal/tokenwire"
)

// cookie computes the stateless challenge cookie for addr in time bucket
// b: HMAC-SHA256(secret, addr 16 bytes | port 2 | bucket 8) truncated to
// 16 bytes.
func (s *Server) cookie(addr netip.AddrPort, b int64) session.Cookie {
	m := hmac.New(sha256.New, s.cfg.Secret)
	var buf [26]byte
	a := addr.Addr().As16()
	copy(buf[:16], a[:])
	binary.LittleEndian.PutUint16(buf[16:], addr.Port())
	binary.LittleEndian.PutUint64(buf[18:], uint64(b))
	m.Write(buf[:])
	var c session.Cookie
	copy(c[:], m.Sum(nil))
	return c
}

func (s *Server) bucket(now time.Duration) int64 { return int64(now / s.cfg.CookieLifetime) }

func (s *Server) cookieValid(now time.Duration, addr netip.AddrPort, c session.Cookie) bool {
	b := s.bucket(now)
	for _, k := range [2]int64{b, b - 1} {
		want := s.cookie(addr, k)
		if hmac.Equal(want[:], c[:]) {
			return true
		}
	}
	return false
}

// sendOOB sends a connectionless packet (0xFFFFFFFF, then payload) to to
// through the server's Sender (serverhook.SendConnectionless, for a Quake
// 3 master heartbeat).
func (s *Server) sendOOB(to netip.AddrPort, payload []byte) {
	s.oob = netchan.AppendConnectionless(s.oob[:0], payload)
	s.send.Send(to, s.oob)
}

// handleConnectionless answers the handshake. Nothing is stored for an
// address until its connect carries a valid cookie, which proves the
// sender receives at that address.
func (s *Server) handleConnectionless(now time.Duration, from netip.AddrPort, p []byte) {
	if !session.IsHandshake(p) {
		if len(p) > 0 && s.cfg.OnConnectionless != nil {
			s.stats.Queries++
			s.replyTo = from
			s.cfg.OnConnectionless(now, from, p, s.replyFn)
		}
		return
	}
	kind, _ := session.ConnectionlessKind(p)
	switch kind {
	case session.KindGetChallenge:
		m, err := session.ParseGetChallenge(p)
		if err != nil {
			return
		}
		s.stats.Challenges++
		s.sendOOB(from, session.Challenge{Nonce: m.Nonce, Cookie: s.cookie(from, s.bucket(now))}.Append(nil))
	case session.KindConnect:
		m, err := session.ParseConnect(p)
		if err != nil {
			return
		}
		s.connect(now, from, m)
	}
}

func (s *Server) refuse(to netip.AddrPort, nonce uint64, why session.Reason) {
	s.stats.Refused++
	s.logRefusal(to, why)
	// The client names the reason itself (session.Reason.String); no text,
	// so a refusal is a few bytes whatever the reason, and at most
	// session.MaxRegistryDigestLen more for a wrong registry.
	s.sendOOB(to, s.refusal(nonce, why).Append(nil))
}

// refusal is the refuse message for why: for a wrong registry it carries
// the server's registry digest, from which the client names the entity
// type and field that differ (session.ExplainRegistry). Reason 3 is checked
// after the cookie (and on a secure server the token), so the digest goes
// only to an address that proved it receives there, and the connect it
// answers is larger.
func (s *Server) refusal(nonce uint64, why session.Reason) session.Refuse {
	m := session.Refuse{Nonce: nonce, Reason: why}
	if why == session.ReasonWrongRegistry {
		m.Digest = s.regDigest
	}
	return m
}

// refuseKey refuses a connect, sealed with key (a token's server→client
// key) when it is not nil.
func (s *Server) refuseKey(to netip.AddrPort, nonce uint64, why session.Reason, key *[tokenwire.KeyLen]byte) {
	if key == nil {
		s.refuse(to, nonce, why)
		return
	}
	s.stats.Refused++
	s.logRefusal(to, why)
	var xn [session.XNonceLen]byte
	crand.Read(xn[:])
	s.sendOOB(to, s.refusal(nonce, why).AppendSealed(nil, key, &xn))
}

// tokenRefusal maps an error of tokenwire.Opener.Open to the reason sent.
func tokenRefusal(err error) session.Reason {
	switch {
	case errors.Is(err, tokenwire.ErrExpired):
		return session.ReasonTokenExpired
	case errors.Is(err, tokenwire.ErrNotYetValid):
		return session.ReasonTokenNotYetValid
	case errors.Is(err, tokenwire.ErrWrongProtocol):
		return session.ReasonTokenWrongProto
	case errors.Is(err, tokenwire.ErrWrongServer):
		return session.ReasonTokenWrongServer
	default:
		return session.ReasonTokenInvalid
	}
}

// connect handles a connect request. Its cookie proves the source
// receives at its address before anything is stored for it; the request
// is padded (session.ConnectLen) above the size of any answer.
func (s *Server) connect(now time.Duration, from netip.AddrPort, m session.Connect) {
	if !s.cookieValid(now, from, m.Cookie) {
		s.stats.BadCookies++
		s.refuse(from, m.Nonce, session.ReasonBadCookie)
		return
	}
	// A repeated connect (the accept was lost): answer again.
	for _, c := range s.slots {
		if c != nil && !c.reserve.reserved && c.connAddr == from && c.nonce == m.Nonce {
			s.sendOOB(from, s.accept(c))
			return
		}
	}
	if s.resume(now, from, m) {
		return
	}
	bucket := s.bucket(now)
	priv, key, ok := s.authorise(from, m, bucket)
	if !ok || !s.admissible(from, m, bucket, key) {
		return
	}
	s.admit(now, from, m, priv, key)
}

// authorise checks what allows the sender to connect, refusing it
// otherwise: on a secure server its token (returned opened, with its
// server→client key), on an insecure one its count of connects. Nothing
// is counted or stored before the sender is authorised: on a secure
// server by its token, on an insecure one by its cookie, and then per IP
// address in a table that never refuses another address (guard.go). A
// host with thousands of ports cannot lock others out.
func (s *Server) authorise(from netip.AddrPort, m session.Connect, bucket int64) (*tokenwire.Private, *[tokenwire.KeyLen]byte, bool) {
	if s.opener == nil {
		if len(m.Token) > 0 {
			s.refuse(from, m.Nonce, session.ReasonTokenUnsupported)
			return nil, nil, false
		}
		if m.Match != s.match {
			s.refuse(from, m.Nonce, session.ReasonNoSuchMatch)
			return nil, nil, false
		}
		if s.connects.count(from.Addr(), bucket) >= s.cfg.MaxConnectAttempts {
			s.stats.Throttled++
			s.refuse(from, m.Nonce, session.ReasonTooManyAttempts)
			return nil, nil, false
		}
		s.connects.add(from.Addr(), bucket)
		return nil, nil, true
	}
	if len(m.Token) == 0 {
		s.stats.TokensRefused++
		s.refuse(from, m.Nonce, session.ReasonTokenRequired)
		return nil, nil, false
	}
	p, err := s.opener.Open(m.Token, s.cfg.WallClock())
	if err != nil {
		s.stats.TokensRefused++
		s.refuse(from, m.Nonce, tokenRefusal(err))
		return nil, nil, false
	}
	// From here on a refusal is sealed with the token's key, so its
	// holder can believe it at once (session.KindSealedRefuse).
	key := &p.ServerToClientKey
	// A token joins the match it names (Host): another match refuses it
	// before the token is bound to anything here.
	if p.Match != s.match {
		s.stats.TokensRefused++
		s.refuseKey(from, m.Nonce, session.ReasonNoSuchMatch, key)
		return nil, nil, false
	}
	// A token binds to the first address that uses it, and serves one
	// session (the same request again is answered by connect).
	if why := s.usedTokens.use(p.MAC, from, m.Nonce, p.Expires); why != session.ReasonNone {
		s.stats.TokensRefused++
		s.refuseKey(from, m.Nonce, why, key)
		return nil, nil, false
	}
	return p, key, true
}

// admissible applies the per-address limits and checks the request's
// version, registry and password, refusing it (sealed with key, if set)
// when one fails.
func (s *Server) admissible(from netip.AddrPort, m session.Connect, bucket int64, key *[tokenwire.KeyLen]byte) bool {
	// Per IP address, secure or not: tokens handed to anyone who asks
	// (serve --web-tokens) must not let one host take every slot.
	// A held slot counts against its address, but not the one this
	// connect resumes (server/resume.go).
	n := s.perIP[from.Addr()]
	if s.resuming != nil && s.resuming.addr.Addr() == from.Addr() {
		n--
	}
	if n >= s.cfg.MaxClientsPerIP {
		s.stats.Throttled++
		s.refuseKey(from, m.Nonce, session.ReasonTooManyFromIP, key)
		return false
	}
	if s.cfg.Password != "" && s.pwFails.count(from.Addr(), bucket) >= s.cfg.MaxPasswordFailures {
		s.stats.Throttled++
		s.refuseKey(from, m.Nonce, session.ReasonTooManyAttempts, key)
		return false
	}
	switch {
	case m.Version != session.Version:
		s.refuseKey(from, m.Nonce, session.ReasonWrongVersion, key)
		return false
	case m.RegistryHash != s.reg.Hash():
		s.refuseKey(from, m.Nonce, session.ReasonWrongRegistry, key)
		return false
	case s.cfg.Password != "" && !hmac.Equal([]byte(m.Password), []byte(s.cfg.Password)):
		s.pwFails.add(from.Addr(), bucket)
		s.refuseKey(from, m.Nonce, session.ReasonWrongPassword, key)
		return false
	}
	return true
}

// admit gives the authorised request a free slot and a connection id,
// enters it in the game and answers with the accept, or refuses it
// (server full) when no slot is free.
func (s *Server) admit(now time.Duration, from netip.AddrPort, m session.Connect, priv *tokenwire.Private, key *[tokenwire.KeyLen]byte) {
	slot := -1
	for i, c := range s.slots {
		if c == nil {
			slot = i
			break
		}
	}
	if slot < 0 {
		s.refuseKey(from, m.Nonce, session.ReasonServerFull, key)
		return
	}
	var id netchan.ConnID
	for id == 0 || s.byID[id] != nil {
		id = netchan.ConnID(s.ids.Uint32())
	}
	c := newClient(s, game.ClientNum(slot), id, from, m, now, priv)
	s.snapCache.Invalidate()
	if err := s.g.ClientConnected(c.num); err != nil {
		s.refuseKey(from, m.Nonce, session.ReasonServerFull, key)
		return
	}
	s.slots[slot] = c
	s.byID[id] = c
	s.perIP.add(c.addr.Addr())
	if priv != nil {
		s.usedTokens.opened(priv.MAC) // its one session
	}
	s.stats.Connects++
	s.logEvent(slog.LevelInfo, "connect", slog.Int("client", slot), slog.String("name", c.name),
		slog.String("addr", from.String()), slog.Int("conn", int(id)), slog.Bool("secure", priv != nil))
	c.enterGame()
	if s.slots[slot] != c {
		// The saved events did not fit in its reliable queue
		// (Advanced.MaxSavedEvents).
		s.refuseKey(from, m.Nonce, session.ReasonProtocolError, key)
		return
	}
	s.sendOOB(from, s.accept(c))
}

// accept is the answer that admits c: on a secure server sealed with its
// token's server→client key (a fresh random nonce each time it is sent),
// so nobody without the token forges or reads it, and carrying the
// session's random value its channel keys derive from.
func (s *Server) accept(c *client) []byte {
	m := session.Accept{
		Nonce: c.nonce, ConnID: c.id, Client: c.num, GameID: s.gameID,
		FrameDur: uint32(s.frameDur / time.Microsecond), Settings: s.settings,
	}
	if !c.stats.Secure {
		return m.Append(nil)
	}
	var xn [session.XNonceLen]byte
	crand.Read(xn[:])
	return session.SealedAccept{Accept: m, Random: c.random}.AppendSealed(nil, &c.acceptKey, &xn)
}
