package matchsim

import (
	"errors"
	"fmt"
	"math"
	"net/netip"
	"time"

	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/clienthook"
	"github.com/snapwire/snapwire/internal/refgame"
	"github.com/snapwire/snapwire/internal/report"
	"github.com/snapwire/snapwire/internal/serverhook"
	"github.com/snapwire/snapwire/internal/snapshot"
	"github.com/snapwire/snapwire/netsim"
	"github.com/snapwire/snapwire/server"
)

// Options configure a demo run.
type Options struct {
	Clients  int           // bot clients, 1..64
	Latency  time.Duration // round trip time: half of it each way
	Jitter   time.Duration // uniform ± per direction
	Loss     float64       // packet loss per direction, 0..1
	Duration time.Duration // virtual time to play
	Seed     uint64        // seeds the network, the server, the map and the bots
	// Settings is the arena map (refgame.Config.String); "" is the default
	// map seeded with Seed, with at least Clients player slots.
	Settings string
	// Warmup is left out of the steady-state figures: the command shares
	// and their counts (late_cmd_share, early_cmd_share, duplicated_cmds,
	// late_cmds, cmds_early, frames_run), the command lead mean and the
	// prediction error figures count only frames due after Warmup, once
	// the clients' clocks have settled (client doc: under 2 s). The
	// per-second series and the invariant checks cover the whole run.
	// 0 counts everything; it must be shorter than Duration.
	Warmup time.Duration
	// Mode is the bots' behaviour: refgame.BotDeathmatch (the zero value)
	// or refgame.BotNeverTouch, whose players never meet or change anything
	// but themselves (the exact-prediction runs, DOOM III §2). ParseMode
	// reads the CLI's names.
	Mode refgame.BotMode
	// InterpolateOpponents shows the other players between snapshots
	// (Quake 3's model, client.SetTypeMode) instead of predicting them
	// (DOOM III §2); the prediction error of others is then how far from
	// the server's position each client shows its opponents: the distance
	// a player must lead a target.
	InterpolateOpponents bool
	// Shots fires hitscan shots at every opponent each client shows in
	// sight, every frame after the warm-up, and checks them on the server
	// with and without lag compensation (shots.go; DOOM III §1.1). The
	// shots change nothing in the match: its frames and bytes are the
	// same.
	Shots bool
	// Section8 measures DOOM III §8's ideas on the match's snapshots
	// (sparse.go): shadow encodings with entities held, and the prediction
	// error of far opponents. The match itself is unchanged.
	Section8 bool
	// SnapshotRate is the server's snapshot rate, 10..60 Hz [0: the
	// server's default, 20].
	SnapshotRate int
	// CoarseStep and CoarseAfter are the clients' client.Config.CoarseStep
	// and clienthook.Hooks.CoarseAfter: re-prediction in larger steps
	// (DOOM III §8).
	CoarseStep, CoarseAfter int
	// Reprediction measures the clients' re-prediction after the warm-up
	// (repredict.go): frames, entity steps and the wall time in the game
	// code, in Result.Reprediction.
	Reprediction bool
	// Progress, if set, is called after every virtual second.
	Progress func(Second)
}

// ParseMode returns the bot mode named "deathmatch" or "nevertouch" (the
// --mode values of "snapwire demo" and "snapwire bot").
func ParseMode(s string) (refgame.BotMode, error) {
	switch s {
	case "deathmatch":
		return refgame.BotDeathmatch, nil
	case "nevertouch":
		return refgame.BotNeverTouch, nil
	}
	return 0, fmt.Errorf("%w: mode %q (deathmatch or nevertouch)", ErrOptions, s)
}

// ModeName is the name ParseMode reads for m.
func ModeName(m refgame.BotMode) string {
	switch m {
	case refgame.BotDeathmatch:
		return "deathmatch"
	case refgame.BotNeverTouch:
		return "nevertouch"
	}
	return fmt.Sprintf("mode(%d)", m)
}

