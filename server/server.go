package server

// The server core: its configuration, the Server and its counters, the
// fixed-rate frame loop a driver runs with Advance and HandlePacket (DOOM
// III §2), map changes, and the per-client controls (kick, statistics,
// snapshot rate). The handshake is in handshake.go, events in events.go,
// each client's channel, commands and snapshots in conn.go.

import (
	crand "crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/netip"
	"slices"
	"sync"
	"time"

	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/events"
	"github.com/snapwire/snapwire/internal/netchan"
	"github.com/snapwire/snapwire/internal/serverhook"
	"github.com/snapwire/snapwire/internal/session"
	"github.com/snapwire/snapwire/internal/snapshot"
	"github.com/snapwire/snapwire/internal/tokenwire"
	"github.com/snapwire/snapwire/token"
)

// Sender sends one UDP datagram to an address; pkt is valid only during
// the call.
type Sender interface {
	Send(to netip.AddrPort, pkt []byte)
}

// SendFunc adapts a function to Sender.
type SendFunc func(to netip.AddrPort, pkt []byte)

// Send implements Sender.
func (f SendFunc) Send(to netip.AddrPort, pkt []byte) { f(to, pkt) }

// Config configures a server: the everyday settings. Zero fields take the
// defaults in brackets; the rarely needed knobs are in Advanced.
type Config struct {
	FrameRate    int    // game frames per second [60] (DOOM III §2)
	SnapshotRate int    // snapshots per second per client, 10..60 [20] (§3: 10-20 Hz)
	MaxClients   int    // player slots [8], at most game.MaxClients (1,024)
	Password     string // required in connect when not empty
	// TokenKey makes the server secure: it accepts only connects that
	// carry a connect token sealed with this key (package token), and
	// every channel packet is then authenticated and encrypted with the
	// token's session keys. Without it the server uses the insecure
	// handshake, meant for tests, demos and trusted networks: anyone who
	// can spoof a client's IP address can inject packets into its session
	// (package doc).
	TokenKey *token.Key
	// ProtocolID is the protocol id connect tokens must carry.
	ProtocolID uint64
	// PublicAddrs are the addresses connect tokens name this server by
	// (one must be listed in a token); Listen adds its local address.
	PublicAddrs []netip.AddrPort
	// Logger receives one event per connect, disconnect, timeout, refusal,
	// rate-limit refusal and map change (log.go); nil logs nothing.
	Logger *slog.Logger
	// Timeout drops a client from which nothing arrived for this long
	// [10s]; a client that connected with a token gets its token's timeout
	// (token.Params.Timeout) instead.
	Timeout time.Duration
	// Rate is each client's byte rate, UDP/IP headers included [0:
	// unlimited]. A snapshot that would exceed it sends the entities of
	// highest priority and holds the others at their base states (see the
	// package doc: the game may give each entity's relevance); it is skipped
	// only when nothing fits.
	Rate int
	// LagCompensation, with Frames > 0, keeps a History of every player
	// entity's position (entities implementing Positioner), recorded after
	// each frame, for hit detection at a client's view time (lagcomp.go;
	// Half-Life's lag compensation, DOOM III §1.1). Off by default.
	LagCompensation LagConfig
	// OnMessage receives the game messages clients send
	// (client.Client.SendMessage), with the sender's number, in the order
	// each client sent them, on the goroutine that runs the server, as the
	// packet that completes them is handled: before the next frame runs.
	// m is the server's scratch message of its type, valid only during the
	// call: copy what you keep. Nil discards them; Advanced's limits apply
	// either way (messages.go).
	OnMessage func(from game.ClientNum, m game.Message)
	// Advanced holds the settings few servers change.
	Advanced

	hooks *serverhook.Hooks // internal/serverhook.Set
}

