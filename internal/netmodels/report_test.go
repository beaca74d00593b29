package netmodels

import (
	"encoding/xml"
	"strings"
	"testing"
)

// synthetic is a Result with every part the report shows, a hostile string in the texts.
func synthetic() *Result {
	const hostile = `<script>alert(1)</script>&`
	rows := []Row{
		{Model: "lockstep", Players: 2, RTTMS: 200, BytesUpPerS: 65700, BytesDownPerS: 65700, StallFrames: 3},
		{Model: "quake3", Players: 2, RTTMS: 50, BytesDownPerS: 1200, Shots: 10, HitShare: 0.25, HitShareLagComp: 0.9, BehindCoverLagComp: 2},
		{Model: "doom3", Players: 2, RTTMS: 200, BytesDownPerS: 1300, Shots: 10, HitShare: 0.5, HitShareLagComp: 0.5},
	}
	return &Result{Rows: rows, Claims: []Claim{{Text: hostile, Holds: true, Figures: "1 vs 2"}},
		Section8: &Section8{Players: 8, RTTMS: 100, Ideas: []Idea{{Name: hostile, Figure: "bytes", Before: 10, After: 5, Verdict: "better"}},
			Coarse: []CoarseRow{{Players: 8, RTTMS: 100, Step: 2, NSBefore: 12000, NSAfter: 6000}}}}
}

// TestHTMLTable: the models page shows its rows, claims and §8 figures as HTML (tables and a
// list, the texts escaped), its plots as well-formed SVG, and no Markdown.
func TestHTMLTable(t *testing.T) {
	var b strings.Builder
	if err := WriteHTML(&b, synthetic()); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, bad := range []string{"<pre", "|---", "<script"} {
		if strings.Contains(page, bad) {
			t.Errorf("page holds %q", bad)
		}
	}
	if n := strings.Count(page, "<table>"); n != 3 {
		t.Errorf("%d tables, want the rows, §8's ideas and the coarse re-prediction", n)
	}
	// Header + 3 rows, header + 1 idea, header + 1 coarse row.
	if n := strings.Count(page, "<tr>"); n != 4+2+2 {
		t.Errorf("%d table rows", n)
	}
	for _, want := range []string{
		"<td>65700</td>", "<td>25%</td><td>90%</td><td>2</td>", "<td>–</td><td>–</td><td>–</td>",
		"<li>&lt;script&gt;alert(1)&lt;/script&gt;&amp;: borne out (1 vs 2).</li>",
		"<td>12.0 → 6.0</td>", "§8&#39;s future work, measured on DOOM III&#39;s model at 8 players and 100 ms:",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	plots := 0
	for rest := page; ; plots++ {
		i := strings.Index(rest, "<svg")
		if i < 0 {
			break
		}
		j := strings.Index(rest, "</svg>") + len("</svg>")
		if err := xml.Unmarshal([]byte(rest[i:j]), new(struct{})); err != nil {
			t.Errorf("plot %d: %v", plots, err)
		}
		rest = rest[j:]
	}
	if plots != 4 {
		t.Errorf("%d plots", plots)
	}
	if !strings.Contains(page, ">60k<") {
		t.Error("the bytes plot's axis is not labelled in thousands (60k)")
	}
}

// TestMarkdownSection: the Markdown section from the template, with and without §8.
func TestMarkdownSection(t *testing.T) {
	r := synthetic()
	md := Markdown(r)
	for _, want := range []string{
		"## Four network models side by side: DOOM's lockstep and packet server, Quake 3's and DOOM III's client-server (`snapwire models`)\n\nBytes per player per second",
		"| lockstep | 2 | 200 | false | 65700 | 65700 | 0.0 | 0.00 | 0.00 | 3 | 0 | – | – | – |\n",
		"| quake3 | 2 | 50 | false | 0 | 1200 | 0.0 | 0.00 | 0.00 | 0 | 0 | 25% | 90% | 2 |\n",
		"\n\nThe paper's claims (DOOM III network architecture, van Waveren 2006), checked on these rows:\n\n- <script>",
		"| 8 | 100 | 2 | 0.0 | 0.0 → 0.0 | 12.0 → 6.0 | 0.00 → 0.00 | 0.0 → 0.0 | 0.00 → 0.00 | 0 |\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
	r.Section8 = nil
	if md := Markdown(r); strings.Contains(md, "§8") || !strings.HasSuffix(md, "(1 vs 2).\n") {
		t.Errorf("without §8:\n%s", md)
	}
}
