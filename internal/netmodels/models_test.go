package netmodels

import (
	"strings"
	"testing"
)

// Acceptance (the quick matrix CI runs): every match stays
// consistent (no desync, no base or state mismatch), and each claim of
// the paper the rows can speak to is borne out.
//
// Guards against: a model whose figures contradict the paper silently (a
// lockstep that did not wait, a packet server that did not duplicate, a
// client that interpolated its "predicted" opponents would each flip a
// claim).
func TestQuickMatrixBearsOutTheClaims(t *testing.T) {
	rows, err := Run(Quick())
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 24 {
		t.Fatalf("%d rows, want 24", len(rows))
	}
	for _, r := range rows {
		if r.Desyncs != 0 || r.BytesUpPerS <= 0 || r.BytesDownPerS <= 0 {
			t.Errorf("row %+v", r)
		}
	}
	claims := Claims(rows)
	if len(claims) != 8 {
		t.Fatalf("%d claims checked, want 8: %v", len(claims), claims)
	}
	for _, c := range claims {
		t.Log(c)
		if !c.Holds {
			t.Error(c)
		}
	}
}

// Acceptance (lag compensation, DOOM III §1.1, on the quick matrix's
// 8-player Quake 3 matches): shots aimed exactly at the opponent a client
// shows interpolated hit far more often when the server rewinds to the
// client's view time (measured: 17% without, 98% with at 200 ms; 30% and
// 97% at 50 ms), and only then is a victim hit behind a wall in its own
// view (65 and 69 hits with, 0 without); the paper's present
// line-of-sight test takes those away. With predicted opponents (DOOM III)
// the client's view time is the present: lag compensation rewinds nothing
// and changes no hit.
//
// Guards against: a History that did not rewind (the shares would be
// equal and no hit behind cover), a view time not taken from the client's
// interpolation (the compensated share would drop towards the present
// one), an LOS test that did nothing.
func TestQuickMatrixLagCompensation(t *testing.T) {
	rows, err := Run(Quick())
	if err != nil {
		t.Fatal(err)
	}
	for _, rtt := range []int{50, 200} {
		q, ok := find(rows, "quake3", 8, rtt, false)
		d, ok2 := find(rows, "doom3", 8, rtt, false)
		if !ok || !ok2 || q.Shots < 500 || d.Shots < 500 {
			t.Fatalf("%d ms: rows %v %v, shots %d and %d", rtt, ok, ok2, q.Shots, d.Shots)
		}
		t.Logf("%d ms: quake3 %d shots, hit %.3f, lag-compensated %.3f (+LOS %.3f), behind cover %d/%d/%d, rewind %.1f frames; doom3 hit %.3f",
			rtt, q.Shots, q.HitShare, q.HitShareLagComp, q.HitShareLagCompLOS, q.BehindCover, q.BehindCoverLagComp, q.BehindCoverLagCompLOS, q.RewindMeanFrames, d.HitShare)
		if q.HitShareLagComp < q.HitShare+0.5 || q.HitShareLagComp < 0.9 {
			t.Errorf("%d ms: lag compensation raised the hit share from %.3f to %.3f only", rtt, q.HitShare, q.HitShareLagComp)
		}
		if q.BehindCoverLagComp < 10 || q.BehindCover != 0 {
			t.Errorf("%d ms: %d hits behind cover with lag compensation, %d without", rtt, q.BehindCoverLagComp, q.BehindCover)
		}
		if q.BehindCoverLagCompLOS >= q.BehindCoverLagComp || q.HitShareLagCompLOS > q.HitShareLagComp {
			t.Errorf("%d ms: the present line-of-sight test: %d behind cover (from %d), share %.3f (from %.3f)",
				rtt, q.BehindCoverLagCompLOS, q.BehindCoverLagComp, q.HitShareLagCompLOS, q.HitShareLagComp)
		}
		if q.RewindMeanFrames < float64(rtt)/1000*60/2 {
			t.Errorf("%d ms: rewound %.1f frames on average, less than half the round trip", rtt, q.RewindMeanFrames)
		}
		if d.HitShareLagComp != d.HitShare || d.RewindMeanFrames != 0 || d.BehindCoverLagComp != 0 {
			t.Errorf("%d ms: predicted opponents, yet lag compensation rewound %.1f frames (%.3f vs %.3f)", rtt, d.RewindMeanFrames, d.HitShareLagComp, d.HitShare)
		}
	}
}

