package netmodels

import (
	"fmt"
	"slices"
	"time"

	"github.com/snapwire/snapwire/internal/matchsim"
)

// DOOM III §8 (c): "if this re-prediction turns out to be expensive at
// times the entity states can be advanced by taking larger steps through
// time ... Obviously this will affect the accuracy of the prediction."
// Measured on DOOM III's model (every entity predicted) with the clients
// re-predicting frame by frame, then in steps of k frames
// (client.Config.CoarseStep: the own player still runs every frame), on
// the same seed.

// CoarseRow is one match re-predicted frame by frame (before) and in
// steps of Step frames (after).
type CoarseRow struct {
	Players int `json:"players"`
	RTTMS   int `json:"rtt_ms"`
	Step    int `json:"step"`
	// Frames re-run after each snapshot (the same before and after: a
	// coarse step still runs the own player every frame).
	FramesPerSnapshot float64 `json:"frames_per_snapshot"`
	// Entity steps per snapshot (clienthook.Counters.RepredictedSteps), both
	// from the coarse match: the frame-by-frame figure is its frames
	// re-run times its PVS (demo's FrameSteps), so the two differ only by
	// the stepping. Deterministic: the same on any machine.
	StepsBefore float64 `json:"steps_before"`
	StepsAfter  float64 `json:"steps_after"`
	// Median wall time of a snapshot's re-prediction, ns, measured in the
	// same runs (matchsim.RepredictionStats.NSMedian).
	NSBefore float64 `json:"ns_before"`
	NSAfter  float64 `json:"ns_after"`
	// Prediction error of the opponents (the aim error of the matrix:
	// where a client shows them against where the server has them) and of
	// the own player, world units.
	ErrMeanBefore  float64 `json:"error_mean_before"`
	ErrMeanAfter   float64 `json:"error_mean_after"`
	ErrP99Before   float64 `json:"error_p99_before"`
	ErrP99After    float64 `json:"error_p99_after"`
	SelfMeanBefore float64 `json:"self_error_mean_before"`
	SelfMeanAfter  float64 `json:"self_error_mean_after"`
	Desyncs        int     `json:"desyncs"` // base or state mismatches in either run: must be 0
}

// coarseMatches are the player counts and round trips of o where
// re-prediction is longest: 8 players or more, 100 ms or more.
func coarseMatches(o Options) (players []int, rtts []time.Duration) {
	for _, n := range o.Players {
		if n >= 8 {
			players = append(players, n)
		}
	}
	for _, r := range o.RTTs {
		if r >= 100*time.Millisecond {
			rtts = append(rtts, r)
		}
	}
	return players, rtts
}

// RunCoarse measures re-prediction in steps of each of o.CoarseSteps
// frames against frame by frame, at every player count of at least 8 and
// round trip of at least 100 ms in o.
func RunCoarse(o Options) ([]CoarseRow, error) {
	if len(o.CoarseSteps) == 0 {
		return nil, nil
	}
	players, rtts := coarseMatches(o)
	run := func(n int, rtt time.Duration, k int) (*matchsim.Result, error) {
		opt := matchsim.DefaultOptions()
		opt.Clients, opt.Latency, opt.Jitter, opt.Loss, opt.Duration, opt.Seed = n, rtt, 0, o.Loss, o.Duration, o.Seed
		opt.Warmup = min(2*time.Second, o.Duration/4)
		opt.Reprediction, opt.CoarseStep = true, k
		res, err := matchsim.Run(opt)
		if err != nil {
			return nil, fmt.Errorf("netmodels: re-prediction in steps of %d, %d players, %v: %w", k, n, rtt, err)
		}
		if res.Reprediction == nil || res.Reprediction.Snapshots == 0 {
			return nil, fmt.Errorf("netmodels: re-prediction in steps of %d, %d players, %v: no snapshot", k, n, rtt)
		}
		return res, nil
	}
	var rows []CoarseRow
	for _, n := range players {
		for _, rtt := range rtts {
			before, err := run(n, rtt, 0)
			if err != nil {
				return nil, err
			}
			for _, k := range o.CoarseSteps {
				after, err := run(n, rtt, k)
				if err != nil {
					return nil, err
				}
				b, a := before.Reprediction, after.Reprediction
				rows = append(rows, CoarseRow{Players: n, RTTMS: int(rtt / time.Millisecond), Step: k,
					FramesPerSnapshot: a.FramesPerSnapshot(),
					StepsBefore:       a.FrameStepsPerSnapshot(), StepsAfter: a.StepsPerSnapshot(),
					NSBefore: b.NSMedian, NSAfter: a.NSMedian,
					ErrMeanBefore: before.PredErrorOthersMean, ErrMeanAfter: after.PredErrorOthersMean,
					ErrP99Before: before.PredErrorOthersP99, ErrP99After: after.PredErrorOthersP99,
					SelfMeanBefore: before.PredErrorSelfMean, SelfMeanAfter: after.PredErrorSelfMean,
					Desyncs: int(before.BaseMismatches + before.StateMismatches + after.BaseMismatches + after.StateMismatches)})
			}
		}
	}
	return rows, nil
}

