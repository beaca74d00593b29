package main

// "snapwire demo": one server and N arena bot clients over a simulated
// network (package netsim), in virtual time, in one process; the harness
// and the measurements live in internal/matchsim. Output: one progress line per
// virtual second and a summary table, or one JSON object (--json); --report
// writes a self-contained HTML page of plots.

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"text/tabwriter"
	"time"

	"github.com/snapwire/snapwire/internal/matchsim"
)

func init() {
	register(command{
		name:    "demo",
		summary: "a server and arena bots over a simulated network in virtual time, with measurements",
		run:     runDemo,
	})
}

func parseDemoFlags(args []string) (matchsim.Options, bool, string, error) {
	opt := matchsim.DefaultOptions()
	fs := newFlagSet("demo")
	fs.IntVar(&opt.Clients, "clients", opt.Clients, "number of bot clients (1..64)")
	fs.DurationVar(&opt.Latency, "latency", opt.Latency, "round trip time (half of it each way)")
	fs.DurationVar(&opt.Jitter, "jitter", opt.Jitter, "uniform jitter per direction (±)")
	loss := percent(opt.Loss)
	fs.Var(&loss, "loss", "packet loss per direction (5% or 0.05)")
	fs.DurationVar(&opt.Duration, "duration", opt.Duration, "virtual time to play")
	fs.Uint64Var(&opt.Seed, "seed", opt.Seed, "seed of the network, map and bots")
	fs.StringVar(&opt.Settings, "map", "", "arena settings (default: the 3x3 arena seeded with --seed)")
	fs.DurationVar(&opt.Warmup, "warmup", 2*time.Second, "left out of the command, lead and prediction figures (the invariant checks cover the whole run); unset, at most a quarter of --duration")
	mode := fs.String("mode", "deathmatch", "bot behaviour: deathmatch, or nevertouch (bots that never meet: exact prediction)")
	opponents := fs.String("opponents", "predicted", "how clients show other players: predicted (DOOM III) or interpolated (Quake 3); pred_error_others is then the distance a player must lead a target")
	asJSON := fs.Bool("json", false, "print one JSON object instead of the text output")
	report := fs.String("report", "", "write an HTML report with plots to this file")
	if err := fs.Parse(args); err != nil {
		return opt, false, "", err
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(fs.Output(), "snapwire demo: unexpected argument %q\n", fs.Arg(0))
		fs.Usage()
		return opt, false, "", errUsage
	}
	opt.Loss = float64(loss)
	warmupSet := false
	fs.Visit(func(f *flag.Flag) { warmupSet = warmupSet || f.Name == "warmup" })
	if !warmupSet {
		opt.Warmup = min(opt.Warmup, opt.Duration/4)
	}
	m, err := matchsim.ParseMode(*mode)
	if err != nil {
		return opt, false, "", err
	}
	opt.Mode = m
	switch *opponents {
	case "predicted":
	case "interpolated":
		opt.InterpolateOpponents = true
	default:
		return opt, false, "", fmt.Errorf("--opponents %q: want predicted or interpolated", *opponents)
	}
	return opt, *asJSON, *report, nil
}

func runDemo(args []string, stdout io.Writer) error {
	opt, asJSON, report, err := parseDemoFlags(args)
	if err != nil {
		return err
	}
	// The line before the run says what is coming: on stdout with the
	// text output, on stderr with --json, whose stdout is one JSON object.
	if asJSON {
		fmt.Fprintln(demoStatus, startLine(opt))
	} else {
		fmt.Fprintln(stdout, startLine(opt))
		opt.Progress = func(s matchsim.Second) { fmt.Fprintln(stdout, progressLine(s)) }
	}
	res, err := matchsim.Run(opt)
	if err != nil {
		return err
	}
	if report != "" {
		f, err := os.Create(report)
		if err != nil {
			return err
		}
		if err := matchsim.WriteHTML(f, res); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
	}
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	printDemoSummary(stdout, res)
	if report != "" {
		fmt.Fprintf(stdout, "report written to %s\n", report)
	}
	if res.BaseMismatches != 0 || res.StateMismatches != 0 {
		return fmt.Errorf("invariant broken: %d base mismatches, %d state mismatches", res.BaseMismatches, res.StateMismatches)
	}
	return nil
}

// demoStatus receives the line printed before a --json run; a test
// replaces it.
var demoStatus io.Writer = os.Stderr

