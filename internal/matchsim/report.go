package matchsim

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"math"
	"strconv"
	"strings"
)

// WriteHTML writes r as a self-contained HTML page: the run's parameters,
// the key figures, and lagometer-style plots over time in inline SVG (no
// scripts, no external assets).
func WriteHTML(w io.Writer, r *Result) error {
	bw := bufio.NewWriter(w)
	p := func(format string, a ...any) { fmt.Fprintf(bw, format, a...) }
	p(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>snapwire demo report</title>
<style>
body{font-family:system-ui,sans-serif;max-width:900px;margin:2em auto;color:#222;padding:0 1em}
h1{font-size:1.5em}h2{font-size:1.1em;margin:1.6em 0 .3em}
table{border-collapse:collapse;font-size:.9em}td,th{padding:.2em .8em;border-bottom:1px solid #ddd;text-align:right}
td:first-child,th:first-child{text-align:left}
.ok{color:#080}.bad{color:#c00;font-weight:bold}
svg text{font-size:11px;fill:#444}
p.note{font-size:.85em;color:#555}
</style></head><body>
<h1>snapwire demo</h1>
`)
	p("<p>%d bot clients, %s ms round trip, ±%s ms jitter per direction, %s%% loss per direction, %s s of game (%d frames at 60 Hz), seed %d; map <code>%s</code>. Simulated in %s ms of wall time.</p>\n",
		r.Clients, num(r.LatencyMS), num(r.JitterMS), num(r.Loss*100), num(r.DurationS), r.Frames, r.Seed,
		html.EscapeString(r.Settings), num(r.WallMS))

	p("<h2>Key figures</h2>\n<table>\n")
	row := func(name, val, note string) {
		p("<tr><td>%s</td><td>%s</td><td style=\"text-align:left\">%s</td></tr>\n", name, val, note)
	}
	row("bandwidth per client", num(r.KbpsPerClientMean)+" kbit/s", "mean server→client UDP payload; peak second "+num(r.KbpsPerClientMax)+"; upstream "+num(r.KbpsUpPerClientMean))
	row("snapshot size", num(r.SnapshotBytesMean)+" B", "after zrle; "+num(r.SnapshotBytesRawMean)+" B before; packets "+num(r.PacketBytesDownMean)+" B")
	row("saved by bit packing", pct(r.SavedByBitpacking), "vs 32 bits per variable (DOOM III §6: 10–15%)")
	row("saved by delta compression", pct(r.SavedByDelta), "vs full bit-packed states of the PVS (§6: 90–100%)")
	row("saved by zrle", pct(r.SavedByZRLE), "on the snapshot stream (§6: 15–50%)")
	row("prediction error, own player", num(r.PredErrorSelfMean), "mean; p99 "+num(r.PredErrorSelfP99)+"; exact "+pct(r.PredExactShareSelf))
	row("prediction error, others", num(r.PredErrorOthersMean), "mean; p99 "+num(r.PredErrorOthersP99)+"; exact "+pct(r.PredExactShareOthers))
	row("command lead", num(r.CmdLeadMSMean)+" ms", "how early commands reach the server (mean of snapshot reports)")
	row("late (duplicated) commands", pct(r.LateCmdShare), strconv.FormatUint(r.DuplicatedCmds, 10)+" of "+strconv.FormatUint(r.FramesRun, 10)+" frames")
	row("snapshots", strconv.FormatUint(r.SnapshotsReceived, 10)+" received", strconv.FormatUint(r.SnapshotsSent, 10)+" sent, "+strconv.FormatUint(r.SnapshotsLost, 10)+" lost, "+strconv.FormatUint(r.SnapshotsSkipped, 10)+" skipped")
	row("packets lost", strconv.FormatUint(r.PacketsLost, 10), "of "+strconv.FormatUint(r.PacketsSent, 10)+"; reliable resends "+strconv.FormatUint(r.ReliableResends, 10))
	row("base mismatches", check(r.BaseMismatches), "of "+strconv.FormatUint(r.BaseChecks, 10)+" checks (§4.2 common base)")
	row("state mismatches", check(r.StateMismatches), "of "+strconv.FormatUint(r.StateChecks, 10)+" entity states checked at snapshots")
	p("</table>\n")

	n := len(r.Seconds)
	series := func(f func(s *Second) float64) []float64 {
		v := make([]float64, n)
		for i := range r.Seconds {
			v[i] = f(&r.Seconds[i])
		}
		return v
	}
	var kbps []line
	for c := 0; c < r.Clients; c++ {
		kbps = append(kbps, line{name: fmt.Sprintf("client %d", c), values: series(func(s *Second) float64 {
			if c < len(s.KbpsDown) {
				return s.KbpsDown[c]
			}
			return 0
		})})
	}
	p("<h2>Bandwidth per client (server → client, kbit/s)</h2>\n")
	chart(bw, kbps, "kbit/s")
	p("<h2>Snapshot size (bytes, mean per second)</h2>\n")
	chart(bw, []line{
		{name: "before zrle", values: series(func(s *Second) float64 { return s.SnapshotBytesRaw })},
		{name: "after zrle", values: series(func(s *Second) float64 { return s.SnapshotBytes })},
		{name: "UDP packet", values: series(func(s *Second) float64 { return s.PacketBytes })},
	}, "bytes")
	p("<h2>Prediction error (world units; players are 32 wide)</h2>\n")
	chart(bw, []line{
		{name: "own player, mean", values: series(func(s *Second) float64 { return s.PredSelfMean })},
		{name: "own player, p99", values: series(func(s *Second) float64 { return s.PredSelfP99 })},
		{name: "others, mean", values: series(func(s *Second) float64 { return s.PredOthersMean })},
		{name: "others, p99", values: series(func(s *Second) float64 { return s.PredOthersP99 })},
	}, "units")
	p("<h2>Command lead (ms the commands arrive before the server needs them)</h2>\n")
	chart(bw, []line{
		{name: "mean", values: series(func(s *Second) float64 { return s.LeadMeanMS })},
		{name: "lowest", values: series(func(s *Second) float64 { return s.LeadMinMS })},
	}, "ms")
	p("<h2>Loss and late commands (per second, all clients)</h2>\n")
	chart(bw, []line{
		{name: "packets lost", values: series(func(s *Second) float64 { return float64(s.PacketsLost) })},
		{name: "snapshots lost", values: series(func(s *Second) float64 { return float64(s.SnapshotsLost) })},
		{name: "commands duplicated", values: series(func(s *Second) float64 { return float64(s.Duplicated) })},
	}, "count")
	p(`<p class="note">Bandwidth counts UDP payload (no IP/UDP headers). Prediction error is the distance between where a client showed an entity at a frame and where the server had it after that frame. Figures are measured, not estimated: see README.md, "snapwire demo".</p>
</body></html>
`)
	return bw.Flush()
}

type line struct {
	name   string
	values []float64
}

var palette = []string{"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"}

// chart writes one line chart: x is the second, y the values.
func chart(w io.Writer, lines []line, unit string) {
	const (
		width, height           = 860, 240
		left, right, top, below = 56, 12, 34, 28
	)
	pw, ph := float64(width-left-right), float64(height-top-below)
	n := 0
	lo, hi := 0.0, 0.0
	var all []float64
	for _, l := range lines {
		n = max(n, len(l.values))
		for _, v := range l.values {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				lo, hi = min(lo, v), max(hi, v)
				all = append(all, v)
			}
		}
	}
	if n == 0 {
		fmt.Fprintf(w, "<p>(no data)</p>\n")
		return
	}
	// A few outliers (a respawn mispredicted by hundreds of units) would
	// flatten everything else: clip the axis at twice the 90th percentile
	// and label the clipped points with their values.
	clip := math.Inf(1)
	if p90 := percentile(all, 0.9); p90 > 0 && hi > 4*p90 {
		clip = 2 * p90
		hi = clip
	}
	step := niceStep((hi - lo) / 5)
	lo, hi = math.Floor(lo/step)*step, math.Ceil(hi/step)*step
	if hi <= lo {
		hi = lo + step
	}
	x := func(i int) float64 { return float64(left) + pw*float64(i+1)/float64(n) }
	y := func(v float64) float64 { return float64(top) + ph*(1-(v-lo)/(hi-lo)) }

	fmt.Fprintf(w, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" role="img">`+"\n", width, height, width, height)
	// Grid and y labels.
	for v := lo; v <= hi+step/2; v += step {
		fmt.Fprintf(w, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="%s"/>`, left, y(v), width-right, y(v), map[bool]string{true: "#999", false: "#eee"}[v == 0])
		fmt.Fprintf(w, `<text x="%d" y="%.1f" text-anchor="end">%s</text>`+"\n", left-4, y(v)+4, num(round(v, 6)))
	}
	// x labels: seconds.
	xstep := max(1, n/10)
	for i := xstep - 1; i < n; i += xstep {
		fmt.Fprintf(w, `<text x="%.1f" y="%d" text-anchor="middle">%ds</text>`, x(i), height-below+16, i+1)
	}
	fmt.Fprintf(w, `<text x="4" y="14">%s</text>`+"\n", html.EscapeString(unit))
	// Lines, then the legend.
	lx := float64(left) + 40
	clipped := make([]float64, n)
	for k, l := range lines {
		color := palette[k%len(palette)]
		var pts strings.Builder
		for i, v := range l.values {
			if v > clip {
				clipped[i] = max(clipped[i], v)
				v = hi
			}
			fmt.Fprintf(&pts, "%.1f,%.1f ", x(i), y(v))
		}
		fmt.Fprintf(w, `<polyline fill="none" stroke="%s" stroke-width="1.6" points="%s"/>`+"\n", color, strings.TrimSpace(pts.String()))
		wide := 13 + 7*float64(len(l.name)) + 14
		switch {
		case lx+wide < width-right-20:
			fmt.Fprintf(w, `<rect x="%.0f" y="6" width="10" height="10" fill="%s"/><text x="%.0f" y="15">%s</text>`+"\n", lx, color, lx+13, html.EscapeString(l.name))
		case lx < width:
			fmt.Fprintf(w, `<text x="%.0f" y="15">…</text>`+"\n", lx)
			lx = width
			continue
		default:
			continue
		}
		lx += wide
	}
	for i, v := range clipped {
		if v > 0 {
			fmt.Fprintf(w, `<text x="%.1f" y="%d" text-anchor="middle">▲%s</text>`+"\n", x(i), top-3, num(round(v, 1)))
		}
	}
	fmt.Fprintf(w, `<rect x="%d" y="%d" width="%.0f" height="%.0f" fill="none" stroke="#bbb"/>`+"\n</svg>\n", left, top, pw, ph)
}

// niceStep rounds a raw tick step up to 1, 2 or 5 times a power of ten.
func niceStep(raw float64) float64 {
	if raw <= 0 || math.IsNaN(raw) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= raw {
			return m * p
		}
	}
	return 10 * p
}

func num(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

func pct(v float64) string { return strconv.FormatFloat(v*100, 'f', 1, 64) + "%" }

func check(v uint64) string {
	if v == 0 {
		return `<span class="ok">0</span>`
	}
	return `<span class="bad">` + strconv.FormatUint(v, 10) + `</span>`
}
