package rtc

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/pion/logging"
)

// pionLogs routes pion's own log lines to a slog.Logger at debug level,
// with their scope ("ice", "dtls", "sctp", ...), instead of pion's
// default of warnings and errors on stderr. They describe pion's
// internals (a stats query racing a peer's close, a retransmitted DTLS
// flight); the transport's own events (a peer opened, closed, refused)
// are logged at info by Server. A nil logger discards them.
type pionLogs struct{ l *slog.Logger }

func (f pionLogs) NewLogger(scope string) logging.LeveledLogger {
	if f.l == nil {
		return pionLogger{}
	}
	return pionLogger{l: f.l.With("pion", scope)}
}

type pionLogger struct{ l *slog.Logger }

func (p pionLogger) log(level string, msg string) {
	if p.l != nil && p.l.Enabled(context.Background(), slog.LevelDebug) {
		p.l.Debug(msg, "pion_level", level)
	}
}

func (p pionLogger) logf(level, format string, args []any) {
	if p.l != nil && p.l.Enabled(context.Background(), slog.LevelDebug) {
		p.l.Debug(fmt.Sprintf(format, args...), "pion_level", level)
	}
}

func (p pionLogger) Trace(msg string)                  { p.log("trace", msg) }
func (p pionLogger) Tracef(format string, args ...any) { p.logf("trace", format, args) }
func (p pionLogger) Debug(msg string)                  { p.log("debug", msg) }
func (p pionLogger) Debugf(format string, args ...any) { p.logf("debug", format, args) }
func (p pionLogger) Info(msg string)                   { p.log("info", msg) }
func (p pionLogger) Infof(format string, args ...any)  { p.logf("info", format, args) }
func (p pionLogger) Warn(msg string)                   { p.log("warn", msg) }
func (p pionLogger) Warnf(format string, args ...any)  { p.logf("warn", format, args) }
func (p pionLogger) Error(msg string)                  { p.log("error", msg) }
func (p pionLogger) Errorf(format string, args ...any) { p.logf("error", format, args) }