// startLine is the line printed before the run, for example "snapwire demo:
// playing 20 s of virtual time: 8 clients, 80 ms round trip, ±10 ms jitter,
// 2% loss per direction, seed 1".
func startLine(opt matchsim.Options) string {
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	return fmt.Sprintf("snapwire demo: playing %g s of virtual time: %d clients, %g ms round trip, ±%g ms jitter, %g%% loss per direction, seed %d",
		opt.Duration.Seconds(), opt.Clients, ms(opt.Latency), ms(opt.Jitter), 100*opt.Loss, opt.Seed)
}

func progressLine(s matchsim.Second) string {
	var down float64
	for _, k := range s.KbpsDown {
		down += k
	}
	if len(s.KbpsDown) > 0 {
		down /= float64(len(s.KbpsDown))
	}
	return fmt.Sprintf("t=%3ds  clients %d  frame %5d  down %5.1f kbit/s/client  snapshot %4.0f B (%4.0f raw)  pred self %6.2f others %6.2f  lead %4.0f ms  dup %2d  lost %3d",
		s.T, s.Connected, s.Frame, down, s.SnapshotBytes, s.SnapshotBytesRaw, s.PredSelfMean, s.PredOthersMean,
		s.LeadMeanMS, s.Duplicated, s.PacketsLost)
}

func printDemoSummary(w io.Writer, r *matchsim.Result) {
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "client\tnum\tstate\tkbit/s down\tup\tsnapshots\tlost\tpred self\tothers\tlead ms\tdup\tbase chk/bad\tstate chk/bad\t")
	for _, c := range r.PerClient {
		fmt.Fprintf(tw, "%d\t%d\t%s\t%.1f\t%.1f\t%d\t%d\t%.3f\t%.3f\t%.1f\t%d\t%d/%d\t%d/%d\t\n",
			c.Client, c.Num, c.State, c.KbpsDown, c.KbpsUp, c.SnapshotsReceived, c.SnapshotsLost,
			c.PredSelfMean, c.PredOthersMean, c.LeadMeanMS, c.Duplicated, c.BaseChecks, c.BaseMismatches,
			c.StateChecks, c.StateMismatches)
	}
	tw.Flush()
	fmt.Fprintln(w)
	kv := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	line := func(k, v string) { fmt.Fprintf(kv, "%s\t%s\n", k, v) }
	line("frames", fmt.Sprintf("%d (%.1f s of game in %.0f ms)", r.Frames, r.DurationS, r.WallMS))
	line("bandwidth per client", fmt.Sprintf("%.1f kbit/s mean, %.1f peak second, %.1f up", r.KbpsPerClientMean, r.KbpsPerClientMax, r.KbpsUpPerClientMean))
	line("snapshot", fmt.Sprintf("%.1f B after zrle, %.1f B before; packets %.1f B", r.SnapshotBytesMean, r.SnapshotBytesRawMean, r.PacketBytesDownMean))
	line("saved by bit packing", fmt.Sprintf("%.1f%% (vs 32 bits per variable)", 100*r.SavedByBitpacking))
	line("saved by delta", fmt.Sprintf("%.1f%% (vs full bit-packed states)", 100*r.SavedByDelta))
	line("saved by zrle", fmt.Sprintf("%.1f%%", 100*r.SavedByZRLE))
	line("prediction error self", predLine(r.PredSamplesSelf, r.PredErrorSelfMean, r.PredErrorSelfP99, r.PredExactShareSelf))
	line("prediction error others", predLine(r.PredSamplesOthers, r.PredErrorOthersMean, r.PredErrorOthersP99, r.PredExactShareOthers))
	line("command lead", fmt.Sprintf("%.1f ms mean", r.CmdLeadMSMean))
	line("late commands", fmt.Sprintf("%.3f%% (%d duplicated of %d frames)", 100*r.LateCmdShare, r.DuplicatedCmds, r.FramesRun))
	line("snapshots", fmt.Sprintf("%d sent, %d received, %d lost, %d skipped", r.SnapshotsSent, r.SnapshotsReceived, r.SnapshotsLost, r.SnapshotsSkipped))
	line("packets lost", fmt.Sprintf("%d of %d; reliable resends %d", r.PacketsLost, r.PacketsSent, r.ReliableResends))
	line("base mismatches", fmt.Sprintf("%d of %d checks", r.BaseMismatches, r.BaseChecks))
	line("state mismatches", fmt.Sprintf("%d of %d checks", r.StateMismatches, r.StateChecks))
	kv.Flush()
}

// predLine formats a prediction error summary, saying so when there was
// nothing to measure (no other player was ever in view, for example).
func predLine(samples int, mean, p99, exact float64) string {
	if samples == 0 {
		return "no samples"
	}
	return fmt.Sprintf("mean %.3f  p99 %.3f  exact %.1f%%  (%d samples)", mean, p99, 100*exact, samples)
}
