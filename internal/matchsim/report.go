package matchsim

import (
	_ "embed"
	"fmt"
	"io"
	"strconv"

	"github.com/snapwire/snapwire/internal/report"
)

// report.html.tmpl is the page's body: the run's parameters, the key figures, the plots.
//
//go:embed report.html.tmpl
var reportBody string

// htmlPage is what report.html.tmpl shows.
type htmlPage struct {
	Title       string
	R           *Result
	LossPercent float64
	Figures     []figure
	Charts      []titledChart
}

// figure is a row of the key figures: Bad marks a count that must be 0 and is not.
type figure struct {
	Name, Value, Note string
	Check, Bad        bool
}

type titledChart struct {
	Heading string
	Chart   report.Chart
}

// WriteHTML writes r as a self-contained HTML page: the run's parameters,
// the key figures, and lagometer-style plots over time in inline SVG (no
// scripts, no external assets).
func WriteHTML(w io.Writer, r *Result) error {
	return report.WritePage(w, reportBody, htmlPage{Title: "snapwire demo report", R: r, LossPercent: r.Loss * 100, Figures: keyFigures(r), Charts: charts(r)})
}

func keyFigures(r *Result) []figure {
	pct := func(v float64) string { return report.Pct(v, 1) }
	u := func(v uint64) string { return strconv.FormatUint(v, 10) }
	return []figure{
		{Name: "bandwidth per client", Value: num(r.KbpsPerClientMean) + " kbit/s",
			Note: "mean server→client UDP payload; peak second " + num(r.KbpsPerClientMax) + "; upstream " + num(r.KbpsUpPerClientMean)},
		{Name: "snapshot size", Value: num(r.SnapshotBytesMean) + " B",
			Note: "after zrle; " + num(r.SnapshotBytesRawMean) + " B before; packets " + num(r.PacketBytesDownMean) + " B"},
		{Name: "saved by bit packing", Value: pct(r.SavedByBitpacking), Note: "vs 32 bits per variable (DOOM III §6: 10–15%)"},
		{Name: "saved by delta compression", Value: pct(r.SavedByDelta), Note: "vs full bit-packed states of the PVS (§6: 90–100%)"},
		{Name: "saved by zrle", Value: pct(r.SavedByZRLE), Note: "on the snapshot stream (§6: 15–50%)"},
		{Name: "prediction error, own player", Value: num(r.PredErrorSelfMean),
			Note: "mean; p99 " + num(r.PredErrorSelfP99) + "; exact " + pct(r.PredExactShareSelf)},
		{Name: "prediction error, others", Value: num(r.PredErrorOthersMean),
			Note: "mean; p99 " + num(r.PredErrorOthersP99) + "; exact " + pct(r.PredExactShareOthers)},
		{Name: "command lead", Value: num(r.CmdLeadMSMean) + " ms", Note: "how early commands reach the server (mean of snapshot reports)"},
		{Name: "late (duplicated) commands", Value: pct(r.LateCmdShare), Note: u(r.DuplicatedCmds) + " of " + u(r.FramesRun) + " frames"},
		{Name: "snapshots", Value: u(r.SnapshotsReceived) + " received",
			Note: u(r.SnapshotsSent) + " sent, " + u(r.SnapshotsLost) + " lost, " + u(r.SnapshotsSkipped) + " skipped"},
		{Name: "packets lost", Value: u(r.PacketsLost), Note: "of " + u(r.PacketsSent) + "; reliable resends " + u(r.ReliableResends)},
		{Name: "base mismatches", Value: u(r.BaseMismatches), Check: true, Bad: r.BaseMismatches != 0,
			Note: "of " + u(r.BaseChecks) + " checks (§4.2 common base)"},
		{Name: "state mismatches", Value: u(r.StateMismatches), Check: true, Bad: r.StateMismatches != 0,
			Note: "of " + u(r.StateChecks) + " entity states checked at snapshots"},
	}
}

// charts are the plots over time, one point per second of the match.
func charts(r *Result) []titledChart {
	series := func(name string, f func(s *Second) float64) report.Series {
		s := report.Series{Name: name}
		for i := range r.Seconds {
			s.X, s.Y = append(s.X, float64(i+1)), append(s.Y, f(&r.Seconds[i]))
		}
		return s
	}
	chart := func(heading, unit string, ss ...report.Series) titledChart {
		return titledChart{heading, report.Chart{YLabel: unit, XUnit: "s", Width: 860, Height: 260, ClipOutliers: true, Series: ss}}
	}
	var kbps []report.Series
	for c := 0; c < r.Clients; c++ {
		kbps = append(kbps, series(fmt.Sprintf("client %d", c), func(s *Second) float64 {
			if c < len(s.KbpsDown) {
				return s.KbpsDown[c]
			}
			return 0
		}))
	}
	return []titledChart{
		chart("Bandwidth per client (server → client, kbit/s)", "kbit/s", kbps...),
		chart("Snapshot size (bytes, mean per second)", "bytes",
			series("before zrle", func(s *Second) float64 { return s.SnapshotBytesRaw }),
			series("after zrle", func(s *Second) float64 { return s.SnapshotBytes }),
			series("UDP packet", func(s *Second) float64 { return s.PacketBytes })),
		chart("Prediction error (world units; players are 32 wide)", "units",
			series("own player, mean", func(s *Second) float64 { return s.PredSelfMean }),
			series("own player, p99", func(s *Second) float64 { return s.PredSelfP99 }),
			series("others, mean", func(s *Second) float64 { return s.PredOthersMean }),
			series("others, p99", func(s *Second) float64 { return s.PredOthersP99 })),
		chart("Command lead (ms the commands arrive before the server needs them)", "ms",
			series("mean", func(s *Second) float64 { return s.LeadMeanMS }),
			series("lowest", func(s *Second) float64 { return s.LeadMinMS })),
		chart("Loss and late commands (per second, all clients)", "count",
			series("packets lost", func(s *Second) float64 { return float64(s.PacketsLost) }),
			series("snapshots lost", func(s *Second) float64 { return float64(s.SnapshotsLost) }),
			series("commands duplicated", func(s *Second) float64 { return float64(s.Duplicated) })),
	}
}

func num(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
