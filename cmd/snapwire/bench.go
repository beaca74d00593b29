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
	"github.com/snapwire/snapwire/internal/models"
)

func init() {
	register(command{name: "bench", summary: "compare the DOOM III and Quake 3 snapshot schemes, write BENCHMARKS.md", run: runBench})
}

// runBench is `snapwire bench [--quick] [--json] [--out dir] [--scenarios a,b] [--peers dir]`:
// it records the scenarios, measures both schemes and, when Node and the pinned packages are
// installed, the peer libraries (internal/bench/peers), writes BENCHMARKS.md with its SVG plots
// into --out (default: the current directory; with --json, only when --out is given), and with
// --json prints the result rows as a JSON list.
func runBench(args []string, stdout io.Writer) error {
	fs := newFlagSet("bench")
	quick := fs.Bool("quick", false, "short recordings (well under a minute)")
	asJSON := fs.Bool("json", false, "print the result rows as a JSON list")
	out := fs.String("out", "", "directory for BENCHMARKS.md and "+bench.PlotDir+" (default: current directory, none with --json)")
	scen := fs.String("scenarios", "", "comma-separated scenarios to run (default all: duel,16p,64p,churn,static)")
	ticks := fs.Int("ticks", 0, "snapshot ticks to record per scenario (default: 70 with --quick, 420 without)")
	quiet := fs.Bool("q", false, "no progress on stderr")
	peers := fs.String("peers", bench.DefaultPeersDir(), "the peer libraries' Node program (npm ci there first); \"none\": do not run the peers")
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
	res, err := bench.Run(o)
	if err != nil {
		return err
	}
	dir := *out
	if dir == "" && !*asJSON {
		dir = "."
	}
	if dir != "" {
		// The seeds' network models on the same arena, in the same run (`snapwire models`).
		mo := models.Full()
		if *quick {
			mo = models.Quick()
		}
		if !*quiet {
			fmt.Fprintln(os.Stderr, "network models (snapwire models) ...")
		}
		mres, err := models.RunAll(mo)
		if err != nil {
			return fmt.Errorf("models: %w", err)
		}
		res.Sections = append(res.Sections, models.Markdown(mres))
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
		return enc.Encode(res.Rows)
	}
	for _, t := range res.Targets() {
		met := "met"
		if !t.Met {
			met = "NOT met"
		}
		fmt.Fprintf(stdout, "%-75s %-30s %s\n", t.Name, t.Figure, met)
	}
	if res.Peers.Ran {
		writePeerRows(stdout, res)
	}
	if len(res.Rows) == 0 {
		return errors.New("no rows")
	}
	return nil
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
