package main

// "snapwire models": the same arena match under lockstep, packet server,
// Quake 3 and DOOM III models, side by side (package internal/netmodels).

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"text/tabwriter"

	"github.com/snapwire/snapwire/internal/netmodels"
)

func init() {
	register(command{
		name:    "models",
		summary: "DOOM's lockstep and packet server, Quake 3's and DOOM III's client-server on the same match: bytes, input latency, aim error, stalls",
		run:     runModels,
	})
}

func runModels(args []string, stdout io.Writer) error {
	fs := newFlagSet("models")
	quick := fs.Bool("quick", false, "2 and 8 players at 50 and 200 ms, 8 s matches (well under a minute)")
	asJSON := fs.Bool("json", false, "print the rows as a JSON list (client-server rows twice: lag_compensation false and true)")
	all := fs.Bool("json-all", false, "print the rows, claims and §8 figures as one JSON object")
	md := fs.Bool("markdown", false, "print the BENCHMARKS.md section (netmodels.Markdown)")
	report := fs.String("report", "", "also write an HTML report with plots to this file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return errUsage
	}
	o := netmodels.Full()
	if *quick {
		o = netmodels.Quick()
	}
	res, err := netmodels.RunAll(o)
	if err != nil {
		return err
	}
	rows := res.Rows
	if *report != "" {
		f, err := os.Create(*report)
		if err != nil {
			return err
		}
		if err := netmodels.WriteHTML(f, res); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
	}
	if *asJSON || *all {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if *all {
			return enc.Encode(res)
		}
		return enc.Encode(netmodels.JSONRows(rows))
	}
	if *md {
		_, err := io.WriteString(stdout, netmodels.Markdown(res))
		return err
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "model\tplayers\trtt ms\tslow peer\tbytes up/s\tbytes down/s\tinput latency (frames)\taim error mean\taim error p99\tstall frames\tdesyncs\thit share\thit share lag comp\tbehind cover lag comp\t")
	for _, r := range rows {
		hits := "-\t-\t-"
		if r.Shots > 0 {
			hits = fmt.Sprintf("%.3f\t%.3f\t%d", r.HitShare, r.HitShareLagComp, r.BehindCoverLagComp)
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%v\t%.0f\t%.0f\t%.1f\t%.2f\t%.2f\t%.0f\t%d\t%s\t\n", r.Model, r.Players, r.RTTMS, r.Slow,
			r.BytesUpPerS, r.BytesDownPerS, r.InputLatencyFrames, r.AimErrorMean, r.AimErrorP99, r.StallFrames, r.Desyncs, hits)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(stdout)
	for _, c := range res.Claims {
		fmt.Fprintf(stdout, "- %s\n", c)
	}
	if s := res.Section8; s != nil {
		fmt.Fprintf(stdout, "\nDOOM III §8 ideas, %d players, %d ms:\n", s.Players, s.RTTMS)
		for _, i := range s.Ideas {
			fmt.Fprintf(stdout, "- %s: %s %.1f -> %.1f: %s\n", i.Name, i.Figure, i.Before, i.After, i.Verdict)
			if i.Cost != "" {
				fmt.Fprintf(stdout, "  cost: %s\n", i.Cost)
			}
		}
		for _, r := range s.Coarse {
			fmt.Fprintf(stdout, "- re-prediction in steps of %d, %d players, %d ms: %.1f frames re-run a snapshot; entity steps %.1f -> %.1f, "+
				"median %.1f -> %.1f µs; opponents' error mean %.2f -> %.2f, p99 %.1f -> %.1f; own player's %.2f -> %.2f; desyncs %d\n",
				r.Step, r.Players, r.RTTMS, r.FramesPerSnapshot, r.StepsBefore, r.StepsAfter, r.NSBefore/1000, r.NSAfter/1000,
				r.ErrMeanBefore, r.ErrMeanAfter, r.ErrP99Before, r.ErrP99After, r.SelfMeanBefore, r.SelfMeanAfter, r.Desyncs)
		}
	}
	return nil
}
