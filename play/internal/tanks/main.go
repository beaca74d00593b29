// Command tanks is the second example game (examples/tanks) in package
// play's window: top-down tanks on a field of crates, the player's tank
// against bots. Without -connect it plays a match in this process (a
// tanks server, two bots and the player's client over the link
// simulator, whose latency, jitter and loss the window's knobs set); with
// -connect HOST:PORT it joins a tanks server over UDP, and built for
// js/wasm it is a browser page's program that joins the server that
// served the page over a WebRTC data channel (its options then come from
// the page's query string: autoplay=1, duration=SECONDS). With -serve
// ADDR it runs the tanks server on a UDP socket instead (insecure: no
// connect tokens), its bots and the player joining it over UDP, and other
// players join with -connect.
//
//	go run ./play/internal/tanks              # arrows drive, space fires, C chats
//	go run ./play/internal/tanks -autoplay -duration 15s -screenshot tanks.png -json
//	go run ./play/internal/tanks -serve :27960     # and elsewhere: -connect HOST:27960
//
// -json prints a summary: the client's figures and invariant counters
// (common-base and entity-state mismatches, decode errors; the state
// check is internal/statecheck's, against the server's states of each
// snapshot's frame). It is built on public packages (examples/tanks, game,
// client, server, netsim, play) apart from those checks
// (internal/clienthook, internal/serverhook, internal/snapshot,
// internal/statecheck).
// play/internal/windowtest runs it under Xvfb; cmd/snapwire's
// TestTanksBrowser runs it in headless Chromium.
package main

import (
	"fmt"
	"os"
	"time"

	"github.com/hajimehoshi/ebiten/v2"

	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/examples/tanks"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/clienthook"
	"github.com/snapwire/snapwire/internal/snapshot"
	"github.com/snapwire/snapwire/internal/statecheck"
	"github.com/snapwire/snapwire/netsim"
	"github.com/snapwire/snapwire/play"
)

// options are the program's settings (flags, or in a browser the page's
// query).
type options struct {
	connect    string        // a server: HOST:PORT (UDP), or a signalling URL (browser); "": in process
	serve      string        // a UDP address to serve the match on, the bots and the player joining it over UDP
	duration   time.Duration // 0: until the window closes
	screenshot string
	autoplay   bool // the player's tank is driven by tanks.Game.BotCommand
	ghost      bool
	bots       int // in process or served
}

// maxSamples bounds the snapshots a remote session keeps for the server's
// check: 200 s at 20 snapshots a second.
const maxSamples = 4000

// checker checks the player's snapshots: in process against the server's
// record at once (rec set), remotely by keeping their samples for the
// server's side (rec nil).
type checker struct {
	cl      *statecheck.Client
	rec     *statecheck.Recorder
	counts  statecheck.Counts
	samples []statecheck.Sample
	first   error // the first mismatch
}

func (c *checker) snapshot(g game.World, s *snapshot.Snapshot) {
	smp := c.cl.Sample(s.Header.Frame, g, &s.PVS)
	if c.rec == nil {
		if len(c.samples) < maxSamples {
			c.samples = append(c.samples, smp)
		}
		return
	}
	if err := c.counts.Add(smp, c.rec.Check(smp)); err != nil && c.first == nil {
		c.first = err
	}
}

// summary is what -json prints (in a browser: the page's #stats).
type summary struct {
	Mode           string  `json:"mode"` // "in-process", "udp" or "webrtc"
	State          string  `json:"state"`
	Error          string  `json:"error,omitempty"`
	DurationS      float64 `json:"duration_s"`
	FramesDrawn    int     `json:"frames_drawn"`
	ClientNum      int     `json:"client_num"`
	Snapshots      uint64  `json:"snapshots"`
	BaseChecks     uint64  `json:"base_checks"`
	BaseMismatches uint64  `json:"base_mismatches"`
	DecodeErrors   uint64  `json:"decode_errors"`
	ApplyErrors    uint64  `json:"apply_errors"`
	statecheck.Counts
	StateError string              `json:"state_error,omitempty"` // the first mismatch
	Samples    []statecheck.Sample `json:"samples,omitempty"`     // a remote session's snapshots, for the server's check
	PingMS     float64             `json:"ping_ms"`
	OtherTanks int                 `json:"other_tanks"` // other tanks the player saw
	Shells     int                 `json:"shells"`      // shells the player saw
	Sparks     int                 `json:"sparks"`      // crate hits the player was told of (EventCrateHit)
	Score      int32               `json:"score"`
	Feed       []string            `json:"feed"` // the kill feed and chat lines last shown
	Chat       []string            `json:"chat"` // the chat lines last heard (kills push them out of the feed)
}

