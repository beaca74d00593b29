package main

// "snapwire play": the reference game in a window for a person to play,
// with a net graph and live knobs (issue 9). The window needs Ebitengine,
// hence cgo and the X11/GL headers on Linux, so it is built only with the
// build tag "play" (play_window.go); without it (play_nowindow.go) the
// command re-runs itself from the source tree as "go run -tags play", or
// says how to build it. --headless plays without a window in virtual time
// in either build. Everything but the window is internal/play's.

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/snapwire/snapwire/internal/play"
	"github.com/snapwire/snapwire/token"
)

func init() {
	register(command{
		name:    "play",
		summary: "play the arena in a window, with a net graph and live network knobs",
		run:     runPlay,
	})
}

type playOptions struct {
	session    play.Options
	keyFile    string
	token      string
	duration   time.Duration
	screenshot string
	json       bool
	headless   bool
	interp     bool
	ghost      bool
	noGraph    bool
}

func parsePlayFlags(args []string) (playOptions, error) {
	o := playOptions{session: play.DefaultOptions()}
	s := &o.session
	fs := newFlagSet("play")
	fs.StringVar(&s.Connect, "connect", "", "join a snapwire serve at IP:PORT (default: a server with bots in this process)")
	fs.StringVar(&o.token, "token", "", "connect token (snapwire token issue) for a secure server")
	fs.StringVar(&o.keyFile, "key-file", "", "issue our own connect token with this key file (local play)")
	fs.StringVar(&s.Name, "name", s.Name, "player name")
	fs.StringVar(&s.Password, "password", "", "server password")
	fs.IntVar(&s.Bots, "bots", s.Bots, "in process: bot opponents (1..63)")
	fs.Uint64Var(&s.Seed, "seed", s.Seed, "in process: seed of the map, bots and network")
	fs.StringVar(&s.Settings, "map", "", "in process: arena settings (default: the 3x3 arena)")
	fs.DurationVar(&s.Latency, "latency", s.Latency, "in process: round trip of the simulated link")
	fs.DurationVar(&s.Jitter, "jitter", s.Jitter, "in process: jitter per direction (±)")
	loss := percent(s.Loss)
	fs.Var(&loss, "loss", "in process: loss per direction (1% or 0.01)")
	fs.BoolVar(&s.Autoplay, "autoplay", false, "a bot drives the player")
	fs.DurationVar(&o.duration, "duration", 0, "quit after this long (0: when the window closes)")
	fs.StringVar(&o.screenshot, "screenshot", "", "write the last frame to this PNG file")
	fs.BoolVar(&o.json, "json", false, "print the summary as one JSON object")
	fs.BoolVar(&o.headless, "headless", false, "no window: play --duration in virtual time (in process, with --autoplay)")
	fs.BoolVar(&o.interp, "interpolate", false, "start with opponents interpolated (key I)")
	fs.BoolVar(&o.ghost, "ghost", false, "start with the server's position of the player shown (key G)")
	fs.BoolVar(&o.noGraph, "no-graph", false, "start with the net graph hidden (key N or F3)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(fs.Output(), "snapwire play: unexpected argument %q\n", fs.Arg(0))
		return o, errUsage
	}
	s.Loss = float64(loss)
	switch {
	case o.duration < 0:
		return o, errors.New("--duration must not be negative")
	case o.token != "" && o.keyFile != "":
		return o, errors.New("--token and --key-file exclude each other")
	case (o.token != "" || o.keyFile != "") && s.Connect == "":
		return o, errors.New("--token and --key-file need --connect")
	case o.headless && (s.Connect != "" || !s.Autoplay || o.duration <= 0 || o.screenshot != ""):
		return o, errors.New("--headless plays in process with --autoplay for a --duration, without --screenshot")
	}
	return o, nil
}

// newPlaySession builds the session with its credentials and initial knobs.
func newPlaySession(o playOptions) (*play.Session, error) {
	switch {
	case o.token != "":
		tok, err := token.Parse(o.token)
		if err != nil {
			return nil, fmt.Errorf("--token: %w", err)
		}
		o.session.Token = tok
	case o.keyFile != "":
		key, err := readKeyFile(o.keyFile)
		if err != nil {
			return nil, err
		}
		if o.session.Token, err = issueFor(key, []string{o.session.Connect}, o.session.Seed, 30*time.Second, 10*time.Second, ""); err != nil {
			return nil, fmt.Errorf("--key-file: %w (--connect must be IP:PORT)", err)
		}
	}
	s, err := play.New(o.session)
	if err != nil {
		return nil, err
	}
	if o.interp {
		s.Do(play.ToggleInterp)
	}
	if o.ghost {
		s.Do(play.ToggleGhost)
	}
	if o.noGraph {
		s.Do(play.ToggleNetGraph)
	}
	return s, nil
}

func runPlay(args []string, stdout io.Writer) error {
	o, err := parsePlayFlags(args)
	if err != nil {
		return err
	}
	if !o.headless && !windowBuilt {
		return reexecPlay(args, stdout)
	}
	s, err := newPlaySession(o)
	if err != nil {
		return err
	}
	if o.headless {
		playHeadless(s, o.duration)
	} else if err := playWindow(s, o); err != nil {
		s.Close()
		return err
	}
	sum := s.Summary()
	if err := s.Close(); err != nil && sum.Error == "" {
		sum.Error = err.Error()
	}
	if o.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(sum); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(stdout, "%s, %.1f s: %d frames drawn, %d snapshots (%d lost), base checks %d (%d bad), state checks %d (%d bad), ping %.0f ms, %.1f kbit/s down, %.1f up, frags %d\n",
			sum.Mode, sum.DurationS, sum.FramesDrawn, sum.Snapshots, sum.SnapshotsLost, sum.BaseChecks, sum.BaseMismatches,
			sum.StateChecks, sum.StateMismatches, sum.PingMS, sum.KbpsDown, sum.KbpsUp, sum.Frags)
	}
	return sum.Check()
}

// playHeadless plays d of virtual time like a 60 Hz display, building a
// scene per frame (frames_drawn counts them).
func playHeadless(s *play.Session, d time.Duration) {
	var sc play.Scene
	step := time.Second / 60
	for now := step; now <= d; now += step {
		s.Step(now, play.Input{})
		s.Scene(&sc, 1280, 800)
		s.Drawn()
	}
}
