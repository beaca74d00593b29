package netmodels

import (
	_ "embed"
	"fmt"
	"io"
	"slices"

	"github.com/snapwire/snapwire/internal/report"
)

// JSONRow is a row as `snapwire models --json` prints it. The client-server models' rows come
// twice, with LagCompensation false and true, HitShare and BehindCover being the figures
// under that setting (the bytes, latency and aim error are those of the one match, which
// the shots do not change); the lockstep models' rows come once, without it.
type JSONRow struct {
	Row
	LagCompensation *bool    `json:"lag_compensation,omitempty"`
	HitShare        *float64 `json:"hit_share,omitempty"`
	BehindCover     int64    `json:"behind_cover"`
}

// JSONRows expands rows for `--json` (JSONRow).
func JSONRows(rows []Row) []JSONRow {
	var out []JSONRow
	for _, r := range rows {
		if r.Shots == 0 {
			out = append(out, JSONRow{Row: r})
			continue
		}
		off, on := false, true
		without, with := r.HitShare, r.HitShareLagComp
		out = append(out,
			JSONRow{Row: r, LagCompensation: &off, HitShare: &without, BehindCover: r.BehindCover},
			JSONRow{Row: r, LagCompensation: &on, HitShare: &with, BehindCover: r.BehindCoverLagComp})
	}
	return out
}

var modelColors = map[string]string{"lockstep": "#c0392b", "packet-server": "#e8873a", "quake3": "#3b6fb6", "doom3": "#27ae60"}

// lineChart is one of the report's plots: lines with points on linear axes from 0.
func lineChart(title, xlabel, ylabel string, ss []report.Series) report.Chart {
	return report.Chart{Title: title, XLabel: xlabel, YLabel: ylabel, Width: 640, Height: 340, Points: true, Series: ss}
}

// pick returns the rows of model m without the slow peer that match keep, in order.
func pick(rows []Row, m string, keep func(Row) bool) []Row {
	var out []Row
	for _, r := range rows {
		if r.Model == m && !r.Slow && keep(r) {
			out = append(out, r)
		}
	}
	return out
}

// Plots returns the report's plots: bytes down per player against
// players (at the middle round trip), aim error against round trip (at the largest player
// count with client-server rows), hit share with and without lag compensation against round
// trip, and the lockstep models' stall frames against round trip, with one slow peer and
// without.
func Plots(r *Result) []report.Chart {
	rows := r.Rows
	var rtts, players []int
	for _, x := range rows {
		if !slices.Contains(rtts, x.RTTMS) {
			rtts = append(rtts, x.RTTMS)
		}
		if !slices.Contains(players, x.Players) {
			players = append(players, x.Players)
		}
	}
	if len(rtts) == 0 {
		return nil
	}
	slices.Sort(rtts)
	slices.Sort(players)
	midRTT, maxP := rtts[len(rtts)/2], players[len(players)-1]
	var out []report.Chart

	var bytes []report.Series
	for _, m := range []string{"lockstep", "packet-server", "quake3", "doom3"} {
		s := report.Series{Name: m, Color: modelColors[m]}
		for _, x := range pick(rows, m, func(x Row) bool { return x.RTTMS == midRTT }) {
			s.X, s.Y = append(s.X, float64(x.Players)), append(s.Y, x.BytesDownPerS)
		}
		bytes = append(bytes, s)
	}
	out = append(out, lineChart(fmt.Sprintf("Bytes down per player per second, %d ms round trip", midRTT), "players", "bytes/s", bytes))

	var aim, hits []report.Series
	for _, m := range []string{"quake3", "doom3"} {
		at := pick(rows, m, func(x Row) bool { return x.Players == maxP })
		s, p := report.Series{Name: m + " mean", Color: modelColors[m]}, report.Series{Name: m + " p99", Color: modelColors[m], Dashed: true}
		h, hl := report.Series{Name: m, Color: modelColors[m]}, report.Series{Name: m + " lag comp.", Color: modelColors[m], Dashed: true}
		for _, x := range at {
			rtt := float64(x.RTTMS)
			s.X, s.Y = append(s.X, rtt), append(s.Y, x.AimErrorMean)
			p.X, p.Y = append(p.X, rtt), append(p.Y, x.AimErrorP99)
			h.X, h.Y = append(h.X, rtt), append(h.Y, 100*x.HitShare)
			hl.X, hl.Y = append(hl.X, rtt), append(hl.Y, 100*x.HitShareLagComp)
		}
		aim, hits = append(aim, s, p), append(hits, h, hl)
	}
	out = append(out, lineChart(fmt.Sprintf("Aim error (how far a player must lead), %d players", maxP), "round trip (ms)", "world units", aim))
	out = append(out, lineChart(fmt.Sprintf("Shots aimed at a shown opponent that hit, %d players", maxP), "round trip (ms)", "% of shots", hits))

	var stalls []report.Series
	for _, m := range []string{"lockstep", "packet-server"} {
		for _, slow := range []bool{false, true} {
			s := report.Series{Name: m, Color: modelColors[m]}
			if slow {
				s.Name, s.Dashed = m+", slow peer", true
			}
			for _, x := range rows {
				if x.Model == m && x.Slow == slow && x.Players == maxP {
					s.X, s.Y = append(s.X, float64(x.RTTMS)), append(s.Y, x.StallFrames)
				}
			}
			stalls = append(stalls, s)
		}
	}
	out = append(out, lineChart(fmt.Sprintf("Frames the first player waited, %d players", maxP), "round trip (ms)", "stall frames", stalls))
	return out
}

// models.html.tmpl is the HTML report's body: the plots, then the section's tables.
//
//go:embed models.html.tmpl
var htmlBody string

// htmlPage is what models.html.tmpl shows; the prose comes from markdown.md.tmpl.
type htmlPage struct {
	*Result
	Title, Heading, Intro, ClaimsIntro, Section8Intro, CoarseIntro string
	Plots                                                          []report.Chart
}

// WriteHTML writes the report: the plots, then the section's tables and claims as HTML.
func WriteHTML(w io.Writer, r *Result) error {
	p := htmlPage{Result: r, Title: "snapwire models", Heading: "Four network models side by side: DOOM's lockstep and packet server, Quake 3's and DOOM III's client-server",
		Intro: prose("intro", nil), ClaimsIntro: prose("claims", nil), CoarseIntro: prose("coarse", nil), Plots: Plots(r)}
	if r.Section8 != nil {
		p.Section8Intro = prose("section8", r.Section8)
	}
	return report.WritePage(w, htmlBody, p)
}
