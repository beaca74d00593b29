package bench

import "strings"

// span is the lowest and highest of a figure over the scenarios.
type span struct{ Lo, Hi float64 }

// notesView is what notes.md.tmpl shows.
type notesView struct {
	// The 0% loss spans of the stages' savings: bit packing, delta, zrle of the paper's
	// pipeline; Huffman and delta of Quake 3's; our Huffman stage's further saving.
	BitPack, Delta, ZRLE, Huffman, Q3Delta, Ours span
	Server                                       *Row // 64p, 0% loss, doom3+huff, when measured at 256 visible
	PeerNotes                                    string
	Targets                                      []Target
}

// Notes returns the closing section of BENCHMARKS.md (notes.md.tmpl): a sentence on each
// stage's difference from the paper and a word on each target, with the figures of this run.
func Notes(r *Result) string {
	lo := func(f func(*Row) float64, enc string) span {
		s := span{1e9, -1e9}
		for i := range r.Rows {
			x := &r.Rows[i]
			if x.Encoder == enc && x.Loss == 0 {
				s.Lo, s.Hi = min(s.Lo, f(x)), max(s.Hi, f(x))
			}
		}
		return s
	}
	v := notesView{
		BitPack: lo(func(x *Row) float64 { return x.BitPackSaving }, EncDoom3),
		Delta:   lo(func(x *Row) float64 { return x.DeltaSaving }, EncDoom3),
		ZRLE:    lo(func(x *Row) float64 { return x.ZRLESaving }, EncDoom3),
		Huffman: lo(func(x *Row) float64 { return x.HuffmanSaving }, EncQuake3),
		Q3Delta: lo(func(x *Row) float64 { return x.DeltaSaving }, EncQuake3),
		Ours:    span{1e9, -1e9},
		Targets: r.Targets(),
	}
	for i := range r.Rows {
		x := &r.Rows[i]
		if x.Encoder != EncDoom3Huff || x.Loss != 0 {
			continue
		}
		if d := r.Find(x.Scenario, 0, EncDoom3); d != nil && d.BytesMean > 0 {
			sv := 1 - x.BytesMean/d.BytesMean
			v.Ours.Lo, v.Ours.Hi = min(v.Ours.Lo, sv), max(v.Ours.Hi, sv)
		}
	}
	if x := r.Find("64p", 0, EncDoom3Huff); x != nil && x.ServerNS256 > 0 {
		v.Server = x
	}
	var b strings.Builder
	var err error
	if v.PeerNotes, err = peerNotes(r); err == nil {
		err = markdown.ExecuteTemplate(&b, "notes", v)
	}
	if err != nil {
		// The templates are this package's own, executed on the types they are written for.
		panic("bench: notes template: " + err.Error())
	}
	return b.String()
}
