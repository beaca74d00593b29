package matchsim

import (
	"time"

	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/clienthook"
	"github.com/snapwire/snapwire/internal/refgame"
	"github.com/snapwire/snapwire/internal/report"
)

// Re-prediction cost (Options.Reprediction): after each snapshot a client
// re-runs the frames from the snapshot's up to its own (DOOM III §2), or
// re-runs them in larger steps (§8, client.Config.CoarseStep). It is
// measured two ways: the entity steps the clients count (deterministic:
// the same run gives the same figure on any machine) and the wall time
// spent in the game's frame code while re-predicting (timedWorld).

// RepredictionStats are the clients' re-prediction figures after the
// warm-up, summed over the clients.
type RepredictionStats struct {
	Snapshots uint64 `json:"snapshots"` // snapshots received
	Frames    uint64 `json:"frames"`    // frames re-run (clienthook.Counters.Repredicted)
	Steps     uint64 `json:"steps"`     // entity steps (clienthook.Counters.RepredictedSteps)
	// FrameSteps is the entity steps re-predicting the same frames frame
	// by frame would have taken (frames re-run times the snapshot's PVS):
	// Steps' reference from the same match.
	FrameSteps uint64 `json:"frame_steps"`
	Coarse     uint64 `json:"coarse"` // re-predictions run in coarse steps
	// NSMedian is the median over the snapshots that left frames to
	// re-predict of the wall time their re-prediction spent in the game's
	// RunFrame and RunCoarseFrame; the median, because the mean of a wall
	// time on a shared machine is dominated by the rare preemption.
	NSMedian float64 `json:"ns_median"`

	ns []float64
}

// FramesPerSnapshot, StepsPerSnapshot and NSPerSnapshot are the figures
// per snapshot received.
func (r *RepredictionStats) FramesPerSnapshot() float64 { return r.per(float64(r.Frames)) }

// StepsPerSnapshot is the entity steps per snapshot received.
func (r *RepredictionStats) StepsPerSnapshot() float64 { return r.per(float64(r.Steps)) }

// FrameStepsPerSnapshot is FrameSteps per snapshot received.
func (r *RepredictionStats) FrameStepsPerSnapshot() float64 { return r.per(float64(r.FrameSteps)) }

func (r *RepredictionStats) per(v float64) float64 {
	if r.Snapshots == 0 {
		return 0
	}
	return v / float64(r.Snapshots)
}

// timedWorld is the arena world a client predicts with, timing the
// client's re-prediction after a snapshot: timing is on from the end of
// the client's OnSnapshot (the snapshot is in the world, re-prediction
// follows) to the return of the HandlePacket that delivered it (stop); the
// time measured runs from the start of the first game frame run in that
// window to its end, so it holds the re-prediction and the render
// corrections after it, with two clock readings per snapshot (a reading
// per frame would cost about as much as a coarse step saves).
type timedWorld struct {
	*refgame.World
	timing bool
	start  time.Time
	keep   bool      // keep the samples (after the warm-up)
	all    []float64 // ns per snapshot that re-predicted
	// the snapshot's PVS and the client's re-predicted frames before it,
	// for FrameSteps
	pvs        uint64
	rep0       uint64
	frameSteps uint64
}

// begin starts timing after the client wrote a snapshot with pvs entities
// into its world, having re-predicted rep frames so far.
func (t *timedWorld) begin(pvs int, rep uint64) {
	t.timing, t.pvs, t.rep0 = true, uint64(pvs), rep
}

// RunFrame implements game.Game.
func (t *timedWorld) RunFrame(tk *game.Tick) {
	if t.timing && t.start.IsZero() {
		t.start = time.Now()
	}
	t.World.RunFrame(tk)
}

// RunCoarseFrame implements game.CoarseStepper.
func (t *timedWorld) RunCoarseFrame(tk *game.Tick, s game.CoarseStep) {
	if t.timing && t.start.IsZero() {
		t.start = time.Now()
	}
	t.World.RunCoarseFrame(tk, s)
}

// stop ends the timing of a snapshot's re-prediction; rep is the client's
// re-predicted frames now.
func (t *timedWorld) stop(rep uint64) {
	if t.keep && !t.start.IsZero() {
		t.all = append(t.all, float64(time.Since(t.start)))
	}
	if t.keep && t.timing {
		t.frameSteps += (rep - t.rep0) * t.pvs
	}
	t.timing, t.start = false, time.Time{}
}

// repredictMark is a client's re-prediction counters at the end of the
// warm-up.
type repredictMark struct {
	snaps, frames, steps, coarse uint64
}

func (b *bot) repredictCounters() repredictMark {
	st := clienthook.CountersOf(b.c)
	return repredictMark{snaps: st.SnapshotsReceived, frames: st.Repredicted, steps: st.RepredictedSteps, coarse: st.CoarseRepredictions}
}

// addReprediction adds client b's figures since the warm-up to r.
func (r *RepredictionStats) add(b *bot) {
	cur := b.repredictCounters()
	r.Snapshots += cur.snaps - b.repMark.snaps
	r.Frames += cur.frames - b.repMark.frames
	r.Steps += cur.steps - b.repMark.steps
	r.Coarse += cur.coarse - b.repMark.coarse
	if b.tw != nil {
		r.ns = append(r.ns, b.tw.all...)
		r.FrameSteps += b.tw.frameSteps
	}
}

// finish computes the median.
func (r *RepredictionStats) finish() { r.NSMedian = round(report.Percentile(r.ns, 0.5), 0) }
