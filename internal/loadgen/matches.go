package loadgen

// The per-match breakdown of a run against a server that hosts many
// matches (issue 25, "Many matches per process"): a match whose clients
// starve is hidden in the run's percentiles when it is one of 128, so the
// summary names the worst one.

import (
	"cmp"
	"slices"
	"strconv"

	"github.com/snapwire/snapwire/internal/report"
)

// MatchSummary is one match's share of a run's summary (its clients, by
// the match they joined; JSON keys as Summary's).
type MatchSummary struct {
	Match     string `json:"match"`
	Clients   int    `json:"clients"`
	Connected int    `json:"connected"`
	Failed    int    `json:"failed"`
	// The snapshot rate each of the match's clients received (as
	// Summary's): 5th percentile, median and minimum.
	SnapshotRateP5  float64 `json:"snapshot_rate_p5"`
	SnapshotRateP50 float64 `json:"snapshot_rate_p50"`
	SnapshotRateMin float64 `json:"snapshot_rate_min"`
	SnapshotsLost   uint64  `json:"snapshots_lost"`
	Loss            float64 `json:"loss"`
	// BytesInPerClientPerS is the UDP payload the match's clients
	// received, per client per second.
	BytesInPerClientPerS float64 `json:"bytes_in_per_client_per_s"`
}

// summarizeMatches groups the clients of r by the match they joined
// (r.Matches) and returns one summary per match, in the order of their
// names (numeric names by number: "2" before "10"), and the worst: the
// lowest p5 snapshot rate, then the lowest minimum. rates is each
// client's snapshot rate (Summarize's). Nil when no client named a match.
func summarizeMatches(r Result, rates []float64, seconds float64) (all []MatchSummary, worst *MatchSummary) {
	if !slices.ContainsFunc(r.Matches, func(m string) bool { return m != "" }) {
		return nil, nil
	}
	byName := map[string][]int{}
	for i, m := range r.Matches {
		byName[m] = append(byName[m], i)
	}
	for name, clients := range byName {
		m := MatchSummary{Match: name, Clients: len(clients)}
		var mrates []float64
		var received, bytesIn uint64
		for _, i := range clients {
			c := r.Clients[i]
			switch {
			case c.State == Connected:
				m.Connected++
			case r.Errs[i] != nil:
				m.Failed++
			}
			mrates = append(mrates, rates[i])
			received += c.SnapshotsReceived
			m.SnapshotsLost += c.SnapshotsLost
			bytesIn += c.BytesIn
		}
		m.SnapshotRateP5 = report.Percentile(mrates, 0.05)
		m.SnapshotRateP50 = report.Percentile(mrates, 0.5)
		m.SnapshotRateMin = report.Percentile(mrates, 0)
		if n := received + m.SnapshotsLost; n > 0 {
			m.Loss = float64(m.SnapshotsLost) / float64(n)
		}
		if seconds > 0 {
			m.BytesInPerClientPerS = float64(bytesIn) / float64(m.Clients) / seconds
		}
		all = append(all, m)
	}
	slices.SortFunc(all, func(a, b MatchSummary) int { return compareMatchNames(a.Match, b.Match) })
	w := slices.MinFunc(all, func(a, b MatchSummary) int {
		return cmp.Or(cmp.Compare(a.SnapshotRateP5, b.SnapshotRateP5), cmp.Compare(a.SnapshotRateMin, b.SnapshotRateMin))
	})
	return all, &w
}

// compareMatchNames orders match names, numeric ones ("1".."N", the
// names `snapwire serve --matches` gives) by number and before the rest.
func compareMatchNames(a, b string) int {
	na, ea := strconv.ParseUint(a, 10, 64)
	nb, eb := strconv.ParseUint(b, 10, 64)
	switch {
	case ea == nil && eb == nil:
		return cmp.Or(cmp.Compare(na, nb), cmp.Compare(a, b))
	case ea == nil:
		return -1
	case eb == nil:
		return 1
	}
	return cmp.Compare(a, b)
}
