package main

// "snapwire bot": one arena bot (internal/refgame) as a predicting client over
// real UDP through client.Dial's real-time Runner. It prints a status line
// periodically and a summary at the end (JSON with --json).

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

	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/clienthook"
	"github.com/snapwire/snapwire/internal/netaddr"
	"github.com/snapwire/snapwire/internal/refgame"
	"github.com/snapwire/snapwire/internal/snapshot"
	"github.com/snapwire/snapwire/token"
)

func init() {
	register(command{
		name:    "bot",
		summary: "play one arena bot against a snapwire server over UDP",
		run:     runBot,
	})
}

type botOptions struct {
	connect  string
	name     string
	password string
	seed     uint64
	duration time.Duration
	status   time.Duration
	mode     refgame.BotMode
	json     bool
	token    string
	keyFile  string
}

func parseBotFlags(args []string) (botOptions, error) {
	o := botOptions{}
	fs := newFlagSet("bot")
	fs.StringVar(&o.connect, "connect", "127.0.0.1:27960", "server address")
	fs.StringVar(&o.name, "name", "bot", "player name")
	fs.StringVar(&o.password, "password", "", "server password")
	fs.Uint64Var(&o.seed, "seed", 1, "seed of the bot's decisions")
	fs.DurationVar(&o.duration, "duration", 20*time.Second, "how long to play (0: until SIGINT/SIGTERM)")
	fs.DurationVar(&o.status, "status", time.Second, "interval of the status line (0: none)")
	mode := fs.String("mode", "deathmatch", "bot behaviour: deathmatch or nevertouch")
	fs.BoolVar(&o.json, "json", false, "print the summary as one JSON object (and no status lines)")
	fs.StringVar(&o.token, "token", "", "connect token (snapwire token issue) for a secure server")
	fs.StringVar(&o.keyFile, "key-file", "", "issue our own connect token with this key file (tests and local play)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(fs.Output(), "snapwire bot: unexpected argument %q\n", fs.Arg(0))
		return o, errUsage
	}
	switch *mode {
	case "deathmatch":
		o.mode = refgame.BotDeathmatch
	case "nevertouch":
		o.mode = refgame.BotNeverTouch
	default:
		return o, fmt.Errorf("--mode %q: want deathmatch or nevertouch", *mode)
	}
	if o.duration < 0 || o.status < 0 {
		return o, errors.New("--duration and --status must not be negative")
	}
	if o.token != "" && o.keyFile != "" {
		return o, errors.New("--token and --key-file exclude each other")
	}
	return o, nil
}

// botSummary is the bot's final report ("snapwire bot --json").
type botSummary struct {
	Name                string  `json:"name"`
	Server              string  `json:"server"`
	ClientNum           int     `json:"client_num"`
	State               string  `json:"state"`
	Error               string  `json:"error,omitempty"`
	DurationS           float64 `json:"duration_s"`
	Frame               int64   `json:"frame"`
	SnapshotsReceived   uint64  `json:"snapshots_received"`
	SnapshotsLost       uint64  `json:"snapshots_lost"`
	PredErrorSelfMean   float64 `json:"pred_error_self_mean"`
	PredErrorSelfMax    float64 `json:"pred_error_self_max"`
	PredErrorOthersMean float64 `json:"pred_error_others_mean"`
	PredErrorOthersMax  float64 `json:"pred_error_others_max"`
	LeadMS              float64 `json:"lead_ms"`
	DuplicatedCmds      uint64  `json:"duplicated_cmds"`
	KbpsDown            float64 `json:"kbps_down"`
	KbpsUp              float64 `json:"kbps_up"`
	RTTMS               float64 `json:"rtt_ms"`
	BaseChecks          uint64  `json:"base_checks"`
	BaseMismatches      uint64  `json:"base_mismatches"`
	DecodeErrors        uint64  `json:"decode_errors"`
	ApplyErrors         uint64  `json:"apply_errors"`
	// OthersMoved are the client numbers of the other players the bot saw
	// move (their position changed in a snapshot).
	OthersMoved []int `json:"others_moved"`
	// Resumes counts the sessions resumed with the bot's token after a
	// timeout (bot_resume.go); the other figures are the last session's.
	Resumes int `json:"resumes"`
}

