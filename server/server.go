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
	"sync"
	"time"

	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/events"
	"github.com/snapwire/snapwire/internal/netchan"
	"github.com/snapwire/snapwire/internal/session"
	"github.com/snapwire/snapwire/internal/snapshot"
	"github.com/snapwire/snapwire/token"
)

// Sender sends one UDP datagram; pkt is valid only during the call. The
// server and the client share the one type of package session.
type Sender = session.Sender

// SendFunc adapts a function to Sender.
type SendFunc = session.SendFunc

// Config configures a server. Zero fields take the defaults in brackets.
type Config struct {
	FrameRate    int    // game frames per second [60] (DOOM III §2)
	SnapshotRate int    // snapshots per second per client, 10..60 [20] (§3: 10-20 Hz)
	MaxClients   int    // player slots [8], at most 64
	Password     string // required in connect when not empty
	// TokenKey makes the server secure: it accepts only connects that
	// carry a connect token sealed with this key (package token), and
	// every channel packet is then authenticated and encrypted with the
	// token's session keys (netchan.Keys). Without it the server uses the
	// insecure handshake, meant for tests, demos and trusted networks:
	// anyone who can spoof a client's IP address can inject packets into
	// its session (package doc).
	TokenKey *token.Key
	// ProtocolID is the protocol id connect tokens must carry.
	ProtocolID uint64
	// PublicAddrs are the addresses connect tokens name this server by
	// (one must be listed in a token); Listen adds its local address.
	PublicAddrs []netip.AddrPort
	// WallClock tells Unix time for token expiry [time.Now]: the virtual
	// time the core runs on has no epoch.
	WallClock func() time.Time
	// Stopwatch, when set, is read before and after each frame and each
	// snapshot build to fill Stats.FrameTime and Stats.SnapshotBuildTime
	// (a runner passes a monotonic clock; nil: not timed). Nothing the
	// server does depends on it.
	Stopwatch func() time.Duration
	// Logger receives one event per connect, disconnect, timeout, refusal,
	// rate-limit refusal and map change (log.go); nil logs nothing.
	Logger *slog.Logger
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
	// Secret keys the challenge cookie HMAC [32 bytes from crypto/rand].
	Secret []byte
	// Seed seeds game ids; with Deterministic it also derives Secret (when
	// nil) and seeds connection ids, for reproducible tests. Without
	// Deterministic both come from crypto/rand.
	Seed          uint64
	Deterministic bool
	// Timeout drops a client from which nothing arrived for this long
	// [10s]; a client that connected with a token gets its token's timeout
	// (token.Params.Timeout) instead.
	Timeout time.Duration
	// CookieLifetime is the width of a cookie's time bucket [10s]; a cookie
	// is accepted in its bucket and the next.
	CookieLifetime time.Duration
	// Channel is the configuration of every client's channel (MTU, byte
	// Rate, ...); snapshots are skipped when Channel.Rate is used up.
	Channel netchan.Config
	// MaxSavedEvents bounds the saved events kept for late joiners [1024].
	// A joining client gets them all as reliable messages at once, so
	// their packed size must fit in Channel.MaxReliableBytes (16 KiB by
	// default: 1024 events of 8 payload bytes); a client whose reliable
	// queue cannot take them is refused (protocol error).
	MaxSavedEvents int
	// VerifyBase makes every "apply S" carry the low 32 bits of the
	// server's base hash, which the client compares with its own (a live
	// check of DOOM III §4.2's invariant; costs a hash of the base per ack).
	VerifyBase bool
	// LagCompensation, with Frames > 0, keeps a History of every player
	// entity's position (entities implementing Positioner), recorded after
	// each frame, for hit detection at a client's view time (lagcomp.go;
	// Half-Life's lag compensation, DOOM III §1.1). Off by default.
	LagCompensation LagConfig
	// SnapshotWorkers is how many goroutines build a frame's snapshots [1].
	// With more, the server asks the game for every due client's snapshot
	// (PVS, states, commands, events) first, encodes the frame's visible
	// entities and states once (snapshot.FrameCache Prepare, PrepareStates),
	// builds the clients' snapshots on that many goroutines through
	// read-only views of the cache (ShareFrom), and sends them in client
	// order: the same bytes as one worker (TestSnapshotWorkersSameBytes).
	// The game is only ever called from the goroutine that runs the server.
	// At most MaxSnapshotWorkers.
	SnapshotWorkers int
	// OnFrame, if set, is called after every game frame (tests record the
	// authoritative states here).
	OnFrame func(f game.Frame)
	// OnApply, if set, is called when client c's acknowledgement of
	// snapshot seq has been applied to its base on the server (tests
	// compare the base with the client's after the same apply).
	OnApply func(c game.ClientNum, seq snapshot.Seq, base *snapshot.CommonBase)
	// OnConnectionless, if set, is called for every connectionless packet
	// that is not a snapwire handshake message (session.IsHandshake: the
	// first payload byte is below 0x20), such as Quake 3's text queries
	// "getinfo xxx" and "getstatus xxx"; payload is what follows the
	// FF FF FF FF prefix. reply sends FF FF FF FF and p to from. payload
	// and reply are valid only during the call, which runs on the
	// goroutine that owns the server (the Runner's). The source address of
	// a connectionless packet is not verified: a handler that answers
	// with more bytes than it received lends itself to amplification (a
	// Quake 3 server rate-limits such queries per address).
	OnConnectionless func(now time.Duration, from netip.AddrPort, payload []byte, reply func(p []byte))
}

