package netmodels

import (
	"fmt"
	"html"
	"io"
	"slices"
	"strings"
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

// series is one line of a plot.
type series struct {
	name, color string
	x, y        []float64
}

var modelColors = map[string]string{"lockstep": "#c0392b", "packet-server": "#e8873a", "quake3": "#3b6fb6", "doom3": "#27ae60"}

// lineSVG draws series as lines with points on linear axes from 0.
func lineSVG(title, xlabel, ylabel string, ss []series) string {
	const W, H, left, right, top, bottom = 640, 340, 70, 150, 34, 50
	maxX, maxY := 1.0, 1.0
	for _, s := range ss {
		for i := range s.x {
			maxX, maxY = max(maxX, s.x[i]), max(maxY, s.y[i])
		}
	}
	maxY *= 1.05
	px := func(x float64) float64 { return left + (W-left-right)*x/maxX }
	py := func(y float64) float64 { return H - bottom - (H-top-bottom)*y/maxY }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="11">`+"\n", W, H)
	fmt.Fprintf(&b, `<text x="%d" y="18" font-size="14">%s</text>`+"\n", left, html.EscapeString(title))
	for i := 0; i <= 4; i++ {
		y := maxY * float64(i) / 4
		fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#ddd"/><text x="%d" y="%.1f" text-anchor="end">%.3g</text>`+"\n",
			left, W-right, py(y), py(y), left-4, py(y)+4, y)
	}
	var xs []float64
	for _, s := range ss {
		for _, x := range s.x {
			if !slices.Contains(xs, x) {
				xs = append(xs, x)
			}
		}
	}
	for _, x := range xs {
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">%g</text>`+"\n", px(x), H-bottom+14, x)
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle">%s</text>`+"\n", (left+W-right)/2, H-bottom+34, html.EscapeString(xlabel))
	fmt.Fprintf(&b, `<text transform="translate(14,%d) rotate(-90)" text-anchor="middle">%s</text>`+"\n", (top+H-bottom)/2, html.EscapeString(ylabel))
	for k, s := range ss {
		var pts []string
		for i := range s.x {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", px(s.x[i]), py(s.y[i])))
			fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>`+"\n", px(s.x[i]), py(s.y[i]), s.color)
		}
		fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2"/>`+"\n", strings.Join(pts, " "), s.color)
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="12" height="12" fill="%s"/><text x="%d" y="%d">%s</text>`+"\n",
			W-right+12, top+18*k, s.color, W-right+30, top+18*k+10, html.EscapeString(s.name))
	}
	b.WriteString("</svg>\n")
	return b.String()
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

// Plots returns the report's plots, each an SVG document: bytes down per player against
// players (at the middle round trip), aim error against round trip (at the largest player
// count with client-server rows), hit share with and without lag compensation against round
// trip, and the lockstep models' stall frames against round trip, with one slow peer and
// without.
func Plots(r *Result) []string {
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
	var out []string

	var bytes []series
	for _, m := range []string{"lockstep", "packet-server", "quake3", "doom3"} {
		s := series{name: m, color: modelColors[m]}
		for _, x := range pick(rows, m, func(x Row) bool { return x.RTTMS == midRTT }) {
			s.x, s.y = append(s.x, float64(x.Players)), append(s.y, x.BytesDownPerS)
		}
		bytes = append(bytes, s)
	}
	out = append(out, lineSVG(fmt.Sprintf("Bytes down per player per second, %d ms round trip", midRTT), "players", "bytes/s", bytes))

	var aim, hits []series
	for _, m := range []string{"quake3", "doom3"} {
		at := pick(rows, m, func(x Row) bool { return x.Players == maxP })
		s, p := series{name: m + " mean", color: modelColors[m]}, series{name: m + " p99", color: modelColors[m] + "88"}
		h, hl := series{name: m, color: modelColors[m]}, series{name: m + " lag comp.", color: modelColors[m] + "88"}
		for _, x := range at {
			rtt := float64(x.RTTMS)
			s.x, s.y = append(s.x, rtt), append(s.y, x.AimErrorMean)
			p.x, p.y = append(p.x, rtt), append(p.y, x.AimErrorP99)
			h.x, h.y = append(h.x, rtt), append(h.y, 100*x.HitShare)
			hl.x, hl.y = append(hl.x, rtt), append(hl.y, 100*x.HitShareLagComp)
		}
		aim, hits = append(aim, s, p), append(hits, h, hl)
	}
	out = append(out, lineSVG(fmt.Sprintf("Aim error (how far a player must lead), %d players", maxP), "round trip (ms)", "world units", aim))
	out = append(out, lineSVG(fmt.Sprintf("Shots aimed at a shown opponent that hit, %d players", maxP), "round trip (ms)", "% of shots", hits))

	var stalls []series
	for _, m := range []string{"lockstep", "packet-server"} {
		for _, slow := range []bool{false, true} {
			s := series{name: m, color: modelColors[m]}
			if slow {
				s.name, s.color = m+", slow peer", modelColors[m]+"88"
			}
			for _, x := range rows {
				if x.Model == m && x.Slow == slow && x.Players == maxP {
					s.x, s.y = append(s.x, float64(x.RTTMS)), append(s.y, x.StallFrames)
				}
			}
			stalls = append(stalls, s)
		}
	}
	out = append(out, lineSVG(fmt.Sprintf("Frames the first player waited, %d players", maxP), "round trip (ms)", "stall frames", stalls))
	return out
}

// WriteHTML writes the report: the plots, then the Markdown section's text.
func WriteHTML(w io.Writer, r *Result) error {
	var b strings.Builder
	b.WriteString("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>snapwire models</title></head><body style=\"font-family:sans-serif;max-width:1300px\">\n")
	b.WriteString("<h1>Four network models side by side: DOOM's lockstep and packet server, Quake 3's and DOOM III's client-server</h1>\n<div>\n")
	for _, p := range Plots(r) {
		b.WriteString(p)
	}
	b.WriteString("</div>\n<pre style=\"white-space:pre-wrap\">")
	b.WriteString(html.EscapeString(Markdown(r)))
	b.WriteString("</pre>\n</body></html>\n")
	_, err := io.WriteString(w, b.String())
	return err
}
