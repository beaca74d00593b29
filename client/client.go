package client

// The client core: its configuration and the interfaces it takes (input,
// sender, positions), the Client and its counters, the driver's calls
// (Advance, HandlePacket, Next, Disconnect) and what the game and the
// renderer read. The handshake is in handshake.go, the connected session's
// messages in session.go, prediction, smoothing and commands in predict.go.

import (
	"errors"
	"fmt"
	"iter"
	"net/netip"
	"time"

	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/clienthook"
	"github.com/snapwire/snapwire/internal/netchan"
	"github.com/snapwire/snapwire/internal/session"
	"github.com/snapwire/snapwire/internal/snapshot"
	"github.com/snapwire/snapwire/internal/tokenwire"
	"github.com/snapwire/snapwire/internal/usercmd"
	"github.com/snapwire/snapwire/token"
)

// Sender sends one UDP datagram to an address; pkt is valid only during
// the call. The client sends every packet through one: a UDP socket in its
// Runner, a simulated network (package netsim) in tests. The server's
// Sender has the same method, so one value can serve both.
type Sender interface {
	Send(to netip.AddrPort, pkt []byte)
}

// SendFunc adapts a function to Sender.
type SendFunc func(to netip.AddrPort, pkt []byte)

// Send implements Sender.
func (f SendFunc) Send(to netip.AddrPort, pkt []byte) { f(to, pkt) }

// InputSource produces the local player's command for frame in.Frame (a
// human's input or a bot), told which client it serves and that client's
// player entity (Input). It is called once per client frame, on the
// goroutine that owns the client, before the frame is predicted; the
// client's world holds the state of frame in.Frame-1.
type InputSource interface {
	Command(in Input) game.UserCmd
}

// InputFunc adapts a function to InputSource.
type InputFunc func(in Input) game.UserCmd

// Command implements InputSource.
func (f InputFunc) Command(in Input) game.UserCmd { return f(in) }

// Positioner is implemented by entities that have a position; the client
// uses it for prediction statistics and render smoothing.
type Positioner interface {
	Position() (x, y, z float32)
}

// Interpolator is implemented by entities of game.Interpolate (and
// game.PredictOwner) types: set the receiver to the state frac (0..1) of
// the way from from to to (two snapshot states of the entity, of the
// receiver's type). Without it the entity shows the newer snapshot state.
type Interpolator interface {
	Interpolate(from, to game.Entity, frac float32)
}

// Config configures a client. Zero fields take the defaults in brackets.
type Config struct {
	Name, Password string
	// CmdRate is the number of command messages per second [60].
	CmdRate int
	// PacketDup is how many earlier packets' worth of commands each
	// message repeats when they are not known to have arrived [2, so a
	// command rides in 3 packets] (Quake 3's cl_packetdup).
	PacketDup int
	// Timeout: the server is considered gone after this long in silence
	// [the Token's timeout, else 10s].
	Timeout time.Duration
	// ConnectTimeout: Connect gives up after this long without an
	// accept [10s].
	ConnectTimeout time.Duration
	// Token is the connect token a secure server requires (package token):
	// its private part rides in connect, and its session keys encrypt the
	// channel. Without it the client uses the insecure handshake.
	Token *token.Token
	// Match is the match to join on a server that hosts many
	// (server.Host): an insecure server routes the connect by it; a
	// connect token names its own match, and this is then ignored by the
	// server; empty: the default match. At most 32 bytes of printable
	// ASCII without spaces, such as "duel-17" (New refuses others).
	Match string
	// SmoothDecay is the fraction of the render correction offset kept
	// per frame [0.85: half gone in about 4 frames].
	SmoothDecay float32
	// CoarseStep, 2 or more, re-predicts in steps of this many frames
	// (DOOM III §8, coarse.go) when a snapshot leaves frames to re-predict and the game implements game.CoarseStepper: the
	// local player's entity still runs every frame, the others advance
	// CoarseStep frames at a time. 0 or 1 re-predicts frame by frame [off].
	CoarseStep int
	// OnMessage receives the server's game messages (server.Server
	// SendMessage and BroadcastMessage) in the order it sent them, on the
	// goroutine that runs the client, as the packet that completes them
	// is handled. m is the client's scratch message of its type, valid only
	// during the call: copy what you keep. Nil discards them.
	OnMessage func(m game.Message)

	// hooks are the internal settings and callbacks of package
	// internal/clienthook (tests, harnesses, tools).
	hooks clienthook.Hooks
}

