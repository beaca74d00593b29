// Package master is a Quake 3 master server: the directory game servers
// announce themselves to and server browsers ask for addresses (Quake 3
// protocol description, Fedoryński: connectionless packets; ioq3 code/server/sv_main.c
// SV_MasterHeartbeat, code/client/cl_main.c CL_ServersResponsePacket;
// the listing rules of dpmaster, the master most ioq3 games use).
//
//   - A server sends "heartbeat GAMENAME". The master does not list it on
//     that word: it sends "getinfo CHALLENGE" back, with a fresh random
//     challenge, and lists the server only when an infoResponse echoing
//     that challenge comes from the same address. A spoofed heartbeat
//     lists nothing (its answer goes to the spoofed address), and a
//     getinfo is no larger than the heartbeat that caused it.
//   - An entry expires when no verified infoResponse refreshed it for
//     Config.Expire (servers heartbeat every 5 minutes in ioq3).
//   - "getservers PROTOCOL [empty] [full]" is answered with
//     "getserversResponse" packets: each entry a backslash then 4 bytes of
//     IPv4 address and 2 of port, big-endian; the last packet ends with
//     "\EOT\0\0\0". Only servers whose infoResponse gave that protocol are
//     listed; empty and full servers only when asked for.
//
// The Master is I/O-free: HandlePacket takes the time and the packet and
// sends through a callback. Every table is bounded (Config.MaxServers,
// MaxPending) and both heartbeats and getservers are rate-limited per
// source IP address and globally, since a listing is larger than the
// request for it.
package master

import (
	"crypto/rand"
	"encoding/binary"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/snapwire/snapwire/q3/oob"
	"github.com/snapwire/snapwire/q3/query"
)

// Config tunes a Master; zero fields take the defaults in brackets.
type Config struct {
	MaxServers int           // servers listed at most [4096]
	MaxPending int           // heartbeats awaiting their infoResponse [1024]
	Expire     time.Duration // an entry's life without a verified refresh [15m]
	// ChallengeTimeout is how long a heartbeat's getinfo challenge stays
	// valid [5s].
	ChallengeTimeout time.Duration
	// HeartbeatBurst and HeartbeatPeriod bound the heartbeats one IP
	// address may send (a burst, then one per period) [32, 250 ms]: many
	// servers often share a host. QueryBurst and QueryPeriod do the same
	// for getservers [8, 500 ms], whose answer is larger than the request.
	// GlobalPerSecond caps the getinfo and getserversResponse packets sent
	// in all [200].
	HeartbeatBurst  int
	HeartbeatPeriod time.Duration
	QueryBurst      int
	QueryPeriod     time.Duration
	GlobalPerSecond int
}

func (c *Config) defaults() {
	if c.MaxServers <= 0 {
		c.MaxServers = 4096
	}
	if c.MaxPending <= 0 {
		c.MaxPending = 1024
	}
	if c.Expire <= 0 {
		c.Expire = 15 * time.Minute
	}
	if c.ChallengeTimeout <= 0 {
		c.ChallengeTimeout = 5 * time.Second
	}
	if c.HeartbeatBurst <= 0 {
		c.HeartbeatBurst = 32
	}
	if c.HeartbeatPeriod <= 0 {
		c.HeartbeatPeriod = 250 * time.Millisecond
	}
	if c.QueryBurst <= 0 {
		c.QueryBurst = 8
	}
	if c.QueryPeriod <= 0 {
		c.QueryPeriod = 500 * time.Millisecond
	}
	if c.GlobalPerSecond <= 0 {
		c.GlobalPerSecond = 200
	}
}

// Server is one listed server, as its last verified infoResponse said.
type Server struct {
	Addr       netip.AddrPort
	Protocol   int
	Hostname   string
	MapName    string
	GameName   string
	Clients    int
	MaxClients int
	Verified   time.Duration // time of the last verified infoResponse
}

// Stats are the master's counters.
type Stats struct {
	Heartbeats, Verified, BadChallenges, Queries, Listed uint64
	// RateLimited counts heartbeats and getservers dropped by the per-IP
	// or global limits; Full those dropped because a table was full.
	RateLimited, Full, Expired, Malformed uint64
}

