package bench

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/snapwire/snapwire/internal/entropy"
	"github.com/snapwire/snapwire/internal/report"
)

// The benchmark targets.
const (
	TargetChurnRatio = 0.60 // scenario (d): DOOM III bytes / Quake 3 bytes
	TargetRatio      = 1.00 // every scenario
	TargetLossGrowth = 1.30 // bytes at 20% loss / bytes at 0%
	TargetServerNS   = 10000
	TargetCoreShare  = 0.5
)

// Paper §6 stage reductions, for the side-by-side table.
const paperStages = "bit packing 10-15%, delta 90-100%, zrle (3-bit) 15-50%"

// PlotDir is where WriteFiles puts the SVG plots, relative to the output directory.
const PlotDir = "internal/bench/plots"

// rowsAt calls f, scenario by scenario and loss rate by loss rate, where every encoder of
// encs has a row, with those rows in the order of encs.
func (r *Result) rowsAt(f func(s ScenarioInfo, loss float64, rows []*Row), encs ...string) {
	rows := make([]*Row, len(encs))
	for _, s := range r.Scenarios {
		for _, l := range r.Options.Losses {
			ok := true
			for i, e := range encs {
				rows[i] = r.Find(s.Name, l, e)
				ok = ok && rows[i] != nil
			}
			if ok {
				f(s, l, rows)
			}
		}
	}
}

// Find returns the row for (scenario, loss, encoder).
func (r *Result) Find(sc string, loss float64, enc string) *Row {
	for i := range r.Rows {
		x := &r.Rows[i]
		if x.Scenario == sc && x.Encoder == enc && math.Abs(x.Loss-loss) < 1e-9 {
			return x
		}
	}
	return nil
}

// Target is one acceptance target and whether the run meets it.
type Target struct {
	Name   string
	Figure string
	Met    bool
	// Judged is false where the run cannot judge the target: a --quick run (Options.Quick)
	// shows the server-time, allocation and core-share figures of its short passes but does
	// not judge them. The byte targets come from the recorded traffic and are always judged.
	Judged bool
}

// Verdict is the target's state in a report: "yes", "no", or with "(not judged: --quick)".
func (t Target) Verdict() string {
	v := map[bool]string{true: "yes", false: "no"}[t.Met]
	if !t.Judged {
		v += " (not judged: --quick)"
	}
	return v
}

// Missed returns the targets the run judged and does not meet.
func (r *Result) Missed() []Target {
	var ts []Target
	for _, t := range r.Targets() {
		if t.Judged && !t.Met {
			ts = append(ts, t)
		}
	}
	return ts
}

// Targets evaluates the benchmark targets on the run, on snapwire's pipeline (EncDoom3Huff: the
// DOOM III scheme with our static Huffman stage next to zrle); each figure also gives the
// paper's pipeline (EncDoom3: zrle only) for comparison.
func (r *Result) Targets() []Target {
	var ts []Target
	timed := !r.Options.Quick // the figures of the passes' clocks and allocation counters
	worstRatio := func(enc string) (float64, string) {
		m, w := 0.0, ""
		for _, x := range r.Rows {
			if x.Encoder == enc && x.Ratio > m {
				m, w = x.Ratio, fmt.Sprintf("%s at %.0f%% loss", x.Scenario, x.Loss*100)
			}
		}
		return m, w
	}
	worstChurn := func(enc string) float64 {
		m := 0.0
		for _, l := range r.Options.Losses {
			if y := r.Find("churn", l, enc); y != nil {
				m = max(m, y.Ratio)
			}
		}
		return m
	}
	if r.Find("churn", 0, EncDoom3Huff) != nil {
		c, cp := worstChurn(EncDoom3Huff), worstChurn(EncDoom3)
		ts = append(ts, Target{"(d) PVS churn: DOOM III bytes <= 60% of Quake 3's",
			fmt.Sprintf("%.1f%% (worst loss rate; paper's pipeline %.1f%%)", c*100, cp*100), c <= TargetChurnRatio, true})
	}
	maxRatio, worst := worstRatio(EncDoom3Huff)
	maxPaper, worstPaper := worstRatio(EncDoom3)
	ts = append(ts, Target{"every scenario: DOOM III bytes <= 100% of Quake 3's",
		fmt.Sprintf("worst %.1f%% (%s; paper's pipeline %.1f%%, %s)", maxRatio*100, worst, maxPaper*100, worstPaper), maxRatio <= TargetRatio, true})
	growth, gw, growthPaper := 0.0, "", 0.0
	for _, x := range r.Rows {
		if x.Loss < 0.199 {
			continue
		}
		if x.Encoder == EncDoom3Huff && x.LossGrowth > growth {
			growth, gw = x.LossGrowth, x.Scenario
		}
		if x.Encoder == EncDoom3 {
			growthPaper = max(growthPaper, x.LossGrowth)
		}
	}
	ts = append(ts, Target{"20% loss: DOOM III bytes <= 1.3x its lossless bytes",
		fmt.Sprintf("worst %.2fx (%s; paper's pipeline %.2fx)", growth, gw, growthPaper), growth <= TargetLossGrowth, true})
	// The server cost is the all-clients average (every client's snapshot built each frame from
	// one FrameCache, as a server does); client 0's alone is given next to it.
	ns, allocs, nsw, nsPaper, nsOne := 0.0, 0.0, "", 0.0, 0.0
	for _, x := range r.Rows {
		if x.Loss != 0 {
			continue
		}
		if x.Encoder == EncDoom3Huff && x.ServerNS256 > ns {
			ns, nsw, nsOne = x.ServerNS256, x.Scenario, x.ServerNS256One
		}
		if x.Encoder == EncDoom3 {
			nsPaper = max(nsPaper, x.ServerNS256)
		}
		if x.Encoder == EncDoom3 || x.Encoder == EncDoom3Huff {
			allocs = max(allocs, x.AllocsPerSnapshot, x.AllocsOneClient)
		}
	}
	ts = append(ts, Target{"server <= 10 µs per client-snapshot with 256 visible entities (all clients' snapshots built each frame)",
		fmt.Sprintf("worst %.1f µs (%s; one client alone %.1f µs; paper's pipeline %.1f µs)", ns/1000, nsw, nsOne/1000, nsPaper/1000), ns <= TargetServerNS, timed})
	ts = append(ts, Target{"0 allocations per snapshot in steady state",
		fmt.Sprintf("worst %.2f (both pipelines, all clients and one client)", allocs), allocs == 0, timed})
	if x := r.Find("64p", 0, EncDoom3Huff); x != nil {
		ts = append(ts, Target{"64 clients x 4096 entities, 60 Hz frames + 20 Hz snapshots < half a core",
			fmt.Sprintf("%.0f%% of a core", x.ServerCoreShare*100), x.ServerCoreShare < TargetCoreShare, timed})
	}
	return ts
}