func summarize(o botOptions, st client.Stats, ctr clienthook.Counters, num game.ClientNum, elapsed time.Duration) botSummary {
	secs := elapsed.Seconds()
	kbps := func(b uint64) float64 {
		if secs <= 0 {
			return 0
		}
		return float64(b) * 8 / 1000 / secs
	}
	return botSummary{
		Name: o.name, Server: o.connect, ClientNum: int(num), State: st.State.String(),
		DurationS: secs, Frame: int64(st.Frame),
		SnapshotsReceived: st.SnapshotsReceived, SnapshotsLost: st.SnapshotsLost,
		PredErrorSelfMean: st.Self.Mean(), PredErrorSelfMax: st.Self.Max,
		PredErrorOthersMean: st.Others.Mean(), PredErrorOthersMax: st.Others.Max,
		LeadMS: ms(st.Lead), DuplicatedCmds: ctr.Duplicated,
		KbpsDown: kbps(st.BytesIn), KbpsUp: kbps(st.BytesOut), RTTMS: ms(st.RTT),
		BaseChecks: ctr.BaseChecks, BaseMismatches: ctr.BaseMismatches,
		DecodeErrors: ctr.DecodeErrors, ApplyErrors: ctr.ApplyErrors,
	}
}

// moveWatch notes which other players moved between the snapshots a
// client received: the first position it had for each, and whether a later
// one differed.
type moveWatch struct {
	first [game.MaxEntities][2]float32
	seen  [game.MaxEntities]bool
	moved [game.MaxEntities]bool
}

func newMoveWatch() *moveWatch { return new(moveWatch) }

func (m *moveWatch) snapshot(w *refgame.World, me game.EntityNum, sn *snapshot.Snapshot) {
	for n := range sn.PVS.All() {
		e, typ := w.Entity(n)
		if typ != refgame.TypePlayer || n == me {
			continue
		}
		x, y, _ := e.(client.Positioner).Position()
		switch {
		case !m.seen[n]:
			m.first[n], m.seen[n] = [2]float32{x, y}, true
		case m.first[n] != [2]float32{x, y}:
			m.moved[n] = true
		}
	}
}

