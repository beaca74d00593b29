package main

// "snapwire soak": a secure arena server and many bots over real loopback
// UDP sockets, for a long time, reporting resident memory and goroutines
// (internal/soak). With --flood it also sends malformed packets at the
// server from other loopback hosts and compares the bots' snapshot rate
// with a baseline played before the flood.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/snapwire/snapwire/internal/soak"
)

func init() {
	register(command{
		name:    "soak",
		summary: "many bots against a secure server over loopback UDP for a long time: memory, goroutines, flood",
		run:     runSoak,
	})
}

func runSoak(args []string, stdout io.Writer) error {
	fs := newFlagSet("soak")
	var o soak.Options
	fs.IntVar(&o.Clients, "clients", 64, "bot clients")
	fs.DurationVar(&o.Duration, "duration", 30*time.Minute, "how long to play after every bot joined")
	fs.DurationVar(&o.Interval, "interval", 10*time.Second, "time between samples")
	fs.DurationVar(&o.Warmup, "warmup", time.Minute, "left out of the memory verdict (at most half of --duration)")
	fs.IntVar(&o.FloodRate, "flood", 0, "malformed packets per second sent at the server from 127.0.0.2.. (0: none)")
	fs.IntVar(&o.FloodSenders, "flood-senders", 4, "sockets (loopback hosts) the flood comes from")
	fs.DurationVar(&o.Baseline, "baseline", 10*time.Second, "with --flood: played first without it, to compare snapshot rates")
	maxDev := fs.Float64("max-rss-deviation", 0.10, "fail when RSS after the warm-up moves more than this fraction")
	asJSON := fs.Bool("json", false, "print the result as one JSON object (and no sample lines)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if o.Clients < 1 || o.Clients > 64 {
		return fmt.Errorf("--clients %d: want 1..64", o.Clients)
	}
	if !*asJSON {
		o.OnSample = func(s soak.Sample) {
			fmt.Fprintf(stdout, "[%7.1fs] rss %6.1f MB  heap %6.1f MB  goroutines %4d  connected %2d  snapshots %8d  flood sent %d\n",
				s.At.Seconds(), float64(s.RSSBytes)/(1<<20), float64(s.HeapBytes)/(1<<20), s.Goroutines, s.Connected, s.Snapshots, s.FloodSent)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	res, err := soak.Run(ctx, o)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			return err
		}
	} else {
		fmt.Fprintln(stdout, res.Summary())
	}
	switch {
	case res.Joined < res.Clients:
		return fmt.Errorf("%d of %d clients joined within %v", res.Joined, res.Clients, soak.JoinLimit)
	case res.Disconnects > 0:
		return fmt.Errorf("%d clients disconnected", res.Disconnects)
	case res.RSSAfterWarmup > 0 && res.RSSDeviation > *maxDev:
		return fmt.Errorf("RSS moved %.1f%% after the warm-up (limit %.0f%%)", 100*res.RSSDeviation, 100**maxDev)
	case o.FloodRate > 0 && res.MinRatio < 0.95:
		return errors.New("a client received under 95% of its baseline snapshots during the flood")
	}
	return nil
}