// chatAt is when an autoplaying player says something (a game message to
// the server, which relays it to every client's feed).
const chatAt = 3 * time.Second

// chatText is what it says.
const chatText = "gl hf"

// run plays: it starts the session, opens the window and reports.
func run(opt options) (summary, error) {
	g := tanks.New()
	d := newDrawing(g, opt.autoplay)
	input := client.InputSource(client.InputFunc(d.keys))
	if opt.autoplay {
		input = client.InputFunc(g.BotCommand)
	}
	check := &checker{cl: statecheck.NewClient()}
	cfg := client.Config{Name: "player", OnMessage: g.ClientMessage}
	clienthook.Set(&cfg, clienthook.Hooks{OnSnapshot: func(s *snapshot.Snapshot) { check.snapshot(g, s) }})
	var (
		s    play.Session
		sv   *served
		err  error
		mode = "in-process"
	)
	switch {
	case opt.serve != "":
		mode = "udp"
		if sv, err = serve(opt.serve, opt.bots); err == nil {
			fmt.Fprintf(os.Stderr, "tanks: serving on %v (join with -connect)\n", sv.r.Addr())
			if s, err = play.Dial(sv.r.Addr().String(), cfg, g, input); err != nil {
				sv.close()
			}
		}
	case opt.connect == "":
		s, err = newLocal(cfg, g, input, opt.bots, check)
	default:
		mode = "udp"
		if isWebURL(opt.connect) {
			mode = "webrtc"
		}
		s, err = play.Dial(opt.connect, cfg, g, input)
	}
	if err != nil {
		return summary{}, err
	}
	start := time.Now()
	runErr := play.Run(d, s, play.Options{Title: "tanks", Keys: "arrows drive, space fires, C chats",
		Link:  netsim.LinkConfig{Latency: 40 * time.Millisecond, Jitter: 5 * time.Millisecond, Loss: 0.01},
		Ghost: opt.ghost, Duration: opt.duration, Screenshot: opt.screenshot})
	cl := s.Client()
	st, ctr := cl.Stats(), clienthook.CountersOf(cl)
	sum := summary{Mode: mode, State: st.State.String(), DurationS: time.Since(start).Seconds(), FramesDrawn: d.frames,
		ClientNum: int(cl.ClientNum()), Snapshots: st.SnapshotsReceived, BaseChecks: ctr.BaseChecks,
		BaseMismatches: ctr.BaseMismatches, DecodeErrors: ctr.DecodeErrors, ApplyErrors: ctr.ApplyErrors,
		PingMS:     float64(st.RTT) / float64(time.Millisecond),
		OtherTanks: len(d.othersSeen), Shells: len(d.shellsSeen), Sparks: d.sparks, Score: d.score,
		Feed: append([]string{}, g.Feed...), Chat: append([]string{}, g.Chat...)}
	if err := cl.Err(); err != nil {
		sum.Error = err.Error()
	}
	closeErr := s.Close()
	if sv != nil { // the player's samples against the server's record, then the server goes
		sv.check(check)
		if err := sv.close(); err != nil && closeErr == nil {
			closeErr = err
		}
	}
	sum.Counts, sum.Samples = check.counts, check.samples
	if check.first != nil {
		sum.StateError = check.first.Error()
	}
	if runErr != nil {
		sum.Error = runErr.Error()
	}
	if closeErr != nil && sum.Error == "" {
		sum.Error = closeErr.Error()
	}
	return sum, runErr
}

// isWebURL reports whether addr is a signalling URL.
func isWebURL(addr string) bool {
	return len(addr) > 7 && (addr[:7] == "http://" || (len(addr) > 8 && addr[:8] == "https://"))
}

// keys is the player's command from the keyboard: arrows drive (up and
// down forward and back, left and right turn), space fires. Ebitengine's
// input may be read here: the client samples commands on the window's
// goroutine.
func (d *drawing) keys(in client.Input) game.UserCmd {
	cmd := game.UserCmd{Frame: in.Frame}
	if ebiten.IsKeyPressed(ebiten.KeyArrowRight) {
		cmd.Right += 127
	}
	if ebiten.IsKeyPressed(ebiten.KeyArrowLeft) {
		cmd.Right -= 127
	}
	if ebiten.IsKeyPressed(ebiten.KeyArrowUp) {
		cmd.Forward += 127
	}
	if ebiten.IsKeyPressed(ebiten.KeyArrowDown) {
		cmd.Forward -= 127
	}
	if ebiten.IsKeyPressed(ebiten.KeySpace) {
		cmd.Buttons |= tanks.ButtonFire
	}
	return cmd
}