type pending struct {
	challenge string
	at        time.Duration
}

// Master is the I/O-free master server.
type Master struct {
	cfg     Config
	send    func(to netip.AddrPort, p []byte)
	servers map[netip.AddrPort]*Server
	pending map[netip.AddrPort]pending
	beats   *query.Limiter // heartbeats per IP
	queries *query.Limiter // getservers per IP
	global  struct {
		second time.Duration
		n      int
	}
	stats   Stats
	lastGC  time.Duration
	buf     []byte
	entries []netip.AddrPort
}

// New returns a master that sends through send.
func New(cfg Config, send func(to netip.AddrPort, p []byte)) *Master {
	cfg.defaults()
	return &Master{
		cfg: cfg, send: send,
		servers: map[netip.AddrPort]*Server{},
		pending: map[netip.AddrPort]pending{},
		beats:   query.NewLimiter(4096, cfg.HeartbeatBurst, cfg.HeartbeatPeriod),
		queries: query.NewLimiter(4096, cfg.QueryBurst, cfg.QueryPeriod),
		buf:     make([]byte, 0, maxPacket),
	}
}

// maxPacket bounds a getserversResponse packet (dpmaster's limit keeps it
// under a common MTU).
const maxPacket = 1400

// Stats returns the counters.
func (m *Master) Stats() Stats { return m.stats }

// Servers returns the listed servers, by address.
func (m *Master) Servers() []Server {
	out := make([]Server, 0, len(m.servers))
	for _, s := range m.servers {
		out = append(out, *s)
	}
	slices.SortFunc(out, func(a, b Server) int { return a.Addr.Compare(b.Addr) })
	return out
}

// globalAllow counts one packet against the global cap.
func (m *Master) globalAllow(now time.Duration) bool {
	if sec := now.Truncate(time.Second); sec != m.global.second {
		m.global.second, m.global.n = sec, 0
	}
	if m.global.n >= m.cfg.GlobalPerSecond {
		return false
	}
	m.global.n++
	return true
}

// Expire drops the entries and challenges that ran out by now; HandlePacket
// calls it at most once a second.
func (m *Master) Expire(now time.Duration) {
	m.lastGC = now
	for a, s := range m.servers {
		if now-s.Verified > m.cfg.Expire {
			delete(m.servers, a)
			m.stats.Expired++
		}
	}
	for a, p := range m.pending {
		if now-p.at > m.cfg.ChallengeTimeout {
			delete(m.pending, a)
		}
	}
}

// HandlePacket handles one datagram from from.
func (m *Master) HandlePacket(now time.Duration, from netip.AddrPort, pkt []byte) {
	if now-m.lastGC >= time.Second {
		m.Expire(now)
	}
	if !oob.IsOOB(pkt) || len(pkt) > oob.MaxMsgLen {
		m.stats.Malformed++
		return
	}
	text := string(pkt[4:])
	switch {
	case strings.HasPrefix(text, "heartbeat"):
		m.heartbeat(now, from)
	case strings.HasPrefix(text, "infoResponse"):
		m.infoResponse(now, from, pkt)
	case strings.HasPrefix(text, "getservers ") && !strings.HasPrefix(text, "getserversExt"):
		m.getservers(now, from, text)
	default:
		m.stats.Malformed++
	}
}

func (m *Master) heartbeat(now time.Duration, from netip.AddrPort) {
	m.stats.Heartbeats++
	if !from.Addr().Is4() {
		m.stats.Malformed++ // getserversResponse carries IPv4 only
		return
	}
	if !m.beats.Allow(now, from.Addr()) || !m.globalAllow(now) {
		m.stats.RateLimited++
		return
	}
	if _, ok := m.pending[from]; !ok && len(m.pending) >= m.cfg.MaxPending {
		m.stats.Full++
		return
	}
	var b [9]byte
	rand.Read(b[:])
	ch := strconv.FormatUint(binary.LittleEndian.Uint64(b[:8])&(1<<53-1), 36)
	m.pending[from] = pending{challenge: ch, at: now}
	m.buf = append(append(m.buf[:0], oob.Marker...), "getinfo "+ch...)
	m.send(from, m.buf)
}