// DefaultOptions are the defaults of "snapwire demo": 8 clients, 80 ms
// round trip, 10 ms jitter, 2% loss, 20 s.
func DefaultOptions() Options {
	return Options{Clients: 8, Latency: 80 * time.Millisecond, Jitter: 10 * time.Millisecond,
		Loss: 0.02, Duration: 20 * time.Second, Seed: 1}
}

// ErrOptions reports invalid options.
var ErrOptions = errors.New("matchsim: invalid options")

func (o *Options) validate() error {
	switch {
	case o.Clients < 1 || o.Clients > 64:
		return fmt.Errorf("%w: %d clients (1..64)", ErrOptions, o.Clients)
	case o.Latency < 0 || o.Jitter < 0:
		return fmt.Errorf("%w: negative latency or jitter", ErrOptions)
	case !(o.Loss >= 0 && o.Loss <= 1):
		return fmt.Errorf("%w: loss %v (0..1)", ErrOptions, o.Loss)
	case o.Duration < time.Second || o.Duration > time.Hour:
		return fmt.Errorf("%w: duration %v (1s..1h)", ErrOptions, o.Duration)
	case o.Warmup < 0 || o.Warmup >= o.Duration:
		return fmt.Errorf("%w: warm-up %v (0 up to the duration %v)", ErrOptions, o.Warmup, o.Duration)
	case o.SnapshotRate != 0 && (o.SnapshotRate < 10 || o.SnapshotRate > 60):
		return fmt.Errorf("%w: snapshot rate %d (10..60)", ErrOptions, o.SnapshotRate)
	case o.CoarseStep < 0 || o.CoarseStep > 60 || o.CoarseAfter < 0:
		return fmt.Errorf("%w: coarse step %d after %d frames (0..60, 0 or more)", ErrOptions, o.CoarseStep, o.CoarseAfter)
	case o.Mode != refgame.BotDeathmatch && o.Mode != refgame.BotNeverTouch:
		return fmt.Errorf("%w: bot mode %d", ErrOptions, o.Mode)
	}
	return nil
}

var serverAddr = netip.MustParseAddrPort("10.0.0.1:27960")

func botAddr(i int) netip.AddrPort {
	return netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 0, 1, byte(i + 1)}), uint16(40000+i))
}

// bot is one simulated player: a client core playing an arena bot.
type bot struct {
	idx int
	c   *client.Client
	w   *refgame.World
	ep  *netsim.Endpoint
	ai  *refgame.Bot
	// input, when set, gives the commands instead of ai (the person
	// playing in a Live match).
	input client.InputSource
	prev  sample // counters at the end of the previous second

	stateChecks, stateMismatches uint64
	stateUnchecked               uint64  // snapshot frames out of the recorded window
	baseChecks, baseMismatches   uint64  // the harness's full-hash comparisons
	leadSum                      float64 // after the warm-up
	leadN                        uint64
	self, others                 errStats  // after the warm-up
	mark                         cmdCounts // server counts at the end of the warm-up
	// tw times re-prediction (Options.Reprediction); repMark holds its
	// counters at the end of the warm-up.
	tw      *timedWorld
	repMark repredictMark
}

// cmdCounts are the server's command counts for one client (DOOM III §2).
type cmdCounts struct{ run, early, dup, late uint64 }

func countsOf(cs serverhook.ClientStats) cmdCounts {
	return cmdCounts{run: cs.FramesRun, early: cs.CmdsEarly, dup: cs.Duplicated, late: cs.LateCmds}
}

// sample holds one client's cumulative counters at a second boundary.
type sample struct {
	down, up, downPkts, snapBits, snaps, dup, lostSnaps, resends uint64
}

// appliedKey names one "apply S" of one client in one game: sequences
// start again after a map change (DOOM III §3.1, §4.2).
type appliedKey struct {
	client game.ClientNum
	game   game.GameID
	seq    snapshot.Seq
}