func (c *Config) defaults() {
	if c.CmdRate <= 0 {
		c.CmdRate = 60
	}
	if c.PacketDup < 0 {
		c.PacketDup = 0
	} else if c.PacketDup == 0 {
		c.PacketDup = 2
	}
	h := &c.hooks
	if h.LeadWindow <= 0 {
		h.LeadWindow = time.Second
	}
	if h.MaxSlew <= 0 || h.MaxSlew > 0.9 {
		h.MaxSlew = 0.2
	}
	if h.JumpThreshold <= 0 {
		h.JumpThreshold = 250 * time.Millisecond
	}
	if c.Timeout <= 0 {
		c.Timeout = 10 * time.Second
	}
	if h.ConnectRetry <= 0 {
		h.ConnectRetry = 500 * time.Millisecond
	}
	if c.ConnectTimeout <= 0 {
		c.ConnectTimeout = 10 * time.Second
	}
	if c.SmoothDecay <= 0 || c.SmoothDecay >= 1 {
		c.SmoothDecay = 0.85
	}
	if h.PredictionWindow <= 0 {
		h.PredictionWindow = 256
	}
}

// State is the connection state.
type State uint8

// Connection states.
const (
	Idle         State = iota // before Connect
	Challenging               // getchallenge sent
	Connecting                // connect sent
	Connected                 // accepted
	Disconnected              // refused, timed out, dropped or left (Err says why)
)

func (s State) String() string {
	names := [...]string{"idle", "challenging", "connecting", "connected", "disconnected"}
	if int(s) < len(names) {
		return names[s]
	}
	return fmt.Sprintf("state %d", uint8(s))
}

// Errors.
var (
	ErrTimeout        = errors.New("client: server timed out")
	ErrConnectTimeout = errors.New("client: no answer to connect")
	ErrNotConnected   = errors.New("client: not connected")
	// ErrProtocol: the server broke the protocol in a way that would cost
	// the client unbounded work (a snapshot frame that goes back or jumps
	// far ahead, endless game reloads); the client disconnects.
	ErrProtocol = errors.New("client: server broke the protocol")
)

// NoAnswerError says that the handshake got no answer within
// Config.ConnectTimeout, with the likely causes. errors.Is(err,
// ErrConnectTimeout) holds for it.
type NoAnswerError struct {
	Server netip.AddrPort
	After  time.Duration // the connect timeout
	// State is Challenging when nothing answered at all, Connecting when
	// the server sent a challenge but did not answer the connect.
	State State
}

func (e *NoAnswerError) Error() string {
	if e.State == Connecting {
		return fmt.Sprintf("client: %s answered the challenge but not the connect in %v: the server stopped answering, or its answers are lost", e.Server, e.After)
	}
	return fmt.Sprintf("client: no answer from %s after %v: is a snapwire server running there? is the port right? a firewall?", e.Server, e.After)
}

// Is makes errors.Is(err, ErrConnectTimeout) true.
func (e *NoAnswerError) Is(target error) bool { return target == ErrConnectTimeout }

// Quake3Error says that a Quake 3 server answered the handshake: the
// address is a Quake 3 (ioq3, OpenArena) server's, not a snapwire one's.
type Quake3Error struct {
	Server netip.AddrPort
	Reply  string // the command of its answer: "challengeResponse", "print", ...
}

func (e *Quake3Error) Error() string {
	return fmt.Sprintf("client: %s is a Quake 3 server (it answered %q), not a snapwire server: \"snapwire q3 connect %s\" speaks its protocol",
		e.Server, e.Reply, e.Server)
}

// RefusedError is the server's refusal or disconnect reason.
type RefusedError struct {
	Reason Reason
	// Detail names, for ReasonWrongRegistry, the client's entity type (or
	// state) and the first of its fields that differ from the server's:
	// `entity type "arena.Player" field "Health" differs (client: "Health
	// int[0,100]")`; empty when the server's registry was too large to
	// describe or the difference is not found.
	Detail string
}

func (e *RefusedError) Error() string {
	if e.Detail != "" {
		return "client: server: " + e.Reason.String() + ": " + e.Detail
	}
	return "client: server: " + e.Reason.String()
}

const (
	cmdRing  = 256
	sentRing = 64
)

type ownCmd struct {
	cmd   game.UserCmd
	shift time.Duration // clock shift when the command was sampled
	valid bool
}