// Advanced are a server's rarely needed settings (Config.Advanced), apart
// from the everyday ones as pion keeps its SettingEngine apart from its
// Configuration. Zero fields take the defaults in brackets.
type Advanced struct {
	// MaxClientsPerIP bounds the clients from one IP address [4], secure
	// or not: a token does not say who may hold how many slots, and one
	// host with many tokens would fill the server otherwise.
	MaxClientsPerIP int
	// MaxConnectAttempts bounds the connects with a valid cookie an
	// insecure server processes per IP address and cookie lifetime [16]
	// (a secure server takes a connect's token as its authorisation and
	// keeps no count before it opens), and MaxPasswordFailures the wrong
	// passwords per IP address and lifetime [3]; beyond them that address
	// is refused until the next lifetime (ReasonTooManyAttempts), and no
	// other address ever is.
	MaxConnectAttempts, MaxPasswordFailures int
	// CookieLifetime is the width of a cookie's time bucket [10s]; a cookie
	// is accepted in its bucket and the next.
	CookieLifetime time.Duration
	// MaxSavedEvents bounds the saved events kept for late joiners [1024].
	// A joining client gets them all as reliable messages at once, so
	// their packed size must fit in its channel's reliable queue (16 KiB:
	// 1024 events of 8 payload bytes); a client whose reliable queue
	// cannot take them is refused (protocol error).
	MaxSavedEvents int
	// VerifyBase makes every "apply S" carry the low 32 bits of the
	// server's base hash, which the client compares with its own (a live
	// check of DOOM III §4.2's invariant; costs a hash of the base per ack).
	VerifyBase bool
	// SnapshotWorkers is how many goroutines build a frame's snapshots
	// [1], at most 64. With more, the server asks the game for every due
	// client's snapshot (PVS, states, commands, events) first, encodes
	// the frame's visible entities and states once, builds the clients'
	// snapshots on that many goroutines through read-only views of that
	// encoding, and sends them in client order: the same bytes as one
	// worker (TestSnapshotWorkersSameBytes). The game is only ever called
	// from the goroutine that runs the server.
	SnapshotWorkers int
	// MaxGameMessageBytes bounds the payload of a client's game message
	// [1024, the most a client sends]; GameMessageBurst and
	// GameMessageRate bound how many a client sends: a burst at once [64],
	// then GameMessageRate per second [16], at most 1000 (a leaky bucket,
	// ioq3's SVC_RateLimit). Messages that loss held back arrive together
	// and count as a burst: the default burst covers 4 s without a packet
	// through at the default rate. A client beyond either is dropped with
	// ReasonMessageFlood, logged; nothing else waits for it.
	MaxGameMessageBytes, GameMessageBurst, GameMessageRate int
	// ReconnectGrace is how long a secure server holds the slot, player
	// entity and score of a client silent for its timeout [20s]; negative:
	// not at all. Its connect token resumes the session meanwhile, from
	// any address (resume.go); the game's ClientDisconnected runs when the
	// grace ends. An insecure server holds no slot.
	ReconnectGrace time.Duration
}

// config is a server's resolved configuration: Config with its defaults
// and the internal hooks (internal/serverhook).
type config struct {
	Config
	serverhook.Hooks
}

func (c *config) defaults() {
	if c.FrameRate <= 0 {
		c.FrameRate = 60
	}
	if c.SnapshotRate <= 0 {
		c.SnapshotRate = 20
	}
	if c.MaxClients <= 0 {
		c.MaxClients = 8
	}
	if c.MaxClients > game.MaxClients {
		c.MaxClients = game.MaxClients
	}
	if c.Timeout <= 0 {
		c.Timeout = 10 * time.Second
	}
	if c.CookieLifetime <= 0 {
		c.CookieLifetime = 10 * time.Second
	}
	if c.MaxSavedEvents <= 0 {
		c.MaxSavedEvents = 1024
	}
	if c.WallClock == nil {
		c.WallClock = time.Now
	}
	if c.MaxClientsPerIP <= 0 {
		c.MaxClientsPerIP = 4
	}
	if c.MaxConnectAttempts <= 0 {
		c.MaxConnectAttempts = 16
	}
	if c.MaxPasswordFailures <= 0 {
		c.MaxPasswordFailures = 3
	}
	if c.SnapshotWorkers <= 0 {
		c.SnapshotWorkers = 1
	}
	if c.Rate > 0 {
		c.Channel.Rate = c.Rate
	}
	c.messageDefaults()
}

// Errors.
var (
	ErrNoClient = errors.New("server: no such client")
	ErrConfig   = errors.New("server: invalid configuration")
)

// cmdRing is the number of frames of commands kept per client: commands
// more than cmdRing-1 frames ahead of the server are ignored.
const cmdRing = 256

type cmdSlot struct {
	frame   game.Frame
	cmd     game.UserCmd
	arrival time.Duration
	valid   bool // the command arrived
	missed  bool // the frame ran without it (duplicated)
}

