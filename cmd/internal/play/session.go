package play

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/clienthook"
	"github.com/snapwire/snapwire/internal/matchsim"
	"github.com/snapwire/snapwire/internal/playview"
	"github.com/snapwire/snapwire/internal/refgame"
	"github.com/snapwire/snapwire/netsim"
	"github.com/snapwire/snapwire/token"
)

// Options configure a Session.
type Options struct {
	// Connect is a "snapwire serve" address (IP:PORT); empty plays in
	// process: a server and Bots arena bots over the link simulator.
	Connect string
	// Token is the connect token a secure server requires.
	Token    *token.Token
	Password string
	Name     string
	Bots     int    // in process: opponents, 1..63
	Seed     uint64 // in process: the map, the bots and the network
	Settings string // in process: the arena map ("" the default map)
	// Latency (round trip), Jitter (± per direction) and Loss (per
	// direction) start the in-process link; the knobs change them.
	Latency, Jitter time.Duration
	Loss            float64
	// Autoplay lets an arena bot drive the player instead of the input.
	Autoplay bool
}

// DefaultOptions are "snapwire play"'s defaults: in process, 7 bots (8
// players), 80 ms round trip, ±5 ms jitter and 1% loss each way.
func DefaultOptions() Options {
	return Options{Name: "player", Bots: 7, Seed: 1, Latency: 80 * time.Millisecond, Jitter: 5 * time.Millisecond, Loss: 0.01}
}

// Session is one game of "snapwire play" without its window: the player's
// client and world, the transport under them, the input, the knobs and the
// net graph. One goroutine calls its methods (the window's update loop,
// or a test).
type Session struct {
	opt     Options
	live    *matchsim.Live
	rem     *playview.Remote
	cl      *client.Client
	w       *refgame.World
	in      Input
	yaw     uint16
	bot     *refgame.Bot
	ov      playview.Overlay // the knobs, the net graph, the blending and the overlay
	now     time.Duration
	drawn   uint64
	titleAt uint64 // drawn when the overlay's title was last formatted

	lastFrame game.Frame
	// seen tracks the other players in the PVS: the first position the
	// client had for each and whether it changed since (others_moved).
	seen        *[game.MaxEntities]seenPlayer
	othersMoved int

	frameHist [frameBuckets]uint32 // frame CPU times (FrameTime)
	frameN    uint64
}

type seenPlayer struct {
	first       [2]float32
	seen, moved bool
}

// New starts a session: in process it builds the match at once; with
// Options.Connect it binds a UDP socket and starts connecting.
func New(opt Options) (*Session, error) {
	if opt.Name == "" {
		opt.Name = "player"
	}
	s := &Session{opt: opt, seen: new([game.MaxEntities]seenPlayer)}
	s.bot = refgame.NewBot(opt.Seed*7919+1, 0, refgame.BotDeathmatch)
	s.ov = playview.Overlay{Knobs: Knobs{Latency: opt.Latency, Jitter: opt.Jitter, Loss: opt.Loss, NetGraph: true},
		Smooth: playview.NewSmoother(), Keys: Keys, Interpolate: []game.TypeID{refgame.TypePlayer}}
	input := client.InputFunc(s.command)
	if opt.Connect == "" {
		do := matchsim.DefaultOptions()
		do.Clients, do.Seed, do.Settings = opt.Bots, opt.Seed, opt.Settings
		do.Latency, do.Jitter, do.Loss = opt.Latency, opt.Jitter, opt.Loss
		l, err := matchsim.NewLive(do, opt.Name, input)
		if err != nil {
			return nil, err
		}
		if err := l.SetLink(s.ov.Knobs.Link()); err != nil {
			return nil, err
		}
		s.ov.SetLink = l.SetLink
		s.live, s.cl, s.w = l, l.Client(), l.World()
		return s, nil
	}
	s.w = refgame.NewGame()
	rem, err := dial(opt, s.w, input)
	if err != nil {
		return nil, err
	}
	s.rem, s.cl = rem, rem.Client()
	return s, nil
}