type sentRec struct {
	seq            netchan.Sequence
	firstNew, last game.Frame
}

type leadSample struct {
	at time.Duration
	v  time.Duration
}

// dormant is an entity out of the PVS, kept aside with its last state
// (live), or a spare object kept for the next time (not live).
type dormant struct {
	typ  game.TypeID
	ent  game.Entity
	live bool
}

// putter is implemented by worlds that store the entity objects they are
// given (game.EntityTable): the client then moves an entity that leaves the
// PVS out of the world as it is and puts it back when it re-enters, so PVS
// changes allocate nothing. Other worlds (which own their entities'
// storage) get a copy kept aside and a Spawn on re-entry.
type putter interface {
	Put(n game.EntityNum, typ game.TypeID, e game.Entity) error
}

type interpState struct {
	a, b       game.Entity
	fa, fb     game.Frame // snapshot frames of a and b
	arrived    game.Frame // client frame when b arrived
	have       int        // 1: only b, 2: both
	typ        game.TypeID
	lastUpdate snapshot.Seq
}

type posRec struct {
	n       game.EntityNum
	x, y, z float32
	// behind is how many frames (fractional) before its frame the state
	// shown is from: 0 for a predicted entity, the interpolation delay for
	// an interpolated one (ShownTime).
	behind float32
}

type predFrame struct {
	frame game.Frame
	pos   []posRec
}

// Client is the I/O-free client core. One goroutine calls Connect,
// HandlePacket and Advance with the current virtual time; packets leave
// through the Sender.
type Client struct {
	cfg   Config
	g     game.Game
	reg   *game.Registry
	input InputSource
	send  Sender

	state   State
	err     error
	server  netip.AddrPort
	nonce   uint64
	cookie  session.Cookie
	retryAt time.Duration
	// refusal is the last refusal of this handshake, lasting the first
	// lasting one, believed at believeAt (0: none yet) unless an
	// authenticated accept comes first (handshake.go).
	refusal, lasting session.Reason
	believeAt        time.Duration
	// lastingDetail names what differs when lasting is a wrong registry
	// (session.ExplainRegistry; RefusedError.Detail).
	lastingDetail string
	// quake3 is the command of a Quake 3 server's answer (a client with
	// a token believes it at believeAt, as a plain refuse).
	quake3   string
	deadline time.Duration
	tries    int // handshake packets sent in the current state
	lastRecv time.Duration
	lastNow  time.Duration

	// Session.
	ch       *netchan.Channel
	me       game.ClientNum
	gameID   game.GameID
	settings string
	frameDur time.Duration
	dec      *snapshot.Decoder
	// lastApply is the sequence of the last "apply S" received in this
	// game: applies arrive as the distance from it (session.Apply).
	lastApply snapshot.Seq
	snap      snapshot.Snapshot
	codec     *snapshot.StateCodec
	r         bitmsg.Reader
	w         bitmsg.Writer
	buf       []byte
	oob       []byte

	// Prediction and clock (DOOM III §2, fig. 4 and 5).
	clockSet  bool
	clock     time.Duration // the client's game clock
	cf        game.Frame    // frame of the world's state
	shift     time.Duration // total clock correction applied
	pending   time.Duration // correction still to apply
	target    time.Duration
	cmds      [cmdRing]ownCmd
	lastCmd   game.UserCmd
	firstCmd  game.Frame
	leads     []leadSample
	others    []game.PlayerCmd
	tickCmds  []game.PlayerCmd
	tick      game.Tick
	pvs       snapshot.PVS
	haveSnap  bool
	snapSeq   snapshot.Seq
	snapFrame game.Frame
	// loads counts game loads since loadsStart (maxLoads per loadWindow).
	loads      int
	loadsStart time.Duration
	dormant    *[game.MaxEntities]dormant
	interp     map[game.EntityNum]*interpState
	scratch    []game.EntityNum
	// modes overrides the registry's prediction mode by type id
	// (SetTypeMode); modeUnset where the registry's applies.
	modes []game.PredictionMode

	// Commands.
	nextSend     time.Duration
	sent         [sentRing]sentRec
	sentN        int
	knownArrived game.Frame
	lastSentLast game.Frame
	msg          usercmd.Message

	// Smoothing and statistics.
	offsets *smoothing
	before  []posRec // positions shown before a snapshot's correction
	preds   []predFrame
	stats   clienthook.Counters
	// predSelf and predOthers are Stats.Self and Stats.Others.
	predSelf, predOthers PredictionError
	evbuf                [game.MaxEventBytes]byte
	evr                  bitmsg.Reader
	relEv                game.Event
	emitFn               func([]byte) // c.emit, bound once (a method value allocates)
	// pathChallenge is the server's last path challenge, echoed after the
	// packet that carried it when pathDue.
	pathChallenge uint64
	pathDue       bool
	pathBuf       [session.ClientHeaderLen + session.PathChallengeLen]byte

	// Game messages (messages.go).
	msgs   *session.GameMessages
	inMsgs clientMessages
}