func (c *Config) defaults() {
	if c.FrameRate <= 0 {
		c.FrameRate = 60
	}
	if c.SnapshotRate <= 0 {
		c.SnapshotRate = 20
	}
	if c.MaxClients <= 0 {
		c.MaxClients = 8
	}
	if c.MaxClients > 64 {
		c.MaxClients = 64
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
	// The parallel snapshot path (Config.SnapshotWorkers): the due and
	// prepared clients of the frame, the union of their PVSs, the
	// workers' views of snapCache.
	due, ready []*client
	union      snapshot.PVS
	views      []snapshot.FrameCache
	cfg        Config
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
	departed  Totals               // counters of the clients that left
	refuseLog logLimiter

	slots   []*client // by ClientNum; nil when free
	byID    map[netchan.ConnID]*client
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
	stats   Stats

	history *History    // lag compensation; nil: off
	histPos []EntityPos // scratch for History.Record

	replyTo netip.AddrPort
	replyFn func([]byte) // bound once: replies to replyTo

	opener     *token.Opener // nil: insecure handshake
	usedTokens tokenTable
	connects   attemptTable // insecure connects per IP address
	pwFails    attemptTable // wrong passwords per IP address
}

// Stats are server-wide counters.
type Stats struct {
	Frames      uint64
	Connects    uint64 // clients accepted
	Refused     uint64
	BadCookies  uint64
	Challenges  uint64
	Queries     uint64 // connectionless packets passed to OnConnectionless
	Timeouts    uint64
	Disconnects uint64
	BadPackets  uint64 // channel packets rejected or unparsable
	UnknownConn uint64 // channel packets for no connection
	// AuthFailures counts channel packets that failed authentication
	// (secure server): forged, corrupted or replayed; dropped unread.
	AuthFailures uint64
	// WrongSource counts packets of an insecure session from another IP
	// address than the client's (only its port may change).
	WrongSource uint64
	// AddrChanges counts client address changes (NAT rebinding) taken from
	// packets that delivered a new message (authenticated, on a secure
	// session); PathChallenges the path challenges made for new addresses
	// (sent, or held back by the budget below) and PathValidations the
	// addresses validated by their echo;
	// UnconfirmedDrops the packets not sent to an address not yet
	// validated, beyond 3 times the bytes received from it.
	AddrChanges, UnconfirmedDrops   uint64
	PathChallenges, PathValidations uint64
	// ParallelSnapshotFrames counts the frames whose snapshots several
	// goroutines built (Config.SnapshotWorkers).
	ParallelSnapshotFrames uint64
	// TokensRefused counts connects refused for their token; Throttled
	// those refused by MaxConnectAttempts, MaxPasswordFailures or
	// MaxClientsPerIP.
	TokensRefused, Throttled uint64
	MapChanges               uint64
	SavedEvents              int // saved events kept now
	ReliableEvents           uint64
	UnreliableEvents         uint64
	// FramesLate counts frames run more than a frame duration after they
	// were due (the driver or the machine fell behind).
	FramesLate uint64
	// FrameTime is the time to run a frame (game, events, snapshots),
	// SnapshotBuildTime to build one client's snapshot; filled only with
	// Config.Stopwatch.
	FrameTime, SnapshotBuildTime DurationHistogram
}

// New returns a server running game g, loaded with settings.
func New(cfg Config, g game.Game, settings string, send Sender) (*Server, error) {
	cfg.defaults()
	if cfg.SnapshotRate < 10 || cfg.SnapshotRate > 60 || send == nil || g == nil {
		return nil, fmt.Errorf("%w: snapshot rate %d (10..60), sender and game required", ErrConfig, cfg.SnapshotRate)
	}
	if cfg.SnapshotWorkers > MaxSnapshotWorkers {
		return nil, fmt.Errorf("%w: %d snapshot workers (1..%d)", ErrConfig, cfg.SnapshotWorkers, MaxSnapshotWorkers)
	}
	s := &Server{
		cfg: cfg, g: g, reg: g.Registry(), send: send,
		frameDur: time.Second / time.Duration(cfg.FrameRate),
		rng:      rand.New(rand.NewPCG(cfg.Seed, 0x5eed5e17e4)), // game ids
		ids:      rand.New(rand.NewPCG(cfg.Seed, 0x1d5)),
		slots:    make([]*client, cfg.MaxClients),
		byID:     make(map[netchan.ConnID]*client),
		buf:      make([]byte, 1<<16),
		evbuf:    make([]byte, session.MaxEventsMessageBytes),
		mapBase:  snapshot.NewCommonBase(g.Registry().NumStates()),
	}
	s.replyFn = func(p []byte) { s.sendOOB(s.replyTo, p) }
	if !cfg.Deterministic {
		var seed [16]byte
		if _, err := crand.Read(seed[:]); err != nil {
			return nil, err
		}
		s.ids = rand.New(rand.NewPCG(binary.LittleEndian.Uint64(seed[:]), binary.LittleEndian.Uint64(seed[8:])))
	}
	if s.cfg.Secret == nil {
		if cfg.Deterministic {
			s.cfg.Secret = binary.LittleEndian.AppendUint64([]byte("snapwire-test-secret"), cfg.Seed)
		} else {
			s.cfg.Secret = make([]byte, 32)
			if _, err := crand.Read(s.cfg.Secret); err != nil {
				return nil, err
			}
		}
	}
	if cfg.TokenKey != nil {
		s.opener = token.NewOpener(*cfg.TokenKey, cfg.ProtocolID, cfg.PublicAddrs)
	}
	if cfg.LagCompensation.Frames > 0 {
		s.history = NewHistory(cfg.LagCompensation)
	}
	if err := s.load(settings); err != nil {
		return nil, err
	}
	return s, nil
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
		s.history.Reset() // positions on another map mean nothing
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
	st := s.stats
	st.SavedEvents = len(s.saved)
	return st
}

// frameTime is the time frame f is due: f frame durations after start.
func (s *Server) frameTime(f game.Frame) time.Duration { return time.Duration(f) * s.frameDur }

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
			s.stats.Timeouts++
			s.drop(c, session.ReasonTimeout, false)
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
	if c == nil {
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

// frameAt runs the next frame at its due time t.
// MaxSnapshotWorkers bounds Config.SnapshotWorkers.
const MaxSnapshotWorkers = 64

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
		if c != nil && t+s.frameDur/2 >= c.nextSnap {
			c.nextSnap += c.snapInterval
			if c.nextSnap < t {
				c.nextSnap = t
			}
			due = append(due, c)
		}
	}
	s.due = due
	if s.cfg.SnapshotWorkers <= 1 || len(due) < 2 {
		for _, c := range due {
			c.sendSnapshot(t)
		}
		return
	}
	s.sendSnapshotsParallel(t, due)
}

