package main

// The link-model flags of both proxies ("snapwire proxy" between any UDP
// programs, "snapwire q3 proxy" between a Quake 3 client and server),
// defined once so that they mean the same: --latency is the round trip,
// half of it added each way (as "snapwire demo" and "snapwire play" take
// it), and the probabilities are per direction, written 5% or 0.05.

import (
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/snapwire/snapwire/netsim"
)

// percent is a probability flag accepting "5%" or "0.05".
type percent float64

func (p *percent) String() string { return strconv.FormatFloat(float64(*p)*100, 'g', -1, 64) + "%" }

func (p *percent) Set(s string) error {
	v, err := parsePercent(s)
	if err != nil {
		return err
	}
	*p = percent(v)
	return nil
}

// parsePercent reads "5%" as 0.05 and "0.05" as 0.05; the result must lie
// in 0..1 (so "5" is an error: write 5% or 0.05).
func parsePercent(s string) (float64, error) {
	t := strings.TrimSpace(s)
	scale := 1.0
	if rest, ok := strings.CutSuffix(t, "%"); ok {
		t, scale = strings.TrimSpace(rest), 0.01
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil {
		return 0, fmt.Errorf("invalid probability %q: want e.g. 5%% or 0.05", s)
	}
	v *= scale
	if !(v >= 0 && v <= 1) {
		return 0, fmt.Errorf("probability %q outside 0%%..100%% (write 5%% or 0.05)", s)
	}
	return v, nil
}

// linkFlags are the proxies' link-model flags.
type linkFlags struct {
	latency, jitter, reorderDelay time.Duration
	loss, dup, reorder            percent
	bandwidth, mtu                int
	seed                          uint64
}

func (l *linkFlags) register(fs *flag.FlagSet) {
	fs.DurationVar(&l.latency, "latency", 0, "added ROUND-TRIP latency, split half per direction (100ms adds 50ms each way)")
	fs.DurationVar(&l.jitter, "jitter", 0, "each one-way delay varies uniformly by up to +/- this much (order kept)")
	fs.Var(&l.loss, "loss", "packet loss per direction, e.g. 5% or 0.05")
	fs.Var(&l.dup, "dup", "chance a packet is delivered twice, per direction, e.g. 1% or 0.01")
	fs.Var(&l.reorder, "reorder", "chance a packet is held back an extra random delay (reordering), per direction")
	fs.DurationVar(&l.reorderDelay, "reorder-delay", netsim.DefaultReorderDelay, "largest extra hold-back of a reordered packet")
	fs.IntVar(&l.bandwidth, "bandwidth", 0, "`bytes` per second per direction, 0 = unlimited")
	fs.IntVar(&l.mtu, "mtu", 0, "drop packets larger than this many `bytes`, 0 = unlimited")
	fs.Uint64Var(&l.seed, "seed", 1, "random seed of the link model (the same seed gives the same choices for the same packet order)")
}

// links returns the client-to-server (up) and server-to-client (down)
// link configurations: the same but for the latency, whose odd nanosecond
// goes down.
func (l *linkFlags) links() (up, down netsim.LinkConfig, err error) {
	if l.latency < 0 || l.jitter < 0 || l.reorderDelay < 0 {
		return up, down, errors.New("--latency, --jitter and --reorder-delay must not be negative")
	}
	if l.bandwidth < 0 || l.mtu < 0 {
		return up, down, errors.New("--bandwidth and --mtu must not be negative")
	}
	dir := netsim.LinkConfig{
		Jitter:       l.jitter,
		Loss:         float64(l.loss),
		Duplicate:    float64(l.dup),
		Reorder:      float64(l.reorder),
		ReorderDelay: l.reorderDelay,
		Bandwidth:    l.bandwidth,
		MTU:          l.mtu,
	}
	up, down = dir, dir
	up.Latency = l.latency / 2
	down.Latency = l.latency - up.Latency
	return up, down, nil
}
