package loadgen

// The light client's core: the handshake (DOOM III §3; docs/PROTOCOL.md,
// "Session protocol"), the channel's messages, snapshots decoded against
// the client's common base and acknowledged (§4.2, §5), and command
// messages (§3.3, fig. 11). No game code runs.

import (
	crand "crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"time"

	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/netchan"
	"github.com/snapwire/snapwire/internal/session"
	"github.com/snapwire/snapwire/internal/snapshot"
	"github.com/snapwire/snapwire/internal/tokenwire"
	"github.com/snapwire/snapwire/internal/usercmd"
	"github.com/snapwire/snapwire/token"
)

// Config configures a light client. Zero fields take the defaults in
// brackets (those of client.Config).
type Config struct {
	Name, Password string
	// Token is the client's connect token for a secure server; nil: the
	// insecure handshake.
	Token *token.Token
	// Match is the match to join on a server that hosts many, sent in
	// the connect as client.Config.Match is (with a token too: the server
	// decides); empty: the default match.
	Match string
	// CmdRate is the number of command messages per second [60].
	CmdRate int
	// Timeout ends a session after this long without a packet [the
	// token's timeout, else 10 s]; ConnectTimeout ends a handshake
	// without an accept [10 s]; ConnectRetry is the handshake's resend
	// interval [500 ms].
	Timeout, ConnectTimeout, ConnectRetry time.Duration
	// Seed varies the commands between clients (the direction each player
	// runs in).
	Seed uint32
}

func (c *Config) defaults() {
	if c.CmdRate <= 0 {
		c.CmdRate = 60
	}
	if c.Timeout <= 0 && c.Token != nil {
		c.Timeout = tokenwire.Of(c.Token).Timeout
	}
	if c.Timeout <= 0 {
		c.Timeout = 10 * time.Second
	}
	if c.ConnectTimeout <= 0 {
		c.ConnectTimeout = 10 * time.Second
	}
	if c.ConnectRetry <= 0 {
		c.ConnectRetry = 500 * time.Millisecond
	}
}

// State is a light client's connection state.
type State uint8

// Connection states.
const (
	Idle         State = iota // before Connect
	Challenging               // getchallenge sent
	Connecting                // connect sent
	Connected                 // accepted
	Disconnected              // refused, timed out, dropped or left (Err says why)
)

var stateNames = [...]string{"idle", "challenging", "connecting", "connected", "disconnected"}

func (s State) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return fmt.Sprintf("state(%d)", uint8(s))
}

// Errors that end a light client's session.
var (
	ErrTimeout        = errors.New("loadgen: server timed out")
	ErrConnectTimeout = errors.New("loadgen: no accept within the connect timeout")
	ErrProtocol       = errors.New("loadgen: protocol violation by the server")
)

// RefusedError is a refusal the client believed.
type RefusedError struct{ Reason session.Reason }

func (e *RefusedError) Error() string { return "loadgen: refused: " + e.Reason.String() }

// Stats are a light client's counters.
type Stats struct {
	State State
	// ConnectedAt is when the server accepted (0: never); FirstSnapshot
	// and LastSnapshot when the first and last snapshots arrived.
	ConnectedAt, FirstSnapshot, LastSnapshot time.Duration
	// SnapshotsReceived counts snapshots decoded; SnapshotsLost the
	// sequence numbers they skipped (DOOM III §5).
	SnapshotsReceived, SnapshotsLost uint64
	// Applies counts apply messages applied to the common base;
	// BaseChecks those that carried the server's base hash, and
	// BaseMismatches those whose hash differed from ours.
	Applies, BaseChecks, BaseMismatches uint64
	DecodeErrors, ApplyErrors           uint64
	CommandsSent, CommandPackets        uint64
	Refusals                            uint64
	// BytesIn and BytesOut are the channel's UDP payload bytes;
	// SnapshotBytes the snapshot bodies among them, decompressed.
	BytesIn, BytesOut, SnapshotBytes uint64
	// RTT is the channel's smoothed round-trip time.
	RTT time.Duration
}