type harness struct {
	opt  Options
	net  *netsim.Network
	srv  *server.Server
	sg   *refgame.World
	sep  *netsim.Endpoint
	bots []*bot
	now  time.Duration
	buf  []byte
	// nodes is the server and the bots as netsim runs them, rebuilt when a
	// bot joins.
	nodes []netsim.Node

	rec     *recorder
	meas    *measurer
	applied map[appliedKey]uint64 // server base hash after each apply
	warm    bool                  // the warm-up is over
	live    bool                  // a Live match: no compression measurements
	shots   *ShotStats            // Options.Shots
	sparse  *sparse               // Options.Section8

	// prediction errors of the current second, and all of them after the
	// warm-up
	secSelf, secOthers []float64
	allSelf, allOthers []float64
	secLead            []float64
	prevLost           uint64
	prevMeas           struct{ snapshots, zrle uint64 }
}

// Run plays one demo match and returns its measurements.
func Run(opt Options) (*Result, error) {
	if err := opt.validate(); err != nil {
		return nil, err
	}
	start := time.Now()
	h, err := newHarness(opt, 0)
	if err != nil {
		return nil, err
	}
	res := h.play()
	res.WallMS = ms(time.Since(start))
	return res, nil
}

// play runs the match for opt.Duration and returns its measurements.
func (h *harness) play() *Result {
	opt := h.opt
	res := &Result{Clients: opt.Clients, LatencyMS: ms(opt.Latency), JitterMS: ms(opt.Jitter), Loss: opt.Loss,
		Seed: opt.Seed, Settings: h.srv.Settings(), Mode: ModeName(opt.Mode), WarmupS: opt.Warmup.Seconds(), Opponents: "predicted"}
	if opt.InterpolateOpponents {
		res.Opponents = "interpolated"
	}
	h.endWarmup() // a no-op unless Warmup is 0
	secs := int(opt.Duration / time.Second)
	for s := 1; s <= secs; s++ {
		h.runWarm(time.Duration(s) * time.Second)
		sec := h.second(s)
		res.Seconds = append(res.Seconds, sec)
		if opt.Progress != nil {
			opt.Progress(sec)
		}
	}
	if rest := opt.Duration - time.Duration(secs)*time.Second; rest > 0 {
		h.runWarm(opt.Duration)
	}
	h.finish(res)
	return res
}

// runWarm is run, stopping at the end of the warm-up on the way to mark it.
func (h *harness) runWarm(until time.Duration) {
	if !h.warm && until >= h.opt.Warmup {
		h.run(h.opt.Warmup)
		h.endWarmup()
	}
	h.run(until)
}

// endWarmup marks the end of the warm-up at h.now (once h.now has reached
// Warmup): the server's command counts so far are left out of the shares.
func (h *harness) endWarmup() {
	if h.warm || h.now < h.opt.Warmup {
		return
	}
	h.warm = true
	for _, b := range h.bots {
		if b.tw != nil {
			b.tw.keep = true
		}
		if b.c.State() != client.Connected {
			continue
		}
		if cs, ok := serverhook.Client(h.srv, b.c.ClientNum()); ok {
			b.mark = countsOf(cs)
		}
		b.repMark = b.repredictCounters()
	}
}

