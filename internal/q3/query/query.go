package query

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/snapwire/snapwire/internal/q3/oob"
	"github.com/snapwire/snapwire/internal/ratelimit"
)

// maxChallenge is the longest challenge ioq3 echoes (SVC_Info drops longer).
const maxChallenge = 128

// maxReply bounds a reply: one unfragmented packet (ioq3 MAX_PACKETLEN).
const maxReply = 1400

// Player is one player of a statusResponse.
type Player struct {
	Name  string
	Score int
	Ping  int
	Bot   bool // bots do not count in g_humanplayers
}

// Status is what a server reports about itself.
type Status struct {
	Hostname   string
	MapName    string
	GameName   string // com_gamename: the game a browser filters on (default "Quake3Arena")
	Game       string // the mod directory ("baseoa"); optional
	Protocol   int
	MaxClients int
	GameType   int
	Pure       bool
	NeedPass   bool
	Players    []Player
	// Extra holds more serverinfo pairs for statusResponse (fraglimit,
	// timelimit, version...).
	Extra oob.Info
}

// Source is what a game server implements to be queried. QueryStatus
// fills st, which the Responder reuses (keep or overwrite Players' backing
// array as you like).
type Source interface {
	QueryStatus(st *Status)
}

// SourceFunc adapts a function to Source.
type SourceFunc func(st *Status)

// QueryStatus implements Source.
func (f SourceFunc) QueryStatus(st *Status) { f(st) }

// Rate limits of ioq3 SVC_Info / SVC_Status.
const (
	DefaultBurst        = 10          // requests an address may make at once
	DefaultPeriod       = time.Second // then one more per period
	DefaultGlobalBurst  = 10          // outboundLeakyBucket: 10 ...
	DefaultGlobalPeriod = 100 * time.Millisecond
	DefaultBuckets      = 4096 // per-address table size (a power of two)
)

// Config tunes a Responder; zero fields take the ioq3 values.
type Config struct {
	Buckets      int // per-address table size (DefaultBuckets)
	Burst        int
	Period       time.Duration
	GlobalBurst  int
	GlobalPeriod time.Duration
}

// Stats counts what a Responder did.
type Stats struct {
	Info, Status   uint64 // replies sent
	LimitedAddress uint64 // dropped by the per-address limit
	LimitedGlobal  uint64 // dropped by the global limit
	Ignored        uint64 // not a query or malformed
}

// Responder answers getinfo and getstatus.
type Responder struct {
	src    Source
	addr   *ratelimit.Limiter
	global *ratelimit.Bucket
	st     Status
	sb     strings.Builder
	stats  Stats
}

// NewResponder returns a responder reporting what src says.
func NewResponder(src Source, cfg Config) *Responder {
	if cfg.Buckets <= 0 {
		cfg.Buckets = DefaultBuckets
	}
	if cfg.Burst <= 0 {
		cfg.Burst = DefaultBurst
	}
	if cfg.Period <= 0 {
		cfg.Period = DefaultPeriod
	}
	if cfg.GlobalBurst <= 0 {
		cfg.GlobalBurst = DefaultGlobalBurst
	}
	if cfg.GlobalPeriod <= 0 {
		cfg.GlobalPeriod = DefaultGlobalPeriod
	}
	return &Responder{
		src: src, addr: ratelimit.NewLimiter(cfg.Buckets, cfg.Burst, cfg.Period),
		global: ratelimit.NewBucket(cfg.GlobalBurst, cfg.GlobalPeriod),
	}
}

// Stats returns the counters.
func (r *Responder) Stats() Stats { return r.stats }

// IsQuery reports whether a UDP payload is a getinfo or getstatus request
// (what a server routes to Handle).
func IsQuery(pkt []byte) bool {
	if !oob.IsOOB(pkt) {
		return false
	}
	t := pkt[4:]
	return hasPrefixFold(t, "getinfo") || hasPrefixFold(t, "getstatus")
}

func hasPrefixFold(b []byte, p string) bool {
	return len(b) >= len(p) && strings.EqualFold(string(b[:len(p)]), p)
}

// Handle answers pkt, a connectionless packet from `from` received at now:
// it appends the reply to dst and returns it with true, or returns dst and
// false when nothing is to be sent (not a query, rate limited, or a bad
// challenge). ioq3 SVC_Info / SVC_Status.
func (r *Responder) Handle(now time.Duration, from netip.AddrPort, pkt, dst []byte) ([]byte, bool) {
	m, err := oob.ParseClientPacket(pkt)
	if err != nil {
		r.stats.Ignored++
		return dst, false
	}
	var challenge string
	status := false
	switch m := m.(type) {
	case *oob.GetInfo:
		challenge = m.Challenge
	case *oob.GetStatus:
		challenge, status = m.Challenge, true
	default:
		r.stats.Ignored++
		return dst, false
	}
	if len(challenge) > maxChallenge {
		r.stats.Ignored++
		return dst, false
	}
	if !r.addr.Allow(now, from.Addr()) {
		r.stats.LimitedAddress++
		return dst, false
	}
	if !r.global.Allow(now) {
		r.stats.LimitedGlobal++
		return dst, false
	}
	r.st.Players = r.st.Players[:0]
	players := r.st.Players
	r.st = Status{Players: players, Extra: r.st.Extra[:0]}
	r.src.QueryStatus(&r.st)
	if status {
		r.stats.Status++
		return r.appendStatus(dst, challenge), true
	}
	r.stats.Info++
	return r.appendInfo(dst, challenge), true
}

