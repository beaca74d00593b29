package master

import (
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/snapwire/snapwire/internal/q3/oob"
)

// listProven asks for a cookie, then for the servers with it, from a new
// address, and returns them, checking the packets' framing.
func (r *rig) listProven(t *testing.T, now time.Duration, q string) []netip.AddrPort {
	t.Helper()
	r.queries++
	from := netip.AddrPortFrom(netip.AddrFrom4([4]byte{198, 18, 0, byte(r.queries)}), 6000)
	r.m.HandlePacket(now, from, AppendCookieRequest(nil))
	out := r.take()
	if len(out) != 1 {
		t.Fatalf("%d answers to a cookie request", len(out))
	}
	c, ok := ParseCookie(out[0].p)
	if !ok {
		t.Fatalf("cookie answer %q", out[0].p)
	}
	r.m.HandlePacket(now, from, oobPkt(q+" cookie="+c))
	var all []netip.AddrPort
	out = r.take()
	for i, s := range out {
		if len(s.p) > maxPacket {
			t.Errorf("packet of %d bytes", len(s.p))
		}
		addrs, last, ok := ParseServersResponse(s.p)
		if !ok || last != (i == len(out)-1) {
			t.Fatalf("packet %d of %d: ok %v last %v: %q", i, len(out), ok, last, s.p)
		}
		all = append(all, addrs...)
	}
	return all
}

// A cookie proves the address it was given to, for ChallengeTimeout to
// twice that; an unpadded request gets none; no answer to a cookie
// request or an unproven getservers is larger than UnprovenFactor times
// the request (the cookie's: than the request).
//
// Guards against: a getservers answered in full to a spoofed source (the
// 1,080x amplification of a 27-byte request into 29 KB), a cookie that
// another address or a later time can use.
func TestCookieProvesAddress(t *testing.T) {
	r := newRig(Config{QueryBurst: 1000, GlobalPerSecond: 1000})
	for i := range 500 {
		r.register(t, 0, srv(i+1), info68)
	}
	a := netip.MustParseAddrPort("198.51.100.1:5000")
	r.m.HandlePacket(time.Second, a, oobPkt(CookieRequest))
	if out := r.take(); len(out) != 0 {
		t.Errorf("an unpadded cookie request answered: %q", out[0].p)
	}
	req := AppendCookieRequest(nil)
	r.m.HandlePacket(time.Second, a, req)
	out := r.take()
	if len(out) != 1 || len(out[0].p) > len(req) {
		t.Fatalf("answer to a %d-byte cookie request: %v", len(req), out)
	}
	c, ok := ParseCookie(out[0].p)
	if !ok {
		t.Fatalf("cookie %q", out[0].p)
	}
	count := func(from netip.AddrPort, now time.Duration, q string) (entries, bytes int) {
		t.Helper()
		req := oobPkt(q)
		r.m.HandlePacket(now, from, req)
		for _, s := range r.take() {
			got, _, ok := ParseServersResponse(s.p)
			if !ok {
				t.Fatalf("%q", s.p)
			}
			entries += len(got)
			bytes += len(s.p)
		}
		return entries, bytes
	}
	q := "getservers 68 empty full cookie=" + c
	if n, _ := count(a, 2*time.Second, q); n != 500 {
		t.Errorf("proven: %d servers, want 500", n)
	}
	for _, c := range []struct {
		name string
		from netip.AddrPort
		at   time.Duration
		q    string
	}{
		{"another port", netip.MustParseAddrPort("198.51.100.1:5001"), 2 * time.Second, q},
		{"another address", netip.MustParseAddrPort("198.51.100.2:5000"), 2 * time.Second, q},
		{"expired", a, 11 * time.Second, q},
		{"wrong cookie", a, 2 * time.Second, "getservers 68 empty full cookie=" + c + "0"},
		{"a getinfo challenge", a, 2 * time.Second, "getservers 68 empty full cookie=" + r.m.token(domainChallenge, a, 0)},
		{"no cookie", a, 2 * time.Second, "getservers 68 empty full"},
		{"quakestat", a, 2 * time.Second, "getservers 68 empty full\n"},
		{"short", a, 2 * time.Second, "getservers 68"},
	} {
		n, b := count(c.from, c.at, c.q)
		if lim := 4 * (4 + len(c.q)); b > lim || n == 0 || n >= 500 {
			t.Errorf("%s: %d servers in %d bytes for a %d-byte request (at most %d bytes)", c.name, n, b, 4+len(c.q), lim)
		}
	}
	// Unproven answers move on through the table: every server shows up.
	seen := map[netip.AddrPort]bool{}
	for i := range 200 {
		got := r.list(t, time.Duration(20+i)*time.Second, "getservers 68 empty full")
		for _, a := range got {
			seen[a] = true
		}
	}
	if len(seen) != 500 {
		t.Errorf("200 unproven answers showed %d servers of 500", len(seen))
	}
}