// newHarness sets up the server and opt.Clients bots; the server has extra
// more slots, for bots a test adds later (addBot).
func newHarness(opt Options, extra int) (*harness, error) {
	h := &harness{opt: opt, net: netsim.New(opt.Seed), buf: make([]byte, 65536), applied: map[appliedKey]uint64{}}
	h.net.SetDefault(netsim.LinkConfig{Latency: opt.Latency / 2, Jitter: opt.Jitter, Loss: opt.Loss})
	settings := opt.Settings
	if settings == "" {
		settings = refgame.Config{Seed: opt.Seed, MaxPlayers: max(16, opt.Clients)}.String()
	}
	h.sg = refgame.NewGame()
	reg := h.sg.Registry()
	h.rec = newRecorder(256)
	var err error
	if h.meas, err = newMeasurer(reg); err != nil {
		return nil, err
	}
	if h.sep, err = h.net.Listen(serverAddr); err != nil {
		return nil, err
	}
	hooks := serverhook.Hooks{
		Seed:          opt.Seed,
		Deterministic: true, // a run is reproducible from its seed
		OnFrame:       h.onFrame,
		OnApply: func(c game.ClientNum, seq snapshot.Seq, base *snapshot.CommonBase) {
			h.applied[appliedKey{c, h.srv.GameID(), seq}] = base.Hash()
			if h.sparse != nil {
				for _, b := range h.bots {
					if b.c.State() == client.Connected && b.c.ClientNum() == c {
						h.sparse.apply(b, seq)
					}
				}
			}
		},
	}
	scfg := serverhook.With(server.Config{MaxClients: opt.Clients + extra, SnapshotRate: opt.SnapshotRate}, hooks)
	scfg.VerifyBase = true
	if opt.Shots {
		h.shots = &ShotStats{}
		scfg.LagCompensation = server.LagConfig{Frames: ShotLagFrames, MaxRewind: ShotMaxRewind}
	}
	if opt.Section8 {
		h.sparse = newSparse(h)
	}
	h.srv, err = server.New(scfg, h.sg, settings, server.SendFunc(func(to netip.AddrPort, p []byte) {
		h.sep.WriteTo(p, to)
	}))
	if err != nil {
		return nil, fmt.Errorf("matchsim: server: %w", err)
	}
	for i := range opt.Clients {
		if _, err := h.addBot(i, opt.Mode); err != nil {
			return nil, err
		}
	}
	return h, nil
}

// addBot connects bot i, playing in mode, at h.now.
func (h *harness) addBot(i int, mode refgame.BotMode) (*bot, error) {
	return h.addClient(i, fmt.Sprintf("bot%d", i), mode, nil)
}

// addClient connects client i named name at h.now: a bot playing in mode,
// or, when input is set, a client whose commands come from input.
func (h *harness) addClient(i int, name string, mode refgame.BotMode, input client.InputSource) (*bot, error) {
	ep, err := h.net.Listen(botAddr(i))
	if err != nil {
		return nil, err
	}
	b := &bot{idx: i, w: refgame.NewGame(), ep: ep, input: input}
	b.ai = refgame.NewBot(h.opt.Seed*1000+uint64(i), 0, mode)
	cfg := client.Config{Name: name, CoarseStep: h.opt.CoarseStep}
	clienthook.Set(&cfg, clienthook.Hooks{
		CoarseAfter: h.opt.CoarseAfter,
		OnSnapshot: func(s *snapshot.Snapshot) {
			h.onSnapshot(b, s)
			if b.tw != nil {
				b.tw.begin(s.PVS.Len(), clienthook.CountersOf(b.c).Repredicted) // re-prediction follows, within HandlePacket
			}
		},
		OnApply: func(seq snapshot.Seq, base *snapshot.CommonBase) {
			k := appliedKey{b.c.ClientNum(), b.c.GameID(), seq}
			if hash, ok := h.applied[k]; ok {
				delete(h.applied, k)
				b.baseChecks++
				if hash != base.Hash() {
					b.baseMismatches++
				}
			}
		},
	})
	botInput := client.InputFunc(func(in client.Input) game.UserCmd {
		if b.input != nil {
			return b.input.Command(in)
		}
		b.ai.Client = in.Client
		return b.ai.Command(b.w, in.Frame)
	})
	var g game.Game = b.w
	if h.opt.Reprediction {
		b.tw = &timedWorld{World: b.w}
		g = b.tw
	}
	b.c, err = client.New(cfg, g, botInput, client.SendFunc(func(to netip.AddrPort, p []byte) {
		ep.WriteTo(p, to)
	}))
	if err != nil {
		return nil, fmt.Errorf("matchsim: client %d: %w", i, err)
	}
	if h.opt.InterpolateOpponents {
		b.c.SetTypeMode(refgame.TypePlayer, game.Interpolate)
	}
	b.c.Connect(h.now, serverAddr)
	h.bots = append(h.bots, b)
	return b, nil
}

