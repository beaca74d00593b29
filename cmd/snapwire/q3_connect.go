package main

// snapwire q3 connect / q3 record: a Quake 3 client (package internal/q3/client) on
// a real UDP socket.

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/netip"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/snapwire/snapwire/internal/netaddr"
	"github.com/snapwire/snapwire/internal/q3/client"
)

func init() {
	registerQ3(command{name: "connect", summary: "connect to a Quake 3 server as a player (no renderer)", run: runQ3Connect})
	registerQ3(command{name: "record", summary: "connect and record the server messages as a .dm_68/.dm_71 demo", run: runQ3Record})
}

// q3ClientFlags are the client flags connect and record share.
type q3ClientFlags struct {
	duration   time.Duration
	protocol   int
	framing    string
	name       string
	say        string
	maxPackets int
	packetDup  int
	snaps      int
	rate       int
	seed       uint64
	verbose    bool
	asJSON     bool
}

func (f *q3ClientFlags) register(fs *flag.FlagSet, defDuration time.Duration) {
	fs.DurationVar(&f.duration, "duration", defDuration, "how long to stay connected (0: until interrupted)")
	fs.IntVar(&f.protocol, "protocol", 0, "protocol to announce: 68 (legacy framing, XOR) or 71 (checksummed framing); 0 = what the server reports")
	fs.StringVar(&f.framing, "framing", "auto", "netchan framing: auto (legacy for 68; for 71 detected from the server's first packet), legacy or checksummed")
	fs.StringVar(&f.name, "name", "snapwire", "player name")
	fs.StringVar(&f.say, "say", "", "say this line once in the game")
	fs.IntVar(&f.maxPackets, "maxpackets", client.DefaultPacketRate, "user command packets per second (15..125)")
	fs.IntVar(&f.packetDup, "packetdup", client.DefaultPacketDup, "cl_packetdup: how many earlier packets' commands each packet repeats (0..5)")
	fs.IntVar(&f.snaps, "snaps", client.DefaultSnaps, "snapshots per second asked for (userinfo snaps)")
	fs.IntVar(&f.rate, "rate", client.DefaultRate, "bytes per second asked for (userinfo rate)")
	fs.Uint64Var(&f.seed, "seed", 0, "seed of the client challenge and qport (0: from the clock)")
	fs.BoolVar(&f.verbose, "v", false, "log every server message and op (like cl_shownet 2)")
	fs.BoolVar(&f.asJSON, "json", false, "print a JSON summary")
}

func (f *q3ClientFlags) config(log io.Writer) (client.Config, error) {
	cfg := client.Config{
		Name: f.name, Protocol: f.protocol, PacketRate: f.maxPackets, PacketDup: f.packetDup,
		Snaps: f.snaps, Rate: f.rate, Seed: f.seed,
	}
	if f.packetDup == 0 {
		cfg.PacketDup = -1
	}
	if cfg.Seed == 0 {
		cfg.Seed = uint64(time.Now().UnixNano())
	}
	switch strings.ToLower(f.framing) {
	case "auto", "":
	case "legacy":
		cfg.Framing = client.FramingLegacy
	case "checksummed":
		cfg.Framing = client.FramingChecksummed
	default:
		return cfg, fmt.Errorf("--framing %q: want auto, legacy or checksummed", f.framing)
	}
	if f.say != "" {
		cfg.Commands = []string{"say " + f.say}
	}
	if f.verbose {
		cfg.Log = log
	}
	return cfg, nil
}

// parseQ3Addr resolves a Quake 3 address: HOST:PORT, or HOST alone for
// the Quake 3 port, 27960.
func parseQ3Addr(s string) (netip.AddrPort, error) {
	return netaddr.ResolveDefaultPort(s, 27960)
}

func runQ3Connect(args []string, stdout io.Writer) error {
	fs := newFlagSet("q3 connect")
	var f q3ClientFlags
	f.register(fs, 10*time.Second)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: snapwire q3 connect [flags] HOST:PORT")
		fmt.Fprintln(fs.Output(), "Connects to a Quake 3 server, follows gamestate and snapshots, sends user commands.")
		fs.PrintDefaults()
	}
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		fs.Usage()
		return errUsage
	}
	return q3Session(pos[0], &f, "", stdout)
}

func runQ3Record(args []string, stdout io.Writer) error {
	fs := newFlagSet("q3 record")
	var f q3ClientFlags
	f.register(fs, 20*time.Second)
	addr := fs.String("connect", "", "server HOST:PORT")
	out := fs.String("out", "", "demo file to write (.dm_68 or .dm_71)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: snapwire q3 record --connect HOST:PORT --out FILE.dm_71 [flags]")
		fmt.Fprintln(fs.Output(), "Connects like q3 connect and writes what the server sends as a demo the real client plays.")
		fs.PrintDefaults()
	}
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 || *addr == "" || *out == "" {
		fs.Usage()
		return errUsage
	}
	return q3Session(*addr, &f, *out, stdout)
}

func q3Session(addr string, f *q3ClientFlags, demoPath string, stdout io.Writer) error {
	server, err := parseQ3Addr(addr)
	if err != nil {
		return fmt.Errorf("server %w", err)
	}
	cfg, err := f.config(stdout)
	if err != nil {
		return err
	}
	cn, err := client.Dial(cfg, netip.AddrPort{}, server)
	if err != nil {
		return err
	}
	defer cn.Close()
	var demoFile *os.File
	if demoPath != "" {
		if demoFile, err = os.Create(demoPath); err != nil {
			return err
		}
		defer demoFile.Close()
		if err := cn.Record(demoFile); err != nil {
			return err
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	runErr := cn.Run(ctx, f.duration, nil)
	var records int
	if demoFile != nil {
		var derr error
		records, derr = cn.StopRecord()
		if derr == nil {
			derr = demoFile.Close()
		}
		if derr != nil && runErr == nil {
			runErr = fmt.Errorf("demo %s: %w", demoPath, derr)
		}
	}
	s := cn.Stats()
	if f.asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(stdout, "%s %s: %s, protocol %d %s framing, client %d, map %s\n",
			cn.LocalAddr(), server, s.Phase, s.Protocol, s.Framing, s.ClientNum, s.Map)
		fmt.Fprintf(stdout, "  snapshots %d (invalid %d), server time %d..%d, parse errors %d, netchan errors %d, dropped %d\n",
			s.Snapshots, s.InvalidSnapshots, s.ServerTimeFirst, s.ServerTimeLast, s.ParseErrors, s.NetchanErrors, s.Dropped)
		fmt.Fprintf(stdout, "  entities seen %d, moved %d (players %d), server commands %d, client commands %d/%d acked, usercmds %d, ping %d ms\n",
			s.EntitiesSeen, s.EntitiesMoved, s.PlayersMoved, s.ServerCommands, s.ClientCommandAck, s.ClientCommands, s.Usercmds, s.PingMs)
		fmt.Fprintf(stdout, "  bytes in %d (%d packets), out %d (%d packets)\n", s.BytesIn, s.PacketsIn, s.BytesOut, s.PacketsOut)
		if demoFile != nil {
			fmt.Fprintf(stdout, "  demo %s: %d records\n", demoPath, records)
		}
		for _, e := range s.Errors {
			fmt.Fprintf(stdout, "  error: %s\n", e)
		}
	}
	if runErr != nil {
		return runErr
	}
	if s.ParseErrors > 0 {
		return fmt.Errorf("%d parse errors", s.ParseErrors)
	}
	if s.Snapshots == 0 {
		return errors.New("no snapshot received")
	}
	return nil
}
