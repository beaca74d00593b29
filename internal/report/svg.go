package report

import (
	"encoding/xml"
	"fmt"
	"math"
	"strings"
)

// Chart is a line or grouped-bar chart, drawn by SVG as a self-contained SVG document (no
// scripts, no external assets). Its y axis is labelled with Label; an x axis is either
// numbers (seconds, players, a round trip) or named categories (scenarios, word sizes).
type Chart struct {
	Title          string
	XLabel, YLabel string // axis titles, "" for none
	XUnit, YUnit   string // units of the tick labels (Label): "ms", "%", "s"
	Width, Height  int    // pixels; 0: 860 by 300

	// Categories, when set, make the x axis categorical: Y[i] of a series belongs to
	// Categories[i] and X is ignored.
	Categories []string
	// Bars draws the series as grouped bars over Categories (one bar per series in each
	// group) instead of lines.
	Bars bool
	// Points marks every point of a line.
	Points bool
	// YMin and YMax fix the y axis when YMax > YMin; a value outside is drawn at the edge.
	// Otherwise the axis runs from 0 (or the lowest value, if negative) to a round number
	// above the highest.
	YMin, YMax float64
	// ClipOutliers clips the y axis at twice the 90th percentile of the values when the
	// highest is over four times it (a few outliers, such as a respawn mispredicted by
	// hundreds of units, would flatten everything else) and writes each clipped point's value
	// above it.
	ClipOutliers bool

	Series []Series
}

// Series is one line of a Chart, or one bar of each of its groups.
type Series struct {
	Name   string
	Color  string // CSS color; "": Palette[i] for the i-th series
	X, Y   []float64
	Dashed bool
}

// Palette is the series colors in order.
var Palette = []string{"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"}

// chartLayout is a Chart's plot area and scales.
type chartLayout struct {
	c                        *Chart
	left, top, right, bottom float64 // plot area, pixels
	ylo, yhi, ystep          float64
	xlo, xhi, xstep          float64 // numeric x axis
	clip                     float64 // values above are drawn at yhi; +Inf: none
}

// SVG draws the chart.
func (c Chart) SVG() string {
	if c.Width <= 0 || c.Height <= 0 {
		c.Width, c.Height = 860, 300
	}
	l := c.layout()
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p(`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" role="img" font-family="sans-serif" font-size="11">`+"\n",
		c.Width, c.Height, c.Width, c.Height)
	if c.Title != "" {
		p("<title>%s</title>\n", esc(c.Title))
		p(`<text x="%.0f" y="18" font-size="14">%s</text>`+"\n", l.left, esc(c.Title))
	}
	l.yAxis(&b)
	l.xAxis(&b)
	clipped := l.series(&b)
	for _, cp := range clipped {
		p(`<text x="%.1f" y="%.1f" text-anchor="middle" fill="#444">▲%s</text>`+"\n", cp.x, l.top-3, esc(Label(cp.v, c.YUnit)))
	}
	l.legend(&b)
	p(`<rect x="%.0f" y="%.0f" width="%.0f" height="%.0f" fill="none" stroke="#bbb"/>`+"\n", l.left, l.top, l.right-l.left, l.bottom-l.top)
	b.WriteString("</svg>\n")
	return b.String()
}

