// Package master is a Quake 3 master server: the directory game servers
// announce themselves to and server browsers ask for addresses (Quake 3
// protocol description, Fedoryński: connectionless packets; ioq3 code/server/sv_main.c
// SV_MasterHeartbeat, code/client/cl_main.c CL_ServersResponsePacket;
// the listing rules of dpmaster, the master most ioq3 games use).
//
//   - A server sends "heartbeat GAMENAME". The master does not list it on
//     that word: it sends "getinfo CHALLENGE" back and lists the server
//     only when an infoResponse echoing that challenge comes from the same
//     address. The challenge is a keyed hash of the address, the port and
//     the time (a stateless cookie, as a SYN cookie is): a heartbeat stores
//     nothing, a spoofed heartbeat lists nothing (its answer goes to the
//     spoofed address), and a getinfo is no larger than the heartbeat
//     that caused it.
//   - An entry expires when no verified infoResponse refreshed it for
//     Config.Expire (servers heartbeat every 5 minutes in ioq3). One IP
//     address holds at most Config.MaxServersPerAddr entries, so a few
//     hosts cannot fill the table; when it is full anyway, the address
//     with the most entries gives one up to an address with at least two
//     fewer, so a new host gets in until every listed host holds one.
//   - "getservers PROTOCOL [empty] [full]" is answered with
//     "getserversResponse" packets: each entry a backslash then 4 bytes of
//     IPv4 address and 2 of port, big-endian; the last packet ends with
//     "\EOT\0\0\0". Only servers whose infoResponse gave that protocol are
//     listed; empty and full servers only when asked for.
//   - The whole listing goes only to an asker that proved its address:
//     its getservers carries "cookie=C", where C came from the master's
//     answer to "getserversCookie" (an extension of ours; the request is
//     padded to the answer's size, so it amplifies nothing). Any other
//     getservers (quakestat's, ioq3's) gets one packet of at most
//     Config.UnprovenFactor times the request's size, ending with EOT:
//     the servers that fit, taken from a window that moves on at each
//     such answer. A spoofed getservers thus reflects a few bytes, not
//     the whole list.
//
// The Master is I/O-free: HandlePacket takes the time and the packet and
// sends through a callback. Every table is bounded (Config.MaxServers; the
// rate limiters' tables) and no packet costs work that grows with the
// table but a proven listing, which has its own budget. Heartbeats and
// getservers are rate-limited per source IP address, and the getinfo
// challenges, the unproven answers and the proven listings each have a
// global budget of packets per second, so a flood of one kind starves
// neither of the others.
package master

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"hash"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/snapwire/snapwire/internal/q3/oob"
	"github.com/snapwire/snapwire/internal/ratelimit"
)

// Config tunes a Master; zero fields take the defaults in brackets.
type Config struct {
	MaxServers int // servers listed at most [4096]
	// MaxServersPerAddr bounds the servers listed from one IP address
	// [16]: many servers often share a host, but one host must not fill
	// the table.
	MaxServersPerAddr int
	// Deprecated: MaxPending is ignored; challenges are stateless.
	MaxPending int
	Expire     time.Duration // an entry's life without a verified refresh [15m]
	// ChallengeTimeout is how long a heartbeat's getinfo challenge, and a
	// getservers cookie, stay valid: from this long to twice it [5s].
	ChallengeTimeout time.Duration
	// HeartbeatBurst and HeartbeatPeriod bound the heartbeats one IP
	// address may send (a burst, then one per period) [32, 250 ms]: many
	// servers often share a host. QueryBurst and QueryPeriod do the same
	// for getservers and getserversCookie [8, 500 ms].
	HeartbeatBurst  int
	HeartbeatPeriod time.Duration
	QueryBurst      int
	QueryPeriod     time.Duration
	// GlobalPerSecond caps the getinfo challenges sent in all [200];
	// ListPerSecond the getserversResponse packets of proven listings
	// [200]; UnprovenPerSecond the answers to unproven getservers [200].
	GlobalPerSecond   int
	ListPerSecond     int
	UnprovenPerSecond int
	// UnprovenFactor bounds the answer to a getservers without a valid
	// cookie to this many times the request's size [4].
	UnprovenFactor int
	// Secret keys the challenges and cookies [32 bytes from crypto/rand].
	Secret []byte
}

