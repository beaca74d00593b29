package main

// snapwire q3 proxy: a logging, lossy Quake 3 proxy (package internal/q3/proxy).

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"os/signal"
	"time"

	"github.com/snapwire/snapwire/internal/q3/proxy"
)

func init() {
	registerQ3(command{name: "proxy", summary: "proxy a Quake 3 client and server, logging every message, with latency and loss", run: runQ3Proxy})
}

// q3ProxyOptions is the parsed command line of q3 proxy.
type q3ProxyOptions struct {
	listen   netip.AddrPort
	cfg      proxy.Config // without Log
	duration time.Duration
	quiet    bool
}

func parseQ3ProxyFlags(args []string) (q3ProxyOptions, error) {
	var o q3ProxyOptions
	fs := newFlagSet("q3 proxy")
	listen := fs.String("listen", "127.0.0.1:27961", "address clients connect to")
	to := fs.String("to", "127.0.0.1:27960", "server address (HOST:PORT, or HOST for port 27960)")
	var link linkFlags
	link.register(fs)
	fs.DurationVar(&o.duration, "duration", 0, "stop after this long (0: until interrupted)")
	fs.BoolVar(&o.quiet, "q", false, "do not log messages, only the final counts")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: snapwire q3 proxy --listen 127.0.0.1:A --to 127.0.0.1:B [--latency 100ms --jitter 10ms --loss 5%]")
		fmt.Fprintln(fs.Output(), "Forwards a Quake 3 client's traffic to a server through netsim's link model and logs")
		fmt.Fprintln(fs.Output(), "every message both ways, decoded (XOR keys recovered from the handshake it sees).")
		fmt.Fprintln(fs.Output(), "The link flags mean what they mean to 'snapwire proxy': --latency is the round trip.")
		fs.PrintDefaults()
	}
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return o, err
	}
	if len(pos) != 0 {
		fs.Usage()
		return o, errUsage
	}
	if o.listen, err = parseQ3Addr(*listen); err != nil {
		return o, fmt.Errorf("--listen: %w", err)
	}
	if o.cfg.Target, err = parseQ3Addr(*to); err != nil {
		return o, fmt.Errorf("--to: %w", err)
	}
	if o.duration < 0 {
		return o, errors.New("--duration must not be negative")
	}
	if o.cfg.Up, o.cfg.Down, err = link.links(); err != nil {
		return o, err
	}
	o.cfg.Seed = link.seed
	return o, nil
}

func runQ3Proxy(args []string, stdout io.Writer) error {
	o, err := parseQ3ProxyFlags(args)
	if err != nil {
		return err
	}
	cfg := o.cfg
	if !o.quiet {
		cfg.Log = stdout
	}
	p, err := proxy.New(cfg)
	if err != nil {
		return err
	}
	conn, err := net.ListenUDP("udp", net.UDPAddrFromAddrPort(o.listen))
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "snapwire q3 proxy: %v -> %v (seed %d)\n  up:   %s\n  down: %s\n", conn.LocalAddr(), cfg.Target, cfg.Seed, describeLink(cfg.Up), describeLink(cfg.Down))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if o.duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.duration)
		defer cancel()
	}
	start := time.Now()
	err = proxy.Run(ctx, conn, p)
	ts, ls := p.Tap().Stats(), p.Link()
	fmt.Fprintf(stdout, "proxy ran %v: link sent %d delivered %d lost %d duplicated %d; decoded %d server and %d client messages, %d snapshots, %d usercmds, %d parse errors, %d netchan errors\n",
		time.Since(start).Round(time.Millisecond), ls.Sent, ls.Delivered, ls.Lost, ls.Duplicated,
		ts.ServerMessages, ts.ClientMessages, ts.Snapshots, ts.Usercmds, ts.ParseErrors, ts.NetchanErrors)
	return err
}