func (c *Chart) layout() chartLayout {
	l := chartLayout{c: c, left: 60, top: 34, right: float64(c.Width) - 12, bottom: float64(c.Height) - 28, clip: math.Inf(1)}
	if c.hasLegend() {
		l.right = float64(c.Width) - 160
	}
	if c.rotateCategories() {
		l.bottom = float64(c.Height) - 70
	}
	if c.XLabel != "" {
		l.bottom -= 18
	}
	if c.YLabel != "" {
		l.left += 16
	}
	var ys, xs []float64
	for _, s := range c.Series {
		for i, y := range s.Y {
			if finite(y) {
				ys = append(ys, y)
				if c.Categories == nil && i < len(s.X) && finite(s.X[i]) {
					xs = append(xs, s.X[i])
				}
			}
		}
	}
	if c.YMax > c.YMin {
		l.ylo, l.yhi = c.YMin, c.YMax
		l.ystep = niceStep((l.yhi - l.ylo) / 4)
	} else {
		lo, hi := 0.0, 0.0
		for _, y := range ys {
			lo, hi = min(lo, y), max(hi, y)
		}
		if c.ClipOutliers {
			if p90 := Percentile(ys, 0.9); p90 > 0 && hi > 4*p90 {
				l.clip, hi = 2*p90, 2*p90
			}
		}
		l.ystep = niceStep((hi - lo) / 5)
		l.ylo, l.yhi = math.Floor(lo/l.ystep)*l.ystep, math.Ceil(hi/l.ystep)*l.ystep
		if l.yhi <= l.ylo {
			l.yhi = l.ylo + l.ystep
		}
	}
	if c.Categories == nil {
		for _, x := range xs {
			l.xlo, l.xhi = min(l.xlo, x), max(l.xhi, x)
		}
		l.xstep = niceStep((l.xhi - l.xlo) / 8)
		l.xhi = math.Ceil(l.xhi/l.xstep) * l.xstep
		if l.xhi <= l.xlo {
			l.xhi = l.xlo + l.xstep
		}
	}
	return l
}

func (c *Chart) hasLegend() bool {
	for _, s := range c.Series {
		if s.Name != "" {
			return true
		}
	}
	return false
}

// rotateCategories is whether the category labels are too many or too long to sit level.
func (c *Chart) rotateCategories() bool {
	n := 0
	for _, s := range c.Categories {
		n = max(n, len(s))
	}
	return len(c.Categories) > 10 || (len(c.Categories) > 0 && n*7 > 600/len(c.Categories))
}

func (l *chartLayout) y(v float64) float64 {
	v = min(max(v, l.ylo), l.yhi)
	return l.bottom - (l.bottom-l.top)*(v-l.ylo)/(l.yhi-l.ylo)
}

func (l *chartLayout) x(v float64) float64 {
	return l.left + (l.right-l.left)*(v-l.xlo)/(l.xhi-l.xlo)
}

// slot is the width of one category and the x of the middle of category i.
func (l *chartLayout) slot(i int) (w, mid float64) {
	w = (l.right - l.left) / float64(max(len(l.c.Categories), 1))
	return w, l.left + w*(float64(i)+0.5)
}

func (l *chartLayout) yAxis(b *strings.Builder) {
	for k := 0; ; k++ {
		v := tick(l.ylo, l.ystep, k)
		if v > l.yhi+l.ystep*1e-9 {
			break
		}
		stroke := "#eee"
		if v == 0 {
			stroke = "#999"
		}
		fmt.Fprintf(b, `<line x1="%.0f" x2="%.0f" y1="%.1f" y2="%.1f" stroke="%s"/><text x="%.0f" y="%.1f" text-anchor="end" fill="#444">%s</text>`+"\n",
			l.left, l.right, l.y(v), l.y(v), stroke, l.left-4, l.y(v)+4, esc(Label(v, l.c.YUnit)))
	}
	if l.c.YLabel != "" {
		fmt.Fprintf(b, `<text transform="translate(14,%.0f) rotate(-90)" text-anchor="middle" fill="#444">%s</text>`+"\n", (l.top+l.bottom)/2, esc(l.c.YLabel))
	}
}

func (l *chartLayout) xAxis(b *strings.Builder) {
	c := l.c
	switch {
	case c.Categories != nil && c.rotateCategories():
		for i, name := range c.Categories {
			_, mid := l.slot(i)
			fmt.Fprintf(b, `<text transform="translate(%.1f,%.0f) rotate(45)" fill="#444">%s</text>`+"\n", mid, l.bottom+12, esc(name))
		}
	case c.Categories != nil:
		for i, name := range c.Categories {
			_, mid := l.slot(i)
			fmt.Fprintf(b, `<text x="%.1f" y="%.0f" text-anchor="middle" fill="#444">%s</text>`+"\n", mid, l.bottom+16, esc(name))
		}
	default:
		for k := 0; ; k++ {
			v := tick(l.xlo, l.xstep, k)
			if v > l.xhi+l.xstep*1e-9 {
				break
			}
			fmt.Fprintf(b, `<text x="%.1f" y="%.0f" text-anchor="middle" fill="#444">%s</text>`+"\n", l.x(v), l.bottom+16, esc(Label(v, c.XUnit)))
		}
	}
	if c.XLabel != "" {
		y := l.bottom + 34
		if c.rotateCategories() {
			y = float64(c.Height) - 6
		}
		fmt.Fprintf(b, `<text x="%.0f" y="%.0f" text-anchor="middle" fill="#444">%s</text>`+"\n", (l.left+l.right)/2, y, esc(c.XLabel))
	}
}