// One address lists at most MaxServersPerAddr servers and gets no getinfo
// for more; its servers still refresh; others still get in.
//
// Guards against: one host filling the table.
func TestServersPerAddr(t *testing.T) {
	r := newRig(Config{MaxServersPerAddr: 3})
	host := netip.MustParseAddr("10.1.1.1")
	for p := range 3 {
		r.register(t, 0, netip.AddrPortFrom(host, uint16(27960+p)), info68)
	}
	r.m.HandlePacket(0, netip.AddrPortFrom(host, 27999), oobPkt("heartbeat QuakeArena-1\n"))
	if out := r.take(); len(out) != 0 {
		t.Errorf("a fourth server of one address got %q", out[0].p)
	}
	r.register(t, time.Second, netip.AddrPortFrom(host, 27960), info68) // a refresh
	r.register(t, time.Second, srv(1), info68)
	if n := r.m.Len(); n != 4 {
		t.Errorf("%d listed, want 4", n)
	}
	if st := r.m.Stats(); st.Full != 1 {
		t.Errorf("Stats.Full %d, want 1", st.Full)
	}
	// Expiry frees the address's share.
	r.m.Expire(time.Hour)
	if r.m.Len() != 0 || len(r.m.hosts) != 0 {
		t.Errorf("after expiry: %d listed, %d addresses counted", r.m.Len(), len(r.m.hosts))
	}
	r.register(t, time.Hour, netip.AddrPortFrom(host, 27999), info68)
}

// A full table makes room for a server from an address with fewer: the
// address with the most gives up its least recently verified one, until
// the shares differ by at most one; every count stays consistent.
//
// Guards against: a table that hosts fill and keep (1,600 addresses of
// 16 servers would, with MaxServersPerAddr alone).
func TestFairEviction(t *testing.T) {
	r := newRig(Config{MaxServers: 10, MaxServersPerAddr: 6})
	big, mid := netip.MustParseAddr("10.2.0.1"), netip.MustParseAddr("10.2.0.2")
	for p := range 6 {
		r.register(t, time.Duration(p)*time.Second, netip.AddrPortFrom(big, uint16(1000+p)), info68)
	}
	for p := range 4 {
		r.register(t, 10*time.Second, netip.AddrPortFrom(mid, uint16(1000+p)), info68)
	}
	// Full. A new address: big (6) gives up its oldest, port 1000.
	r.register(t, 11*time.Second, srv(1), info68)
	if r.m.servers[netip.AddrPortFrom(big, 1000)] != nil || r.m.servers[srv(1)] == nil {
		t.Errorf("big's oldest not evicted for a new address")
	}
	// mid (4) adds one: big has 5, 5 > 4+1 is false: refused.
	r.register(t, 12*time.Second, netip.AddrPortFrom(mid, 2000), info68)
	if r.m.servers[netip.AddrPortFrom(mid, 2000)] != nil {
		t.Errorf("an address with 4 took from one with 5")
	}
	// New addresses take from big and mid down to 1 each... until all hold
	// 1 or 2.
	for i := range 20 {
		r.register(t, 13*time.Second, srv(100+i), info68)
	}
	if r.m.Len() != 10 || len(r.m.hosts[big]) > 2 || len(r.m.hosts[mid]) > 2 {
		t.Errorf("%d listed; big %d, mid %d", r.m.Len(), len(r.m.hosts[big]), len(r.m.hosts[mid]))
	}
	checkIndexes(t, r.m)
	t.Logf("stats %+v", r.m.Stats())
}

// The getinfo challenges, unproven answers and proven listings have their
// own budgets: spending one leaves the others.
func TestSeparateBudgets(t *testing.T) {
	r := newRig(Config{GlobalPerSecond: 5, UnprovenPerSecond: 5, ListPerSecond: 5})
	r.register(t, 0, srv(1), info68)
	for i := range 100 {
		r.m.HandlePacket(time.Second, srv(100+i), oobPkt("heartbeat x"))
	}
	if n := len(r.take()); n != 5 {
		t.Errorf("%d getinfos, budget 5", n)
	}
	for i := range 5 {
		if got := r.list(t, time.Second, "getservers 68"); len(got) != 1 {
			t.Errorf("unproven %d: %v", i, got)
		}
	}
	if got := r.list(t, time.Second, "getservers 68"); len(got) != 0 {
		t.Errorf("unproven beyond the budget: %v", got)
	}
	if got := r.listProven(t, time.Second, "getservers 68"); len(got) != 1 {
		t.Errorf("proven after the other budgets ran out: %v", got)
	}
}