// sanitize makes s usable as an info value (ioq3 refuses '\\', ';' and
// '"'; a newline would end the info line).
func sanitize(s string) string {
	if !strings.ContainsAny(s, "\\;\"\n\r") {
		return s
	}
	return strings.Map(func(c rune) rune {
		if strings.ContainsRune("\\;\"\n\r", c) {
			return '.'
		}
		return c
	}, s)
}

func (r *Responder) kv(k, v string) {
	r.sb.WriteByte('\\')
	r.sb.WriteString(k)
	r.sb.WriteByte('\\')
	r.sb.WriteString(sanitize(v))
}

func (r *Responder) gameName() string {
	if r.st.GameName == "" {
		return "Quake3Arena"
	}
	return r.st.GameName
}

func boolStr(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// appendInfo writes infoResponse in the order ioq3 SVC_Info's
// Info_SetValueForKey calls leave it (each new key goes in front; the
// challenge, set first, ends up last).
func (r *Responder) appendInfo(dst []byte, challenge string) []byte {
	st := &r.st
	humans := 0
	for _, p := range st.Players {
		if !p.Bot {
			humans++
		}
	}
	r.sb.Reset()
	r.sb.WriteString("infoResponse\n")
	r.kv("g_needpass", boolStr(st.NeedPass))
	r.kv("pure", boolStr(st.Pure))
	r.kv("gametype", strconv.Itoa(st.GameType))
	r.kv("sv_maxclients", strconv.Itoa(st.MaxClients))
	r.kv("g_humanplayers", strconv.Itoa(humans))
	r.kv("clients", strconv.Itoa(len(st.Players)))
	r.kv("mapname", st.MapName)
	r.kv("hostname", st.Hostname)
	r.kv("protocol", strconv.Itoa(st.Protocol))
	r.kv("gamename", r.gameName())
	if challenge != "" && validChallenge(challenge) {
		r.kv("challenge", challenge)
	}
	dst = append(dst, oob.Marker...)
	return append(dst, r.sb.String()...)
}

// validChallenge: ioq3 Info_SetValueForKey refuses these characters.
func validChallenge(s string) bool { return !strings.ContainsAny(s, "\\;\"\n\r") }

// appendStatus writes statusResponse: the serverinfo (challenge first, as
// SVC_Status inserts it), then one "score ping "name"" line per player
// while they fit in one packet.
func (r *Responder) appendStatus(dst []byte, challenge string) []byte {
	st := &r.st
	r.sb.Reset()
	r.sb.WriteString("statusResponse\n")
	if challenge != "" && validChallenge(challenge) {
		r.kv("challenge", challenge)
	}
	r.kv("sv_hostname", st.Hostname)
	r.kv("mapname", st.MapName)
	r.kv("sv_maxclients", strconv.Itoa(st.MaxClients))
	r.kv("g_gametype", strconv.Itoa(st.GameType))
	r.kv("protocol", strconv.Itoa(st.Protocol))
	r.kv("com_gamename", r.gameName())
	if st.Game != "" {
		r.kv("gamename", st.Game)
	}
	r.kv("sv_pure", boolStr(st.Pure))
	r.kv("g_needpass", boolStr(st.NeedPass))
	for _, e := range st.Extra {
		if e.Key != "" && !strings.ContainsAny(e.Key, "\\;\"\n\r") {
			r.kv(e.Key, e.Value)
		}
	}
	r.sb.WriteByte('\n')
	var line []byte
	for _, p := range st.Players {
		line = strconv.AppendInt(line[:0], int64(p.Score), 10)
		line = append(line, ' ')
		line = strconv.AppendInt(line, int64(p.Ping), 10)
		line = append(line, " \""...)
		line = append(line, strings.Map(func(c rune) rune {
			if c == '"' || c == '\n' || c == '\r' {
				return '.'
			}
			return c
		}, p.Name)...)
		line = append(line, "\"\n"...)
		if 4+r.sb.Len()+len(line) > maxReply {
			break // SVC_Status stops adding players that do not fit
		}
		r.sb.Write(line)
	}
	dst = append(dst, oob.Marker...)
	return append(dst, r.sb.String()...)
}

// Serve answers queries arriving on conn until ctx ends or conn fails;
// other packets are ignored. It is the runner for a server that only
// answers queries (tests, tools); a game server calls Handle from its own
// loop instead.
func Serve(ctx context.Context, conn *net.UDPConn, r *Responder) error {
	start := time.Now()
	buf := make([]byte, 2048)
	var out []byte
	for ctx.Err() == nil {
		conn.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
		n, from, err := conn.ReadFromUDPAddrPort(buf)
		if err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) {
				continue
			}
			if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return nil
			}
			return err
		}
		if !IsQuery(buf[:n]) {
			continue
		}
		var ok bool
		if out, ok = r.Handle(time.Since(start), from, buf[:n], out[:0]); ok {
			conn.WriteToUDPAddrPort(out, from)
		}
	}
	return nil
}
