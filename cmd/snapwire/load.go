package main

// "snapwire load": many light clients (internal/loadgen) against one
// server over real UDP, and one summary of what they received (issue 25,
// "A load generator and the figures").

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/loadgen"
	"github.com/snapwire/snapwire/internal/netaddr"
	"github.com/snapwire/snapwire/token"
)

func init() {
	register(command{
		name:    "load",
		summary: "load a server with many light clients over UDP (snapshot rates, loss, RTT, bytes)",
		run:     runLoad,
	})
}

type loadOptions struct {
	clients  int
	matches  int
	connect  string
	game     string
	keyFile  string
	password string
	duration time.Duration
	cmdRate  int
	ramp     time.Duration
	json     bool
}

func parseLoadFlags(args []string) (loadOptions, error) {
	o := loadOptions{}
	fs := newFlagSet("load")
	fs.IntVar(&o.clients, "clients", 64, "light clients, each on its own socket (1..65536)")
	fs.IntVar(&o.matches, "matches", 1, "spread the clients over the matches \"1\"..\"N\" of a server that hosts many (serve --matches N): client i joins match 1 + i mod N, named in its connect and in the token --key-file issues it; 1: the default match (serve's one match)")
	fs.StringVar(&o.connect, "connect", "127.0.0.1:27960", "server address (HOST:PORT); to an IPv4 loopback server each client sends from its own address of 127.0.0.0/8")
	fs.StringVar(&o.game, "game", gameArena, "the game the server serves (serve --game): arena or crowd; the clients need its registry and map base, no other code of it")
	fs.StringVar(&o.keyFile, "key-file", "", "issue each client its own connect token with this key file (a secure server); without it the clients connect insecurely")
	fs.StringVar(&o.password, "password", "", "server password")
	fs.DurationVar(&o.duration, "duration", 30*time.Second, "how long to play from the first connect (0: until SIGINT/SIGTERM)")
	fs.IntVar(&o.cmdRate, "cmd-rate", 60, "command messages per second per client (the client's default)")
	fs.DurationVar(&o.ramp, "ramp", 2*time.Millisecond, "interval between two clients' connects")
	fs.BoolVar(&o.json, "json", false, "print the summary as one JSON object")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(fs.Output(), "snapwire load: unexpected argument %q\n", fs.Arg(0))
		return o, errUsage
	}
	if err := checkGameFlag(o.game); err != nil {
		return o, err
	}
	switch {
	case o.clients < 1 || o.clients > 65536:
		return o, fmt.Errorf("--clients %d: want 1..65536", o.clients)
	case o.matches < 1 || o.matches > maxLoadMatches:
		return o, fmt.Errorf("--matches %d: want 1..%d", o.matches, maxLoadMatches)
	case o.duration < 0:
		return o, errors.New("--duration must not be negative")
	case o.cmdRate < 1 || o.cmdRate > 1000:
		return o, fmt.Errorf("--cmd-rate %d: want 1..1000", o.cmdRate)
	case o.ramp <= 0:
		return o, errors.New("--ramp must be positive")
	}
	return o, nil
}

func runLoad(args []string, stdout io.Writer) error {
	o, err := parseLoadFlags(args)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return load(ctx, o, stdout)
}

// loadClientConfig returns client i's configuration: its name, command
// rate and seed, the match it joins (loadMatch), and with a key its own
// connect token (client id i+1) naming that match.
func loadClientConfig(o loadOptions, key *token.Key, srv netip.AddrPort, lifetime time.Duration) func(i int) (loadgen.Config, error) {
	return func(i int) (loadgen.Config, error) {
		cfg := loadgen.Config{Name: fmt.Sprintf("load%d", i), Password: o.password, CmdRate: o.cmdRate, Seed: uint32(i),
			Match: loadMatch(i, o.matches)}
		if key != nil {
			tok, err := token.Issue(*key, token.Params{
				ProtocolID: arenaProtocolID, ClientID: uint64(i) + 1, Servers: []netip.AddrPort{srv},
				Lifetime: lifetime, Timeout: 10 * time.Second, Match: cfg.Match,
			}, time.Now())
			if err != nil {
				return cfg, fmt.Errorf("--key-file: %w", err)
			}
			cfg.Token = tok
		}
		return cfg, nil
	}
}

// maxLoadMatches bounds load --matches: one client per match at most
// (--clients' own bound).
const maxLoadMatches = 65536

// loadMatch is the match client i of a run over n matches joins: "1 + i
// mod n", the names serve --matches gives its matches (servematches.go);
// "" for n = 1, the default match serve --matches 1 serves.
func loadMatch(i, n int) string {
	if n <= 1 {
		return ""
	}
	return strconv.Itoa(1 + i%n)
}

// load runs the light clients and prints the summary; its error is the
// run's (no client connected, a broken invariant).
func load(ctx context.Context, o loadOptions, stdout io.Writer) error {
	srv, err := netaddr.ResolveServer(o.connect) // a name: where a server answers
	if err != nil {
		return fmt.Errorf("--connect: %w", err)
	}
	var key *token.Key
	if o.keyFile != "" {
		k, err := readKeyFile(o.keyFile)
		if err != nil {
			return err
		}
		key = &k
	}
	// Each token lives for the whole run: its timeout is the session's.
	lifetime := o.duration + time.Minute
	if o.duration == 0 {
		lifetime = 24 * time.Hour
	}
	res, err := loadgen.Run(ctx, loadgen.RunConfig{
		Server: srv, Clients: o.clients, Duration: o.duration, Ramp: o.ramp,
		Bases:  loadgen.NewBases(func() game.Game { g, _ := serveGame(o.game); return g }),
		Config: loadClientConfig(o, key, srv, lifetime),
	})
	if err != nil {
		return err
	}
	sum := loadgen.Summarize(o.connect, res)
	if o.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(sum); err != nil {
			return err
		}
	} else if err := sum.WriteText(stdout); err != nil {
		return err
	}
	switch {
	case sum.Connected == 0 && sum.FirstError != "":
		return fmt.Errorf("no client connected to %s (%s): %s", o.connect, srv, sum.FirstError)
	case sum.Connected == 0:
		return fmt.Errorf("no client connected to %s (%s) in the %v played: is a snapwire server running there?", o.connect, srv, res.Elapsed.Round(time.Millisecond))
	}
	return sum.Invariants()
}