// Server is the I/O-free server core: one goroutine calls HandlePacket and
// Advance with the current virtual time; packets leave through the Sender.
type Server struct {
	// snapCache holds every visible entity's state encoded once per frame,
	// shared by all clients' snapshots of that frame (snapshot.FrameCache).
	// Anything that changes entities without running a frame invalidates it.
	snapCache snapshot.FrameCache
	// The parallel snapshot path (Advanced.SnapshotWorkers): the due and
	// prepared clients of the frame, the union of their PVSs, the
	// workers' views of snapCache.
	due, ready []*client
	union      snapshot.PVS
	views      []snapshot.FrameCache
	cfg        config
	g          game.Game
	reg        *game.Registry
	send       Sender
	frameDur   time.Duration
	rng        *rand.Rand // game ids
	ids        *rand.Rand // connection ids

	settings  string
	gameID    game.GameID
	frame     game.Frame
	now       time.Duration        // the latest time given by the driver
	mapBase   *snapshot.CommonBase // the map's states right after Load (§8)
	recycler  numberRecycler       // the game's, or nil (recycle.go)
	departed  Totals               // counters of the clients that left
	refuseLog logLimiter

	slots   []*client // by ClientNum; nil when free
	events  events.Buffer
	tick    game.Tick
	saved   []savedEvent
	unrel   []game.Event // unreliable event log
	unrelAt uint64       // log index of unrel[0]
	// unrelData[i] holds unrel[i]'s payload (len(unrelData) >= len(unrel)).
	unrelData [][game.MaxEventBytes]byte
	relEvs    []game.Event // this frame's reliable events
	savedEvs  []game.Event
	relArena  []byte   // the bytes of relMsgs
	relEnds   [][2]int // relMsgs[i] = relArena[relEnds[i][0]:relEnds[i][1]]

	w       bitmsg.Writer
	buf     []byte
	oob     []byte
	evw     bitmsg.Writer
	evbuf   []byte
	relMsgs [][]byte
	stats   serverhook.Stats

	msgs *session.GameMessages // game messages (messages.go)

	history *History    // lag compensation; nil: off
	histPos []entityPos // scratch for History.record

	replyTo netip.AddrPort
	replyFn func([]byte) // bound once: replies to replyTo

	opener *tokenwire.Opener // nil: insecure handshake
	// shared is what guards the socket: the connections by id, the used
	// tokens and the per-address counts, the server's own or shared by
	// the matches of a Host (host.go).
	*shared
	// match is the server's name on its Host ("" for a server of its
	// own): the match a connect token or an insecure connect must name.
	match string
	// epoch is the time frame 0 was due: 0, or when a Host created the
	// match.
	epoch time.Duration

	// regDigest is reg's session.RegistryDigest, which a refusal for a
	// wrong registry carries (handshake.go).
	regDigest string

	// resuming is the held slot whose resume is being checked: it does not
	// count against the resuming address's MaxClientsPerIP (it is the one
	// the resume takes), while every other held slot does, so one host
	// cannot hold more slots by letting sessions fall silent (resume.go).
	resuming *client
	// relayCmds holds the latest commands of the players in the game, by
	// entity, for the snapshots of the frame (gatherRelayCmds).
	relayCmds []game.PlayerCmd
}

// Stats are the server-wide counters an operator reads (the Prometheus
// counters of `snapwire serve --metrics` hold them all).
type Stats struct {
	Frames uint64 // frames run
	// FramesLate counts frames run more than a frame duration after they
	// were due (the driver or the machine fell behind).
	FramesLate  uint64
	Connects    uint64 // clients accepted
	Disconnects uint64 // clients gone: left, kicked, timed out, shut down
	Timeouts    uint64 // clients dropped for their silence (Config.Timeout)
	// Refused counts refused connects; of them, TokensRefused those
	// refused for their token and Throttled those refused by the
	// per-address limits (Advanced).
	Refused, TokensRefused, Throttled uint64
	// AuthFailures counts channel packets that failed authentication
	// (secure server): forged, corrupted or replayed; dropped unread.
	AuthFailures uint64
	BadPackets   uint64 // channel packets rejected or unparsable
	MapChanges   uint64
}

// New returns a server running game g, loaded with settings.
func New(pub Config, g game.Game, settings string, send Sender) (*Server, error) {
	return newServer(pub, g, settings, send, newShared(), "", 0)
}