// Stats are the client's figures a game shows (a net graph, a HUD line):
// the connection, the frames, snapshots received and lost, the prediction
// error and the channel's round trip and bytes. The tests and tools read
// more (internal/clienthook's Counters).
type Stats struct {
	State       State
	Frame       game.Frame // the client's predicted frame
	ServerFrame game.Frame // frame of the last snapshot
	// Lead is the server's last report of how early commands arrive (DOOM
	// III §2, fig. 4): the client's clock aims to keep it small and
	// positive.
	Lead              time.Duration
	SnapshotsReceived uint64
	SnapshotsLost     uint64 // sequence gaps (lost or dropped late; the server counts skipped ones)
	// Prediction error at snapshot frames: the distance between the
	// position predicted for the frame (recorded when the client first
	// reached it) and the snapshot's; Self for the local player and the
	// entities it owns (game.PredictOwner), Others for every other
	// predicted entity with a position.
	Self, Others PredictionError
	// RTT is the channel's smoothed round-trip time (RFC 6298 smoothing;
	// it includes the time the server waits before its next packet), zero
	// until an acknowledgement; BytesIn and BytesOut count the UDP payload
	// bytes received and sent (without the 28 of UDP/IP).
	RTT               time.Duration
	BytesIn, BytesOut uint64
}

// PredictionError accumulates prediction errors.
type PredictionError struct {
	Samples, Wrong uint64 // compared positions; those not exactly equal
	Sum, Max       float64
}

func (p *PredictionError) add(d float64) {
	p.Samples++
	if d != 0 {
		p.Wrong++
	}
	p.Sum += d
	if d > p.Max {
		p.Max = d
	}
}

// Mean is the mean error.
func (p PredictionError) Mean() float64 {
	if p.Samples == 0 {
		return 0
	}
	return p.Sum / float64(p.Samples)
}

// New returns a client for game g (not yet loaded: the server says which
// map) fed by input, sending through send.
func New(cfg Config, g game.Game, input InputSource, send Sender) (*Client, error) {
	if cfg.Timeout <= 0 && cfg.Token != nil {
		cfg.Timeout = tokenwire.Of(cfg.Token).Timeout // the session timeout the server applies too
	}
	cfg.defaults()
	if g == nil || input == nil || send == nil {
		return nil, fmt.Errorf("client: game, input and sender are required")
	}
	if err := tokenwire.CheckMatch(cfg.Match); err != nil {
		return nil, fmt.Errorf("client: Config.Match: %w", err)
	}
	c := &Client{
		cfg: cfg, g: g, reg: g.Registry(), input: input, send: send,
		codec:   snapshot.NewStateCodec(),
		buf:     make([]byte, 4096),
		dormant: new([game.MaxEntities]dormant),
		interp:  make(map[game.EntityNum]*interpState),
		offsets: new(smoothing),
		preds:   make([]predFrame, cfg.hooks.PredictionWindow),
		msgs:    session.NewGameMessages(g.Registry()),
	}
	c.emitFn = c.emit
	return c, nil
}

// State is the connection state; Err says why it is Disconnected.
func (c *Client) State() State { return c.state }

// Err is the reason the client is disconnected (nil after Disconnect).
func (c *Client) Err() error { return c.err }

// ClientNum is the slot the server gave this client.
func (c *Client) ClientNum() game.ClientNum { return c.me }

// GameID is the game the client has loaded.
func (c *Client) GameID() game.GameID { return c.gameID }

// Settings are the loaded game's settings.
func (c *Client) Settings() string { return c.settings }

// Frame is the frame of the client's predicted world.
func (c *Client) Frame() game.Frame { return c.cf }

