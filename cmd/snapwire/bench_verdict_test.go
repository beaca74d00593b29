package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/snapwire/snapwire/internal/bench"
)

// fakeModels stands in for the network models' section of the report.
func fakeModels(quick, quiet bool) (string, error) { return "## fake models section\n", nil }

// TestBenchWritesFreshDir: without --out, bench writes its report into a
// new directory it names, never over the BENCHMARKS.md of the working
// directory (the committed one, run from the source tree); --out . does.
func TestBenchWritesFreshDir(t *testing.T) {
	wd := t.TempDir()
	t.Chdir(wd)
	committed := []byte("# the committed report\n")
	if err := os.WriteFile("BENCHMARKS.md", committed, 0o644); err != nil {
		t.Fatal(err)
	}
	suite := benchSuite{run: bench.Run, models: fakeModels}
	args := []string{"--quick", "-q", "--ticks", "45", "--scenarios", "duel", "--peers", "none"}
	var out bytes.Buffer
	if err := benchCommand(args, &out, suite); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if b, _ := os.ReadFile("BENCHMARKS.md"); !bytes.Equal(b, committed) {
		t.Fatalf("bench without --out overwrote ./BENCHMARKS.md")
	}
	if _, err := os.Stat(filepath.Join(wd, bench.PlotDir)); !os.IsNotExist(err) {
		t.Errorf("bench without --out wrote %s: %v", bench.PlotDir, err)
	}
	first, _, _ := strings.Cut(out.String(), "\n")
	path, ok := strings.CutPrefix(first, "wrote ")
	path, _, _ = strings.Cut(path, " and ")
	if !ok || filepath.Base(path) != "BENCHMARKS.md" || filepath.Dir(path) == "." {
		t.Fatalf("first line %q does not name the report it wrote", first)
	}
	t.Cleanup(func() { os.RemoveAll(filepath.Dir(path)) })
	md, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(md), "## fake models section") || !strings.Contains(string(md), "not judged: --quick") {
		t.Fatalf("%s: %v", path, err)
	}
	// --out . is the committed report.
	out.Reset()
	if err := benchCommand(append(args, "--out", "."), &out, suite); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile("BENCHMARKS.md"); bytes.Equal(b, committed) {
		t.Errorf("--out . did not update ./BENCHMARKS.md")
	}
}

// missResult is a result whose PVS-churn bytes (judged in every run) and
// server time (judged in full runs only) miss their targets.
func missResult(o bench.Options) *bench.Result {
	r := &bench.Result{Options: o}
	for _, enc := range []string{bench.EncDoom3, bench.EncDoom3Huff} {
		r.Rows = append(r.Rows, bench.Row{Scenario: "churn", Encoder: enc, Ratio: 0.75, LossGrowth: 1, ServerNS256: 50000})
	}
	return r
}

// TestBenchExitsOnMissedTarget: a judged target that is not met fails the
// command, naming the target; --quick does not judge the server time.
func TestBenchExitsOnMissedTarget(t *testing.T) {
	for _, c := range []struct {
		args      []string
		opts      bench.Options
		want, not []string
	}{
		{[]string{"--quick"}, bench.QuickOptions(), []string{"1 target(s) not met", "(d) PVS churn", "75.0%"}, []string{"server <= 10"}},
		{nil, bench.FullOptions(), []string{"2 target(s) not met", "(d) PVS churn", "server <= 10 µs", "worst 50.0 µs"}, nil},
		{[]string{"--quick", "--json"}, bench.QuickOptions(), []string{"(d) PVS churn"}, nil},
	} {
		suite := benchSuite{
			run:    func(bench.Options) (*bench.Result, error) { return missResult(c.opts), nil },
			models: fakeModels,
		}
		var out bytes.Buffer
		err := benchCommand(append(c.args, "-q", "--peers", "none", "--out", t.TempDir()), &out, suite)
		if err == nil {
			t.Errorf("%q: no error; stdout:\n%s", c.args, out.String())
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%q: error %q lacks %q", c.args, err, w)
			}
		}
		for _, w := range c.not {
			if strings.Contains(err.Error(), w) {
				t.Errorf("%q: error %q names %q", c.args, err, w)
			}
		}
		if !slices.Contains(c.args, "--json") && !strings.Contains(out.String(), "NOT met") {
			t.Errorf("%q: stdout lacks NOT met:\n%s", c.args, out.String())
		}
	}
}