// newServer returns a server running g loaded with settings, guarding its
// socket with sh, named match, whose frame 0 was due at epoch.
func newServer(pub Config, g game.Game, settings string, send Sender, sh *shared, match string, epoch time.Duration) (*Server, error) {
	cfg := config{Config: pub}
	if pub.hooks != nil {
		cfg.Hooks = *pub.hooks
	}
	cfg.defaults()
	if cfg.SnapshotRate < 10 || cfg.SnapshotRate > 60 || send == nil || g == nil {
		return nil, fmt.Errorf("%w: snapshot rate %d (10..60), sender and game required", ErrConfig, cfg.SnapshotRate)
	}
	if cfg.SnapshotWorkers > maxSnapshotWorkers {
		return nil, fmt.Errorf("%w: %d snapshot workers (1..%d)", ErrConfig, cfg.SnapshotWorkers, maxSnapshotWorkers)
	}
	s := &Server{
		cfg: cfg, g: g, reg: g.Registry(), send: send,
		frameDur: time.Second / time.Duration(cfg.FrameRate),
		rng:      rand.New(rand.NewPCG(cfg.Seed, 0x5eed5e17e4)), // game ids
		ids:      rand.New(rand.NewPCG(cfg.Seed, 0x1d5)),
		slots:    make([]*client, cfg.MaxClients),
		shared:   sh,
		match:    match,
		epoch:    epoch,
		now:      epoch,
		buf:      make([]byte, 1<<16),
		evbuf:    make([]byte, session.MaxEventsMessageBytes),
		mapBase:  snapshot.NewCommonBase(g.Registry().NumStates()),
		msgs:     session.NewGameMessages(g.Registry()),
	}
	s.regDigest = string(session.RegistryDigest(s.reg))
	s.replyFn = func(p []byte) { s.sendOOB(s.replyTo, p) }
	s.recycler, _ = g.(numberRecycler)
	if !cfg.Deterministic {
		var seed [32]byte
		if _, err := crand.Read(seed[:]); err != nil {
			return nil, err
		}
		s.ids = rand.New(rand.NewPCG(binary.LittleEndian.Uint64(seed[:]), binary.LittleEndian.Uint64(seed[8:])))
		if cfg.Seed == 0 {
			s.rng = rand.New(rand.NewPCG(binary.LittleEndian.Uint64(seed[16:]), binary.LittleEndian.Uint64(seed[24:])))
		}
	}
	if s.cfg.Secret == nil {
		var err error
		if s.cfg.Secret, err = newSecret(cfg.Deterministic, cfg.Seed); err != nil {
			return nil, err
		}
	}
	if cfg.TokenKey != nil {
		s.opener = tokenwire.NewOpener(tokenwire.Key(*cfg.TokenKey), cfg.ProtocolID, cfg.PublicAddrs)
	}
	if cfg.LagCompensation.Frames > 0 {
		s.history = newHistory(cfg.LagCompensation)
	}
	if err := s.load(settings); err != nil {
		return nil, err
	}
	return s, nil
}

// newSecret returns a cookie secret: 32 random bytes, or one made from
// seed for a deterministic server (serverhook.Hooks.Deterministic).
func newSecret(deterministic bool, seed uint64) ([]byte, error) {
	if deterministic {
		return binary.LittleEndian.AppendUint64([]byte("snapwire-test-secret"), seed), nil
	}
	b := make([]byte, 32)
	if _, err := crand.Read(b); err != nil {
		return nil, err
	}
	return b, nil
}

func (s *Server) newGameID() game.GameID {
	for {
		id := game.GameID(s.rng.Uint32())
		if id != 0 && id != s.gameID {
			return id
		}
	}
}

// load loads the map and initialises the map base from its entities right
// after loading (DOOM III §8). Non-PVS states start empty on both ends.
func (s *Server) load(settings string) error {
	s.snapCache.Invalidate()
	if err := s.g.Load(settings); err != nil {
		return err
	}
	if err := s.mapBase.Init(s.g, nil); err != nil {
		return err
	}
	s.settings = settings
	s.gameID = s.newGameID()
	if s.history != nil {
		s.history.reset() // positions on another map mean nothing
	}
	s.saved = s.saved[:0]
	s.unrelAt += uint64(len(s.unrel))
	s.unrel = s.unrel[:0]
	return nil
}

