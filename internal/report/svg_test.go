package report

import (
	"encoding/xml"
	"errors"
	"io"
	"math"
	"regexp"
	"strings"
	"testing"
)

// wellFormed parses s as XML and returns its elements' names and every text it holds.
func wellFormed(t *testing.T, s string) (names map[string]int, text []string) {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(s))
	names = map[string]int{}
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			return names, text
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v\n%s", err, s)
		}
		switch x := tok.(type) {
		case xml.StartElement:
			names[x.Name.Local]++
			if x.Name.Local == "svg" && x.Name.Space != "http://www.w3.org/2000/svg" {
				t.Errorf("svg namespace %q", x.Name.Space)
			}
		case xml.CharData:
			if s := strings.TrimSpace(string(x)); s != "" {
				text = append(text, s)
			}
		}
	}
}

func has(text []string, s string) bool {
	for _, x := range text {
		if x == s {
			return true
		}
	}
	return false
}

const hostile = `<script>alert("x")</script> & 'q' ]]>`

func TestChartKinds(t *testing.T) {
	charts := map[string]Chart{
		"lines over seconds, clipped": {
			Title: "Bandwidth", YUnit: "kbit/s", XUnit: "s", ClipOutliers: true,
			Series: []Series{
				{Name: "client 0", X: []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, Y: []float64{10, 11, 12, 10, 11, 900, 12, 10, 11, 12}},
				{Name: "client 1", X: []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, Y: []float64{9, 9, 9, 9, 9, 9, 9, 9, 9, math.NaN()}},
			},
		},
		"lines with points, axis titles": {
			Title: "Bytes down", XLabel: "players", YLabel: "bytes/s", Points: true, Width: 640, Height: 340,
			Series: []Series{{Name: "doom3", Color: "#27ae60", X: []float64{2, 8, 64}, Y: []float64{3000, 65700, 1.2e6}}},
		},
		"grouped bars over categories": {
			Title: "Mean bytes per snapshot", Bars: true, YUnit: "bytes",
			Categories: []string{"duel 0%", "duel 5%", "64p 0%", "64p 5%", "churn 0%", "churn 5%", "static 0%", "static 5%", "16p 0%", "16p 5%", "x 20%"},
			Series:     []Series{{Name: "DOOM III", Y: []float64{10, 20, 300, 310, 50, 60, 5, 6, 100, 110, 1}}, {Name: "Quake 3", Y: []float64{12, 25, 500, 520, 90, 95, 6, 7, 150, 160, 2}}},
		},
		"dashed lines over categories, fixed range": {
			Title: "zrle saving", YUnit: "%", YMin: -20, YMax: 60,
			Categories: []string{"w=2", "w=3", "w=4"},
			Series:     []Series{{Name: "duel", Y: []float64{-30, 10, 70}}, {Name: "duel", Y: []float64{5, 6, 7}, Dashed: true}},
		},
		"no data": {Title: "empty"},
	}
	for name, c := range charts {
		t.Run(name, func(t *testing.T) {
			s := c.SVG()
			names, text := wellFormed(t, s)
			if names["svg"] != 1 || !has(text, c.Title) {
				t.Errorf("want one svg with its title %q: %v %q", c.Title, names, text)
			}
			lines, bars := 0, 0
			for _, se := range c.Series {
				if c.Bars {
					bars += len(se.Y)
				} else {
					lines++
				}
				if !has(text, se.Name) {
					t.Errorf("legend lacks %q", se.Name)
				}
			}
			if names["polyline"] != lines {
				t.Errorf("%d polylines, want %d", names["polyline"], lines)
			}
			if c.Bars && names["rect"] != bars+1 { // the bars and the plot's frame
				t.Errorf("%d rects, want %d bars and the frame", names["rect"], bars)
			}
			if strings.Contains(s, "NaN") || strings.Contains(s, "Inf") || strings.Contains(s, "e+") {
				t.Errorf("a number a person cannot read, or not a number:\n%s", s)
			}
		})
	}
}

func TestChartLabels(t *testing.T) {
	c := Chart{Title: "t", YUnit: "bytes/s", Series: []Series{{Name: "a", X: []float64{0, 1, 2}, Y: []float64{0, 30000, 65700}}}}
	_, text := wellFormed(t, c.SVG())
	for _, want := range []string{"0 bytes/s", "20k bytes/s", "40k bytes/s", "60k bytes/s", "80k bytes/s"} {
		if !has(text, want) {
			t.Errorf("no y label %q in %q", want, text)
		}
	}
	c = Chart{Title: "clip", ClipOutliers: true, Series: []Series{{X: []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, Y: []float64{1, 1, 1, 1, 1, 1, 1, 1, 1, 480}}}}
	if _, text := wellFormed(t, c.SVG()); !has(text, "▲480") {
		t.Errorf("the clipped point's value is not written: %q", text)
	}
	c = Chart{Title: "fixed", YUnit: "%", YMin: -20, YMax: 60, Categories: []string{"w=2", "w=3"}, Series: []Series{{Y: []float64{-50, 90}}}}
	_, text = wellFormed(t, c.SVG())
	for _, want := range []string{"-20%", "0%", "20%", "40%", "60%", "w=2", "w=3"} {
		if !has(text, want) {
			t.Errorf("no label %q in %q", want, text)
		}
	}
	c = Chart{Title: "tenths", YMin: -0.3, YMax: 0.5, Series: []Series{{X: []float64{0, 0.3}, Y: []float64{0.1, 0.2}}}}
	s := c.SVG()
	_, ticks := wellFormed(t, s)
	for _, want := range []string{"-0.2", "0", "0.2", "0.4", "0.3"} {
		if !has(ticks, want) {
			t.Errorf("no label %q in %q", want, ticks)
		}
	}
	if regexp.MustCompile(`[0-9]e[-+]|0000`).MatchString(s) || has(ticks, "0.6") || has(ticks, "-0.4") {
		t.Errorf("a tick label a person cannot read:\n%s", s)
	}
	if has(text, "80%") {
		t.Errorf("the fixed range ends at 60%%: %q", text)
	}
}

func TestChartEscapes(t *testing.T) {
	c := Chart{Title: hostile, XLabel: hostile, YLabel: hostile, YUnit: hostile, Categories: []string{hostile}, Bars: true,
		Series: []Series{{Name: hostile, Color: `red"/><script>x</script>`, Y: []float64{1}}}}
	s := c.SVG()
	names, text := wellFormed(t, s)
	if names["script"] != 0 || strings.Contains(s, "<script") {
		t.Fatalf("a hostile string became markup:\n%s", s)
	}
	if !has(text, hostile) {
		t.Errorf("the hostile title is not shown as text: %q", text)
	}
}
