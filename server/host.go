package server

// Many matches on one socket: the Host routes each datagram to the match
// it belongs to (a channel packet by its connection id, a connect by the
// match its token or, on an insecure host, its request names) and runs
// every match's frames. Each match is a Server of its own: its game, map,
// game id, players, common bases and events; what the matches share is
// what guards the socket they share (shared, below).

import (
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"slices"
	"time"

	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/netchan"
	"github.com/snapwire/snapwire/internal/session"
	"github.com/snapwire/snapwire/internal/tokenwire"
)

// shared is what the matches of one socket share: the connections by id
// (ids are unique on the socket, so a channel packet names its match), the
// used tokens (a token serves one session on the socket, whichever match
// it names) and the per-address counts (Advanced.MaxClientsPerIP and the
// attempt limits hold for the socket: one host cannot take four slots in
// each of a hundred matches).
type shared struct {
	byID       map[netchan.ConnID]*client
	usedTokens tokenTable
	connects   attemptTable // insecure connects per IP address
	pwFails    attemptTable // wrong passwords per IP address
	perIP      ipCounts     // clients per IP address (scale.go)
}

func newShared() *shared {
	return &shared{byID: make(map[netchan.ConnID]*client), perIP: make(ipCounts)}
}

// Host serves many matches on one socket, as Colyseus and Nakama host
// many rooms in one process: each match a Server with its own game, map,
// game id and players, created and ended while the host runs. A connect
// joins the match its connect token names (token.Params.Match) or, on an
// insecure host, the match its request names (client.Config.Match); a
// match named "" is the default one. Connection ids are unique across the
// host's matches, and the limits that guard the socket (connect tokens
// used once, Advanced.MaxClientsPerIP, the attempt limits) hold for the
// host as a whole. Like a Server it is an I/O-free core: one goroutine
// calls HandlePacket, Advance, Create and End with the current virtual
// time; ListenHost serves one on a UDP socket.
type Host struct {
	cfg    Config
	send   Sender
	sh     *shared
	secret []byte
	// matches are the matches in creation order (frames and snapshots go
	// in that order, so a run in virtual time is the same every time);
	// byName indexes them.
	matches []*Server
	byName  map[string]*Server
	created uint64 // matches ever created: each one's seed
	now     time.Duration
	// next is at or before the earliest time a match's next frame is due:
	// exact after Advance; a match's HandlePacket only runs frames, and End
	// only removes a match, so neither moves the earliest time earlier.
	next time.Duration
	// unrouted counts the datagrams that came while the host had no
	// match.
	unrouted uint64
}

// NewHost returns a host with no match, sending through send. cfg's
// TokenKey, ProtocolID, PublicAddrs, Logger, MaxClientsPerIP,
// MaxConnectAttempts, MaxPasswordFailures and CookieLifetime are the
// host's: they guard the socket, and every match takes them whatever the
// Config given to Create says.
func NewHost(cfg Config, send Sender) (*Host, error) {
	if send == nil {
		return nil, fmt.Errorf("%w: a sender is required", ErrConfig)
	}
	h := &Host{cfg: cfg, send: send, sh: newShared(), byName: make(map[string]*Server)}
	rc := config{Config: cfg}
	if cfg.hooks != nil {
		rc.Hooks = *cfg.hooks
	}
	h.secret = rc.Secret
	if h.secret == nil {
		var err error
		if h.secret, err = newSecret(rc.Deterministic, rc.Seed); err != nil {
			return nil, err
		}
	}
	return h, nil
}

// Errors of a Host.
var (
	ErrMatchExists = errors.New("server: a match of that name exists")
	ErrNoMatch     = errors.New("server: no such match")
)

// Create starts a match named name (at most 32 printable ASCII bytes, no
// space; "" is the default match) running g loaded with settings, its
// frame 0 due at now. cfg is the match's: its rates, slots, password and
// game callbacks; the host's settings replace those NewHost names.
func (h *Host) Create(now time.Duration, name string, cfg Config, g game.Game, settings string) (*Server, error) {
	h.seen(now)
	if err := tokenwire.CheckMatch(name); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrConfig, err)
	}
	if h.byName[name] != nil {
		return nil, fmt.Errorf("%w: %q", ErrMatchExists, name)
	}
	hc := h.cfg
	cfg.TokenKey, cfg.ProtocolID, cfg.PublicAddrs = hc.TokenKey, hc.ProtocolID, hc.PublicAddrs
	cfg.MaxClientsPerIP, cfg.MaxConnectAttempts, cfg.MaxPasswordFailures = hc.MaxClientsPerIP, hc.MaxConnectAttempts, hc.MaxPasswordFailures
	cfg.CookieLifetime = hc.CookieLifetime
	cfg.Logger = hc.Logger
	if cfg.Logger != nil && name != "" {
		cfg.Logger = cfg.Logger.With(slog.String("match", name))
	}
	rc := config{}
	if hc.hooks != nil {
		rc.Hooks = *hc.hooks
	}
	if cfg.hooks != nil {
		rc.Hooks = *cfg.hooks
	}
	// The host's cookie secret (every match answers challenges alike)
	// and a seed of the match's own, so that deterministic matches do not
	// draw the same connection ids.
	rc.Hooks.Secret = h.secret
	rc.Hooks.Seed += h.created
	cfg.hooks = &rc.Hooks
	s, err := newServer(cfg, g, settings, h.send, h.sh, name, now)
	if err != nil {
		return nil, err
	}
	h.created++
	if len(h.matches) == 0 || s.Next() < h.next {
		h.next = s.Next()
	}
	h.matches = append(h.matches, s)
	h.byName[name] = s
	return s, nil
}