// sendSnapshotsParallel sends the due clients' snapshots built by
// Config.SnapshotWorkers goroutines (see there); the calling goroutine is
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
		c.snapW.Reset(c.snapBuf)
		c.buildErr = c.buildSnapshot(&c.snapW, v)
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
			pos = append(pos, EntityPos{Num: n, X: x, Y: y, Z: z})
		}
	}
	s.histPos = pos
	s.history.Record(f, pos)
}

// History is the lag-compensation history (Config.LagCompensation), nil
// when it is off.
func (s *Server) History() *History { return s.history }

func sortCmds(c []game.PlayerCmd) {
	for i := 1; i < len(c); i++ {
		for j := i; j > 0 && c[j].Entity < c[j-1].Entity; j-- {
			c[j], c[j-1] = c[j-1], c[j]
		}
	}
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
	if notify {
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
	delete(s.byID, c.id)
	s.g.ClientDisconnected(c.num)
	s.snapCache.Invalidate()
}

// NumClients is the number of connected clients.
func (s *Server) NumClients() int { return len(s.byID) }

// Clients returns the statistics of every connected client, by slot.
func (s *Server) Clients() []ClientStats {
	var out []ClientStats
	for _, c := range s.slots {
		if c != nil {
			out = append(out, c.statsCopy())
		}
	}
	return out
}

// Client returns client n's statistics.
func (s *Server) Client(n game.ClientNum) (ClientStats, bool) {
	if int(n) >= len(s.slots) || s.slots[n] == nil {
		return ClientStats{}, false
	}
	return s.slots[n].statsCopy(), true
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

// BaseHash returns the hash of client n's common base on the server.
func (s *Server) BaseHash(n game.ClientNum) (uint64, snapshot.Seq, bool) {
	if int(n) >= len(s.slots) || s.slots[n] == nil {
		return 0, 0, false
	}
	b := s.slots[n].enc.Base()
	return b.Hash(), b.Seq(), true
}