func TestParseCookie(t *testing.T) {
	for _, c := range []struct {
		pkt  string
		want string
		ok   bool
	}{
		{"\xff\xff\xff\xffgetserversCookie abc123", "abc123", true},
		{"\xff\xff\xff\xffgetserversCookie ", "", false},
		{"\xff\xff\xff\xffgetserversCookie ABC", "", false},
		{"\xff\xff\xff\xffgetserversCookie 123456789012", "", false},
		{"\xff\xff\xff\xffgetserversCookie a b", "", false},
		{"\xff\xff\xff\xffgetserversCookieabc", "", false},
		{"getserversCookie abc", "", false},
		{"\xff\xff\xff", "", false},
	} {
		got, ok := ParseCookie([]byte(c.pkt))
		if got != c.want || ok != c.ok {
			t.Errorf("ParseCookie(%q) = %q %v, want %q %v", c.pkt, got, ok, c.want, c.ok)
		}
	}
}

// FuzzParseCookie: a cookie that parses is sent back in a getservers
// that the master reads as the same cookie, and every cookie the master
// makes parses.
func FuzzParseCookie(f *testing.F) {
	r := newRig(Config{})
	for i := range 8 {
		a := srv(i)
		f.Add(append(append(oob.Marker[:4:4], CookieRequest+" "...), r.m.token(domainCookie, a, int64(i))...))
	}
	f.Add([]byte("\xff\xff\xff\xffgetserversCookie zz"))
	f.Fuzz(func(t *testing.T, pkt []byte) {
		c, ok := ParseCookie(pkt)
		if !ok {
			return
		}
		if len(c) == 0 || len(c) > 11 || strings.ContainsAny(c, " \\\"\n") {
			t.Fatalf("cookie %q", c)
		}
		args := oob.Tokenize("getservers 68 cookie=" + c)
		if len(args) != 3 || args[2] != "cookie="+c {
			t.Fatalf("cookie %q tokenizes as %q", c, args)
		}
		again, ok := ParseCookie(append(append(oob.Marker[:4:4], CookieRequest+" "...), c...))
		if !ok || again != c {
			t.Fatalf("round trip %q: %q %v", c, again, ok)
		}
	})
}

// Per-packet cost with 4,096 servers listed: a junk packet and a plain
// getservers (what a flood sends), and what "snapwire master" did after
// each packet before it asked Len (Servers: a copy and a sort).
func BenchmarkPacketAt4096(b *testing.B) {
	r := newRig(Config{HeartbeatBurst: 1 << 20, GlobalPerSecond: 1 << 20, QueryBurst: 1 << 20, UnprovenPerSecond: 1 << 30})
	for i := range 4096 {
		a := netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, byte(i >> 8), byte(i), 1}), 27960)
		r.m.HandlePacket(0, a, oobPkt("heartbeat QuakeArena-1\n"))
		ch := strings.TrimPrefix(string(r.take()[0].p[4:]), "getinfo ")
		r.m.HandlePacket(0, a, oobPkt("infoResponse\n\\challenge\\"+ch+info68))
	}
	if r.m.Len() != 4096 {
		b.Fatalf("%d listed", r.m.Len())
	}
	r.m.send = func(netip.AddrPort, []byte) {}
	junk := oobPkt("getstatus xyz")
	gs := oobPkt("getservers 68 empty full\n")
	forged := oobPkt("infoResponse\n\\challenge\\abc123" + info68)
	hb := oobPkt("heartbeat QuakeArena-1\n")
	from := netip.MustParseAddrPort("198.51.100.1:5000")
	for _, c := range []struct {
		name string
		f    func()
	}{
		{"junk", func() { r.m.HandlePacket(time.Second, from, junk) }},
		{"junk+Len", func() { r.m.HandlePacket(time.Second, from, junk); _ = r.m.Len() }},
		{"junk+Servers", func() { r.m.HandlePacket(time.Second, from, junk); _ = len(r.m.Servers()) }},
		{"getservers", func() { r.m.HandlePacket(time.Second, from, gs) }},
		{"forged-infoResponse", func() { r.m.HandlePacket(time.Second, from, forged) }},
		{"heartbeat", func() { r.m.HandlePacket(time.Second, from, hb) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				c.f()
			}
		})
	}
}