// Client is a light client: I/O-free, driven by Connect, HandlePacket and
// Advance with the caller's now. Not safe for concurrent use.
type Client struct {
	cfg    Config
	bases  *Bases
	tok    *tokenwire.Token
	send   session.Sender
	server netip.AddrPort
	emitFn func([]byte)

	state             State
	err               error
	nonce             uint64
	cookie            session.Cookie
	retryAt, deadline time.Duration
	// refusal is the last transient refusal, named at the connect timeout.
	refusal session.Reason

	ch       *netchan.Channel
	me       game.ClientNum
	frameDur time.Duration
	gameID   game.GameID
	dec      *snapshot.Decoder
	// lastApply is the last apply message's sequence (apply messages are
	// delta-coded against it).
	lastApply snapshot.Seq
	loads     int
	loadsAt   time.Duration

	snap      snapshot.Snapshot
	r         bitmsg.Reader
	w         bitmsg.Writer
	haveSnap  bool
	snapSeq   snapshot.Seq
	snapFrame game.Frame
	snapAt    time.Duration // when the last snapshot arrived

	// cf is the newest frame commanded; sentHi the newest frame of each of
	// the last packetDup+1 command messages (a ring), so a message
	// repeats the commands of the packetDup before it, like the client's.
	cf     game.Frame
	sentHi [packetDup + 1]game.Frame
	sentN  int
	msg    usercmd.Message

	nextSend, lastRecv, lastNow time.Duration
	pathDue                     bool
	pathChallenge               uint64

	oob   []byte
	buf   [1024]byte
	stats Stats
}

// packetDup is how many earlier messages' commands each command message
// repeats (client.Config.PacketDup's default, Quake 3's cl_packetdup).
const packetDup = 2

// Game reloads a server may ask for: at most maxLoads per loadWindow (the
// client's bound: a server asking for one load after another is hostile).
const (
	maxLoads   = 8
	loadWindow = 10 * time.Second
)

// New returns a light client of the game whose map bases b builds, sending
// through send.
func New(cfg Config, b *Bases, send session.Sender) (*Client, error) {
	if b == nil || send == nil {
		return nil, errors.New("loadgen: bases and sender are required")
	}
	if err := tokenwire.CheckMatch(cfg.Match); err != nil {
		return nil, fmt.Errorf("loadgen: Config.Match: %w", err)
	}
	cfg.defaults()
	c := &Client{cfg: cfg, bases: b, send: send}
	if cfg.Token != nil {
		c.tok = tokenwire.Of(cfg.Token)
	}
	c.emitFn = c.emit
	return c, nil
}

// State is the connection state; Err says why it is Disconnected.
func (c *Client) State() State { return c.state }

// Err is the reason the client is disconnected (nil after Disconnect).
func (c *Client) Err() error { return c.err }

// ClientNum is the slot the server gave the client.
func (c *Client) ClientNum() game.ClientNum { return c.me }

// Stats returns the client's counters.
func (c *Client) Stats() Stats {
	s := c.stats
	s.State = c.state
	if c.ch != nil {
		cs := c.ch.Stats()
		s.BytesIn, s.BytesOut, s.RTT = cs.BytesIn, cs.BytesOut, cs.RTT
	}
	return s
}

// Connect starts the handshake with the server at addr.
func (c *Client) Connect(now time.Duration, addr netip.AddrPort) {
	c.server = addr
	var nonce [8]byte
	_, _ = crand.Read(nonce[:]) // unguessable, so an off-path attacker cannot answer
	c.nonce = binary.LittleEndian.Uint64(nonce[:])
	c.state, c.err, c.refusal = Challenging, nil, session.ReasonNone
	c.deadline = now + c.cfg.ConnectTimeout
	c.lastNow = now
	c.sendHandshake(now)
}

func (c *Client) emit(p []byte) { c.send.Send(c.server, p) }

func (c *Client) fail(err error) {
	c.state, c.err = Disconnected, err
}

func (c *Client) sendHandshake(now time.Duration) {
	c.retryAt = now + c.cfg.ConnectRetry
	var payload []byte
	switch c.state {
	case Challenging:
		payload = session.GetChallenge{Nonce: c.nonce}.Append(c.buf[:0])
	case Connecting:
		m := session.Connect{
			Nonce: c.nonce, Cookie: c.cookie, Version: session.Version,
			RegistryHash: c.bases.reg.Hash(), Password: c.cfg.Password, Name: c.cfg.Name,
			Match: c.cfg.Match,
		}
		if c.tok != nil {
			m.Token = c.tok.AppendPrivate(nil)
		}
		payload = m.Append(c.buf[:0])
	default:
		return
	}
	c.oob = netchan.AppendConnectionless(c.oob[:0], payload)
	c.emit(c.oob)
}

// handshaking reports whether the client waits for an answer to its
// handshake.
func (c *Client) handshaking() bool { return c.state == Challenging || c.state == Connecting }

