// markdown.go: what the templates of BENCHMARKS.md (report.md.tmpl, peers.md.tmpl,
// notes.md.tmpl) are given: the run's Result, the constants the prose quotes, and its rows
// grouped the way each table lists them.

package bench

import (
	"embed"
	"text/template"

	"github.com/snapwire/snapwire/internal/report"
)

//go:embed report.md.tmpl peers.md.tmpl notes.md.tmpl
var markdownFiles embed.FS

var markdown = template.Must(template.New("bench").Funcs(report.Funcs()).Funcs(template.FuncMap{
	"kib": func(bytes int) float64 { return float64(bytes) / 1024 },
}).ParseFS(markdownFiles, "*.md.tmpl"))

// markdownView is what report.md.tmpl and the "peers" template of peers.md.tmpl show.
type markdownView struct {
	*Result
	Notes    string   // the closing section (Notes), trimmed
	Sections []string // Result.Sections, trimmed

	SnapshotRate, FrameRate, UDPIPBytes, PacketBackup int
	EntropyContextBits, Q3EntityBits                  int
	PlotDir, PaperStages                              string
	// The scale section: its clients and ticks, and the 64p scenario's game frame and PVS
	// costs, which its client counts include.
	ScaleClients, ScaleTicks     int
	ScaleFrameNS, ScaleVisibleNS float64
}

// rowGroup is one line of a table that sets encoders side by side: scenario S at Loss, R
// holding a row per encoder.
type rowGroup struct {
	S    ScenarioInfo
	Loss float64
	R    []*Row
}

// At lists, scenario by scenario and loss rate by loss rate, the groups where every encoder
// of encs has a row, the rows in the order of encs.
func (v markdownView) At(encs ...string) []rowGroup {
	var gs []rowGroup
	v.rowsAt(func(s ScenarioInfo, loss float64, rows []*Row) {
		gs = append(gs, rowGroup{s, loss, append([]*Row(nil), rows...)})
	}, encs...)
	return gs
}

// At0 is At at 0% loss only.
func (v markdownView) At0(encs ...string) []rowGroup {
	var gs []rowGroup
	for _, s := range v.Scenarios {
		g := rowGroup{S: s}
		for _, e := range encs {
			if x := v.Find(s.Name, 0, e); x != nil {
				g.R = append(g.R, x)
			}
		}
		if len(g.R) == len(encs) {
			gs = append(gs, g)
		}
	}
	return gs
}

// encoderRow is one encoder's row at 0% loss.
type encoderRow struct {
	S   ScenarioInfo
	Enc string
	X   *Row
}

// Each0 lists, scenario by scenario, the 0% loss row of each encoder of encs that has one.
func (v markdownView) Each0(encs ...string) []encoderRow {
	var out []encoderRow
	for _, s := range v.Scenarios {
		for _, e := range encs {
			if x := v.Find(s.Name, 0, e); x != nil {
				out = append(out, encoderRow{s, e, x})
			}
		}
	}
	return out
}

// ScalePairs pairs the scale points: one worker, then two, at each visible count.
func (v markdownView) ScalePairs() [][2]ScalePoint {
	var out [][2]ScalePoint
	for i := 0; i+1 < len(v.Scale); i += 2 {
		out = append(out, [2]ScalePoint{v.Scale[i], v.Scale[i+1]})
	}
	return out
}