// FrameDuration is the length of one game frame.
func (s *Server) FrameDuration() time.Duration { return s.frameDur }

// Frame is the last frame run.
func (s *Server) Frame() game.Frame { return s.frame }

// GameID is the id of the game being played (DOOM III §3.1).
func (s *Server) GameID() game.GameID { return s.gameID }

// Settings are the current game's settings.
func (s *Server) Settings() string { return s.settings }

// Stats returns the server-wide counters.
func (s *Server) Stats() Stats {
	st := &s.stats
	return Stats{
		Frames: st.Frames, FramesLate: st.FramesLate, Connects: st.Connects, Disconnects: st.Disconnects,
		Timeouts: st.Timeouts, Refused: st.Refused, TokensRefused: st.TokensRefused, Throttled: st.Throttled,
		AuthFailures: st.AuthFailures, BadPackets: st.BadPackets, MapChanges: st.MapChanges,
	}
}

// fullStats returns every server-wide counter (serverhook.ServerStats).
func (s *Server) fullStats() serverhook.Stats {
	st := s.stats
	st.SavedEvents = len(s.saved)
	return st
}

// frameTime is the time frame f is due: f frame durations after the epoch.
func (s *Server) frameTime(f game.Frame) time.Duration { return s.epoch + s.gameTime(f) }

// gameTime is the game time of frame f, the snapshot header's: the time
// since the match's frame 0, whenever its Host created it.
func (s *Server) gameTime(f game.Frame) time.Duration { return time.Duration(f) * s.frameDur }

// Next is the time of the next frame: a driver calls Advance then.
func (s *Server) Next() time.Duration { return s.frameTime(s.frame + 1) }

// Advance runs every frame due at or before now (fixed rate, never waiting
// for input: DOOM III §2), sends the snapshots due and drops clients that
// timed out.
func (s *Server) Advance(now time.Duration) {
	s.seen(now)
	for s.frameTime(s.frame+1) <= now {
		s.runFrame(now, s.frameTime(s.frame+1))
	}
	for _, c := range s.slots {
		if c != nil && now-c.lastRecv > c.timeout {
			s.silent(now, c) // dropped, or reserved (resume.go)
		}
	}
}

// HandlePacket processes one datagram from the network. Frames due
// strictly before now run first, so a command's lead is measured against
// the time the server needed it whatever the driver's step.
func (s *Server) HandlePacket(now time.Duration, from netip.AddrPort, pkt []byte) {
	s.seen(now)
	for s.frameTime(s.frame+1) < now {
		s.runFrame(now, s.frameTime(s.frame+1))
	}
	if netchan.IsConnectionless(pkt) {
		s.handleConnectionless(now, from, pkt[4:])
		return
	}
	id, ok := netchan.PeekConnID(pkt)
	if !ok {
		s.stats.BadPackets++
		return
	}
	c := s.byID[id]
	if c == nil || c.s != s {
		s.stats.UnknownConn++
		return
	}
	c.handle(now, from, pkt)
}

// runFrame runs the next frame, due at t, at time now.
func (s *Server) runFrame(now, t time.Duration) {
	if now-t > s.frameDur {
		s.stats.FramesLate++
	}
	if s.cfg.Stopwatch == nil {
		s.frameAt(t)
		return
	}
	start := s.cfg.Stopwatch()
	s.frameAt(t)
	s.stats.FrameTime.Observe(s.cfg.Stopwatch() - start)
}

// maxSnapshotWorkers bounds Advanced.SnapshotWorkers.
const maxSnapshotWorkers = 64

