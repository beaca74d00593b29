// Package serverhook reaches what package server keeps out of its public
// API: the test hooks (OnFrame, OnApply), the reproducible seed, the
// clocks and the full channel configuration a harness sets, every
// counter the server keeps (the public server.Stats and
// server.ClientStats hold what an operator reads), and what only
// snapwire serve's Quake 3 face and its WebRTC transport use (the
// connectionless query hook and sends, the runner as a transport.Host).
// Tests, the match harness (internal/matchsim) and the tools (cmd/snapwire,
// cmd/internal/servermetrics, cmd/internal/rtc) use it; a game developer
// never does.
//
// Package server registers the functions below when it is initialised
// (it imports this package, so this one cannot name its types): cfg is a
// *server.Config, s a *server.Server and r a *server.Runner.
package serverhook

import (
	"net/netip"
	"time"

	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/netchan"
	"github.com/snapwire/snapwire/internal/snapshot"
	"github.com/snapwire/snapwire/internal/transport"
)

// Hooks are a server's internal settings. Zero fields take the defaults
// in brackets.
type Hooks struct {
	// OnFrame, if set, is called after every game frame (tests record the
	// authoritative states here).
	OnFrame func(f game.Frame)
	// OnApply, if set, is called when client c's acknowledgement of
	// snapshot seq has been applied to its base on the server (tests
	// compare the base with the client's after the same apply).
	OnApply func(c game.ClientNum, seq snapshot.Seq, base *snapshot.CommonBase)
	// Seed seeds game ids; with Deterministic it also derives Secret (when
	// nil) and seeds connection ids, for reproducible tests. Without
	// Deterministic the secret and the connection ids come from
	// crypto/rand, and so do game ids when Seed is 0.
	Seed          uint64
	Deterministic bool
	// Secret keys the challenge cookie HMAC [32 bytes from crypto/rand].
	Secret []byte
	// WallClock tells Unix time for token expiry [time.Now]: the virtual
	// time the core runs on has no epoch.
	WallClock func() time.Time
	// Stopwatch, when set, is read before and after each frame and each
	// snapshot build to fill Stats.FrameTime and Stats.SnapshotBuildTime
	// (a runner passes a monotonic clock; nil: not timed). Nothing the
	// server does depends on it.
	Stopwatch func() time.Duration
	// OnConnectionless, if set, is called for every connectionless packet
	// that is not a snapwire handshake message (the first payload byte is
	// 0x20 or above), such as Quake 3's text queries "getinfo xxx" and
	// "getstatus xxx"; payload is what follows the FF FF FF FF prefix.
	// reply sends FF FF FF FF and p to from. payload and reply are valid
	// only during the call, which runs on the goroutine that owns the
	// server (the Runner's). The source address of a connectionless
	// packet is not verified: a handler that answers with more bytes than
	// it received lends itself to amplification (a Quake 3 server
	// rate-limits such queries per address).
	OnConnectionless func(now time.Duration, from netip.AddrPort, payload []byte, reply func(p []byte))
	// Channel is the configuration of every client's channel (MTU,
	// MaxReliableBytes, ...); a non-zero server.Config.Rate replaces its
	// Rate.
	Channel netchan.Config
}

// Stats are every server-wide counter (server.Stats holds the operator's
// subset).
type Stats struct {
	Frames      uint64
	Connects    uint64 // clients accepted
	Refused     uint64
	BadCookies  uint64
	Challenges  uint64
	Queries     uint64 // connectionless packets passed to Hooks.OnConnectionless
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
	// goroutines built (server.Advanced.SnapshotWorkers).
	ParallelSnapshotFrames uint64
	// Reservations counts the slots held for a silent secure client
	// (server.Advanced.ReconnectGrace), Resumes the sessions resumed in
	// them, and Reserved is the slots held now.
	Reservations, Resumes uint64
	Reserved              int
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
	// Hooks.Stopwatch.
	FrameTime, SnapshotBuildTime DurationHistogram
}

// ClientStats are all of one client's figures on the server
// (server.ClientStats holds the operator's subset).
type ClientStats struct {
	Num    game.ClientNum
	Name   string
	Addr   netip.AddrPort
	ConnID netchan.ConnID
	InGame bool // its messages carry the current game id
	// FramesRun counts frames run since its first command; CmdsEarly the
	// frames whose command had arrived before the server needed it;
	// Duplicated the frames that reused the previous command (DOOM III §2).
	FramesRun, CmdsEarly, Duplicated uint64
	// LateCmds counts commands that arrived after their frame ran.
	LateCmds uint64
	// Lead is the latest reported lead (minimum over a snapshot interval of
	// how early commands arrived, DOOM III §3.2).
	Lead time.Duration
	// ClientLead is how far the client says it predicts ahead (§3.3).
	ClientLead       time.Duration
	SnapshotsSent    uint64
	SnapshotsSkipped uint64 // the byte rate was used up (netchan.CanSend)
	SnapshotBits     uint64 // bits of snapshot bodies built
	LoadGameSent     uint64
	AcksApplied      uint64
	WrongGame        uint64 // messages carrying another game id
	// GameMessagesIn counts the game messages handed to Config.OnMessage,
	// GameMessagesOut those queued for the client, GameMessagesRefused
	// those SendMessage refused because its queue was full.
	GameMessagesIn, GameMessagesOut, GameMessagesRefused uint64
	// SnapshotsTrimmed counts the snapshots sent within the byte rate with
	// some entities held, EntitiesHeld those entities, BudgetRebuilds the
	// builds that overflowed the budget and were done again with fewer
	// (server/budget.go).
	SnapshotsTrimmed, EntitiesHeld, BudgetRebuilds uint64
	// Secure reports whether the session is encrypted (it connected with
	// a token); TokenClientID and UserData come from its token.
	Secure        bool
	TokenClientID uint64
	UserData      []byte
	// AddrPending: the address changed and the client has not yet echoed
	// the path challenge sent there (Addr is the new address).
	AddrPending bool
	Channel     netchan.Stats
}