// command is the player's command for frame in.Frame: the bot's with
// Autoplay, else the input's.
func (s *Session) command(in client.Input) game.UserCmd {
	f, me := in.Frame, in.Client
	if s.opt.Autoplay {
		s.bot.Client = me
		cmd := s.bot.Command(s.w, f)
		s.yaw = cmd.Yaw
		return cmd
	}
	var p *refgame.Player
	if e, typ := s.w.Entity(in.Player); in.HasPlayer && typ == refgame.TypePlayer {
		p = e.(*refgame.Player)
	}
	cmd := Command(s.in, p, s.yaw, f)
	s.yaw = cmd.Yaw
	return cmd
}

// Step plays the session up to now (the time since it started) with the
// player's controls in; the client samples them for every game frame
// that becomes due.
func (s *Session) Step(now time.Duration, in Input) {
	s.in = in
	if now < s.now {
		now = s.now
	}
	s.now = now
	if s.live != nil {
		s.live.Step(now)
	} else {
		s.rem.Step(now)
	}
	s.ov.Step(now, s.cl)
	s.watchOthers()
}

// Do applies a knob action.
func (s *Session) Do(a Action) {
	// The knobs stay within netsim's ranges.
	_ = s.ov.Do(a, s.cl)
}

// SetLink sets both directions of the in-process link (package play's
// window turns its knobs into calls of it).
func (s *Session) SetLink(cfg netsim.LinkConfig) error {
	if s.live == nil {
		return errors.New("the link knobs act in process only")
	}
	return s.live.SetLink(cfg)
}

// Frags is the player's frag count (0 before it connected).
func (s *Session) Frags() int32 {
	if me := int(s.cl.ClientNum()); s.cl.State() == client.Connected && me < len(s.w.Score.Slots) {
		return s.w.Score.Slots[me].Frags
	}
	return 0
}

// Knobs are the current knob settings.
func (s *Session) Knobs() Knobs { return s.ov.Knobs }

// InProcess reports whether the match runs in this process (the link
// knobs and the ghost need it).
func (s *Session) InProcess() bool { return s.live != nil }

// Client is the player's client.
func (s *Session) Client() *client.Client { return s.cl }

// World is the player's predicted world.
func (s *Session) World() *refgame.World { return s.w }

// Graph is the net graph's data.
func (s *Session) Graph() *Graph { return &s.ov.Graph }

// Drawn counts one frame drawn (the window calls it; frames_drawn).
func (s *Session) Drawn() { s.drawn++ }

// Player returns the player's entity in the client's world.
func (s *Session) Player() (*refgame.Player, bool) {
	if s.cl.State() != client.Connected {
		return nil, false
	}
	e, typ := s.w.Entity(game.EntityNum(s.cl.ClientNum()))
	if typ != refgame.TypePlayer {
		return nil, false
	}
	return e.(*refgame.Player), true
}

// Ghost returns the server's position of the player, in process only:
// where the authoritative game has it now (behind the prediction by the
// client's lead over the server).
func (s *Session) Ghost() (x, y float32, ok bool) {
	if s.live == nil || s.cl.State() != client.Connected {
		return 0, 0, false
	}
	srv := s.live.Server()
	e, typ := srv.Entity(game.EntityNum(s.cl.ClientNum()))
	if typ != refgame.TypePlayer {
		return 0, 0, false
	}
	p := e.(*refgame.Player)
	return p.X, p.Y, p.Alive()
}

// watchOthers watches the other players at each new client frame.
func (s *Session) watchOthers() {
	f := s.cl.Frame()
	if f == s.lastFrame || s.cl.State() != client.Connected {
		return
	}
	for n := range s.cl.Visible() {
		if e, typ := s.w.Entity(n); typ == refgame.TypePlayer {
			x, y, _ := e.(*refgame.Player).Position()
			s.watch(n, x, y)
		}
	}
	s.lastFrame = f
}