// FrameFraction is how far the game clock has moved into the frame after
// Frame, 0..1: a renderer drawing faster than the game's frame rate
// blends each entity's positions of the last two frames by it.
func (c *Client) FrameFraction() float32 {
	if !c.clockSet || c.frameDur <= 0 {
		return 1
	}
	f := float32(c.clock-time.Duration(c.cf)*c.frameDur) / float32(c.frameDur)
	return min(max(f, 0), 1)
}

// Visible yields the entities of the last snapshot's PVS in ascending
// order (the PVS without copying it).
func (c *Client) Visible() iter.Seq[game.EntityNum] { return c.pvs.All() }

// InPVS reports whether entity n is in the last snapshot's PVS.
func (c *Client) InPVS(n game.EntityNum) bool { return c.pvs.Has(n) }

// copyBase is clienthook.CopyBase.
func (c *Client) copyBase(dst *snapshot.CommonBase) bool {
	if c.dec == nil {
		return false
	}
	dst.CopyFrom(c.dec.Base())
	return true
}

// BaseHash is the hash of the client's common base (the server's
// Server.BaseHash of this client is the same once both applied the same
// snapshot); false before the game is loaded.
func (c *Client) BaseHash() (uint64, bool) {
	if c.dec == nil {
		return 0, false
	}
	return c.dec.Base().Hash(), true
}

// Entity returns entity n as the client knows it: from the world when in
// the PVS (visible), else its last known state kept aside (dormant: out
// of the PVS, still receiving events). Before the server's game is loaded
// the client knows none (the game's world may not exist yet).
func (c *Client) Entity(n game.EntityNum) (e game.Entity, typ game.TypeID, visible bool) {
	if c.dec == nil {
		return nil, game.NoType, false
	}
	if e, typ := c.g.Entity(n); e != nil {
		return e, typ, c.pvs.Has(n)
	}
	if int(n) < len(c.dormant) && c.dormant[n].live {
		return c.dormant[n].ent, c.dormant[n].typ, false
	}
	return nil, game.NoType, false
}

// Stats returns the client's statistics.
func (c *Client) Stats() Stats {
	st := Stats{
		State: c.state, Frame: c.cf, ServerFrame: c.snapFrame, Lead: c.stats.Lead,
		SnapshotsReceived: c.stats.SnapshotsReceived, SnapshotsLost: c.stats.SnapshotsLost,
		Self: c.predSelf, Others: c.predOthers,
	}
	if c.ch != nil {
		ch := c.ch.Stats()
		st.RTT, st.BytesIn, st.BytesOut = ch.RTT, ch.BytesIn, ch.BytesOut
	}
	return st
}

// counters is clienthook.CountersOf.
func (c *Client) counters() clienthook.Counters {
	st := c.stats
	st.ClockShift = c.shift
	return st
}

func (c *Client) channelStats() netchan.Stats {
	if c.ch == nil {
		return netchan.Stats{}
	}
	return c.ch.Stats()
}

// modeUnset marks a type without an override in Client.modes.
const modeUnset game.PredictionMode = 0xff

// SetTypeMode overrides, on this client only, the prediction mode the
// registry gives entity type t: game.Interpolate shows the type's entities
// between the last two snapshots (Quake 3 style), game.Predict runs the
// game code for them (DOOM III §2), game.PredictOwner predicts those this
// client owns (game.Owned) and interpolates the others. It takes effect at
// the next snapshot and may be switched at any time, for example to compare predicted and
// interpolated opponents (DOOM III §8). The local player's own entity is
// always predicted, whatever its type's mode. Nothing changes on the wire:
// the registry hash the server checks is the registry's. Entities
// without an Interpolator show the newer snapshot state.
func (c *Client) SetTypeMode(t game.TypeID, m game.PredictionMode) {
	if t == game.NoType || t > game.MaxTypeID || m > game.PredictOwner {
		return
	}
	if int(t) >= len(c.modes) {
		old := len(c.modes)
		c.modes = append(c.modes, make([]game.PredictionMode, int(t)+1-old)...)
		for i := old; i < len(c.modes); i++ {
			c.modes[i] = modeUnset
		}
	}
	c.modes[t] = m
	// A type switched either way restarts its interpolation from the
	// next two snapshots rather than from states kept since long ago.
	for _, is := range c.interp {
		if is.typ == t {
			is.have = 0
		}
	}
}

// TypeMode is the prediction mode this client uses for type t: the
// override set with SetTypeMode, else the registry's.
func (c *Client) TypeMode(t game.TypeID) game.PredictionMode {
	if int(t) < len(c.modes) && c.modes[t] != modeUnset {
		return c.modes[t]
	}
	return c.reg.Mode(t)
}

