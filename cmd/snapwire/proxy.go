package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/snapwire/snapwire/internal/netaddr"
	"github.com/snapwire/snapwire/internal/udpproxy"
	"github.com/snapwire/snapwire/netsim"
)

// The proxy command puts a simulated bad network between real programs:
// clients send to --listen, the proxy forwards to --to, applying latency,
// jitter, loss, duplication and reordering in each direction (internal/udpproxy).
// Like the companion proxy of the Quake 3 protocol description (Fedoryński), it is
// for experimenting with latency and packet loss.

func init() {
	register(command{
		name:    "proxy",
		summary: "real-time UDP proxy adding latency, jitter, loss, duplication, reordering",
		run:     runProxy,
	})
}

// proxyOptions is the parsed command line.
type proxyOptions struct {
	cfg   udpproxy.Config
	stats time.Duration // 0: no periodic stats
}

func parseProxyFlags(args []string, stderr io.Writer) (proxyOptions, error) {
	fs := newFlagSet("proxy")
	fs.SetOutput(stderr)
	var (
		listen, to    string
		link          linkFlags
		stats         time.Duration
		allowNonlocal bool
	)
	fs.StringVar(&listen, "listen", "", "`address` clients send to, e.g. 127.0.0.1:27961 or localhost:27961 (must be loopback unless --allow-nonlocal)")
	fs.StringVar(&to, "to", "", "server `address` to forward to, e.g. 127.0.0.1:27960")
	link.register(fs)
	fs.DurationVar(&stats, "stats", time.Second, "print statistics at this `interval`, 0 = never")
	fs.BoolVar(&allowNonlocal, "allow-nonlocal", false, "allow a --listen address that is not loopback")
	if err := fs.Parse(args); err != nil {
		return proxyOptions{}, err
	}
	if fs.NArg() > 0 {
		return proxyOptions{}, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if listen == "" || to == "" {
		fmt.Fprintln(stderr, "snapwire proxy: --listen and --to are required")
		fs.Usage()
		return proxyOptions{}, errUsage
	}
	la, err := netaddr.Resolve(listen)
	if err != nil {
		return proxyOptions{}, fmt.Errorf("--listen: %v", err)
	}
	ta, err := netaddr.ResolveServer(to) // a name: where a snapwire server answers, if one is up
	if err != nil {
		return proxyOptions{}, fmt.Errorf("--to: %v", err)
	}
	if !la.Addr().Unmap().IsLoopback() && !allowNonlocal {
		return proxyOptions{}, fmt.Errorf("refusing to listen on non-loopback address %v without --allow-nonlocal", la)
	}
	if stats < 0 {
		return proxyOptions{}, errors.New("--stats must not be negative")
	}
	up, down, err := link.links()
	if err != nil {
		return proxyOptions{}, err
	}
	return proxyOptions{
		cfg:   udpproxy.Config{Listen: la, Target: ta, Up: up, Down: down, Seed: link.seed},
		stats: stats,
	}, nil
}

func runProxy(args []string, stdout io.Writer) error {
	opt, err := parseProxyFlags(args, os.Stderr)
	if err != nil {
		return err
	}
	p, err := udpproxy.New(opt.cfg)
	if err != nil {
		return err
	}
	c := opt.cfg
	fmt.Fprintf(stdout, "proxy %v -> %v (seed %d)\n", p.Addr(), c.Target, c.Seed)
	fmt.Fprintf(stdout, "  up:   %s\n  down: %s\n", describeLink(c.Up), describeLink(c.Down))

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var wg sync.WaitGroup
	if opt.stats > 0 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tick := time.NewTicker(opt.stats)
			defer tick.Stop()
			start := time.Now()
			for {
				select {
				case <-ctx.Done():
					return
				case now := <-tick.C:
					fmt.Fprintln(stdout, formatProxyStats(now.Sub(start), p.Stats()))
				}
			}
		}()
	}
	err = p.Run(ctx)
	stop()
	wg.Wait()
	fmt.Fprintln(stdout, "final:", formatProxyStats(0, p.Stats()))
	return err
}

func describeLink(l netsim.LinkConfig) string {
	s := fmt.Sprintf("latency %v jitter +/-%v loss %.4g%% dup %.4g%% reorder %.4g%%",
		l.Latency, l.Jitter, l.Loss*100, l.Duplicate*100, l.Reorder*100)
	if l.Bandwidth > 0 {
		s += fmt.Sprintf(" bandwidth %d B/s", l.Bandwidth)
	}
	if l.MTU > 0 {
		s += fmt.Sprintf(" mtu %d", l.MTU)
	}
	return s
}

func formatProxyStats(elapsed time.Duration, s udpproxy.Stats) string {
	dir := func(d netsim.Stats) string {
		return fmt.Sprintf("in %d out %d lost %d dup %d reord %d drop %d",
			d.Sent, d.Delivered, d.Lost, d.Duplicated, d.Reordered,
			d.DroppedMTU+d.DroppedQueue+d.DroppedUnbound+d.DroppedInbox)
	}
	prefix := ""
	if elapsed > 0 {
		prefix = fmt.Sprintf("%6.1fs ", elapsed.Seconds())
	}
	return fmt.Sprintf("%sclients %d (refused %d expired %d) | up: %s | down: %s",
		prefix, s.Clients, s.Refused, s.Expired, dir(s.Up), dir(s.Down))
}
