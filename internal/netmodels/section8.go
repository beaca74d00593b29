package netmodels

import (
	"fmt"
	"time"

	"github.com/snapwire/snapwire/internal/matchsim"
)

// Idea is one of DOOM III's future-work ideas (DOOM III network
// architecture, van Waveren 2006, §8) with a figure before and after.
type Idea struct {
	Name   string  `json:"name"`
	Figure string  `json:"figure"` // what Before and After measure
	Before float64 `json:"before"`
	After  float64 `json:"after"`
	// Cost is the price paid, when the idea has one (a prediction error).
	Cost string `json:"cost,omitempty"`
	// Verdict is a sentence chosen from the figures.
	Verdict string `json:"verdict"`
}

// Section8 holds the §8 measurements: DOOM III's model at Players players
// and RTTMS round trip.
type Section8 struct {
	Players int    `json:"players"`
	RTTMS   int    `json:"rtt_ms"`
	Ideas   []Idea `json:"ideas"`
	// Coarse holds (c), re-prediction in larger steps, per match
	// (RunCoarse); its row at Players and RTTMS is also an idea.
	Coarse []CoarseRow `json:"coarse,omitempty"`
}

// Result is everything the models command measures.
type Result struct {
	Rows     []Row     `json:"rows"`
	Claims   []Claim   `json:"claims"`
	Section8 *Section8 `json:"section8,omitempty"`
}

// RunAll runs the matrix, checks the claims and measures §8's ideas.
func RunAll(o Options) (*Result, error) {
	rows, err := Run(o)
	if err != nil {
		return nil, err
	}
	s8, err := RunSection8(o)
	if err != nil {
		return nil, err
	}
	return &Result{Rows: rows, Claims: Claims(rows), Section8: s8}, nil
}

// RunSection8 measures §8's ideas on DOOM III matches of the largest
// player count and round trip of o (internal/matchsim's Options.Section8):
// the bytes of snapshots with far entities written in every second or
// third snapshot, with entities the client's prediction carries left out,
// and with client-side entities, against the same snapshots with
// everything written; the prediction error an update every second
// snapshot costs, from the same match at half the snapshot rate; and
// re-prediction in larger steps against frame by frame (RunCoarse).
func RunSection8(o Options) (*Section8, error) {
	n, rtt := 0, time.Duration(0)
	for _, p := range o.Players {
		n = max(n, p)
	}
	for _, r := range o.RTTs {
		rtt = max(rtt, r)
	}
	run := func(rate int) (*matchsim.Result, error) {
		opt := matchsim.DefaultOptions()
		opt.Clients, opt.Latency, opt.Jitter, opt.Loss, opt.Duration, opt.Seed = n, rtt, 0, o.Loss, o.Duration, o.Seed
		opt.Warmup = min(2*time.Second, o.Duration/4)
		opt.Section8, opt.SnapshotRate = true, rate
		res, err := matchsim.Run(opt)
		if err != nil {
			return nil, fmt.Errorf("netmodels: §8 at %d Hz: %w", rate, err)
		}
		if res.Section8 == nil || res.Section8.Snapshots == 0 {
			return nil, fmt.Errorf("netmodels: §8 at %d Hz: no snapshot measured", rate)
		}
		return res, nil
	}
	full, err := run(20)
	if err != nil {
		return nil, err
	}
	half, err := run(10)
	if err != nil {
		return nil, err
	}
	st := full.Section8
	per := func(bits uint64) float64 { return float64(bits) / 8 / float64(st.Snapshots) }
	all := per(st.BitsAll)
	bytesIdea := func(name string, bits uint64, cost string) Idea {
		after := per(bits)
		return Idea{Name: name, Figure: "snapshot bytes (after zero-run-length compression)", Before: all, After: after, Cost: cost,
			Verdict: saving(all, after)}
	}
	errCost := fmt.Sprintf("prediction error of far opponents %.1f units at 20 Hz, %.1f at 10 Hz (%d and %d samples); of all opponents %.1f and %.1f",
		st.FarErrorMean, half.Section8.FarErrorMean, st.FarSamples, half.Section8.FarSamples, full.PredErrorOthersMean, half.PredErrorOthersMean)
	s := &Section8{Players: n, RTTMS: int(rtt / time.Millisecond)}
	s.Ideas = append(s.Ideas,
		bytesIdea(fmt.Sprintf("entities farther than %d units written in every second snapshot", matchsim.FarUnits), st.BitsFar2, errCost),
		bytesIdea(fmt.Sprintf("entities farther than %d units written in every third snapshot", matchsim.FarUnits), st.BitsFar3, ""),
		bytesIdea("rockets in ballistic flight and dead players left to the client's prediction", st.BitsCarried,
			"none while held: a held rocket or dead player is written again as soon as its state leaves what the prediction gives"),
		bytesIdea("client-side entities: spinning props and explosion effects never sent", st.BitsClientSide, "none: decoration and effects"),
	)
	// The cost of the half rate, in words.
	far := &s.Ideas[0]
	if half.Section8.FarErrorMean > st.FarErrorMean*1.1 {
		far.Verdict += fmt.Sprintf("; the far opponents' prediction error rises from %.1f to %.1f units at half the rate", st.FarErrorMean, half.Section8.FarErrorMean)
	} else {
		far.Verdict += fmt.Sprintf("; at half the rate the far opponents' prediction error does not rise measurably (%.1f vs %.1f units)", st.FarErrorMean, half.Section8.FarErrorMean)
	}
	if s.Coarse, err = RunCoarse(o); err != nil {
		return nil, err
	}
	if idea, ok := coarseIdea(s.Coarse, s.Players, s.RTTMS); ok {
		s.Ideas = append(s.Ideas, idea)
	}
	return s, nil
}

// saving says what going from before to after bytes saves, and whether
// it pays off (at least 2%).
func saving(before, after float64) string {
	if before <= 0 {
		return "nothing measured"
	}
	d := (before - after) / before
	switch {
	case d >= 0.02:
		return fmt.Sprintf("saves %.1f%% (%.1f of %.1f bytes a snapshot)", 100*d, before-after, before)
	case d > 0:
		return fmt.Sprintf("saves only %.1f%% (%.1f of %.1f bytes a snapshot): does not pay off on this map", 100*d, before-after, before)
	default:
		return fmt.Sprintf("saves nothing (%.1f bytes a snapshot before, %.1f after)", before, after)
	}
}