// run steps the match to until: network deliveries, the server's frames,
// the clients' frames and sends, in time order (virtual time).
func (h *harness) run(until time.Duration) {
	if len(h.nodes) != 1+len(h.bots) {
		h.nodes = append(h.nodes[:0], netsim.Node{Endpoint: h.sep, Receive: h.srv.HandlePacket, Advance: h.srv.Advance, Next: h.srv.Next})
		for _, b := range h.bots {
			h.nodes = append(h.nodes, netsim.Node{Endpoint: b.ep,
				Receive: func(now time.Duration, _ netip.AddrPort, p []byte) {
					b.c.HandlePacket(now, p)
					if b.tw != nil {
						b.tw.stop(clienthook.CountersOf(b.c).Repredicted)
					}
				},
				Advance: b.c.Advance, Next: b.c.Next})
		}
	}
	h.now = h.net.Run(h.now, until, h.nodes, h.buf)
}

// onFrame runs after every server frame: it records the authoritative
// states and positions of frame f and measures every client's prediction
// of f (the clients run ahead, so they have shown f already).
func (h *harness) onFrame(f game.Frame) {
	limit := game.MaxEntities
	if h.sg.Map != nil {
		limit = h.sg.Map.NumEntities // the arena numbers its entities below it
	}
	fr := h.rec.record(f, h.sg, limit)
	for _, b := range h.bots {
		if b.c.State() != client.Connected {
			continue
		}
		me, hasMe := h.sg.PlayerEntity(b.c.ClientNum())
		for n := range b.c.Visible() {
			h.predError(b, fr, n, f, hasMe && n == me)
		}
	}
	h.shoot(f)
}

func (h *harness) predError(b *bot, fr *frameRec, n game.EntityNum, f game.Frame, self bool) {
	e := fr.find(n)
	if e == nil || !e.hasPos {
		return
	}
	x, y, z, ok := clienthook.PredictedPosition(b.c, n, f)
	if !ok {
		return
	}
	dx, dy, dz := float64(x-e.pos[0]), float64(y-e.pos[1]), float64(z-e.pos[2])
	d := math.Sqrt(dx*dx + dy*dy + dz*dz)
	// Frames due in the warm-up go to the per-second series only.
	steady := time.Duration(f)*h.srv.FrameDuration() > h.opt.Warmup
	if self {
		h.secSelf = append(h.secSelf, d)
		if steady {
			b.self.add(d)
			h.allSelf = append(h.allSelf, d)
		}
	} else {
		h.secOthers = append(h.secOthers, d)
		if steady {
			b.others.add(d)
			h.allOthers = append(h.allOthers, d)
			if h.sparse != nil {
				h.sparse.farError(b, n, d)
			}
		}
	}
}

