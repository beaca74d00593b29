package loadgen

import (
	"fmt"
	"io"
	"time"

	"github.com/snapwire/snapwire/internal/report"
)

// Summary is a run's one summary (`snapwire load --json`; snake_case
// keys, times in seconds, rates per second).
type Summary struct {
	Server    string  `json:"server"`
	Clients   int     `json:"clients"`
	DurationS float64 `json:"duration_s"`
	// Connected counts the clients connected at the end; Failed those that
	// ended (refused, timed out), with the first one's error.
	Connected  int    `json:"connected"`
	Failed     int    `json:"failed"`
	FirstError string `json:"first_error,omitempty"`
	// The snapshot rate each client received, from its first snapshot to
	// the end of the run (0 for a client that received one or none): the 5th
	// percentile, median and minimum over the clients.
	SnapshotRateP5  float64 `json:"snapshot_rate_p5"`
	SnapshotRateP50 float64 `json:"snapshot_rate_p50"`
	SnapshotRateMin float64 `json:"snapshot_rate_min"`
	// SnapshotRates is each client's rate, by client index (JSON only).
	SnapshotRates []float64 `json:"snapshot_rates"`
	// SnapshotsReceived and SnapshotsLost are the clients' totals (lost:
	// sequence numbers skipped); Loss is lost / (received + lost).
	SnapshotsReceived uint64  `json:"snapshots_received"`
	SnapshotsLost     uint64  `json:"snapshots_lost"`
	Loss              float64 `json:"loss"`
	// The clients' smoothed round-trip times (netchan), median and 95th
	// percentile over the connected clients.
	RTTP50S float64 `json:"rtt_p50_s"`
	RTTP95S float64 `json:"rtt_p95_s"`
	// UDP payload bytes over all the clients, and per client per second.
	BytesIn              uint64  `json:"bytes_in"`
	BytesOut             uint64  `json:"bytes_out"`
	BytesInPerClientPerS float64 `json:"bytes_in_per_client_per_s"`
	CommandsSent         uint64  `json:"commands_sent"`
	// The common base invariants: checks of the server's base hash, and
	// mismatches, decode and apply errors (all 0 in a sound run).
	BaseChecks     uint64 `json:"base_checks"`
	BaseMismatches uint64 `json:"base_mismatches"`
	DecodeErrors   uint64 `json:"decode_errors"`
	ApplyErrors    uint64 `json:"apply_errors"`
	// Matches is the breakdown by the match the clients joined, when they
	// named one (load --matches), and WorstMatch the one with the lowest
	// p5 snapshot rate (matches.go).
	Matches    []MatchSummary `json:"matches,omitempty"`
	WorstMatch *MatchSummary  `json:"worst_match,omitempty"`
}

// Summarize reduces a run's result to its summary.
func Summarize(server string, r Result) Summary {
	s := Summary{Server: server, Clients: len(r.Clients), DurationS: r.Elapsed.Seconds()}
	var rates, rtts []float64
	for i, c := range r.Clients {
		switch {
		case c.State == Connected:
			s.Connected++
			rtts = append(rtts, c.RTT.Seconds())
		case r.Errs[i] != nil:
			s.Failed++
			if s.FirstError == "" {
				s.FirstError = fmt.Sprintf("client %d: %v", i, r.Errs[i])
			}
		}
		// n snapshots span n-1 intervals from the first one.
		rate := 0.0
		if span := r.Elapsed - c.FirstSnapshot; c.SnapshotsReceived > 1 && span > 0 {
			rate = float64(c.SnapshotsReceived-1) / span.Seconds()
		}
		rates = append(rates, rate)
		s.SnapshotsReceived += c.SnapshotsReceived
		s.SnapshotsLost += c.SnapshotsLost
		s.BytesIn += c.BytesIn
		s.BytesOut += c.BytesOut
		s.CommandsSent += c.CommandsSent
		s.BaseChecks += c.BaseChecks
		s.BaseMismatches += c.BaseMismatches
		s.DecodeErrors += c.DecodeErrors
		s.ApplyErrors += c.ApplyErrors
	}
	s.SnapshotRates = rates
	if len(rates) > 0 {
		s.SnapshotRateP5 = report.Percentile(rates, 0.05)
		s.SnapshotRateP50 = report.Percentile(rates, 0.5)
		s.SnapshotRateMin = report.Percentile(rates, 0)
	}
	if len(rtts) > 0 {
		s.RTTP50S = report.Percentile(rtts, 0.5)
		s.RTTP95S = report.Percentile(rtts, 0.95)
	}
	if n := s.SnapshotsReceived + s.SnapshotsLost; n > 0 {
		s.Loss = float64(s.SnapshotsLost) / float64(n)
	}
	if s.Clients > 0 && s.DurationS > 0 {
		s.BytesInPerClientPerS = float64(s.BytesIn) / float64(s.Clients) / s.DurationS
	}
	s.Matches, s.WorstMatch = summarizeMatches(r, rates, s.DurationS)
	return s
}

// Invariants returns an error if the run broke one of the common base's
// invariants.
func (s Summary) Invariants() error {
	if s.BaseMismatches != 0 || s.DecodeErrors != 0 || s.ApplyErrors != 0 {
		return fmt.Errorf("invariant broken: %d base mismatches, %d decode errors, %d apply errors",
			s.BaseMismatches, s.DecodeErrors, s.ApplyErrors)
	}
	return nil
}

// WriteText writes the summary for a person, in one paragraph.
func (s Summary) WriteText(w io.Writer) error {
	ms := func(sec float64) time.Duration {
		return time.Duration(sec * float64(time.Second)).Round(100 * time.Microsecond)
	}
	_, err := fmt.Fprintf(w, "%d light clients on %s for %.1f s: %d connected, %d failed\n"+
		"snapshots per client per second: p5 %.1f, p50 %.1f, min %.1f; %d received, %d lost (%.2f%%)\n"+
		"rtt p50 %v, p95 %v; %.0f bytes/s down per client; %d bytes in, %d out; %d commands sent\n"+
		"base checks %d, mismatches %d, decode errors %d, apply errors %d\n",
		s.Clients, s.Server, s.DurationS, s.Connected, s.Failed,
		s.SnapshotRateP5, s.SnapshotRateP50, s.SnapshotRateMin, s.SnapshotsReceived, s.SnapshotsLost, 100*s.Loss,
		ms(s.RTTP50S), ms(s.RTTP95S), s.BytesInPerClientPerS, s.BytesIn, s.BytesOut, s.CommandsSent,
		s.BaseChecks, s.BaseMismatches, s.DecodeErrors, s.ApplyErrors)
	if m := s.WorstMatch; err == nil && m != nil {
		_, err = fmt.Fprintf(w, "%d matches; the worst, %q: %d of %d connected, snapshots per client per second p5 %.1f, min %.1f\n",
			len(s.Matches), m.Match, m.Connected, m.Clients, m.SnapshotRateP5, m.SnapshotRateMin)
	}
	if err == nil && s.FirstError != "" {
		_, err = fmt.Fprintf(w, "first error: %s\n", s.FirstError)
	}
	return err
}
