package bench

import (
	"bytes"
	"encoding/xml"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

var updateReport = flag.Bool("update-report", false, "rewrite testdata/report.md from the report code")

// syntheticResult is a Result with every part BENCHMARKS.md shows (peers that ran, the scale
// points, encryption, a section from another package), its figures made up but distinct.
func syntheticResult() *Result {
	o := QuickOptions()
	o.Losses = []float64{0, 0.2}
	r := &Result{Options: o, Elapsed: 12345 * time.Millisecond,
		Machine: Machine{GoVersion: "go1.x", GOOS: "linux", GOARCH: "amd64", CPUs: 2},
		Peers:   PeerStatus{Ran: true, Node: "v22.0.0", Versions: map[string]string{EncColyseus: "3.0.1", EncGeckos: "1.0.2"}},
		Scale: []ScalePoint{{Visible: 256, Workers: 1, NsPerClientSnapshot: 3210, MaxClients: 250},
			{Visible: 256, Workers: 2, NsPerClientSnapshot: 1700, MaxClients: 480, Identical: true}},
		Encryption: []Encryption{{Scenario: "64p", Payload: 120, PlainBytes: 80.5, SecureBytes: 104.5, AddedBytes: 24,
			PlainNS: 900, SecureNS: 2100, AddedNS: 1200, SecureAllocs: 0}},
		Sections: []string{"## Another package's section\n\nIts text.\n"},
	}
	k := 0
	next := func() float64 { k++; return float64(k*7919%1000) / 997 }
	for i, name := range []string{"duel", "64p", "churn"} {
		r.Scenarios = append(r.Scenarios, ScenarioInfo{Scenario: Scenario{Name: name, Title: "(" + name + ") title"},
			Clients: 2 + 62*i, Visible: 100 * next(), FrameNS: 1e5 * next(), VisibleNS: 1e4 * next(), Entities: 4096,
			Layouts: map[string][]uint8{"player": {32, 32, 16, 7}, "door": {2}, "prop": {16}}, Union: []uint8{32, 32, 16, 7, 4},
			PSLayouts: [][]uint8{{8, 8}, make([]uint8, 30)}})
		for _, loss := range o.Losses {
			for _, enc := range []string{EncDoom3, EncDoom3Huff, EncDoom3RC, EncDoom3Raw, EncQuake3, EncQuake3NoHuf, EncColyseus, EncGeckos} {
				if enc == EncColyseus && loss > 0 {
					continue
				}
				x := Row{Scenario: name, Loss: loss, Encoder: enc}
				v := reflect.ValueOf(&x).Elem()
				for f := 0; f < v.NumField(); f++ {
					switch fv := v.Field(f); fv.Kind() {
					case reflect.Float64:
						if v.Type().Field(f).Name != "Loss" {
							fv.SetFloat(1000 * next())
						}
					case reflect.Int:
						fv.SetInt(int64(100000 * next()))
					case reflect.Slice:
						fv.Set(reflect.ValueOf([]float64{next() - 0.3, next(), next(), next(), next(), next(), next()}))
					}
				}
				x.Ratio, x.LossGrowth, x.BitPackSaving, x.DeltaSaving = next(), 1+next()/2, next(), next()
				x.AllocsPerSnapshot, x.AllocsOneClient, x.ServerCoreShare = 0, 0, next()/2
				r.Rows = append(r.Rows, x)
			}
		}
	}
	return r
}

// TestReportGolden: BENCHMARKS.md of syntheticResult is testdata/report.md, which the report
// code before its templates wrote (go test -run TestReportGolden -update-report rewrites it;
// a mismatch leaves the output beside it, with the suffix .got).
func TestReportGolden(t *testing.T) {
	r := syntheticResult()
	var b bytes.Buffer
	if err := r.WriteMarkdown(&b, Notes(r)); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "report.md")
	if *updateReport {
		if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b.Bytes(), want) {
		_ = os.WriteFile(golden+".got", b.Bytes(), 0o644)
		t.Errorf("BENCHMARKS.md differs from %s: see %s.got", golden, golden)
	}
	// What .ci/run and cmd/snapwire TestREADMEFigures look for.
	for _, s := range []string{"| **colyseus** |", "| **geckos** |", "## Another package's section", "**Peer libraries**"} {
		if !strings.Contains(b.String(), s) {
			t.Errorf("BENCHMARKS.md lacks %q", s)
		}
	}
}

// TestPlots: the two plots are well-formed SVG with a bar per scenario, loss and scheme and a
// line per scenario and scheme.
func TestPlots(t *testing.T) {
	r := syntheticResult()
	for _, c := range []struct {
		name, svg string
		elem      string
		n         int
	}{
		{"bytes", r.bytesSVG(), "rect", 3*2*2 + 1}, // bars and the plot's frame
		{"zrle", r.zrleSVG(), "polyline", 3 * 2},
	} {
		d := xml.NewDecoder(strings.NewReader(c.svg))
		n := 0
		for {
			tok, err := d.Token()
			if err != nil {
				if err.Error() != "EOF" {
					t.Fatalf("%s: %v", c.name, err)
				}
				break
			}
			if se, ok := tok.(xml.StartElement); ok && se.Name.Local == c.elem {
				n++
			}
		}
		if n != c.n {
			t.Errorf("%s: %d %s elements, want %d", c.name, n, c.elem, c.n)
		}
	}
}
