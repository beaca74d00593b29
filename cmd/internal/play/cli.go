package play

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/snapwire/snapwire/internal/netaddr"
	"github.com/snapwire/snapwire/token"
)

// The logical screen a window lays the Scene out in, in pixels.
const (
	ScreenW = 1280
	ScreenH = 800
)

// WindowOptions configure a window (package play/window).
type WindowOptions struct {
	// Duration ends the game after this long (0: until the window is
	// closed or Esc).
	Duration time.Duration
	// Screenshot, if set, is a PNG file written with the last frame
	// drawn, at the logical size.
	Screenshot string
}

// WindowFunc opens a window and plays s in it (window.Run).
type WindowFunc func(s *Session, opt WindowOptions) error

// Args are the parsed flags of "snapwire play".
type Args struct {
	Session  Options
	KeyFile  string
	Token    string
	Window   WindowOptions
	JSON     bool
	Headless bool
	Interp   bool
	Ghost    bool
	NoGraph  bool
}

// ParseArgs parses the flags of "snapwire play"; usage and errors go to
// output.
func ParseArgs(args []string, output io.Writer) (Args, error) {
	a := Args{Session: DefaultOptions()}
	s := &a.Session
	fs := flag.NewFlagSet("snapwire play", flag.ContinueOnError)
	fs.SetOutput(output)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: snapwire play [flags]")
		fmt.Fprintln(fs.Output(), "\nPlay the arena in a window (snapwire-play), with a net graph and live network knobs;")
		fmt.Fprintln(fs.Output(), "--headless plays without a window.\n\nflags:")
		fs.PrintDefaults()
	}
	fs.StringVar(&s.Connect, "connect", "", "join a snapwire serve at HOST:PORT (default: a server with bots in this process)")
	fs.StringVar(&a.Token, "token", "", "connect token (snapwire token issue) for a secure server")
	fs.StringVar(&a.KeyFile, "key-file", "", "issue our own connect token with this key file (local play)")
	fs.StringVar(&s.Name, "name", s.Name, "player name")
	fs.StringVar(&s.Password, "password", "", "server password")
	fs.IntVar(&s.Bots, "bots", s.Bots, "in process: bot opponents (1..63)")
	fs.Uint64Var(&s.Seed, "seed", s.Seed, "in process: seed of the map, bots and network")
	fs.StringVar(&s.Settings, "map", "", "in process: arena settings (default: the 3x3 arena)")
	fs.DurationVar(&s.Latency, "latency", s.Latency, "in process: round trip of the simulated link (keys [ ])")
	fs.DurationVar(&s.Jitter, "jitter", s.Jitter, "in process: jitter per direction, ± (keys - =)")
	loss := fs.String("loss", "1%", "in process: loss per direction, 1% or 0.01 (keys 9 0)")
	fs.BoolVar(&s.Autoplay, "autoplay", false, "a bot drives the player")
	fs.DurationVar(&a.Window.Duration, "duration", 0, "quit after this long (0: when the window closes)")
	fs.StringVar(&a.Window.Screenshot, "screenshot", "", "write the last frame to this PNG file")
	fs.BoolVar(&a.JSON, "json", false, "print the summary as one JSON object")
	fs.BoolVar(&a.Headless, "headless", false, "no window: play --duration in virtual time (in process, with --autoplay)")
	fs.BoolVar(&a.Interp, "interpolate", false, "start with opponents interpolated (key I)")
	fs.BoolVar(&a.Ghost, "ghost", false, "start with the server's position of the player shown (key G)")
	fs.BoolVar(&a.NoGraph, "no-graph", false, "start with the net graph hidden (keys N, F3)")
	if err := fs.Parse(args); err != nil {
		return a, err
	}
	if fs.NArg() > 0 {
		return a, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	var err error
	if s.Loss, err = parseLoss(*loss); err != nil {
		return a, err
	}
	switch {
	case a.Window.Duration < 0:
		return a, errors.New("--duration must not be negative")
	case a.Token != "" && a.KeyFile != "":
		return a, errors.New("--token and --key-file exclude each other")
	case (a.Token != "" || a.KeyFile != "") && s.Connect == "":
		return a, errors.New("--token and --key-file need --connect")
	case a.Headless && (s.Connect != "" || !s.Autoplay || a.Window.Duration <= 0 || a.Window.Screenshot != ""):
		return a, errors.New("--headless plays in process with --autoplay for a --duration, without --screenshot")
	case s.Latency < 0 || s.Jitter < 0 || s.Latency > MaxLatency || s.Jitter > MaxJitter || s.Loss > MaxLoss:
		return a, fmt.Errorf("link outside the knobs' ranges: latency 0..%v, jitter 0..%v, loss 0..%g%%", MaxLatency, MaxJitter, 100*MaxLoss)
	}
	return a, nil
}

