package loadgen

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

// The summary of a run over three matches: one summary per match in
// numeric order, the worst named by its p5 rate, the text's one line,
// and no breakdown when no client named a match.
func TestSummarizeMatches(t *testing.T) {
	r := Result{Elapsed: 11 * time.Second, Matches: []string{"10", "2", "10", "2", "x", "x"}}
	for _, rcv := range []uint64{201, 201, 201, 161, 201, 191} {
		r.Clients = append(r.Clients, Stats{State: Connected, FirstSnapshot: time.Second, SnapshotsReceived: rcv, BytesIn: 1100})
		r.Errs = append(r.Errs, nil)
	}
	r.Clients[4] = Stats{State: Disconnected}
	r.Errs[4] = errors.New("refused")
	s := Summarize("x", r)
	var names []string
	for _, m := range s.Matches {
		names = append(names, m.Match)
	}
	if strings.Join(names, ",") != "2,10,x" {
		t.Fatalf("matches %v, want 2,10,x", names)
	}
	if m := s.Matches[0]; m.Clients != 2 || m.Connected != 2 || m.SnapshotRateP5 != 16 || m.SnapshotRateP50 != 16 || m.BytesInPerClientPerS != 100 {
		t.Errorf("match 2: %+v", m)
	}
	if m := s.Matches[2]; m.Connected != 1 || m.Failed != 1 || m.SnapshotRateMin != 0 {
		t.Errorf("match x: %+v", m)
	}
	if s.WorstMatch == nil || s.WorstMatch.Match != "x" {
		t.Fatalf("worst match %+v, want x", s.WorstMatch)
	}
	var text bytes.Buffer
	if err := s.WriteText(&text); err != nil || !strings.Contains(text.String(), `3 matches; the worst, "x": 1 of 2 connected, snapshots per client per second p5 0.0, min 0.0`) {
		t.Errorf("text %q, %v", text.String(), err)
	}
	b, _ := json.Marshal(s)
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if ms, ok := m["matches"].([]any); !ok || len(ms) != 3 || m["worst_match"].(map[string]any)["snapshot_rate_p5"] != 0.0 {
		t.Errorf("json %s", b)
	}
	r.Matches = make([]string, len(r.Clients))
	if s := Summarize("x", r); s.Matches != nil || s.WorstMatch != nil {
		t.Errorf("default match only: %+v, %+v", s.Matches, s.WorstMatch)
	}
	text.Reset()
	_ = Summarize("x", r).WriteText(&text)
	if strings.Contains(text.String(), "the worst") {
		t.Errorf("default match only: %q", text.String())
	}
}