// list appends the numbers of the players seen moving to dst.
func (m *moveWatch) list(dst []int) []int {
	for n, ok := range m.moved {
		if ok {
			dst = append(dst, n)
		}
	}
	return dst
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func runBot(args []string, stdout io.Writer) error {
	o, err := parseBotFlags(args)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return playBot(ctx, o, stdout)
}

// playBot plays until o.duration has passed or ctx is cancelled, then
// disconnects cleanly and prints the summary.
func playBot(ctx context.Context, o botOptions, stdout io.Writer) error {
	// A name ("localhost:P") is the address where a server answers: it
	// may listen on ::1 only.
	srv, err := netaddr.ResolveServer(o.connect)
	if err != nil {
		return fmt.Errorf("--connect: %w", err)
	}
	w := refgame.NewGame()
	ai := refgame.NewBot(o.seed, 0, o.mode)
	// cl is set and read only on the Runner's goroutine (in Do and in the
	// snapshot hook), which owns the client.
	var cl *client.Client
	input := client.InputFunc(func(in client.Input) game.UserCmd {
		ai.Client = in.Client
		return ai.Command(w, in.Frame)
	})
	// moved notes the other players seen moving, on the Runner's goroutine.
	moved := newMoveWatch()
	resolved := o
	resolved.connect = srv.String()
	ccfg, err := botConfig(resolved, func(sn *snapshot.Snapshot) {
		if cl != nil {
			moved.snapshot(w, game.EntityNum(cl.ClientNum()), sn)
		}
	})
	if err != nil {
		return err
	}
	r, err := client.Dial(resolved.connect, ccfg, w, input)
	if err != nil {
		return err
	}
	start := time.Now()
	runCtx, cancelRun := context.WithCancel(context.Background())
	defer cancelRun()
	done := make(chan error, 1)
	go func() { done <- r.Run(runCtx) }()
	r.Do(runCtx, func(_ time.Duration, c *client.Client) { cl = c })

	var playDone <-chan time.Time
	if o.duration > 0 {
		t := time.NewTimer(o.duration)
		defer t.Stop()
		playDone = t.C
	}
	var tick <-chan time.Time
	if o.status > 0 && !o.json {
		t := time.NewTicker(o.status)
		defer t.Stop()
		tick = t.C
	}
	var (
		st     client.Stats
		ctr    clienthook.Counters
		num    game.ClientNum
		others []int
		runErr error
		ended  bool
	)
	resumes := 0 // sessions resumed with the token (bot_resume.go)
	read := func(c *client.Client) {
		st, ctr, num, others = c.Stats(), clienthook.CountersOf(c), c.ClientNum(), moved.list(others[:0])
	}
	sample := func() bool { return r.Do(runCtx, func(_ time.Duration, c *client.Client) { read(c) }) }
loop:
	for {
		select {
		case runErr = <-done: // disconnected by the server, or never connected
			if botResumes(ccfg, runErr, resumes) { // bot_resume.go
				resumes++
				if !o.json {
					fmt.Fprintf(stdout, "[%5.1fs] %v: resuming with the token\n", time.Since(start).Seconds(), runErr)
				}
				if r, err = client.Dial(o.connect, ccfg, w, input); err != nil {
					return err
				}
				go func() { done <- r.Run(runCtx) }()
				r.Do(runCtx, func(_ time.Duration, c *client.Client) { cl = c })
				continue
			}
			ended = true
			break loop
		case <-ctx.Done():
			break loop
		case <-playDone:
			break loop
		case <-tick:
			if sample() {
				fmt.Fprintf(stdout, "[%5.1fs] %s  client %d  frame %d  snapshots %d (lost %d)  pred error self %.3f others %.3f  lead %v  rtt %v  down %.1f up %.1f kbit/s\n",
					time.Since(start).Seconds(), st.State, num, st.Frame, st.SnapshotsReceived, st.SnapshotsLost,
					st.Self.Mean(), st.Others.Mean(), st.Lead.Round(time.Millisecond), st.RTT.Round(time.Millisecond),
					float64(st.BytesIn)*8/1000/time.Since(start).Seconds(),
					float64(st.BytesOut)*8/1000/time.Since(start).Seconds())
			}
		}
	}
	elapsed := time.Since(start)
	if !ended {
		sample()
		cancelRun() // Run disconnects cleanly and returns nil
		runErr = <-done
	} else {
		// The server ended the session (or it never began): Run has
		// returned, and the summary counts what the client received
		// until then, not the last status line's figures.
		r.After(read)
	}
	return reportBot(o, st, ctr, num, others, runErr, elapsed, resumes, stdout)
}

// botConfig is the client configuration of a bot: its name, password and
// connect token (given, or issued with --key-file), and onSnapshot to see
// each snapshot.
func botConfig(o botOptions, onSnapshot func(*snapshot.Snapshot)) (client.Config, error) {
	ccfg := client.Config{Name: o.name, Password: o.password}
	clienthook.Set(&ccfg, clienthook.Hooks{OnSnapshot: onSnapshot})
	switch {
	case o.token != "":
		tok, err := token.Parse(o.token)
		if err != nil {
			return ccfg, fmt.Errorf("--token: %w", err)
		}
		ccfg.Token = tok
	case o.keyFile != "":
		key, err := readKeyFile(o.keyFile)
		if err != nil {
			return ccfg, err
		}
		if ccfg.Token, err = issueFor(key, []string{o.connect}, o.seed, botTokenLifetime(o), 10*time.Second, ""); err != nil {
			return ccfg, fmt.Errorf("--key-file: --connect: %w", err)
		}
	}
	return ccfg, nil
}

// reportBot prints the summary of a bot's session (JSON with --json) and
// returns its error: the session's, a connection that never happened, or a
// broken invariant (base mismatches, decode or apply errors).
func reportBot(o botOptions, st client.Stats, ctr clienthook.Counters, num game.ClientNum, others []int, runErr error, elapsed time.Duration, resumes int, stdout io.Writer) error {
	if runErr == nil && st.State != client.Connected {
		switch st.State {
		case client.Challenging:
			runErr = fmt.Errorf("no answer from %s in the %v played: is a snapwire server running there? is the port right? a firewall?",
				o.connect, elapsed.Round(time.Millisecond))
		default:
			runErr = fmt.Errorf("not connected to %s after %v (state %v)", o.connect, elapsed.Round(time.Millisecond), st.State)
		}
	}
	sum := summarize(o, st, ctr, num, elapsed)
	sum.OthersMoved = append([]int{}, others...)
	sum.Resumes = resumes
	if runErr != nil {
		sum.Error = runErr.Error()
		if sum.State == client.Connected.String() || sum.State == client.Idle.String() {
			sum.State = client.Disconnected.String()
		}
	}
	if o.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(sum); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(stdout, "%s (client %d) on %s: %.1f s, %d snapshots received, %d lost; prediction error self %.3f (max %.3f), others %.3f (max %.3f); lead %.1f ms; %d commands duplicated; %.1f kbit/s down, %.1f up; base checks %d, mismatches %d\n",
			sum.Name, sum.ClientNum, sum.Server, sum.DurationS, sum.SnapshotsReceived, sum.SnapshotsLost,
			sum.PredErrorSelfMean, sum.PredErrorSelfMax, sum.PredErrorOthersMean, sum.PredErrorOthersMax,
			sum.LeadMS, sum.DuplicatedCmds, sum.KbpsDown, sum.KbpsUp, sum.BaseChecks, sum.BaseMismatches)
	}
	switch {
	case runErr != nil:
		return runErr
	case sum.BaseMismatches != 0 || sum.DecodeErrors != 0 || sum.ApplyErrors != 0:
		return fmt.Errorf("invariant broken: %d base mismatches, %d decode errors, %d apply errors",
			sum.BaseMismatches, sum.DecodeErrors, sum.ApplyErrors)
	}
	return nil
}