// watch notes that the client saw other player n at x, y.
func (s *Session) watch(n game.EntityNum, x, y float32) {
	if n == game.EntityNum(s.cl.ClientNum()) {
		return
	}
	if _, typ := s.w.Entity(n); typ != refgame.TypePlayer {
		return
	}
	sp := &s.seen[n]
	switch {
	case !sp.seen:
		sp.first, sp.seen = [2]float32{x, y}, true
	case !sp.moved && sp.first != [2]float32{x, y}:
		sp.moved = true
		s.othersMoved++
	}
}

// DrawPosition is where to draw entity n now: its render positions of the
// last two game frames blended by how far the clock is into the next
// frame (playview.Smoother).
func (s *Session) DrawPosition(n game.EntityNum, e client.Positioner) (x, y float32) {
	if x, y, _, ok := s.ov.Smooth.Position(s.cl, n); ok {
		return x, y
	}
	x, y, _ = e.Position()
	return x, y
}

// Close leaves the server (remote) cleanly.
func (s *Session) Close() error {
	if s.rem != nil {
		return s.rem.Close(s.now)
	}
	return nil
}

// Err is why the client is disconnected, if it is.
func (s *Session) Err() error {
	if s.cl.State() == client.Disconnected {
		if err := s.cl.Err(); err != nil {
			return err
		}
		return errors.New("disconnected")
	}
	return nil
}

// Frame CPU times are kept in a histogram of 10 µs buckets up to 50 ms.
const (
	frameBucket  = 10 * time.Microsecond
	frameBuckets = 5000
)

// FrameTime records the CPU time one frame took: stepping the game and
// the prediction, building the scene, drawing it (a CPUStopwatch span: the
// frame goroutine's thread CPU time on Linux, so that a machine busy with
// other work does not inflate it).
func (s *Session) FrameTime(d time.Duration) {
	s.frameHist[min(int(d/frameBucket), frameBuckets-1)]++
	s.frameN++
}

// FramePercentile is the p-quantile (0..1) of the recorded frame times,
// to the upper edge of its 10 µs bucket.
func (s *Session) FramePercentile(p float64) time.Duration {
	if s.frameN == 0 {
		return 0
	}
	want := uint64(math.Ceil(p * float64(s.frameN)))
	var seen uint64
	for i, c := range s.frameHist {
		seen += uint64(c)
		if seen >= max(want, 1) {
			return time.Duration(i+1) * frameBucket
		}
	}
	return frameBuckets * frameBucket
}

// Summary is the end-of-session report ("snapwire play --json").
type Summary struct {
	Mode            string  `json:"mode"` // "in-process" or "udp"
	Server          string  `json:"server,omitempty"`
	State           string  `json:"state"`
	Error           string  `json:"error,omitempty"`
	Autoplay        bool    `json:"autoplay"`
	DurationS       float64 `json:"duration_s"`
	Frame           int64   `json:"frame"`
	FramesDrawn     uint64  `json:"frames_drawn"`
	FrameMSP50      float64 `json:"frame_cpu_ms_p50"` // stepping, predicting, building and drawing a frame
	FrameMSP99      float64 `json:"frame_cpu_ms_p99"`
	Snapshots       uint64  `json:"snapshots"`
	SnapshotsLost   uint64  `json:"snapshots_lost"`
	BaseChecks      uint64  `json:"base_checks"`
	BaseMismatches  uint64  `json:"base_mismatches"`
	StateChecks     uint64  `json:"state_checks"` // in process only: the harness compares with the server's states
	StateMismatches uint64  `json:"state_mismatches"`
	DecodeErrors    uint64  `json:"decode_errors"`
	ApplyErrors     uint64  `json:"apply_errors"`
	Repredicted     uint64  `json:"repredicted_frames"`
	Corrections     uint64  `json:"corrections"`
	PredSelfMean    float64 `json:"pred_error_self_mean"`
	PredOthersMean  float64 `json:"pred_error_others_mean"`
	PingMS          float64 `json:"ping_ms"`
	KbpsDown        float64 `json:"kbps_down"`
	KbpsUp          float64 `json:"kbps_up"`
	DuplicatedCmds  uint64  `json:"duplicated_cmds"`
	Frags           int32   `json:"frags"`
	OthersMoved     int     `json:"others_moved"` // other players seen moving
	ClientNum       int     `json:"client_num"`
	Interpolate     bool    `json:"interpolate_opponents"`
}

