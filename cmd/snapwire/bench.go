package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/snapwire/snapwire/internal/bench"
	"github.com/snapwire/snapwire/internal/netmodels"
)

func init() {
	register(command{name: "bench", summary: "compare the DOOM III and Quake 3 snapshot schemes, write BENCHMARKS.md", run: runBench})
}

// benchSuite is what bench runs: the benchmark suite and the network models' section of the
// report (tests give fakes).
type benchSuite struct {
	run    func(bench.Options) (*bench.Result, error)
	models func(quick, quiet bool) (string, error)
}

// realBench runs the suite and, for the report, the four network models
// (internal/netmodels: lockstep, packet server, Quake 3, DOOM III) on the
// same arena in the same run (`snapwire models`).
var realBench = benchSuite{
	run: bench.Run,
	models: func(quick, quiet bool) (string, error) {
		mo := netmodels.Full()
		if quick {
			mo = netmodels.Quick()
		}
		if !quiet {
			fmt.Fprintln(os.Stderr, "network models (snapwire models) ...")
		}
		mres, err := netmodels.RunAll(mo)
		if err != nil {
			return "", fmt.Errorf("models: %w", err)
		}
		return netmodels.Markdown(mres), nil
	},
}

const benchUsage = `usage: snapwire bench [--quick] [--json] [--out DIR] [--scenarios a,b] [--ticks N] [--peers DIR|none] [-q]

Records the scenarios, measures the DOOM III and Quake 3 schemes and, when Node and the
pinned packages are installed, the peer libraries (internal/bench/peers), and writes
BENCHMARKS.md with its SVG plots into a new directory (snapwire-bench-* under the system's
temporary directory, named on stdout) or into --out DIR: '--out .' in the source tree
updates the committed report. With --json it prints the result rows as a JSON list and
writes the report only when --out is given.

It exits 1 when a target it judges is not met, naming it. A --quick run judges the byte
targets (DOOM III vs Quake 3 bytes, PVS churn, growth at 20% loss), which come from the
recorded traffic; the server-time, allocation and core-share figures of its short passes,
on a machine shared with other work, are shown but not judged. A full run judges them all.

flags:
`

// runBench is `snapwire bench`; benchUsage says what it does.
func runBench(args []string, stdout io.Writer) error {
	return benchCommand(args, stdout, realBench)
}

func benchCommand(args []string, stdout io.Writer, suite benchSuite) error {
	fs := newFlagSet("bench")
	quick := fs.Bool("quick", false, "short recordings (well under a minute); judges the byte targets only")
	asJSON := fs.Bool("json", false, "print the result rows as a JSON list")
	out := fs.String("out", "", "directory for BENCHMARKS.md and "+bench.PlotDir+" ('.': the committed report; default: a new temporary directory, none with --json)")
	scen := fs.String("scenarios", "", "comma-separated scenarios to run (default all: duel,16p,64p,churn,static)")
	ticks := fs.Int("ticks", 0, "snapshot ticks to record per scenario (default: 70 with --quick, 420 without)")
	quiet := fs.Bool("q", false, "no progress on stderr")
	peers := fs.String("peers", bench.DefaultPeersDir(), "the peer libraries' Node program (npm ci there first); \"none\": do not run the peers")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), benchUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	o := bench.FullOptions()
	if *quick {
		o = bench.QuickOptions()
	}
	if *ticks != 0 {
		if *ticks < 2*o.Skip || *ticks > 100000 {
			return fmt.Errorf("--ticks must be %d..100000", 2*o.Skip)
		}
		o.Ticks = *ticks
	}
	if *scen != "" {
		known := map[string]bool{}
		for _, s := range bench.Scenarios() {
			known[s.Name] = true
		}
		for _, s := range strings.Split(*scen, ",") {
			if !known[s] {
				return fmt.Errorf("unknown scenario %q", s)
			}
			o.Scenarios = append(o.Scenarios, s)
		}
	}
	if !*quiet {
		o.Progress = os.Stderr
	}
	if *peers != "none" {
		o.PeersDir = *peers
		if o.PeersDir == "" {
			o.PeersDir = "internal/bench/peers"
		}
	}
	res, err := suite.run(o)
	if err != nil {
		return err
	}
	dir := *out
	if dir == "" && !*asJSON {
		// Never over the committed report unless asked (--out .).
		if dir, err = os.MkdirTemp("", "snapwire-bench-"); err != nil {
			return err
		}
	}
	if dir != "" {
		section, err := suite.models(*quick, *quiet)
		if err != nil {
			return err
		}
		res.Sections = append(res.Sections, section)
		if err := res.WriteFiles(dir, bench.Notes(res)); err != nil {
			return err
		}
		if !*asJSON {
			fmt.Fprintf(stdout, "wrote %s and %s/*.svg in %.1f s\n", filepath.Join(dir, "BENCHMARKS.md"), filepath.Join(dir, bench.PlotDir), res.Elapsed.Seconds())
		}
	}
	if !res.Peers.Ran {
		// Said even with --json (on stderr then), so a run without the peers is never silent.
		w := stdout
		if *asJSON {
			w = os.Stderr
		}
		fmt.Fprintf(w, "peers: not run: %s\n", res.Peers.Reason)
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res.Rows); err != nil {
			return err
		}
	} else {
		for _, t := range res.Targets() {
			met := "met"
			if !t.Met {
				met = "NOT met"
			}
			if !t.Judged {
				met += " (not judged: --quick)"
			}
			fmt.Fprintf(stdout, "%-75s %-30s %s\n", t.Name, t.Figure, met)
		}
		if res.Peers.Ran {
			writePeerRows(stdout, res)
		}
	}
	if len(res.Rows) == 0 {
		return errors.New("no rows")
	}
	return targetsError(res.Missed())
}

// targetsError names the targets missed; nil when there are none.
func targetsError(missed []bench.Target) error {
	if len(missed) == 0 {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d target(s) not met:", len(missed))
	for _, t := range missed {
		fmt.Fprintf(&b, "\n  %s: %s", t.Name, t.Figure)
	}
	return errors.New(b.String())
}

// writePeerRows prints bytes and encode time per client-snapshot of every encoder, peers
// included, on every scenario at 0% loss.
func writePeerRows(w io.Writer, res *bench.Result) {
	fmt.Fprintf(w, "\npeers (node %s, colyseus %s, geckos %s), 0%% loss, bytes mean / encode µs per client-snapshot:\n",
		res.Peers.Node, res.Peers.Versions[bench.EncColyseus], res.Peers.Versions[bench.EncGeckos])
	encs := []string{bench.EncDoom3, bench.EncDoom3Huff, bench.EncDoom3RC, bench.EncQuake3, bench.EncColyseus, bench.EncGeckos}
	fmt.Fprintf(w, "%-8s", "")
	for _, e := range encs {
		fmt.Fprintf(w, " %20s", e)
	}
	fmt.Fprintln(w)
	for _, s := range res.Scenarios {
		fmt.Fprintf(w, "%-8s", s.Name)
		for _, e := range encs {
			if x := res.Find(s.Name, 0, e); x != nil {
				fmt.Fprintf(w, " %9.1f B %6.1f µs", x.BytesMean, x.NsPerClientSnapshot/1000)
			} else {
				fmt.Fprintf(w, " %20s", "-")
			}
		}
		fmt.Fprintln(w)
	}
}