// onSnapshot runs when client b has written snapshot s into its world:
// the state check, the lead, and the compression measurements.
func (h *harness) onSnapshot(b *bot, s *snapshot.Snapshot) {
	hd := s.Header
	lead := ms(hd.Lead)
	if h.warm {
		b.leadSum += lead
		b.leadN++
	}
	h.secLead = append(h.secLead, lead)

	if fr := h.rec.at(hd.Frame); fr == nil {
		b.stateUnchecked++
	} else {
		for n := range s.PVS.All() {
			b.stateChecks++
			e, typ := b.w.Entity(n)
			if e == nil || !fr.equal(n, typ, e, h.meas.codec) {
				b.stateMismatches++
			}
		}
	}
	if !h.live {
		h.meas.measure(b.w, b.c.ClientNum(), func(dst *snapshot.CommonBase) bool { return clienthook.CopyBase(b.c, dst) }, s)
	}
	if h.sparse != nil {
		h.sparse.snapshot(b, s)
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// second closes virtual second t: per-client traffic and the second's
// figures.
func (h *harness) second(t int) Second {
	sec := Second{T: t, Frame: h.srv.Frame(), Connected: h.srv.NumClients()}
	byNum := map[game.ClientNum]serverhook.ClientStats{}
	for _, cs := range serverhook.Clients(h.srv) {
		byNum[cs.Num] = cs
	}
	var tot, prevTot sample
	for _, b := range h.bots {
		cur := b.counters(byNum)
		sec.KbpsDown = append(sec.KbpsDown, round(float64(cur.down-b.prev.down)*8/1000, 2))
		sec.KbpsUp = append(sec.KbpsUp, round(float64(cur.up-b.prev.up)*8/1000, 2))
		tot.add(cur)
		prevTot.add(b.prev)
		b.prev = cur
	}
	if n := tot.snaps - prevTot.snaps; n > 0 {
		sec.SnapshotBytesRaw = round(float64(tot.snapBits-prevTot.snapBits)/8/float64(n), 1)
	}
	if n := tot.downPkts - prevTot.downPkts; n > 0 {
		sec.PacketBytes = round(float64(tot.down-prevTot.down)/float64(n), 1)
	}
	if n := h.meas.snapshots - h.prevMeas.snapshots; n > 0 {
		sec.SnapshotBytes = round(float64(h.meas.bits.ZRLE-h.prevMeas.zrle)/8/float64(n), 1)
	}
	h.prevMeas.snapshots, h.prevMeas.zrle = h.meas.snapshots, h.meas.bits.ZRLE
	sec.Duplicated = tot.dup - prevTot.dup
	sec.SnapshotsLost = tot.lostSnaps - prevTot.lostSnaps
	sec.ReliableResends = tot.resends - prevTot.resends
	lost := h.net.Stats().Lost
	sec.PacketsLost = lost - h.prevLost
	h.prevLost = lost
	sec.PredSelfMean, sec.PredSelfP99 = round(report.Mean(h.secSelf), 3), round(report.Percentile(h.secSelf, 0.99), 3)
	sec.PredOthersMean, sec.PredOthersP99 = round(report.Mean(h.secOthers), 3), round(report.Percentile(h.secOthers, 0.99), 3)
	if len(h.secLead) > 0 {
		sec.LeadMeanMS = round(report.Mean(h.secLead), 1)
		sec.LeadMinMS = round(minOf(h.secLead), 1)
	}
	h.secSelf, h.secOthers, h.secLead = h.secSelf[:0], h.secOthers[:0], h.secLead[:0]
	return sec
}

// counters reads client b's cumulative counters from both ends.
func (b *bot) counters(byNum map[game.ClientNum]serverhook.ClientStats) sample {
	st, ch := b.c.Stats(), clienthook.ChannelStats(b.c)
	s := sample{up: ch.BytesOut, lostSnaps: st.SnapshotsLost, resends: ch.ReliableResends}
	if b.c.State() == client.Connected {
		if cs, ok := byNum[b.c.ClientNum()]; ok {
			s.down, s.downPkts = cs.Channel.BytesOut, cs.Channel.PacketsOut
			s.snapBits, s.snaps, s.dup = cs.SnapshotBits, cs.SnapshotsSent, cs.Duplicated
			s.resends += cs.Channel.ReliableResends
		}
	}
	// Counters only grow; a client that left keeps its last figures.
	s.down, s.downPkts = max(s.down, b.prev.down), max(s.downPkts, b.prev.downPkts)
	s.snapBits, s.snaps, s.dup = max(s.snapBits, b.prev.snapBits), max(s.snaps, b.prev.snaps), max(s.dup, b.prev.dup)
	s.resends = max(s.resends, b.prev.resends)
	return s
}

func (s *sample) add(o sample) {
	s.down += o.down
	s.up += o.up
	s.downPkts += o.downPkts
	s.snapBits += o.snapBits
	s.snaps += o.snaps
	s.dup += o.dup
	s.lostSnaps += o.lostSnaps
	s.resends += o.resends
}

func round(v float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(v*p) / p
}