// End ends the match named name at now: its clients are dropped with a
// disconnect message (session.ReasonShutdown, as at a server's Shutdown)
// and its connection ids freed.
func (h *Host) End(now time.Duration, name string) error {
	h.seen(now)
	s := h.byName[name]
	if s == nil {
		return fmt.Errorf("%w: %q", ErrNoMatch, name)
	}
	s.Shutdown(now)
	delete(h.byName, name)
	h.matches = slices.DeleteFunc(h.matches, func(m *Server) bool { return m == s })
	return nil
}

// Match returns the match named name, or nil.
func (h *Host) Match(name string) *Server { return h.byName[name] }

// Matches returns the names of the host's matches, in the order they were
// created.
func (h *Host) Matches() []string {
	names := make([]string, len(h.matches))
	for i, s := range h.matches {
		names[i] = s.match
	}
	return names
}

// Advance runs every match's frames due at or before now (Server.Advance).
// Before the earliest of them is due it does nothing, so that a driver
// calling it after every packet (Runner does) does not visit every match
// each time; a match's timeouts are checked when its frames run.
func (h *Host) Advance(now time.Duration) {
	h.seen(now)
	if len(h.matches) == 0 || now < h.next {
		return
	}
	h.next = h.matches[0].Next()
	for _, s := range h.matches {
		s.Advance(now)
		h.next = min(h.next, s.Next())
	}
}

// Next is the earliest time a match's next frame is due; with no match,
// a tenth of a second after the latest time the host was given.
func (h *Host) Next() time.Duration {
	if len(h.matches) == 0 {
		return h.now + 100*time.Millisecond
	}
	return h.next
}

// Shutdown ends every match at now (End).
func (h *Host) Shutdown(now time.Duration) {
	h.seen(now)
	for _, s := range h.matches {
		s.Shutdown(now)
	}
	h.matches = h.matches[:0]
	clear(h.byName)
}

// HandlePacket routes one datagram to its match and processes it there
// (Server.HandlePacket). A channel packet goes to the match that holds its
// connection id; a connect to the match it joins (connectTarget); any
// other connectionless packet (a challenge request, a query) to the
// default match, or the first one created when there is none.
func (h *Host) HandlePacket(now time.Duration, from netip.AddrPort, pkt []byte) {
	h.seen(now)
	if netchan.IsConnectionless(pkt) {
		s := h.connectTarget(now, from, pkt[4:])
		if s == nil {
			h.unrouted++
			return
		}
		s.HandlePacket(now, from, pkt)
		return
	}
	if id, ok := netchan.PeekConnID(pkt); ok {
		if c := h.sh.byID[id]; c != nil {
			c.s.HandlePacket(now, from, pkt)
			return
		}
	}
	// Malformed, or for no connection: the default match counts it
	// (Stats.BadPackets, the unknown-connection count).
	if s := h.fallback(); s != nil {
		s.HandlePacket(now, from, pkt)
		return
	}
	h.unrouted++
}

// fallback is the match that answers what belongs to no match: the
// default one, else the first created; nil when the host has none.
func (h *Host) fallback() *Server {
	if s := h.byName[""]; s != nil {
		return s
	}
	if len(h.matches) > 0 {
		return h.matches[0]
	}
	return nil
}

// connectTarget is the match a connectionless payload p goes to. A
// connect with a valid cookie goes to the match its token names (the token
// opened with the host's key) or, without a token, the match it names;
// anything else, and a connect whose match the host does not have, goes
// to the default match (the first one when there is none), whose handshake
// answers it as a server of its own would: a bad cookie, a token that does
// not open, or a match it is not (ReasonNoSuchMatch) is refused there,
// with nothing stored.
func (h *Host) connectTarget(now time.Duration, from netip.AddrPort, p []byte) *Server {
	fallback := h.fallback()
	if fallback == nil {
		return nil
	}
	if kind, ok := session.ConnectionlessKind(p); !ok || kind != session.KindConnect || !session.IsHandshake(p) {
		return fallback
	}
	m, err := session.ParseConnect(p)
	if err != nil || !fallback.cookieValid(now, from, m.Cookie) {
		return fallback
	}
	name := m.Match
	if fallback.opener != nil {
		if len(m.Token) == 0 {
			return fallback
		}
		priv, err := fallback.opener.Open(m.Token, fallback.cfg.WallClock())
		if err != nil {
			return fallback
		}
		name = priv.Match
	}
	if s := h.byName[name]; s != nil {
		return s
	}
	return fallback
}

// NumClients is the number of clients connected to the host's matches.
func (h *Host) NumClients() int {
	n := 0
	for _, s := range h.matches {
		n += s.NumClients()
	}
	return n
}

// seen records the latest time the host was given.
func (h *Host) seen(now time.Duration) { h.now = max(h.now, now) }