type clippedPoint struct{ x, v float64 }

// series draws the bars or lines and returns the points above the clipped axis.
func (l *chartLayout) series(b *strings.Builder) []clippedPoint {
	c := l.c
	var clipped []clippedPoint
	above := map[float64]int{} // x → index in clipped, to label a column once with its highest value
	n := len(c.Series)
	for k, s := range c.Series {
		color := seriesColor(s, k)
		var pts []string
		for i, v := range s.Y {
			if !finite(v) {
				continue
			}
			var x float64
			switch {
			case c.Categories != nil && i >= len(c.Categories):
				continue
			case c.Bars:
				w, mid := l.slot(i)
				bw := w * 0.8 / float64(n)
				x0 := mid - w*0.4 + bw*float64(k)
				y0, y1 := l.y(max(l.ylo, min(0, l.yhi))), l.y(v)
				fmt.Fprintf(b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s</title></rect>`+"\n",
					x0, min(y0, y1), bw, math.Abs(y0-y1), esc(color), esc(s.Name+" "+c.Categories[i]+": "+Label(v, c.YUnit)))
				continue
			case c.Categories != nil:
				_, x = l.slot(i)
			case i < len(s.X) && finite(s.X[i]):
				x = l.x(s.X[i])
			default:
				continue
			}
			if v > l.clip {
				if j, ok := above[x]; ok {
					clipped[j].v = max(clipped[j].v, v)
				} else {
					above[x] = len(clipped)
					clipped = append(clipped, clippedPoint{x, v})
				}
			}
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x, l.y(v)))
			if c.Points {
				fmt.Fprintf(b, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>`+"\n", x, l.y(v), esc(color))
			}
		}
		if len(pts) > 0 {
			dash := ""
			if s.Dashed {
				dash = ` stroke-dasharray="5,4"`
			}
			fmt.Fprintf(b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="1.8"%s/>`+"\n", strings.Join(pts, " "), esc(color), dash)
		}
	}
	return clipped
}

// legend lists the series to the right of the plot, as many as fit.
func (l *chartLayout) legend(b *strings.Builder) {
	if !l.c.hasLegend() {
		return
	}
	x := l.right + 12
	for k, s := range l.c.Series {
		y := l.top + 18*float64(k)
		if y+30 > float64(l.c.Height) && k < len(l.c.Series)-1 {
			fmt.Fprintf(b, `<text x="%.0f" y="%.0f" fill="#444">… %d more</text>`+"\n", x, y+10, len(l.c.Series)-k)
			return
		}
		dash := ""
		if s.Dashed {
			dash = ` stroke-dasharray="4,3"`
		}
		fmt.Fprintf(b, `<line x1="%.0f" x2="%.0f" y1="%.0f" y2="%.0f" stroke="%s" stroke-width="%d"%s/><text x="%.0f" y="%.0f" fill="#444">%s</text>`+"\n",
			x, x+14, y+6, y+6, esc(seriesColor(s, k)), map[bool]int{true: 10, false: 3}[l.c.Bars], dash, x+18, y+10, esc(s.Name))
	}
}

// tick is the k-th whole multiple of step at or above lo: exactly 0 where it should be, and
// 0.3 rather than 0.30000000000000004.
func tick(lo, step float64, k int) float64 {
	return sig3((math.Ceil(lo/step-1e-9) + float64(k)) * step)
}

func seriesColor(s Series, k int) string {
	if s.Color != "" {
		return s.Color
	}
	return Palette[k%len(Palette)]
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// esc escapes s for XML text and attribute values.
func esc(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s)) // a strings.Builder does not fail
	return b.String()
}