// WriteFiles writes BENCHMARKS.md and the SVG plots into dir.
func (r *Result) WriteFiles(dir string, notes string) error {
	pd := filepath.Join(dir, PlotDir)
	if err := os.MkdirAll(pd, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(pd, "bytes.svg"), []byte(r.bytesSVG()), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(pd, "zrle.svg"), []byte(r.zrleSVG()), 0o644); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(dir, "BENCHMARKS.md"))
	if err != nil {
		return err
	}
	if err := r.WriteMarkdown(f, notes); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// WriteMarkdown writes the report (report.md.tmpl); notes is appended as the closing section.
func (r *Result) WriteMarkdown(w io.Writer, notes string) error {
	v := markdownView{Result: r, Notes: strings.TrimSpace(notes),
		SnapshotRate: SnapshotRate, FrameRate: FrameRate, UDPIPBytes: UDPIPBytes, PacketBackup: PacketBackup,
		EntropyContextBits: entropy.ContextBits, Q3EntityBits: q3EntityBits, PlotDir: PlotDir, PaperStages: paperStages,
		ScaleClients: ScaleClients, ScaleTicks: min(r.Options.Ticks, 60), ScaleFrameNS: r.scaleFrameNS(), ScaleVisibleNS: r.scaleVisibleNS()}
	for _, sec := range r.Sections {
		v.Sections = append(v.Sections, strings.TrimSpace(sec))
	}
	return markdown.ExecuteTemplate(w, "report", v)
}

// bytesSVG draws mean bytes per snapshot per scenario and loss, DOOM III next to Quake 3.
func (r *Result) bytesSVG() string {
	c := report.Chart{Title: "Mean bytes per snapshot: DOOM III vs Quake 3", Width: 900, Height: 380, Bars: true, YLabel: "bytes per snapshot",
		Series: []report.Series{{Name: "DOOM III (doom3)", Color: "#3b6fb6"}, {Name: "Quake 3 (quake3)", Color: "#e8873a"}}}
	r.rowsAt(func(s ScenarioInfo, l float64, x []*Row) {
		c.Categories = append(c.Categories, fmt.Sprintf("%s %.0f%%", s.Name, l*100))
		for i := range c.Series {
			c.Series[i].Y = append(c.Series[i].Y, x[i].BytesMean)
		}
	}, EncDoom3, EncQuake3)
	return c.SVG()
}

// zrleSVG draws zrle's saving against word size, one line per scenario and scheme.
func (r *Result) zrleSVG() string {
	c := report.Chart{Title: "zrle saving by word size (solid: DOOM III stream, dashed: Quake 3 stream)", Width: 700, Height: 360,
		YUnit: "%", YMin: -20, YMax: 60, Categories: []string{"w=2", "w=3", "w=4", "w=5", "w=6", "w=7", "w=8"}}
	for si, s := range r.Scenarios {
		for _, e := range []string{EncDoom3, EncQuake3} {
			x := r.Find(s.Name, 0, e)
			if x == nil {
				continue
			}
			se := report.Series{Name: s.Name + " " + e, Color: report.Palette[si%len(report.Palette)], Dashed: e == EncQuake3}
			for _, v := range x.ZRLESavingWords {
				se.Y = append(se.Y, v*100)
			}
			c.Series = append(c.Series, se)
		}
	}
	return c.SVG()
}

// scaleFrameNS and scaleVisibleNS are the 64p scenario's game frame and PVS costs, which the
// scale points' client counts include.
func (r *Result) scaleFrameNS() float64 {
	for _, s := range r.Scenarios {
		if s.Name == "64p" {
			return s.FrameNS
		}
	}
	return 0
}

func (r *Result) scaleVisibleNS() float64 {
	for _, s := range r.Scenarios {
		if s.Name == "64p" {
			return s.VisibleNS
		}
	}
	return 0
}