// parseLoss reads "5%" or "0.05" (as the other commands' --loss).
func parseLoss(s string) (float64, error) {
	t, scale := strings.TrimSpace(s), 1.0
	if rest, ok := strings.CutSuffix(t, "%"); ok {
		t, scale = strings.TrimSpace(rest), 0.01
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || !(v*scale >= 0 && v*scale <= 1) {
		return 0, fmt.Errorf("--loss %q: want e.g. 1%% or 0.01", s)
	}
	return v * scale, nil
}

// arenaProtocolID is the arena's token protocol id, as "snapwire serve"
// and "snapwire bot" use it: the first 8 bytes of SHA-256("snapwire arena 1").
var arenaProtocolID = func() uint64 {
	h := sha256.Sum256([]byte("snapwire arena 1"))
	return binary.LittleEndian.Uint64(h[:8])
}()

// Start builds the session the arguments describe, with its credentials
// and initial knobs.
func Start(a Args) (*Session, error) {
	opt := a.Session
	switch {
	case a.Token != "":
		tok, err := token.Parse(a.Token)
		if err != nil {
			return nil, fmt.Errorf("--token: %w", err)
		}
		opt.Token = tok
	case a.KeyFile != "":
		b, err := os.ReadFile(a.KeyFile)
		if err != nil {
			return nil, err
		}
		key, err := token.ParseKey(string(b))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", a.KeyFile, err)
		}
		srv, err := netaddr.ResolveServer(opt.Connect)
		if err != nil {
			return nil, fmt.Errorf("--key-file: --connect: %w", err)
		}
		opt.Connect = srv.String() // the address the token names, probed once
		if opt.Token, err = token.Issue(key, token.Params{ProtocolID: arenaProtocolID, ClientID: opt.Seed,
			Servers: []netip.AddrPort{srv}, Lifetime: 30 * time.Second, Timeout: 10 * time.Second}, time.Now()); err != nil {
			return nil, err
		}
	}
	s, err := New(opt)
	if err != nil {
		return nil, err
	}
	if a.Interp {
		s.Do(ToggleInterp)
	}
	if a.Ghost {
		s.Do(ToggleGhost)
	}
	if a.NoGraph {
		s.Do(ToggleNetGraph)
	}
	return s, nil
}

// Main is "snapwire play ARGS": it plays in the window that window opens
// (nil: only --headless), prints the summary and returns an error when
// an invariant broke or the client never connected.
func Main(args []string, stdout, stderr io.Writer, window WindowFunc) error {
	a, err := ParseArgs(args, stderr)
	if err != nil {
		return err
	}
	if !a.Headless && window == nil {
		return errors.New("no window in this build: use --headless, or snapwire-play (build tag play)")
	}
	s, err := Start(a)
	if err != nil {
		return err
	}
	if a.Headless {
		Headless(s, a.Window.Duration)
	} else if err := window(s, a.Window); err != nil {
		s.Close()
		return err
	}
	sum := s.Summary()
	if err := s.Close(); err != nil && sum.Error == "" {
		sum.Error = err.Error()
	}
	if a.JSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(sum); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(stdout, "%s, %.1f s: %d frames drawn (CPU p50 %.2f ms, p99 %.2f ms), %d snapshots (%d lost), base checks %d (%d bad), state checks %d (%d bad), ping %.0f ms, %.1f kbit/s down, %.1f up, frags %d\n",
			sum.Mode, sum.DurationS, sum.FramesDrawn, sum.FrameMSP50, sum.FrameMSP99, sum.Snapshots, sum.SnapshotsLost, sum.BaseChecks, sum.BaseMismatches,
			sum.StateChecks, sum.StateMismatches, sum.PingMS, sum.KbpsDown, sum.KbpsUp, sum.Frags)
	}
	return sum.Check()
}

// Headless plays d of virtual time like a 60 Hz display, building a scene
// per frame (frames_drawn counts them).
func Headless(s *Session, d time.Duration) {
	var sc Scene
	var sw CPUStopwatch
	step := time.Second / 60
	for now := step; now <= d; now += step {
		start := sw.Now()
		s.Step(now, Input{})
		s.Scene(&sc, ScreenW, ScreenH)
		s.Drawn()
		s.FrameTime(sw.Now() - start)
	}
}