// mode is the prediction mode of entity n of type t, e in the world (nil
// when not there): Predict or Interpolate, PredictOwner resolved by
// ownerMode. The local player's entity is always predicted.
func (c *Client) mode(n game.EntityNum, t game.TypeID, e game.Entity) game.PredictionMode {
	m := c.reg.Mode(t)
	if c.modes != nil {
		if me, ok := c.g.PlayerEntity(c.me); ok && me == n {
			return game.Predict
		}
		m = c.TypeMode(t)
	}
	if m == game.PredictOwner {
		return c.ownerMode(n, e)
	}
	return m
}

// Next is when the client next has something to do (a frame, a command
// message, a retry); a driver may call Advance earlier.
func (c *Client) Next() time.Duration {
	switch c.state {
	case Challenging, Connecting:
		if c.believeAt != 0 {
			return min(c.retryAt, c.believeAt)
		}
		return c.retryAt
	case Connected:
		n := c.nextSend
		if c.clockSet {
			ahead := time.Duration(c.cf+1)*c.frameDur - c.clock
			if t := c.lastNow + time.Duration(float64(ahead)/(1+c.cfg.hooks.MaxSlew)); t < n {
				n = t
			}
		}
		if n <= c.lastNow {
			n = c.lastNow + time.Millisecond
		}
		return n
	}
	return c.lastNow + time.Second
}

// Disconnect leaves the server cleanly: a reliable disconnect message in
// three packets (nothing waits for the acknowledgement).
func (c *Client) Disconnect(now time.Duration) {
	if c.state == Connected && c.ch.QueueReliable(session.Disconnect{Reason: session.ReasonClientLeft}.Append(nil)) == nil {
		for range 3 {
			c.ch.Send(now, netchan.TypeNone, nil, c.emitFn)
		}
	}
	c.state = Disconnected
	c.err = nil
}

func (c *Client) emit(p []byte) { c.send.Send(c.server, p) }

func (c *Client) fail(err error) {
	c.state = Disconnected
	c.err = err
}

// Advance moves the client to now: handshake retries, the game clock and
// the frames it makes due (each samples a command and predicts, DOOM III
// §2), the command messages due, and the timeout.
func (c *Client) Advance(now time.Duration) {
	if now < c.lastNow {
		now = c.lastNow
	}
	switch c.state {
	case Challenging, Connecting:
		c.handshakeTimers(now)
		c.lastNow = now
		return
	case Connected:
	default:
		c.lastNow = now
		return
	}
	c.advanceClock(now)
	// A message goes out one interval after the previous one, or as soon as
	// three quarters of it have passed when a new command was sampled, so
	// commands leave right after they are sampled (their lead is not
	// quantised by a send schedule out of phase with the frames).
	iv := time.Second / time.Duration(c.cfg.CmdRate)
	if now >= c.nextSend || (c.cf > c.lastSentLast && now >= c.nextSend-iv/4) {
		c.sendCommands(now)
		c.nextSend = now + iv
	}
	if now-c.lastRecv > c.cfg.Timeout {
		c.fail(ErrTimeout)
	}
}

// HandlePacket processes one datagram from the server.
func (c *Client) HandlePacket(now time.Duration, pkt []byte) {
	if now < c.lastNow {
		now = c.lastNow
	}
	if c.state == Connected {
		c.advanceClock(now) // frames due before this packet run first
	}
	if netchan.IsConnectionless(pkt) {
		c.handleConnectionless(now, pkt[4:])
		return
	}
	if c.state != Connected {
		return
	}
	before := c.ch.LastReceivedSequence()
	err := c.ch.Receive(now, pkt, (*handler)(c))
	c.deliverMessages(now)
	if err != nil {
		return
	}
	if c.ch.LastReceivedSequence() != before {
		c.lastRecv = now
	}
	if c.pathDue && c.state == Connected {
		// The server checks that we receive at the address it now sees
		// (docs/PROTOCOL.md, "NAT"): echo its challenge at once.
		c.pathDue = false
		h := session.ClientHeader{GameID: c.gameID}
		if c.haveSnap {
			h.Ack = c.snapSeq
		}
		c.ch.Send(now, session.TypePathResponse, session.AppendPathResponse(c.pathBuf[:0], h, c.pathChallenge), c.emitFn)
		c.stats.PathResponses++
	}
}