// Acceptance (the Markdown section of BENCHMARKS.md, from a quick run):
// every row is in the table, every claim has its sentence with its verdict
// as Claims computed it, and the §8 ideas have their figures, each saving
// bytes against the same snapshots with everything written.
//
// Guards against: a section with hard-coded verdicts (a flipped claim must
// change its sentence), rows or ideas left out, a Hold that saved nothing.
func TestMarkdownFromQuickRun(t *testing.T) {
	r, err := RunAll(Quick())
	if err != nil {
		t.Fatal(err)
	}
	md := Markdown(r)
	t.Log("\n" + md)
	if got := strings.Count(md, "\n| "); got != len(r.Rows)+1+len(r.Section8.Ideas)+1+len(r.Section8.Coarse)+1 {
		t.Errorf("%d table lines, want %d rows, %d ideas, %d coarse rows and three headers", got, len(r.Rows), len(r.Section8.Ideas), len(r.Section8.Coarse))
	}
	for _, c := range r.Claims {
		if !strings.Contains(md, c.String()) {
			t.Errorf("claim missing: %s", c)
		}
	}
	if len(r.Section8.Ideas) != 5 || len(r.Section8.Coarse) != 1 {
		t.Fatalf("%d ideas", len(r.Section8.Ideas))
	}
	for _, i := range r.Section8.Ideas {
		if !(i.After < i.Before) || i.Before <= 0 || !strings.Contains(md, i.Verdict) {
			t.Errorf("idea %q: %.1f -> %.1f (%s)", i.Name, i.Before, i.After, i.Verdict)
		}
	}
	checkReport(t, r)
	// A claim that does not hold says so.
	r.Claims[0].Holds = false
	if !strings.Contains(Markdown(r), "NOT borne out") {
		t.Error("a claim that does not hold reads as borne out")
	}
}

// checkReport: the HTML report has the four plots, each with a line per series and a point
// per row it plots, and the section's text; --json's rows come twice for the client-server
// models (without and with lag compensation, their hit shares those of the row) and once for
// lockstep.
func checkReport(t *testing.T, r *Result) {
	t.Helper()
	var b strings.Builder
	if err := WriteHTML(&b, r); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if n := strings.Count(page, "<svg"); n != 4 {
		t.Errorf("%d plots", n)
	}
	// Lines: 4 models; aim mean and p99 and hit share with and without for 2; stalls 2x2.
	if n := strings.Count(page, "<polyline"); n != 4+4+4+4 {
		t.Errorf("%d lines", n)
	}
	if !strings.Contains(page, "NOT borne out") && !strings.Contains(page, "borne out") {
		t.Error("the report lacks the claims")
	}
	js := JSONRows(r.Rows)
	cs := 0
	for _, row := range r.Rows {
		if row.Shots > 0 {
			cs++
		}
	}
	if len(js) != len(r.Rows)+cs {
		t.Fatalf("%d JSON rows for %d rows, %d client-server", len(js), len(r.Rows), cs)
	}
	for _, j := range js {
		switch {
		case j.Shots == 0 && (j.LagCompensation != nil || j.HitShare != nil):
			t.Errorf("%s row with lag compensation fields", j.Model)
		case j.Shots > 0 && (j.LagCompensation == nil || j.HitShare == nil):
			t.Errorf("%s row without lag compensation fields", j.Model)
		case j.Shots > 0 && *j.LagCompensation && (*j.HitShare != j.HitShareLagComp || j.BehindCover != j.BehindCoverLagComp):
			t.Errorf("%s lag-compensated row's figures are not the lag-compensated ones", j.Model)
		case j.Shots > 0 && !*j.LagCompensation && *j.HitShare != j.Row.HitShare:
			t.Errorf("%s row without lag compensation has the other hit share", j.Model)
		}
	}
}
