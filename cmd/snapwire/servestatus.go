package main

// serve's status line. The default match alone: the line of before
// --matches, traffic since the previous line. Else (--matches N, or
// matches the admin interface created): one summary line for the process (the
// matches, their clients and slots, the traffic summed) and one line per
// match at debug level carrying its match, so that 128 matches log one
// line every --status at the default level.

import (
	"context"
	"io"
	"log/slog"
	"math"
	"time"

	"github.com/snapwire/snapwire/server"
)

// serveLog writes the status lines: traffic since the previous line, from
// each match's totals (which keep the clients that left).
type serveLog struct {
	log    *slog.Logger
	hm     *hostedMatches
	lastAt time.Duration
	// last are each match's totals at the previous line; a match created
	// since counts from zero, an ended one is forgotten.
	last    map[string]server.Totals
	clients []server.ClientStats
}

// matchStatus is one match's figures over the interval of a status line.
type matchStatus struct {
	frame                   uint64
	clients, slots          int
	bytesOut, bytesIn       uint64
	snapshots, skipped, dup uint64
	lead                    time.Duration
	haveLead                bool
	refused, timeouts       uint64
}

func (m *matchStatus) add(o matchStatus) {
	m.clients += o.clients
	m.slots += o.slots
	m.bytesOut += o.bytesOut
	m.bytesIn += o.bytesIn
	m.snapshots += o.snapshots
	m.skipped += o.skipped
	m.dup += o.dup
	m.refused += o.refused
	m.timeouts += o.timeouts
	if o.haveLead && (!m.haveLead || o.lead < m.lead) {
		m.lead, m.haveLead = o.lead, true
	}
}

// attrs are the line's key-value pairs over secs seconds.
func (m *matchStatus) attrs(secs float64) []any {
	perClient := func(b uint64) float64 {
		if secs <= 0 || m.clients == 0 {
			return 0
		}
		return math.Round(float64(b)*8/1000/secs/float64(m.clients)*10) / 10
	}
	return []any{"clients", m.clients, "slots", m.slots,
		"down_kbps_per_client", perClient(m.bytesOut), "up_kbps_per_client", perClient(m.bytesIn),
		"snapshots", m.snapshots, "snapshots_skipped", m.skipped,
		"duplicated", m.dup, "lowest_lead", m.lead.Round(time.Millisecond), "refused", m.refused, "timeouts", m.timeouts}
}

// match is the figures of the match name, s, since the previous line.
func (l *serveLog) match(name string, s *server.Server) matchStatus {
	t := s.Totals()
	prev := l.last[name]
	l.last[name] = t
	l.clients = s.AppendClients(l.clients[:0])
	st := s.Stats()
	ms := matchStatus{frame: uint64(s.Frame()), clients: len(l.clients), slots: l.hm.byName[name].slots,
		bytesOut: t.BytesOut - prev.BytesOut, bytesIn: t.BytesIn - prev.BytesIn,
		snapshots: t.SnapshotsSent - prev.SnapshotsSent, skipped: t.SnapshotsSkipped - prev.SnapshotsSkipped,
		refused: st.Refused, timeouts: st.Timeouts}
	for i, c := range l.clients {
		ms.dup += c.Duplicated
		if i == 0 || c.Lead < ms.lead {
			ms.lead, ms.haveLead = c.Lead, true
		}
	}
	return ms
}

func (l *serveLog) status(now time.Duration, h *server.Host) {
	if l.last == nil {
		l.last = make(map[string]server.Totals)
	}
	secs := (now - l.lastAt).Seconds()
	l.lastAt = now
	names := h.Matches()
	if len(names) == 1 && names[0] == "" {
		// The default match alone: the line as before --matches.
		ms := l.match("", h.Match(""))
		l.log.Info("status", append([]any{"frame", ms.frame}, ms.attrs(secs)...)...)
		return
	}
	var sum matchStatus
	debug := l.log.Enabled(context.Background(), slog.LevelDebug)
	seen := make(map[string]bool, len(names))
	for _, name := range names {
		seen[name] = true
		ms := l.match(name, h.Match(name))
		if debug {
			l.log.Debug("status", append([]any{"match", name, "frame", ms.frame}, ms.attrs(secs)...)...)
		}
		sum.add(ms)
	}
	for name := range l.last {
		if !seen[name] {
			delete(l.last, name)
		}
	}
	l.log.Info("status", append([]any{"matches", len(names)}, sum.attrs(secs)...)...)
}

// hostStats are the counters of h's matches summed, with those of the
// matches already ended.
func hostStats(h *server.Host, hm *hostedMatches) server.Stats {
	st := hm.ended
	for _, name := range h.Matches() {
		addStats(&st, h.Match(name).Stats())
	}
	return st
}

func addStats(st *server.Stats, o server.Stats) {
	st.Frames += o.Frames
	st.FramesLate += o.FramesLate
	st.Connects += o.Connects
	st.Disconnects += o.Disconnects
	st.Timeouts += o.Timeouts
	st.Refused += o.Refused
	st.TokensRefused += o.TokensRefused
	st.Throttled += o.Throttled
	st.AuthFailures += o.AuthFailures
	st.BadPackets += o.BadPackets
	st.MapChanges += o.MapChanges
}

// logLevels are the values of --log-level ("" is info: a serveOptions
// built in a test).
var logLevels = map[string]slog.Level{"": slog.LevelInfo, "debug": slog.LevelDebug, "info": slog.LevelInfo, "warn": slog.LevelWarn}

// newLevelLogger is newLogger logging from level (--log-level) up.
func newLevelLogger(format, level string, w io.Writer) *slog.Logger {
	opts := &slog.HandlerOptions{Level: logLevels[level]}
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}