func (c *Config) defaults() {
	if c.MaxServers <= 0 {
		c.MaxServers = 4096
	}
	if c.MaxServersPerAddr <= 0 {
		c.MaxServersPerAddr = 16
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
	if c.ListPerSecond <= 0 {
		c.ListPerSecond = 200
	}
	if c.UnprovenPerSecond <= 0 {
		c.UnprovenPerSecond = 200
	}
	if c.UnprovenFactor <= 0 {
		c.UnprovenFactor = 4
	}
	if len(c.Secret) == 0 {
		c.Secret = make([]byte, 32)
		rand.Read(c.Secret)
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
	// or global limits; Full the servers not listed because the table, or
	// their address's share of it, was full.
	RateLimited, Full, Expired, Malformed uint64
	// Evicted counts the servers unlisted, when the table was full, to
	// make room for one from an address with at least two fewer.
	Evicted uint64
	// Cookies counts the getserversCookie answered; Unproven the
	// getservers answered in one bounded packet for want of a cookie.
	Cookies, Unproven uint64
}

// entry is a listed server and its place in Master.order.
type entry struct {
	Server
	at int
}

// budget is a global cap of packets per second.
type budget struct {
	second time.Duration
	n, max int
}

// allow counts one packet against the cap.
func (b *budget) allow(now time.Duration) bool {
	if sec := now.Truncate(time.Second); sec != b.second {
		b.second, b.n = sec, 0
	}
	if b.n >= b.max {
		return false
	}
	b.n++
	return true
}

// Master is the I/O-free master server.
type Master struct {
	cfg     Config
	send    func(to netip.AddrPort, p []byte)
	servers map[netip.AddrPort]*entry
	order   []*entry                // the listed servers, in no order (unproven answers' window)
	hosts   map[netip.Addr][]*entry // listed servers per IP address
	// byCount[n] holds the addresses with n servers listed (n ≥ 1): the
	// fullest is found in MaxServersPerAddr steps, whatever the table.
	byCount []map[netip.Addr]struct{}
	cursor  int                // where the next unproven answer's window starts
	beats   *ratelimit.Limiter // heartbeats per IP
	queries *ratelimit.Limiter // getservers and getserversCookie per IP
	// Global budgets: getinfo challenges, proven listings, unproven answers.
	challenges, listings, unproven budget
	mac                            hash.Hash // HMAC-SHA256 keyed with Config.Secret
	stats                          Stats
	lastGC                         time.Duration
	buf                            []byte
	entries                        []netip.AddrPort
}

// New returns a master that sends through send.
func New(cfg Config, send func(to netip.AddrPort, p []byte)) *Master {
	cfg.defaults()
	return &Master{
		cfg: cfg, send: send,
		servers:    map[netip.AddrPort]*entry{},
		hosts:      map[netip.Addr][]*entry{},
		byCount:    makeCounts(cfg.MaxServersPerAddr),
		beats:      ratelimit.NewLimiter(4096, cfg.HeartbeatBurst, cfg.HeartbeatPeriod),
		queries:    ratelimit.NewLimiter(4096, cfg.QueryBurst, cfg.QueryPeriod),
		challenges: budget{max: cfg.GlobalPerSecond},
		listings:   budget{max: cfg.ListPerSecond},
		unproven:   budget{max: cfg.UnprovenPerSecond},
		buf:        make([]byte, 0, maxPacket),
		mac:        hmac.New(sha256.New, cfg.Secret),
	}
}

// maxPacket bounds a getserversResponse packet (dpmaster's limit keeps it
// under a common MTU).
const maxPacket = 1400

// maxScan bounds the entries an unproven getservers looks at.
const maxScan = 1024

// Stats returns the counters.
func (m *Master) Stats() Stats { return m.stats }

// Len is the number of servers listed.
func (m *Master) Len() int { return len(m.order) }

// Servers returns the listed servers, by address. It copies and sorts
// them all: Len is the cheap count.
func (m *Master) Servers() []Server {
	out := make([]Server, 0, len(m.servers))
	for _, s := range m.servers {
		out = append(out, s.Server)
	}
	slices.SortFunc(out, func(a, b Server) int { return a.Addr.Compare(b.Addr) })
	return out
}

// Expire drops the entries that ran out by now; HandlePacket calls it at
// most once a second.
func (m *Master) Expire(now time.Duration) {
	m.lastGC = now
	for i := 0; i < len(m.order); {
		if e := m.order[i]; now-e.Verified > m.cfg.Expire {
			m.remove(e)
			m.stats.Expired++
			continue // order[i] is now another entry
		}
		i++
	}
}

// remove unlists e.
func (m *Master) remove(e *entry) {
	last := m.order[len(m.order)-1]
	m.order[e.at], last.at = last, e.at
	m.order[len(m.order)-1] = nil
	m.order = m.order[:len(m.order)-1]
	delete(m.servers, e.Addr)
	a := e.Addr.Addr()
	h := m.hosts[a]
	m.count(a, len(h), len(h)-1)
	if len(h) == 1 {
		delete(m.hosts, a)
		return
	}
	i := slices.Index(h, e)
	h[i] = h[len(h)-1]
	h[len(h)-1] = nil
	m.hosts[a] = h[:len(h)-1]
}

func makeCounts(perAddr int) []map[netip.Addr]struct{} {
	c := make([]map[netip.Addr]struct{}, perAddr+1)
	for i := range c {
		c[i] = map[netip.Addr]struct{}{}
	}
	return c
}

// count moves address a from byCount[from] to byCount[to].
func (m *Master) count(a netip.Addr, from, to int) {
	if from > 0 {
		delete(m.byCount[from], a)
	}
	if to > 0 {
		m.byCount[to][a] = struct{}{}
	}
}

// add lists a new server at from. When the table is full, the address
// with the most servers gives up its least recently verified one, if it
// has at least two more than from's address: the table is shared fairly,
// and a new host gets in until every host listed holds one server.
func (m *Master) add(from netip.AddrPort) *entry {
	a := from.Addr()
	n := len(m.hosts[a])
	if n >= m.cfg.MaxServersPerAddr {
		return nil
	}
	if len(m.order) >= m.cfg.MaxServers {
		top := len(m.byCount) - 1
		for top > n+1 && len(m.byCount[top]) == 0 {
			top--
		}
		if top <= n+1 {
			return nil
		}
		for b := range m.byCount[top] {
			victim := m.hosts[b][0]
			for _, e := range m.hosts[b][1:] {
				if e.Verified < victim.Verified {
					victim = e
				}
			}
			m.remove(victim)
			m.stats.Evicted++
			break
		}
	}
	e := &entry{Server: Server{Addr: from}, at: len(m.order)}
	m.servers[from] = e
	m.order = append(m.order, e)
	m.hosts[a] = append(m.hosts[a], e)
	m.count(a, n, n+1)
	return e
}

// Cookie domains: a getinfo challenge is not a getservers cookie.
const (
	domainChallenge = 'c'
	domainCookie    = 'k'
)

// token is the challenge or cookie of addr in time bucket b: 51 bits of
// HMAC-SHA256 over the domain, the address (16 bytes), port and bucket,
// then the bucket's low bit, in base 36 (at most 11 characters: a getinfo
// stays no larger than a heartbeat, and Quake 3 servers echo it as a
// plain token). The bit tells valid which bucket to check: one HMAC per
// token checked.
func (m *Master) token(domain byte, addr netip.AddrPort, b int64) string {
	mac := m.mac
	mac.Reset()
	var buf [27]byte
	buf[0] = domain
	a := addr.Addr().As16()
	copy(buf[1:17], a[:])
	binary.LittleEndian.PutUint16(buf[17:], addr.Port())
	binary.LittleEndian.PutUint64(buf[19:], uint64(b))
	mac.Write(buf[:])
	var sum [sha256.Size]byte
	v := binary.LittleEndian.Uint64(mac.Sum(sum[:0]))&(1<<51-1)<<1 | uint64(b&1)
	return strconv.FormatUint(v, 36)
}

func (m *Master) bucket(now time.Duration) int64 { return int64(now / m.cfg.ChallengeTimeout) }

// valid reports whether tok is addr's token of now's time bucket or the
// one before (the one whose low bit tok carries).
func (m *Master) valid(domain byte, addr netip.AddrPort, tok string, now time.Duration) bool {
	v, err := strconv.ParseUint(tok, 36, 64)
	if err != nil || v >= 1<<52 {
		return false
	}
	b := m.bucket(now)
	if uint64(b&1) != v&1 {
		b--
	}
	return hmac.Equal([]byte(m.token(domain, addr, b)), []byte(tok))
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
	text := pkt[4:] // not a string: no copy of a junk packet
	has := func(p string) bool { return bytes.HasPrefix(text, []byte(p)) }
	switch {
	case has("heartbeat"):
		m.heartbeat(now, from)
	case has("infoResponse"):
		m.infoResponse(now, from, pkt)
	case has(CookieRequest):
		m.cookie(now, from, len(pkt))
	case has("getservers ") && !has("getserversExt"):
		m.getservers(now, from, string(text), len(pkt))
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
	if !m.beats.Allow(now, from.Addr()) {
		m.stats.RateLimited++
		return
	}
	if m.servers[from] == nil && len(m.hosts[from.Addr()]) >= m.cfg.MaxServersPerAddr {
		m.stats.Full++ // its address has its share: no getinfo
		return
	}
	if !m.challenges.allow(now) {
		m.stats.RateLimited++
		return
	}
	m.buf = append(append(append(m.buf[:0], oob.Marker...), "getinfo "...), m.token(domainChallenge, from, m.bucket(now))...)
	m.send(from, m.buf)
}

func (m *Master) infoResponse(now time.Duration, from netip.AddrPort, pkt []byte) {
	if !from.Addr().Is4() {
		m.stats.Malformed++
		return
	}
	if !m.mayHaveChallenge(now, from, pkt) {
		m.stats.BadChallenges++ // a forgery, spared the parse
		return
	}
	msg, err := oob.ParseServerPacket(pkt)
	ir, isInfo := msg.(*oob.InfoResponse)
	if err != nil || !isInfo {
		m.stats.Malformed++
		return
	}
	info, err := oob.ParseInfo(ir.Info, oob.MaxInfoString)
	if err != nil || !m.valid(domainChallenge, from, info.Value("challenge"), now) {
		m.stats.BadChallenges++
		return
	}
	e := m.servers[from]
	if e == nil {
		if e = m.add(from); e == nil {
			m.stats.Full++
			return
		}
	}
	num := func(k string) int { v, _ := strconv.Atoi(info.Value(k)); return v }
	s := &e.Server
	s.Protocol, s.Clients, s.MaxClients = num("protocol"), num("clients"), num("sv_maxclients")
	s.Hostname, s.MapName, s.GameName = info.Value("hostname"), info.Value("mapname"), info.Value("gamename")
	s.Verified = now
	m.stats.Verified++
}

// mayHaveChallenge reports whether one of the first 4 "\\challenge\\"
// values in pkt is from's challenge: a cheap look before the parse, which
// then checks the challenge key itself.
func (m *Master) mayHaveChallenge(now time.Duration, from netip.AddrPort, pkt []byte) bool {
	const key = "\\challenge\\"
	rest := pkt
	for range 4 {
		i := bytes.Index(rest, []byte(key))
		if i < 0 {
			return false
		}
		rest = rest[i+len(key):]
		v := rest
		if j := bytes.IndexAny(v, "\\\n"); j >= 0 {
			v = v[:j]
		}
		if len(v) <= 11 && m.valid(domainChallenge, from, string(v), now) {
			return true
		}
	}
	return false
}

// CookieRequest asks the master for a getservers cookie: send it, padded
// with spaces to at least CookieRequestLen bytes after the marker, and
// read the answer with ParseCookie.
const CookieRequest = "getserversCookie"

// CookieRequestLen is the least length of a cookie request (after the
// marker): that of the longest answer, so that it amplifies nothing.
const CookieRequestLen = len(CookieRequest) + 1 + 11

// AppendCookieRequest appends a padded cookie request, marker included.
func AppendCookieRequest(b []byte) []byte {
	b = append(append(b, oob.Marker...), CookieRequest...)
	for range CookieRequestLen - len(CookieRequest) {
		b = append(b, ' ')
	}
	return b
}

// ParseCookie reads the master's answer to a cookie request: the
// cookie to send as "cookie=C" in getservers.
func ParseCookie(pkt []byte) (string, bool) {
	if !oob.IsOOB(pkt) {
		return "", false
	}
	c, ok := strings.CutPrefix(string(pkt[4:]), CookieRequest+" ")
	if !ok || len(c) == 0 || len(c) > 11 {
		return "", false
	}
	for i := range len(c) {
		if b := c[i]; !('0' <= b && b <= '9' || 'a' <= b && b <= 'z') {
			return "", false
		}
	}
	return c, true
}

// cookie answers a cookie request of n bytes with "getserversCookie C",
// no longer than the request.
func (m *Master) cookie(now time.Duration, from netip.AddrPort, n int) {
	if n-len(oob.Marker) < CookieRequestLen {
		m.stats.Malformed++ // unpadded: the answer would be larger
		return
	}
	if !m.queries.Allow(now, from.Addr()) {
		m.stats.RateLimited++
		return
	}
	m.stats.Cookies++
	m.buf = append(append(append(m.buf[:0], oob.Marker...), CookieRequest+" "...), m.token(domainCookie, from, m.bucket(now))...)
	m.send(from, m.buf)
}

// getservers answers "getservers [GAMENAME] PROTOCOL [empty] [full]
// [cookie=C] ..." of n bytes.
func (m *Master) getservers(now time.Duration, from netip.AddrPort, text string, n int) {
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
	var empty, full bool
	cookie := ""
	for _, a := range args[1:] {
		switch {
		case a == "empty":
			empty = true
		case a == "full":
			full = true
		case strings.HasPrefix(a, "cookie=") && cookie == "":
			cookie = a[len("cookie="):]
		}
	}
	if !m.queries.Allow(now, from.Addr()) {
		m.stats.RateLimited++
		return
	}
	// One cookie checked (two HMACs), after the rate limit.
	proven := cookie != "" && m.valid(domainCookie, from, cookie, now)
	match := func(s *Server) bool {
		return s.Protocol == proto && (empty || s.Clients > 0) && (full || s.MaxClients == 0 || s.Clients < s.MaxClients)
	}
	const header = "getserversResponse"
	const eot = "\\EOT\x00\x00\x00"
	if !proven {
		// One packet of at most UnprovenFactor times the request, from a
		// window of the table that moves on each time: a bounded scan.
		if !m.unproven.allow(now) {
			m.stats.RateLimited++
			return
		}
		m.stats.Unproven++
		room := (min(n*m.cfg.UnprovenFactor, maxPacket) - len(oob.Marker) - len(header) - len(eot)) / 7
		m.entries = m.entries[:0]
		i := 0
		for ; i < len(m.order) && i < maxScan && len(m.entries) < room; i++ {
			if s := &m.order[(m.cursor+i)%len(m.order)].Server; match(s) {
				m.entries = append(m.entries, s.Addr)
			}
		}
		if m.cursor += i; m.cursor >= len(m.order) {
			m.cursor = 0
		}
		slices.SortFunc(m.entries, func(a, b netip.AddrPort) int { return a.Compare(b) })
		b := append(append(m.buf[:0], oob.Marker...), header...)
		b = appendEntries(b, m.entries)
		m.stats.Listed += uint64(len(m.entries))
		m.send(from, append(b, eot...))
		return
	}
	if !m.listings.allow(now) {
		m.stats.RateLimited++
		return
	}
	m.entries = m.entries[:0]
	for _, e := range m.order {
		if match(&e.Server) {
			m.entries = append(m.entries, e.Addr)
		}
	}
	slices.SortFunc(m.entries, func(a, b netip.AddrPort) int { return a.Compare(b) })
	const perPacket = (maxPacket - 4 - len(header) - len(eot)) / 7
	for i, first := 0, true; ; first = false {
		if !first && !m.listings.allow(now) {
			m.stats.RateLimited++
			return
		}
		k := min(len(m.entries)-i, perPacket)
		b := append(append(m.buf[:0], oob.Marker...), header...)
		b = appendEntries(b, m.entries[i:i+k])
		i += k
		m.stats.Listed += uint64(k)
		if i == len(m.entries) {
			m.send(from, append(b, eot...))
			return
		}
		m.send(from, b)
	}
}

// appendEntries appends "\\" and the 4 address and 2 port bytes of each
// address (IPv4).
func appendEntries(b []byte, addrs []netip.AddrPort) []byte {
	for _, a := range addrs {
		ip := a.Addr().As4()
		b = append(append(b, '\\'), ip[:]...)
		b = binary.BigEndian.AppendUint16(b, a.Port())
	}
	return b
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