// Summary reports the session so far.
func (s *Session) Summary() Summary {
	st, ctr := s.cl.Stats(), clienthook.CountersOf(s.cl)
	secs := s.now.Seconds()
	kbps := func(b uint64) float64 {
		if secs <= 0 {
			return 0
		}
		return float64(b) * 8 / 1000 / secs
	}
	sum := Summary{Mode: "in-process", State: st.State.String(), Autoplay: s.opt.Autoplay, DurationS: secs,
		Frame: int64(st.Frame), FramesDrawn: s.drawn, Snapshots: st.SnapshotsReceived, SnapshotsLost: st.SnapshotsLost,
		BaseChecks: ctr.BaseChecks, BaseMismatches: ctr.BaseMismatches, DecodeErrors: ctr.DecodeErrors, ApplyErrors: ctr.ApplyErrors,
		Repredicted: ctr.Repredicted, Corrections: ctr.Corrections,
		PredSelfMean: st.Self.Mean(), PredOthersMean: st.Others.Mean(),
		PingMS: float64(st.RTT) / float64(time.Millisecond), KbpsDown: kbps(st.BytesIn), KbpsUp: kbps(st.BytesOut),
		DuplicatedCmds: ctr.Duplicated, Interpolate: s.cl.TypeMode(refgame.TypePlayer) == game.Interpolate, OthersMoved: s.othersMoved,
		FrameMSP50: float64(s.FramePercentile(0.5)) / float64(time.Millisecond),
		FrameMSP99: float64(s.FramePercentile(0.99)) / float64(time.Millisecond)}
	if s.live != nil {
		c := s.live.Checks()
		sum.BaseChecks, sum.BaseMismatches = c.BaseChecks, c.BaseMismatches
		sum.StateChecks, sum.StateMismatches = c.StateChecks, c.StateMismatches
	} else {
		sum.Mode, sum.Server = "udp", s.opt.Connect
		if isWebURL(s.opt.Connect) {
			sum.Mode = "webrtc"
		}
	}
	sum.ClientNum = int(s.cl.ClientNum())
	sum.Frags = s.Frags()
	if err := s.Err(); err != nil {
		sum.Error = err.Error()
	}
	return sum
}

// Check reports a broken invariant or a session that never connected.
func (sum Summary) Check() error {
	switch {
	case sum.State != client.Connected.String():
		return fmt.Errorf("not connected (state %s) %s", sum.State, sum.Error)
	case sum.BaseMismatches != 0 || sum.StateMismatches != 0 || sum.DecodeErrors != 0 || sum.ApplyErrors != 0:
		return fmt.Errorf("invariant broken: %d base mismatches, %d state mismatches, %d decode errors, %d apply errors",
			sum.BaseMismatches, sum.StateMismatches, sum.DecodeErrors, sum.ApplyErrors)
	}
	return nil
}

// CPUStopwatch measures spans of one goroutine's work in CPU time where the
// system gives it (ThreadCPU, the goroutine locked to its thread on first
// use), else in wall time. The zero value is ready.
type CPUStopwatch struct {
	locked, cpu bool
}

// Now returns the stopwatch's current reading.
func (s *CPUStopwatch) Now() time.Duration {
	if !s.locked {
		LockThread()
		s.locked = true
		_, s.cpu = ThreadCPU()
	}
	if s.cpu {
		if t, ok := ThreadCPU(); ok {
			return t
		}
	}
	return time.Duration(time.Now().UnixNano())
}
