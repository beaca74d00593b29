package main

// snapwire q3 proxy: a logging, lossy Quake 3 proxy (package q3/proxy).

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"time"

	"github.com/snapwire/snapwire/netsim"
	"github.com/snapwire/snapwire/q3/proxy"
)

func init() {
	registerQ3(command{name: "proxy", summary: "proxy a Quake 3 client and server, logging every message, with latency and loss", run: runQ3Proxy})
}

func runQ3Proxy(args []string, stdout io.Writer) error {
	fs := newFlagSet("q3 proxy")
	listen := fs.String("listen", "127.0.0.1:27961", "address clients connect to")
	to := fs.String("to", "127.0.0.1:27960", "server address (HOST:PORT, or HOST for port 27960)")
	latency := fs.Duration("latency", 0, "one-way latency added in each direction")
	jitter := fs.Duration("jitter", 0, "uniform jitter around the latency (order kept)")
	loss := fs.Float64("loss", 0, "chance (0..1) of dropping a packet, each direction")
	dup := fs.Float64("dup", 0, "chance (0..1) of duplicating a packet, each direction")
	seed := fs.Uint64("seed", 1, "seed of the link model")
	duration := fs.Duration("duration", 0, "stop after this long (0: until interrupted)")
	quiet := fs.Bool("q", false, "do not log messages, only the final counts")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: snapwire q3 proxy --listen 127.0.0.1:A --to 127.0.0.1:B [--latency 50ms --jitter 10ms --loss 0.05]")
		fmt.Fprintln(fs.Output(), "Forwards a Quake 3 client's traffic to a server through netsim's link model and logs")
		fmt.Fprintln(fs.Output(), "every message both ways, decoded (XOR keys recovered from the handshake it sees).")
		fs.PrintDefaults()
	}
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		fs.Usage()
		return errUsage
	}
	la, err := parseQ3Addr(*listen)
	if err != nil {
		return fmt.Errorf("--listen: %w", err)
	}
	target, err := parseQ3Addr(*to)
	if err != nil {
		return fmt.Errorf("--to: %w", err)
	}
	link := netsim.LinkConfig{Latency: *latency, Jitter: *jitter, Loss: *loss, Duplicate: *dup}
	cfg := proxy.Config{Target: target, Up: link, Down: link, Seed: *seed}
	if !*quiet {
		cfg.Log = stdout
	}
	p, err := proxy.New(cfg)
	if err != nil {
		return err
	}
	conn, err := net.ListenUDP("udp", net.UDPAddrFromAddrPort(la))
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "snapwire q3 proxy: %v -> %v (latency %v jitter %v loss %.3f)\n", conn.LocalAddr(), target, *latency, *jitter, *loss)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if *duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *duration)
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
