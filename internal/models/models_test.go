package models

import "testing"

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
	if len(claims) != 4 {
		t.Fatalf("%d claims checked, want 4: %v", len(claims), claims)
	}
	for _, c := range claims {
		t.Log(c)
		if !c.Holds {
			t.Error(c)
		}
	}
}