func (m *Master) infoResponse(now time.Duration, from netip.AddrPort, pkt []byte) {
	p, ok := m.pending[from]
	if !ok || now-p.at > m.cfg.ChallengeTimeout {
		m.stats.BadChallenges++
		return
	}
	msg, err := oob.ParseServerPacket(pkt)
	ir, isInfo := msg.(*oob.InfoResponse)
	if err != nil || !isInfo {
		m.stats.Malformed++
		return
	}
	info, err := oob.ParseInfo(ir.Info, oob.MaxInfoString)
	if err != nil || info.Value("challenge") != p.challenge {
		m.stats.BadChallenges++
		return
	}
	delete(m.pending, from)
	s := m.servers[from]
	if s == nil {
		if len(m.servers) >= m.cfg.MaxServers {
			m.stats.Full++
			return
		}
		s = &Server{Addr: from}
		m.servers[from] = s
	}
	num := func(k string) int { v, _ := strconv.Atoi(info.Value(k)); return v }
	s.Protocol, s.Clients, s.MaxClients = num("protocol"), num("clients"), num("sv_maxclients")
	s.Hostname, s.MapName, s.GameName = info.Value("hostname"), info.Value("mapname"), info.Value("gamename")
	s.Verified = now
	m.stats.Verified++
}

// getservers answers "getservers [GAMENAME] PROTOCOL [empty] [full] ...".
func (m *Master) getservers(now time.Duration, from netip.AddrPort, text string) {
	m.stats.Queries++
	args := oob.Tokenize(text)
	if len(args) < 2 {
		m.stats.Malformed++
		return
	}
	args = args[1:]
	if _, err := strconv.Atoi(args[0]); err != nil && len(args) > 1 {
		args = args[1:] // dpmaster's form with a game name first
	}
	proto, err := strconv.Atoi(args[0])
	if err != nil {
		m.stats.Malformed++
		return
	}
	empty, full := slices.Contains(args[1:], "empty"), slices.Contains(args[1:], "full")
	if !m.queries.Allow(now, from.Addr()) {
		m.stats.RateLimited++
		return
	}
	m.entries = m.entries[:0]
	for a, s := range m.servers {
		if s.Protocol != proto || (!empty && s.Clients == 0) || (!full && s.MaxClients > 0 && s.Clients >= s.MaxClients) {
			continue
		}
		m.entries = append(m.entries, a)
	}
	slices.SortFunc(m.entries, func(a, b netip.AddrPort) int { return a.Compare(b) })
	const header = "getserversResponse"
	const eot = "\\EOT\x00\x00\x00"
	i := 0
	for {
		if !m.globalAllow(now) {
			m.stats.RateLimited++
			return
		}
		b := append(append(m.buf[:0], oob.Marker...), header...)
		for ; i < len(m.entries) && len(b)+7+len(eot) <= maxPacket; i++ {
			a := m.entries[i].Addr().As4()
			b = append(b, '\\')
			b = append(b, a[:]...)
			b = binary.BigEndian.AppendUint16(b, m.entries[i].Port())
		}
		m.stats.Listed += uint64(i)
		if i == len(m.entries) {
			b = append(b, eot...)
			m.send(from, b)
			return
		}
		m.send(from, b)
	}
}

// ParseServersResponse reads the addresses of one getserversResponse
// packet and whether it ends the listing ("\EOT").
func ParseServersResponse(pkt []byte) (addrs []netip.AddrPort, last bool, ok bool) {
	const header = "getserversResponse"
	if !oob.IsOOB(pkt) || !strings.HasPrefix(string(pkt[4:]), header) {
		return nil, false, false
	}
	b := pkt[4+len(header):]
	for len(b) > 0 {
		if b[0] != '\\' {
			return addrs, false, false
		}
		if len(b) >= 4 && string(b[1:4]) == "EOT" {
			return addrs, true, true
		}
		if len(b) < 7 {
			return addrs, false, false
		}
		addrs = append(addrs, netip.AddrPortFrom(netip.AddrFrom4([4]byte(b[1:5])), binary.BigEndian.Uint16(b[5:7])))
		b = b[7:]
	}
	return addrs, false, true
}
