package netmodels

import (
	"fmt"
	"strings"
)

// Markdown renders r as a section of BENCHMARKS.md: the table of every
// row, one sentence per claim of the paper saying whether the rows bear it
// out (chosen by comparing the figures, Claims), and the §8 ideas' figures
// before and after.
func Markdown(r *Result) string {
	var b strings.Builder
	b.WriteString("## Four network models side by side: DOOM's lockstep and packet server, Quake 3's and DOOM III's client-server (`snapwire models`)\n\n")
	b.WriteString("Bytes per player per second (UDP payload), input latency in frames, aim error in world units " +
		"(a player is 24 wide), stall frames of the first player, desyncs; for the client-server models the " +
		"share of hitscan shots aimed exactly at an opponent on screen that hit it on the server without and " +
		"with lag compensation, and the hits with it on a victim behind a wall in its own view.\n\n")
	b.WriteString("| model | players | rtt ms | slow peer | bytes up/s | bytes down/s | input latency | aim error mean | aim error p99 | stall frames | desyncs | hit share | hit share, lag comp. | behind cover, lag comp. |\n")
	b.WriteString("|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, row := range r.Rows {
		hits := "– | – | –"
		if row.Shots > 0 {
			hits = fmt.Sprintf("%.0f%% | %.0f%% | %d", 100*row.HitShare, 100*row.HitShareLagComp, row.BehindCoverLagComp)
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %v | %.0f | %.0f | %.1f | %.2f | %.2f | %.0f | %d | %s |\n",
			row.Model, row.Players, row.RTTMS, row.Slow, row.BytesUpPerS, row.BytesDownPerS, row.InputLatencyFrames,
			row.AimErrorMean, row.AimErrorP99, row.StallFrames, row.Desyncs, hits)
	}
	b.WriteString("\nThe paper's claims (DOOM III network architecture, van Waveren 2006), checked on these rows:\n\n")
	for _, c := range r.Claims {
		fmt.Fprintf(&b, "- %s.\n", c)
	}
	if s := r.Section8; s != nil {
		fmt.Fprintf(&b, "\n§8's future work, measured on DOOM III's model at %d players and %d ms:\n\n", s.Players, s.RTTMS)
		b.WriteString("| idea | figure | before | after | verdict | cost |\n|---|---|---:|---:|---|---|\n")
		for _, i := range s.Ideas {
			cost := i.Cost
			if cost == "" {
				cost = "–"
			}
			fmt.Fprintf(&b, "| %s | %s | %.1f | %.1f | %s | %s |\n", i.Name, i.Figure, i.Before, i.After, i.Verdict, cost)
		}
		if len(s.Coarse) > 0 {
			b.WriteString("\nRe-prediction in larger steps, per match (before: frame by frame; after: the own player every frame, " +
				"the other entities in steps; entity steps and the median wall time of a snapshot's re-prediction; the opponents' " +
				"and the own player's prediction error, world units):\n\n")
			b.WriteString("| players | rtt ms | step | frames re-run | entity steps | µs | opponents' error mean | p99 | own error mean | desyncs |\n")
			b.WriteString("|---:|---:|---:|---:|---|---|---|---|---|---:|\n")
			for _, r := range s.Coarse {
				fmt.Fprintf(&b, "| %d | %d | %d | %.1f | %.1f → %.1f | %.1f → %.1f | %.2f → %.2f | %.1f → %.1f | %.2f → %.2f | %d |\n",
					r.Players, r.RTTMS, r.Step, r.FramesPerSnapshot, r.StepsBefore, r.StepsAfter, r.NSBefore/1000, r.NSAfter/1000,
					r.ErrMeanBefore, r.ErrMeanAfter, r.ErrP99Before, r.ErrP99After, r.SelfMeanBefore, r.SelfMeanAfter, r.Desyncs)
			}
		}
	}
	return b.String()
}
