package loadgen

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestSummarize(t *testing.T) {
	r := Result{
		Elapsed: 11 * time.Second,
		Clients: []Stats{
			{State: Connected, FirstSnapshot: time.Second, SnapshotsReceived: 201, SnapshotsLost: 0, RTT: 10 * time.Millisecond, BytesIn: 1000, BaseChecks: 5},
			{State: Connected, FirstSnapshot: time.Second, SnapshotsReceived: 191, SnapshotsLost: 9, RTT: 30 * time.Millisecond, BytesIn: 2000, BaseChecks: 5},
			{State: Disconnected},
		},
		Errs: []error{nil, nil, errors.New("refused")},
	}
	s := Summarize("x", r)
	if s.Connected != 2 || s.Failed != 1 || !strings.Contains(s.FirstError, "client 2: refused") {
		t.Errorf("connected %d, failed %d, first error %q", s.Connected, s.Failed, s.FirstError)
	}
	// Rates: 200 intervals over 10 s, 190 over 10 s, none.
	if s.SnapshotRateP50 != 19 || s.SnapshotRateMin != 0 || s.SnapshotRateP5 != 0 || len(s.SnapshotRates) != 3 || s.SnapshotRates[0] != 20 {
		t.Errorf("rates p5 %v p50 %v min %v, %v", s.SnapshotRateP5, s.SnapshotRateP50, s.SnapshotRateMin, s.SnapshotRates)
	}
	if s.Loss != 9.0/401 || s.RTTP50S != 0.01 || s.RTTP95S != 0.03 || s.BytesIn != 3000 || s.BaseChecks != 10 {
		t.Errorf("loss %v, rtt %v/%v, bytes %d, base checks %d", s.Loss, s.RTTP50S, s.RTTP95S, s.BytesIn, s.BaseChecks)
	}
	if s.Invariants() != nil {
		t.Error(s.Invariants())
	}
	r.Clients[1].BaseMismatches = 1
	if Summarize("x", r).Invariants() == nil {
		t.Error("a base mismatch passed the invariants")
	}
}