// frameAt runs the next frame at its due time t.
func (s *Server) frameAt(t time.Duration) {
	f := s.frame + 1
	s.events.Reset()
	s.events.Frame = f
	cmds := s.tick.Cmds[:0]
	for _, c := range s.slots {
		if c == nil {
			continue
		}
		cmd := c.commandFor(f, t)
		if ent, ok := s.g.PlayerEntity(c.num); ok {
			cmds = append(cmds, game.PlayerCmd{Entity: ent, Cmd: cmd})
		}
	}
	sortCmds(cmds)
	s.recycleNumbers(f)
	s.tick = game.Tick{Frame: f, Cmds: cmds, Events: &s.events}
	s.g.RunFrame(&s.tick)
	s.frame = f
	s.stats.Frames++
	if s.history != nil {
		s.recordHistory(f)
	}
	s.dispatchEvents()
	if s.cfg.OnFrame != nil {
		s.cfg.OnFrame(f)
	}
	due := s.due[:0]
	for _, c := range s.slots {
		// Half a frame of tolerance: 20 Hz at 60 Hz is every 3rd frame.
		if c != nil && !c.reserve.reserved && t+s.frameDur/2 >= c.nextSnap {
			c.nextSnap += c.snapInterval
			if c.nextSnap < t {
				c.nextSnap = t
			}
			due = append(due, c)
		}
	}
	s.due = due
	if len(due) > 0 {
		s.gatherRelayCmds()
	}
	if s.cfg.SnapshotWorkers <= 1 || len(due) < 2 {
		for _, c := range due {
			c.sendSnapshot(t)
		}
		return
	}
	s.sendSnapshotsParallel(t, due)
}

// sendSnapshotsParallel sends the due clients' snapshots built by
// Advanced.SnapshotWorkers goroutines (see there); the calling goroutine is
// one of them.
func (s *Server) sendSnapshotsParallel(t time.Duration, due []*client) {
	ready := s.ready[:0]
	s.union.Clear()
	for _, c := range due {
		if c.prepareSnapshot(t) {
			ready = append(ready, c)
			for i := range s.union {
				s.union[i] |= c.pvs[i]
			}
		}
	}
	s.ready = ready
	if len(ready) == 0 {
		return
	}
	var t0 time.Duration
	if s.cfg.Stopwatch != nil {
		t0 = s.cfg.Stopwatch()
	}
	err := s.snapCache.Prepare(s.frame, s.g, s.reg, &s.union)
	for _, c := range ready {
		if err == nil {
			err = s.snapCache.PrepareStates(s.frame, c.states)
		}
	}
	if err != nil {
		for _, c := range ready {
			c.finishSnapshot(t, nil, err)
		}
		return
	}
	workers := min(s.cfg.SnapshotWorkers, len(ready))
	s.stats.ParallelSnapshotFrames++
	if len(s.views) < workers {
		s.views = make([]snapshot.FrameCache, workers)
	}
	var wg sync.WaitGroup
	for wk := 1; wk < workers; wk++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.buildSnapshots(wk, workers, ready)
		}()
	}
	s.buildSnapshots(0, workers, ready)
	wg.Wait()
	if s.cfg.Stopwatch != nil {
		// The wall time of the whole build, in equal shares.
		share := (s.cfg.Stopwatch() - t0) / time.Duration(len(ready))
		for range ready {
			s.stats.SnapshotBuildTime.Observe(share)
		}
	}
	for _, c := range ready {
		c.finishSnapshot(t, &c.snapW, c.buildErr)
	}
}

// buildSnapshots builds the snapshots of ready[wk], ready[wk+workers], ...
// through worker wk's view of the frame's cache.
func (s *Server) buildSnapshots(wk, workers int, ready []*client) {
	v := &s.views[wk]
	v.ShareFrom(&s.snapCache)
	for i := wk; i < len(ready); i += workers {
		c := ready[i]
		if c.snapBuf == nil {
			c.snapBuf = make([]byte, len(s.buf))
		}
		c.prio.onMatch = false
		c.buildErr = c.buildSnapshot(&c.snapW, c.snapBuf, v)
	}
}

// recordHistory keeps the positions of the players' entities after frame
// f (LagCompensation).
func (s *Server) recordHistory(f game.Frame) {
	pos := s.histPos[:0]
	for _, c := range s.slots {
		if c == nil {
			continue
		}
		n, ok := s.g.PlayerEntity(c.num)
		if !ok {
			continue
		}
		e, _ := s.g.Entity(n)
		if p, ok := e.(Positioner); ok {
			x, y, z := p.Position()
			pos = append(pos, entityPos{Num: n, X: x, Y: y, Z: z})
		}
	}
	s.histPos = pos
	s.history.record(f, pos)
}

// History is the lag-compensation history (Config.LagCompensation), nil
// when it is off.
func (s *Server) History() *History { return s.history }

func sortCmds(c []game.PlayerCmd) {
	// pdqsort: O(n log n) with 1,024 players in any order, linear when
	// the entities already ascend (the usual case), and no allocation.
	slices.SortFunc(c, func(a, b game.PlayerCmd) int { return int(a.Entity) - int(b.Entity) })
}