// coarseIdea is (c) as one §8 idea: the row at n players, rtt and the
// smallest step, with a verdict from the figures of every row.
func coarseIdea(rows []CoarseRow, n, rtt int) (Idea, bool) {
	i := slices.IndexFunc(rows, func(r CoarseRow) bool { return r.Players == n && r.RTTMS == rtt })
	if i < 0 {
		return Idea{}, false
	}
	r := rows[i]
	return Idea{
		Name:   fmt.Sprintf("re-prediction in steps of %d frames (the own player still every frame)", r.Step),
		Figure: "entity steps re-predicted per snapshot",
		Before: r.StepsBefore, After: r.StepsAfter,
		Cost: fmt.Sprintf("opponents' prediction error mean %.1f -> %.1f units, p99 %.1f -> %.1f; own player's mean %.2f -> %.2f",
			r.ErrMeanBefore, r.ErrMeanAfter, r.ErrP99Before, r.ErrP99After, r.SelfMeanBefore, r.SelfMeanAfter),
		Verdict: coarseVerdict(rows),
	}, true
}

// Thresholds of the verdict: a coarse step pays off when it cuts the wall
// time of re-prediction by at least coarseMinSaving while the opponents'
// mean and p99 error rise by at most coarseMaxErrRise, in every match; and
// it is only worth considering when re-prediction is costly, taking at
// least coarseCostly of a 60 Hz frame.
const (
	coarseMinSaving  = 0.2
	coarseMaxErrRise = 0.05
	coarseCostly     = 0.01
)

// coarseVerdict says whether re-predicting in larger steps pays off on
// rows, with the figures that decide it.
func coarseVerdict(rows []CoarseRow) string {
	if len(rows) == 0 {
		return "nothing measured"
	}
	frame := float64(time.Second / 60)
	var worstSave, worstRise, maxCost, stepSave float64 = 1, 0, 0, 1
	for _, r := range rows {
		if r.NSBefore <= 0 || r.StepsBefore <= 0 || r.ErrMeanBefore <= 0 || r.ErrP99Before <= 0 {
			return "nothing measured"
		}
		worstSave = min(worstSave, 1-r.NSAfter/r.NSBefore)
		stepSave = min(stepSave, 1-r.StepsAfter/r.StepsBefore)
		worstRise = max(worstRise, r.ErrMeanAfter/r.ErrMeanBefore-1, r.ErrP99After/r.ErrP99Before-1)
		maxCost = max(maxCost, r.NSBefore/frame)
	}
	figs := fmt.Sprintf("at least %.0f%% fewer entity steps and %.0f%% less wall time in every match, for up to %+.0f%% opponent error (mean or p99); "+
		"re-prediction takes at most %.2f%% of a 60 Hz frame before",
		100*stepSave, 100*worstSave, 100*worstRise, 100*maxCost)
	switch {
	case worstSave >= coarseMinSaving && worstRise <= coarseMaxErrRise && maxCost >= coarseCostly:
		return "pays off: " + figs
	case maxCost < coarseCostly:
		return "does not pay off on the arena: " + figs + ", so there is no cost worth the error to save (the paper: \"cheap enough to not cause any problems\")"
	case worstSave < coarseMinSaving:
		return "does not pay off: " + figs + "; the time saved is small"
	default:
		return "does not pay off: " + figs + "; the error rises more than the time saved is worth"
	}
}
