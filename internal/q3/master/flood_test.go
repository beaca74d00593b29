package master

import (
	"math/rand/v2"
	"net/netip"
	"strings"
	"testing"
	"time"
)

// Acceptance (issue 22, item 5), on the I/O-free master with a virtual
// clock:
//
//  1. Fill: 160 hosts announce 26 servers each (4,160, answering every
//     getinfo as real servers would); then a real server heartbeats. It is
//     listed.
//  2. Flood: for 10 s, 2,000 heartbeats a second from spoofed addresses,
//     1,000 forged infoResponses and 1,000 junk packets. A browser's plain
//     getservers (quakestat's) is answered every second.
//  3. Flood with 2,000 spoofed getservers a second on top: two browsers
//     that prove their address (getserversCookie, then getservers with the
//     cookie) get the whole listing, the real server in it, every second.
//
// Guards against: a table that a few hosts fill (4,096 fake servers from
// 160 addresses, then the real one not listed), heartbeats and listings
// sharing one budget (a heartbeat flood answered 0 of 3 real getservers),
// and listings that only the asker's word bounds.
func TestFillAndFloodStillListsRealServer(t *testing.T) {
	rng := rand.New(rand.NewPCG(22, 5))
	r := newRig(Config{})
	now := time.Duration(0)
	getinfo := func(a netip.AddrPort) string {
		for _, s := range r.take() {
			if ch, ok := strings.CutPrefix(string(s.p[4:]), "getinfo "); ok && s.to == a {
				return ch
			}
		}
		return ""
	}
	// 1. Fill, at the rate of the getinfo budget (200 a second).
	for h := range 160 {
		for p := range 26 {
			a := netip.AddrPortFrom(netip.AddrFrom4([4]byte{100, 64, byte(h), 1}), uint16(27960+p))
			now += 5 * time.Millisecond
			r.m.HandlePacket(now, a, oobPkt("heartbeat QuakeArena-1\n"))
			if ch := getinfo(a); ch != "" {
				r.m.HandlePacket(now, a, oobPkt("infoResponse\n\\challenge\\"+ch+info68))
			}
		}
	}
	real := netip.MustParseAddrPort("192.0.2.77:27960")
	now += time.Second
	r.m.HandlePacket(now, real, oobPkt("heartbeat QuakeArena-1\n"))
	ch := getinfo(real)
	if ch == "" {
		t.Fatalf("the real server's heartbeat got no getinfo after the fill")
	}
	r.m.HandlePacket(now, real, oobPkt("infoResponse\n\\challenge\\"+ch+info68))
	listed := func() bool {
		for _, s := range r.m.Servers() {
			if s.Addr == real {
				return true
			}
		}
		return false
	}
	if !listed() {
		t.Errorf("the real server is not listed after the fill (%d listed)", len(r.m.Servers()))
	}
	t.Logf("after the fill: %d servers listed of 4,161 announced", len(r.m.Servers()))

	spoofed := func() netip.AddrPort {
		return netip.AddrPortFrom(netip.AddrFrom4([4]byte{byte(1 + rng.IntN(223)), byte(rng.IntN(256)), byte(rng.IntN(256)), byte(rng.IntN(256))}), uint16(rng.IntN(65536)))
	}
	junk := func() []byte {
		b := make([]byte, 4+rng.IntN(60))
		for i := range b {
			b[i] = byte(rng.IntN(256))
		}
		if rng.IntN(2) == 0 {
			copy(b, "\xff\xff\xff\xff")
		}
		return b
	}
	var flood []func()
	for range 2000 {
		flood = append(flood, func() { r.m.HandlePacket(now, spoofed(), oobPkt("heartbeat QuakeArena-1\n")) })
	}
	for range 1000 {
		flood = append(flood, func() { r.m.HandlePacket(now, spoofed(), oobPkt("infoResponse\n\\challenge\\123abc"+info68)) })
		flood = append(flood, func() { r.m.HandlePacket(now, spoofed(), junk()) })
	}
	// 2. A plain getservers (quakestat -q3m's words) each second.
	browser := netip.MustParseAddrPort("198.51.100.10:40000")
	answered := 0
	for range 10 {
		rng.Shuffle(len(flood), func(i, j int) { flood[i], flood[j] = flood[j], flood[i] })
		got := runSecond(&now, r, flood, rng, browser, func() {
			r.m.HandlePacket(now, browser, oobPkt("getservers 68 empty full\n"))
		})
		if len(got) > 0 {
			if _, last, ok := ParseServersResponse(got[len(got)-1].p); ok && last {
				answered++
			}
		}
	}
	if answered != 10 {
		t.Errorf("a plain getservers answered %d times of 10 under a heartbeat flood", answered)
	}
	// 3. Spoofed getservers too; two browsers prove their address.
	for range 2000 {
		flood = append(flood, func() { r.m.HandlePacket(now, spoofed(), oobPkt("getservers 68 empty full\n")) })
	}
	for _, b := range []netip.AddrPort{netip.MustParseAddrPort("198.51.100.20:40000"), netip.MustParseAddrPort("203.0.113.30:27000")} {
		full := 0
		for range 5 {
			rng.Shuffle(len(flood), func(i, j int) { flood[i], flood[j] = flood[j], flood[i] })
			var cookie string
			runSecond(&now, r, flood, rng, b, func() {
				r.m.HandlePacket(now, b, oobPkt("getserversCookie            "))
				for _, s := range r.take() {
					if c, ok := strings.CutPrefix(string(s.p[4:]), "getserversCookie "); ok && s.to == b {
						cookie = c
					}
				}
			})
			if cookie == "" {
				continue
			}
			got := runSecond(&now, r, flood, rng, b, func() {
				r.m.HandlePacket(now, b, oobPkt("getservers 68 empty full cookie="+cookie+"\n"))
			})
			var addrs []netip.AddrPort
			for _, s := range got {
				a, _, _ := ParseServersResponse(s.p)
				addrs = append(addrs, a...)
			}
			for _, a := range addrs {
				if a == real {
					full++
					break
				}
			}
			if len(addrs) != len(r.m.Servers()) {
				t.Errorf("%v: a proven listing of %d servers, %d listed", b, len(addrs), len(r.m.Servers()))
			}
		}
		if full != 5 {
			t.Errorf("%v: the real server in %d of 5 proven listings under a getservers flood", b, full)
		}
	}
	if !listed() {
		t.Errorf("the real server is no longer listed")
	}
	t.Logf("stats: %+v", r.m.Stats())
}

// runSecond runs one second of flood on r with ask at a random place in
// it, advancing now, and returns the packets sent to to.
func runSecond(now *time.Duration, r *rig, flood []func(), rng *rand.Rand, to netip.AddrPort, ask func()) []sent {
	at := rng.IntN(len(flood) + 1)
	step := time.Second / time.Duration(len(flood)+1)
	var got []sent
	keep := func() {
		for _, s := range r.take() {
			if s.to == to {
				got = append(got, s)
			}
		}
	}
	for i, f := range flood {
		if i == at {
			*now += step
			ask()
			keep()
		}
		*now += step
		f()
		keep()
	}
	if at == len(flood) {
		*now += step
		ask()
		keep()
	}
	return got
}