// FuzzNoAmplification: whatever one packet from an address without a
// cookie says, the master sends that address at most UnprovenFactor
// times its size, and every answer parses.
func FuzzNoAmplification(f *testing.F) {
	for _, s := range []string{
		"getservers 68 empty full\n", "getservers 68", "getservers Quake3Arena 68 empty full cookie=abc",
		"getservers 68 cookie=", "heartbeat", "heartbeat QuakeArena-1\n", "getserversCookie",
		"getserversCookie            ", "infoResponse\n\\challenge\\x\\protocol\\68", "getserversExt 68",
	} {
		f.Add(oobPkt(s))
	}
	// No per-IP or global limit hides an answer: every packet is answered.
	const lots = 1 << 30
	r := newRig(Config{GlobalPerSecond: lots, ListPerSecond: lots, UnprovenPerSecond: lots, HeartbeatBurst: lots, QueryBurst: lots})
	for i := range 300 {
		r.register(f, 0, srv(i+1), info68)
	}
	from := netip.MustParseAddrPort("198.51.100.99:4000")
	f.Fuzz(func(t *testing.T, pkt []byte) {
		r.m.HandlePacket(time.Second, from, pkt)
		sent := 0
		for _, s := range r.take() {
			sent += len(s.p)
			if len(s.p) > maxPacket {
				t.Fatalf("packet of %d bytes", len(s.p))
			}
			if _, _, ok := ParseServersResponse(s.p); !ok {
				if _, ok := ParseCookie(s.p); !ok && !strings.HasPrefix(string(s.p), "\xff\xff\xff\xffgetinfo ") {
					t.Fatalf("unreadable answer %q", s.p)
				}
			}
		}
		if sent > 4*len(pkt) {
			t.Fatalf("%d bytes sent for a %d-byte packet %q", sent, len(pkt), pkt)
		}
	})
}

// checkIndexes fails t when the master's table and its indexes disagree.
func checkIndexes(t *testing.T, m *Master) {
	t.Helper()
	n := 0
	for a, h := range m.hosts {
		n += len(h)
		if len(h) == 0 || len(h) > m.cfg.MaxServersPerAddr {
			t.Fatalf("%v holds %d", a, len(h))
		}
		if _, ok := m.byCount[len(h)][a]; !ok {
			t.Fatalf("%v with %d servers not in byCount", a, len(h))
		}
		for _, e := range h {
			if m.servers[e.Addr] != e || e.Addr.Addr() != a {
				t.Fatalf("hosts[%v] holds a stray entry %v", a, e.Addr)
			}
		}
	}
	for c, set := range m.byCount {
		for a := range set {
			if len(m.hosts[a]) != c {
				t.Fatalf("%v in byCount[%d] holds %d", a, c, len(m.hosts[a]))
			}
		}
	}
	for i, e := range m.order {
		if e.at != i || m.servers[e.Addr] != e {
			t.Fatalf("order[%d] inconsistent", i)
		}
	}
	if n != len(m.order) || len(m.servers) != n || n > m.cfg.MaxServers {
		t.Fatalf("hosts %d, order %d, servers %d, max %d", n, len(m.order), len(m.servers), m.cfg.MaxServers)
	}
}

// FuzzTable: any sequence of registrations from a few addresses and
// ports, refreshes and expiries keeps the table within its bounds and its
// indexes consistent. Each pair of bytes is one step: the first picks an
// address (its low 3 bits) and port (the next 2), or an expiry (0xff);
// the second advances the clock by that many seconds.
func FuzzTable(f *testing.F) {
	f.Add([]byte{0, 1, 1, 1, 2, 1, 8, 1, 9, 1, 16, 1, 17, 1, 24, 1, 3, 1, 4, 1, 5, 1, 0xff, 200})
	f.Add([]byte{0, 0, 8, 0, 16, 0, 24, 0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7, 0})
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) > 400 {
			return
		}
		const lots = 1 << 30
		r := newRig(Config{MaxServers: 6, MaxServersPerAddr: 3, Expire: time.Minute,
			GlobalPerSecond: lots, HeartbeatBurst: lots})
		now := time.Duration(0)
		for i := 0; i+1 < len(ops); i += 2 {
			now += time.Duration(ops[i+1]) * time.Second
			if ops[i] == 0xff {
				r.m.Expire(now)
			} else {
				a := netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 3, 0, ops[i] & 7}), 27960+uint16(ops[i]>>3&3))
				r.m.HandlePacket(now, a, oobPkt("heartbeat QuakeArena-1\n"))
				for _, s := range r.take() {
					if ch, ok := strings.CutPrefix(string(s.p[4:]), "getinfo "); ok {
						r.m.HandlePacket(now, a, oobPkt("infoResponse\n\\challenge\\"+ch+info68))
					}
				}
			}
			checkIndexes(t, r.m)
		}
	})
}