// ChangeMap loads a new game (DOOM III §3.1): a new game id, the map
// loaded, the map base re-initialised, every player re-added. Each client
// is sent "load game" until its messages carry the new id; then it gets
// fresh bases on both ends, the saved events of the new game and
// snapshots.
func (s *Server) ChangeMap(settings string) error {
	if err := s.load(settings); err != nil {
		return err
	}
	s.stats.MapChanges++
	s.logEvent(slog.LevelInfo, "map change", slog.String("settings", settings), slog.Uint64("game_id", uint64(s.gameID)))
	for _, c := range s.slots {
		if c == nil {
			continue
		}
		s.snapCache.Invalidate()
		if err := s.g.ClientConnected(c.num); err != nil {
			s.drop(c, session.ReasonKicked, true)
			continue
		}
		c.leaveGame()
	}
	return nil
}

// Kick drops client c at now with a reliable disconnect message (sent
// three times; if all three are lost the client times out instead).
func (s *Server) Kick(now time.Duration, c game.ClientNum) error {
	if int(c) >= len(s.slots) || s.slots[c] == nil {
		return ErrNoClient
	}
	s.seen(now)
	s.drop(s.slots[c], session.ReasonKicked, true)
	return nil
}

// Shutdown drops every client at now with a reliable disconnect message
// (sent three times; a client that loses all three times out instead).
func (s *Server) Shutdown(now time.Duration) {
	s.seen(now)
	for _, c := range s.slots {
		if c != nil {
			s.drop(c, session.ReasonShutdown, true)
		}
	}
}

// seen records the latest time the driver gave the server.
func (s *Server) seen(now time.Duration) {
	if now > s.now {
		s.now = now
	}
}

// drop removes client c; with notify, a disconnect message is sent at the
// latest time the server was given, in three packets (to survive loss;
// nothing waits for the ack: a client that loses all three notices by its
// timeout).
func (s *Server) drop(c *client, why session.Reason, notify bool) {
	if s.slots[c.num] != c {
		return // already dropped (e.g. by a failed reliable queue in a loop)
	}
	if notify && !c.reserve.reserved {
		var b [2]byte
		if c.ch.QueueReliable(session.Disconnect{Reason: why}.Append(b[:0])) == nil {
			for range 3 {
				c.ch.Send(s.now, netchan.TypeNone, nil, c.emit)
			}
		}
	}
	s.stats.Disconnects++
	s.logDrop(c, why)
	s.departed.add(c)
	s.slots[c.num] = nil
	if c.reserve.reserved {
		s.stats.Reserved-- // its id may be another client's now
	} else {
		delete(s.byID, c.id)
	}
	s.perIP.remove(c.addr.Addr())
	s.g.ClientDisconnected(c.num)
	s.snapCache.Invalidate()
}

// NumClients is the number of connected clients.
func (s *Server) NumClients() int {
	n := 0
	for _, c := range s.slots {
		if c != nil && !c.reserve.reserved {
			n++
		}
	}
	return n
}

// Client returns client n's statistics; false when no client is
// connected in slot n (free, or held for a resume: Advanced.ReconnectGrace).
func (s *Server) Client(n game.ClientNum) (ClientStats, bool) {
	if int(n) >= len(s.slots) || s.slots[n] == nil || s.slots[n].reserve.reserved {
		return ClientStats{}, false
	}
	return s.slots[n].publicStats(), true
}

// SetSnapshotRate sets client n's snapshot rate, 10..60 Hz.
func (s *Server) SetSnapshotRate(n game.ClientNum, hz int) error {
	if int(n) >= len(s.slots) || s.slots[n] == nil {
		return ErrNoClient
	}
	if hz < 10 || hz > 60 {
		return fmt.Errorf("%w: snapshot rate %d outside 10..60", ErrConfig, hz)
	}
	s.slots[n].snapInterval = time.Second / time.Duration(hz)
	return nil
}

// baseHash returns the hash of client n's common base on the server
// (serverhook.BaseHash).
func (s *Server) baseHash(n game.ClientNum) (uint64, snapshot.Seq, bool) {
	if int(n) >= len(s.slots) || s.slots[n] == nil {
		return 0, 0, false
	}
	b := s.slots[n].enc.Base()
	return b.Hash(), b.Seq(), true
}
