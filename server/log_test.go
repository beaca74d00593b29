package server

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/snapwire/snapwire/internal/session"
	"github.com/snapwire/snapwire/internal/testgame"
)

// logLines decodes a JSON log.
func logLines(t *testing.T, b *bytes.Buffer) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		out = append(out, m)
	}
	b.Reset()
	return out
}

// Acceptance (logs): one structured event per connect, refuse,
// disconnect, timeout, map change and rate-limit refusal, with the
// client's number, address and reason; a flood of refusals is logged at
// most logBurst lines a second; no Logger, no output.
//
// Guards against: events missing their fields, a log an attacker can
// flood (the limiter removed: the flood part fails).
func TestLogEvents(t *testing.T) {
	var buf bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&buf, nil))
	s, r := newTest(t, Config{Logger: logger, Password: "pw", Timeout: 2 * time.Second, Advanced: Advanced{MaxPasswordFailures: 2}})
	m := goodConnect(1)
	m.Name, m.Password = "alice", "pw"
	acc, err := session.ParseAccept(handshake(t, s, r, 0, addr(1), m))
	if err != nil {
		t.Fatal(err)
	}
	bad := goodConnect(2)
	bad.Password = "guess"
	for range 3 { // two wrong passwords, then rate-limited
		handshake(t, s, r, 0, addr(2), bad)
	}
	if err := s.ChangeMap(testgame.DefaultSettings); err != nil {
		t.Fatal(err)
	}
	s.Advance(3 * time.Second) // alice times out
	r.take()
	lines := logLines(t, &buf)
	want := []struct{ msg, field, value string }{
		{"connect", "name", "alice"},
		{"refuse", "reason", session.ReasonWrongPassword.String()},
		{"refuse", "reason", session.ReasonWrongPassword.String()},
		{"rate-limited", "reason", session.ReasonTooManyAttempts.String()},
		{"map change", "settings", testgame.DefaultSettings},
		{"timeout", "name", "alice"},
	}
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d: %v", len(lines), len(want), lines)
	}
	for i, w := range want {
		l := lines[i]
		if l["msg"] != w.msg || l[w.field] != w.value {
			t.Errorf("line %d: %v, want msg %q with %s=%q", i, l, w.msg, w.field, w.value)
		}
	}
	if lines[0]["addr"] != addr(1).String() || lines[0]["client"] != 0.0 || lines[0]["conn"] != float64(acc.ConnID) ||
		lines[1]["addr"] != addr(2).String() || lines[5]["reason"] != session.ReasonTimeout.String() || lines[5]["client"] != 0.0 {
		t.Errorf("fields: %v", lines)
	}

	// A thousand connects refused for their version in one second: at
	// most logBurst lines; the next second's first line says how many
	// were not logged.
	for i := range 1000 {
		m := goodConnect(uint64(100 + i))
		m.Version = 99
		handshake(t, s, r, 4*time.Second, addr(3+i%200), m)
	}
	if lines := logLines(t, &buf); len(lines) != logBurst {
		t.Errorf("%d lines for 1000 refusals in a second, want %d", len(lines), logBurst)
	}
	m = goodConnect(5000)
	m.Version = 99
	handshake(t, s, r, 5*time.Second, addr(250), m)
	lines = logLines(t, &buf)
	if len(lines) != 1 || lines[0]["refusals_not_logged"] != float64(1000-logBurst) {
		t.Errorf("after a quiet second: %v", lines)
	}

	// Bad cookies are not logged (their source is unproven), and a server
	// without a Logger says nothing.
	s.HandlePacket(6*time.Second, addr(251), oob(goodConnect(9).Append(nil)))
	if buf.Len() != 0 {
		t.Errorf("bad cookie logged: %s", buf.String())
	}
}
