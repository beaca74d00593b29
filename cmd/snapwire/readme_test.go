package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/snapwire/snapwire/internal/matchsim"
	"github.com/snapwire/snapwire/internal/refgame"
)

// readmeFigure is a measured figure README.md quotes: re finds it (in the
// README with its whitespace collapsed, so rewrapping a paragraph does not
// matter) and captures each number; want returns what a run gives for each,
// compared to the precision the README prints.
type readmeFigure struct {
	name string
	re   string
	want func(r *matchsim.Result) []float64
}

// TestREADMEFigures checks every measured figure README.md states against
// the run that produces it, so that the README and the code cannot drift
// apart unnoticed (change a digit in the README and this test fails).
//
// Covered: the demo's default parameters; the default run's outcomes
// (kbit/s, snapshot and packet sizes, prediction errors, duplicated
// commands, invariant checks, the three savings and the combined one); the
// aim-error row of the --json table, run with the command line the README
// quotes; the player's width; the guide's line count. The figures the
// README quotes from BENCHMARKS.md come from the full "snapwire bench"
// (minutes), so they are checked against the committed BENCHMARKS.md
// instead. All runs are in virtual time and deterministic. Not covered:
// wall-clock figures (wall_ms, the first run's CPU time and minutes, the
// wasm build's minute, the time -short saves), which depend on the machine,
// and the first run's module and package counts, which depend on the Go
// toolchain: the README gives them as measurements of one machine.
func TestREADMEFigures(t *testing.T) {
	readme := collapseSpace(readRepoFile(t, "README.md"))

	// The demo's defaults, as the README states them.
	opt, _, _, err := parseDemoFlags(nil)
	if err != nil {
		t.Fatal(err)
	}
	def := findFigures(t, readme, `the default (\S+) s of game \((\S+) clients, (\S+) ms round trip, ±(\S+) ms jitter and (\S+)% loss per direction\)`)
	compareFigures(t, "demo defaults", def, []float64{opt.Duration.Seconds(), float64(opt.Clients),
		1000 * opt.Latency.Seconds(), 1000 * opt.Jitter.Seconds(), 100 * opt.Loss})
	seed := findFigures(t, readme, "The defaults \\(`go run ./cmd/snapwire demo`, seed (\\d+)\\)")
	compareFigures(t, "default seed", seed, []float64{float64(opt.Seed)})

	res, err := matchsim.Run(opt)
	if err != nil {
		t.Fatal(err)
	}
	pct := func(v float64) float64 { return 100 * v }
	for _, f := range []readmeFigure{
		{"bandwidth", `give (\S+) kbit/s per client down \((\S+) in the busiest second\) and (\S+) up`,
			func(r *matchsim.Result) []float64 {
				return []float64{r.KbpsPerClientMean, r.KbpsPerClientMax, r.KbpsUpPerClientMean}
			}},
		{"sizes", `snapshots of (\S+) B after zrle \((\S+) B before\) in packets of (\S+) B`,
			func(r *matchsim.Result) []float64 {
				return []float64{r.SnapshotBytesMean, r.SnapshotBytesRawMean, r.PacketBytesDownMean}
			}},
		{"prediction", `own player's prediction error mean (\S+) units \((\S+)% of samples exact\), the other entities' (\S+) \((\S+)% exact\)`,
			func(r *matchsim.Result) []float64 {
				return []float64{r.PredErrorSelfMean, pct(r.PredExactShareSelf), r.PredErrorOthersMean, pct(r.PredExactShareOthers)}
			}},
		{"commands", `(\d+) duplicated commands of (\d+) frames`,
			func(r *matchsim.Result) []float64 { return []float64{float64(r.DuplicatedCmds), float64(r.FramesRun)} }},
		{"invariants", `(\d+) base mismatches in (\d+) checks and (\d+) state mismatches in (\d+)`,
			func(r *matchsim.Result) []float64 {
				return []float64{float64(r.BaseMismatches), float64(r.BaseChecks), float64(r.StateMismatches), float64(r.StateChecks)}
			}},
		{"savings", `Saved by bit packing (\S+)%, by delta (\S+)%, by zrle (\S+)%`,
			func(r *matchsim.Result) []float64 {
				return []float64{pct(r.SavedByBitpacking), pct(r.SavedByDelta), pct(r.SavedByZRLE)}
			}},
		{"bit packing", `whose variables take (\S+)% fewer bits than at 32 bits each`,
			func(r *matchsim.Result) []float64 { return []float64{pct(r.SavedByBitpacking)} }},
		{"delta against 32 bits", `against 32 bits per variable the delta snapshot is (\S+)% smaller`,
			func(r *matchsim.Result) []float64 {
				return []float64{pct(1 - float64(r.Bits.Delta)/float64(r.Bits.Naive))}
			}},
	} {
		compareFigures(t, f.name, findFigures(t, readme, f.re), f.want(res))
	}

	// The aim-error row: the README's command line, at each round trip,
	// opponents predicted and interpolated.
	aim := regexp.MustCompile("`snapwire demo ([^`]*) --latency L`, and the same with `(--opponents interpolated)`, at L = (\\S+) / (\\S+) / (\\S+) ms: mean (\\S+) / (\\S+) / (\\S+) predicted against (\\S+) / (\\S+) / (\\S+) interpolated").FindStringSubmatch(readme)
	if aim == nil {
		t.Fatal("README: the aim-error figures (pred_error_others row) not found")
	}
	for i, rtt := range aim[3:6] {
		for j, extra := range []string{"", aim[2]} {
			args := strings.Fields(aim[1] + " --latency " + rtt + "ms " + extra)
			o, _, _, err := parseDemoFlags(args)
			if err != nil {
				t.Fatalf("README's aim-error command %q: %v", args, err)
			}
			r, err := matchsim.Run(o)
			if err != nil {
				t.Fatal(err)
			}
			compareFigures(t, "aim error: snapwire demo "+strings.Join(args, " "), aim[6+3*j+i:7+3*j+i], []float64{r.PredErrorOthersMean})
		}
	}

	compareFigures(t, "player width", findFigures(t, readme, "a player is (\\d+) wide: `refgame.PlayerRadius` (\\d+); a tile is (\\d+)"),
		[]float64{2 * refgame.PlayerRadius, refgame.PlayerRadius, refgame.TileSize})

	// Figures quoted from BENCHMARKS.md (a full bench run takes minutes):
	// checked against the committed report.
	bench := collapseSpace(readRepoFile(t, "BENCHMARKS.md"))
	var fromBench []float64
	for _, s := range findFigures(t, bench, `\*\*Delta\*\* saves (\d+)%-(\d+)% against .*? The Quake 3 scheme's delta saves (\d+)%-(\d+)%`) {
		v, _ := strconv.ParseFloat(s, 64)
		fromBench = append(fromBench, v)
	}
	compareFigures(t, "BENCHMARKS.md delta range", findFigures(t, readme, `On the benchmark's scenarios delta saves (\d+)%–(\d+)%, and the Quake 3 scheme, measured the same way, (\d+)%–(\d+)%`), fromBench)
}

// compareFigures fails t for each quoted number that differs from the run's
// value printed with as many decimals as the README gives.
func compareFigures(t *testing.T, name string, quoted []string, got []float64) {
	t.Helper()
	if len(quoted) != len(got) {
		t.Fatalf("%s: %d figures quoted, %d measured", name, len(quoted), len(got))
	}
	for i, q := range quoted {
		dec := 0
		if _, frac, ok := strings.Cut(q, "."); ok {
			dec = len(frac)
		}
		if g := strconv.FormatFloat(got[i], 'f', dec, 64); g != q {
			t.Errorf("%s: README says %s, measured %s", name, q, g)
		}
	}
}

// findFigures returns the numbers re captures in text, failing t if it is not
// there: a figure the README no longer quotes must leave this test too.
func findFigures(t *testing.T, text, re string) []string {
	t.Helper()
	m := regexp.MustCompile(re).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("not found: %s", re)
	}
	return m[1:]
}

func readRepoFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// collapseSpace turns every run of white space into one space.
func collapseSpace(s string) string { return strings.Join(strings.Fields(s), " ") }