// Funcs are what package server registers.
type Funcs struct {
	Edit     func(cfg any, f func(*Hooks))
	Stats    func(s any) Stats
	Client   func(s any, n game.ClientNum) (ClientStats, bool)
	Clients  func(s any) []ClientStats
	BaseHash func(s any, n game.ClientNum) (uint64, snapshot.Seq, bool)
	// SendConnectionless and Host: see the functions of the same names.
	SendConnectionless func(s any, to netip.AddrPort, payload []byte)
	Host               func(r any) transport.Host
}

var funcs Funcs

// Register is called by package server's init.
func Register(f Funcs) { funcs = f }

// Set gives cfg (a *server.Config) the hooks h, for the server New or
// Listen makes from it, in place of those it had.
func Set(cfg any, h Hooks) { funcs.Edit(cfg, func(old *Hooks) { *old = h }) }

// Edit calls f with the hooks of cfg (a *server.Config; zero if it has
// none), which f may change.
func Edit(cfg any, f func(h *Hooks)) { funcs.Edit(cfg, f) }

// With returns a copy of cfg (a server.Config, by value) with hooks h.
func With[C any](cfg C, h Hooks) C {
	Set(&cfg, h)
	return cfg
}

// ServerStats returns every server-wide counter of s (a *server.Server).
func ServerStats(s any) Stats { return funcs.Stats(s) }

// Client returns all of client n's figures on s (a *server.Server).
func Client(s any, n game.ClientNum) (ClientStats, bool) { return funcs.Client(s, n) }

// Clients returns all the figures of every connected client of s (a
// *server.Server), by slot.
func Clients(s any) []ClientStats { return funcs.Clients(s) }

// BaseHash returns the hash and sequence of client n's common base on s
// (a *server.Server).
func BaseHash(s any, n game.ClientNum) (uint64, snapshot.Seq, bool) { return funcs.BaseHash(s, n) }

// SendConnectionless sends a connectionless packet (0xFFFFFFFF, then
// payload) to to through the Sender of s (a *server.Server), from its
// socket: a Quake 3 master heartbeat, for one, which the master verifies
// by a getinfo to the address it came from (snapwire serve). Call it on
// the goroutine that owns s (server.Runner.Do).
func SendConnectionless(s any, to netip.AddrPort, payload []byte) {
	funcs.SendConnectionless(s, to, payload)
}

// Host returns r (a *server.Runner) as the host a second transport
// attaches to (internal/transport; the WebRTC data channels of
// cmd/internal/rtc): its Attach routes the server's sends to the
// transport's addresses and has the socket drop datagrams from them; it
// must be called before r runs, at most once. Its Inject hands the server
// a packet from an address of the attached transport, on the goroutine
// that owns it, as if the socket had read it: it copies pkt, never
// blocks, allocates nothing, is safe from any goroutine, and returns false
// when it drops the packet (no transport owns the address, the packet
// buffer pool is full or pkt is longer than a buffer, 2048 bytes).
func Host(r any) transport.Host { return funcs.Host(r) }

// DurationBuckets are the upper bounds (inclusive) of DurationHistogram's
// buckets: from 10 µs to 50 ms, about three a decade, for frame and
// snapshot build times (a 60 Hz frame has 16.7 ms).
var DurationBuckets = [...]time.Duration{
	10 * time.Microsecond, 25 * time.Microsecond, 50 * time.Microsecond,
	100 * time.Microsecond, 250 * time.Microsecond, 500 * time.Microsecond,
	time.Millisecond, 2500 * time.Microsecond, 5 * time.Millisecond,
	10 * time.Millisecond, 16667 * time.Microsecond, 50 * time.Millisecond,
}

// DurationHistogram counts durations in DurationBuckets: Counts[i] those
// in (DurationBuckets[i-1], DurationBuckets[i]], the last one those above
// every bound. Count and Sum cover them all. A fixed array: observing
// allocates nothing.
type DurationHistogram struct {
	Counts [len(DurationBuckets) + 1]uint64
	Count  uint64
	Sum    time.Duration
}

// Observe adds d.
func (h *DurationHistogram) Observe(d time.Duration) {
	i := 0
	for i < len(DurationBuckets) && d > DurationBuckets[i] {
		i++
	}
	h.Counts[i]++
	h.Count++
	h.Sum += d
}