// handleConnectionless takes a handshake answer. Like client.Client, a
// client with a token believes only sealed answers, and a plain refuse
// only when it has no token (docs/PROTOCOL.md, "Attacks"); a light client
// takes every refusal but a transient one as final, without the client's
// wait for a sealed answer.
func (c *Client) handleConnectionless(now time.Duration, p []byte) {
	kind, ok := session.ConnectionlessKind(p)
	if !ok || !c.handshaking() {
		return
	}
	switch kind {
	case session.KindChallenge:
		m, err := session.ParseChallenge(p)
		if err != nil || m.Nonce != c.nonce || c.state != Challenging {
			return
		}
		c.cookie, c.state = m.Cookie, Connecting
		c.sendHandshake(now)
	case session.KindAccept:
		m, err := session.ParseAccept(p)
		if c.tok != nil || err != nil || m.Nonce != c.nonce {
			return
		}
		c.accepted(now, m, nil)
	case session.KindSealedAccept:
		if n, ok := session.SealedAcceptNonce(p); c.tok == nil || !ok || n != c.nonce {
			return
		}
		m, err := session.OpenSealedAccept(p, &c.tok.ServerToClientKey)
		if err != nil {
			return
		}
		c2s, s2c := tokenwire.SessionKeys(&c.tok.ClientToServerKey, &c.tok.ServerToClientKey, &m.Random, c.nonce)
		c.accepted(now, m.Accept, &netchan.Keys{Send: c2s, Recv: s2c})
	case session.KindRefuse:
		m, err := session.ParseRefuse(p)
		if c.tok != nil || err != nil || m.Nonce != c.nonce {
			return
		}
		c.refused(now, m.Reason)
	case session.KindSealedRefuse:
		if c.tok == nil {
			return
		}
		if m, err := session.OpenSealedRefuse(p, &c.tok.ServerToClientKey); err == nil && m.Nonce == c.nonce {
			c.refused(now, m.Reason)
		}
	}
}

// refused retries a refusal that may go away by itself (a slot frees, an
// address's attempt budget refills, a cookie expired) until the connect
// timeout, and fails on any other.
func (c *Client) refused(now time.Duration, why session.Reason) {
	c.stats.Refusals++
	c.refusal = why
	switch why {
	case session.ReasonBadCookie:
		c.state = Challenging
		c.retryAt = now + 2*c.cfg.ConnectRetry
	case session.ReasonServerFull, session.ReasonTooManyAttempts, session.ReasonTooManyFromIP:
		c.retryAt = now + 2*c.cfg.ConnectRetry
	default:
		c.fail(&RefusedError{Reason: why})
	}
}

// accepted opens the session, with the session keys of a sealed accept
// (nil: insecure).
func (c *Client) accepted(now time.Duration, m session.Accept, keys *netchan.Keys) {
	c.me = m.Client
	c.frameDur = time.Duration(m.FrameDur) * time.Microsecond
	if c.frameDur <= 0 || c.frameDur > time.Second {
		c.fail(fmt.Errorf("%w: frame duration %v", ErrProtocol, c.frameDur))
		return
	}
	c.ch = netchan.New(netchan.Config{Keys: keys}, m.ConnID)
	c.state = Connected
	c.stats.ConnectedAt = now
	c.lastRecv, c.nextSend = now, now
	if err := c.loadGame(now, m.GameID, m.Settings); err != nil {
		c.fail(err)
	}
}

// loadGame takes the game the server names: a decoder whose common base
// is the map's (DOOM III §8), copied from the one Bases built.
func (c *Client) loadGame(now time.Duration, id game.GameID, settings string) error {
	if now-c.loadsAt > loadWindow {
		c.loadsAt, c.loads = now, 0
	}
	if c.loads++; c.loads > maxLoads {
		return fmt.Errorf("%w: %d game loads within %v", ErrProtocol, c.loads, loadWindow)
	}
	base, err := c.bases.get(settings)
	if err != nil {
		return err
	}
	// A new decoder: the old one's pending snapshots are of the old game.
	if c.dec, err = snapshot.NewDecoder(c.bases.reg); err != nil {
		return err
	}
	c.dec.Base().CopyFrom(base)
	c.gameID = id
	c.lastApply = 0 // the server resets its own when the client enters the game
	c.haveSnap, c.snapSeq, c.snapFrame, c.cf = false, 0, 0, 0
	c.sentHi, c.sentN = [packetDup + 1]game.Frame{}, 0
	return nil
}
