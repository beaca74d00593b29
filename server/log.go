package server

import (
	"context"
	"log/slog"
	"net/netip"
	"time"

	"github.com/snapwire/snapwire/internal/session"
)

// Events the server logs through Config.Logger (nil: silent): connect,
// disconnect (reason: left, kicked, protocol error, shutdown), timeout,
// refuse (reason), rate-limited (a connect refused by MaxConnectAttempts,
// MaxPasswordFailures or MaxClientsPerIP) and map change. Each carries the
// client's number and address where it has them. Connects refused for a
// bad cookie are not logged: their source address is unproven (they are
// counted in serverhook.Stats.BadCookies). Refusals are logged at most
// logBurst per second; the rest are counted and reported in the next
// refusal logged after a quiet second, so a flood of connects cannot
// flood the log.
const logBurst = 20

// logLimiter bounds refusal log lines per second of server time.
type logLimiter struct {
	second     time.Duration
	n          int
	suppressed uint64
}

// allow reports whether one more line may be logged at now, and how many
// were suppressed since the last one logged.
func (l *logLimiter) allow(now time.Duration) (bool, uint64) {
	if sec := now.Truncate(time.Second); sec != l.second {
		l.second, l.n = sec, 0
	}
	if l.n >= logBurst {
		l.suppressed++
		return false, 0
	}
	l.n++
	s := l.suppressed
	l.suppressed = 0
	return true, s
}

func (s *Server) logEvent(level slog.Level, msg string, attrs ...slog.Attr) {
	if s.cfg.Logger == nil {
		return
	}
	s.cfg.Logger.LogAttrs(context.Background(), level, msg, attrs...)
}

// logRefusal logs a refusal of a connect from from, within the limiter.
func (s *Server) logRefusal(from netip.AddrPort, why session.Reason) {
	if s.cfg.Logger == nil || why == session.ReasonBadCookie {
		return
	}
	ok, suppressed := s.refuseLog.allow(s.now)
	if !ok {
		return
	}
	msg, level := "refuse", slog.LevelInfo
	if why == session.ReasonTooManyAttempts || why == session.ReasonTooManyFromIP {
		msg, level = "rate-limited", slog.LevelWarn
	}
	attrs := []slog.Attr{slog.String("addr", from.String()), slog.String("reason", why.String())}
	if suppressed > 0 {
		attrs = append(attrs, slog.Uint64("refusals_not_logged", suppressed))
	}
	s.logEvent(level, msg, attrs...)
}

// logDrop logs a client that leaves the server.
func (s *Server) logDrop(c *client, why session.Reason) {
	if s.cfg.Logger == nil {
		return
	}
	msg := "disconnect"
	if why == session.ReasonTimeout {
		msg = "timeout"
	}
	s.logEvent(slog.LevelInfo, msg, slog.Int("client", int(c.num)), slog.String("name", c.name),
		slog.String("addr", c.addr.String()), slog.String("reason", why.String()),
		slog.Uint64("snapshots_sent", c.stats.SnapshotsSent))
}
