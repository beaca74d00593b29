package master

import (
	"bytes"
	"fmt"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/snapwire/snapwire/internal/q3/oob"
)

type sent struct {
	to netip.AddrPort
	p  []byte
}

type rig struct {
	m       *Master
	out     []sent
	queries int
}

func newRig(cfg Config) *rig {
	r := &rig{}
	r.m = New(cfg, func(to netip.AddrPort, p []byte) { r.out = append(r.out, sent{to, bytes.Clone(p)}) })
	return r
}

func (r *rig) take() []sent { o := r.out; r.out = nil; return o }

func srv(i int) netip.AddrPort {
	return netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 0, byte(i >> 8), byte(i)}), uint16(27960+i%7))
}

func oobPkt(s string) []byte { return append(append([]byte(nil), oob.Marker...), s...) }

// register runs a server's heartbeat and answers the getinfo as a real
// server would, with the given info.
func (r *rig) register(t testing.TB, now time.Duration, a netip.AddrPort, info string) {
	t.Helper()
	r.m.HandlePacket(now, a, oobPkt("heartbeat QuakeArena-1\n"))
	out := r.take()
	if len(out) != 1 || out[0].to != a || !strings.HasPrefix(string(out[0].p[4:]), "getinfo ") {
		t.Fatalf("answer to a heartbeat: %v", out)
	}
	if len(out[0].p) > len("\xff\xff\xff\xffheartbeat QuakeArena-1\n") {
		t.Errorf("getinfo of %d bytes for a heartbeat of %d", len(out[0].p), len("\xff\xff\xff\xffheartbeat QuakeArena-1\n"))
	}
	ch := strings.TrimPrefix(string(out[0].p[4:]), "getinfo ")
	r.m.HandlePacket(now, a, oobPkt("infoResponse\n\\challenge\\"+ch+info))
}

// list asks for the servers of protocol p and returns them, checking the
// packets' framing.
func (r *rig) list(t *testing.T, now time.Duration, q string) []netip.AddrPort {
	t.Helper()
	r.queries++
	r.m.HandlePacket(now, netip.AddrPortFrom(netip.AddrFrom4([4]byte{192, 0, 2, byte(r.queries)}), 5000), oobPkt(q))
	var all []netip.AddrPort
	out := r.take()
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

const info68 = "\\protocol\\68\\hostname\\a\\mapname\\q3dm17\\clients\\2\\sv_maxclients\\8\\gamename\\Quake3Arena"

// The listing follows the verified infoResponse; spoofed heartbeats and
// infoResponses list nothing; empty and full servers only when asked for;
// entries expire.
//
// Guards against: listing on a heartbeat alone or on an infoResponse
// without our challenge (spoofed listings), ignoring the protocol filter,
// entries that never expire.
func TestListing(t *testing.T) {
	r := newRig(Config{Expire: time.Minute})
	r.register(t, 0, srv(1), info68)
	r.register(t, 0, srv(2), strings.Replace(info68, "\\clients\\2", "\\clients\\0", 1)) // empty
	r.register(t, 0, srv(3), strings.Replace(info68, "\\clients\\2", "\\clients\\8", 1)) // full
	r.register(t, 0, srv(4), strings.Replace(info68, "\\protocol\\68", "\\protocol\\71", 1))

	// Spoofed: a heartbeat whose getinfo nobody answers, an infoResponse
	// with another challenge, one from another address.
	r.m.HandlePacket(0, srv(5), oobPkt("heartbeat QuakeArena-1\n"))
	ch := strings.TrimPrefix(string(r.take()[0].p[4:]), "getinfo ")
	r.m.HandlePacket(0, srv(5), oobPkt("infoResponse\n\\challenge\\x"+ch+info68))
	r.m.HandlePacket(0, srv(6), oobPkt("infoResponse\n\\challenge\\"+ch+info68))
	r.m.HandlePacket(0, srv(7), oobPkt("heartbeat QuakeArena-1\n"))
	r.take()

	check := func(q string, want ...netip.AddrPort) {
		t.Helper()
		got := r.list(t, time.Second, q)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%q: %v, want %v", q, got, want)
		}
	}
	check("getservers 68", srv(1))
	check("getservers 68 empty full", srv(1), srv(2), srv(3))
	check("getservers 71 empty full\n", srv(4))
	check("getservers Quake3Arena 71 empty", srv(4))
	if st := r.m.Stats(); st.Verified != 4 || st.BadChallenges != 2 {
		t.Errorf("stats %+v", st)
	}

	// srv(1) heartbeats again at 40 s; the others expire at 1 min.
	r.register(t, 40*time.Second, srv(1), info68)
	r.m.Expire(61 * time.Second)
	check("getservers 68 empty full", srv(1))
	if r.m.Stats().Expired != 3 {
		t.Errorf("expired %d, want 3", r.m.Stats().Expired)
	}
}

// 500 servers: the listing is split into packets under the MTU, every
// server once, the last packet ending with EOT.
func TestListingBatches(t *testing.T) {
	r := newRig(Config{GlobalPerSecond: 10000, HeartbeatBurst: 10000})
	for i := range 500 {
		r.register(t, 0, srv(i+1), info68)
	}
	got := r.listProven(t, time.Second, "getservers 68")
	seen := map[netip.AddrPort]bool{}
	for _, a := range got {
		seen[a] = true
	}
	if len(got) != 500 || len(seen) != 500 {
		t.Errorf("%d addresses, %d distinct", len(got), len(seen))
	}
}

// Per-IP and global limits bound what a flood of heartbeats or getservers
// makes the master send, and the server table stays bounded.
func TestLimits(t *testing.T) {
	r := newRig(Config{MaxPending: 50, MaxServers: 10})
	for i := range 1000 { // one IP, many ports
		r.m.HandlePacket(0, netip.AddrPortFrom(netip.MustParseAddr("10.9.9.9"), uint16(i)), oobPkt("heartbeat x"))
	}
	if n := len(r.take()); n != 32 {
		t.Errorf("%d getinfos to one IP for 1000 heartbeats, want the burst of 32", n)
	}
	for i := range 1000 { // many IPs
		r.m.HandlePacket(time.Second/2, srv(i+1), oobPkt("heartbeat x"))
	}
	if n := len(r.take()); n > 200 {
		t.Errorf("%d getinfos for 1000 heartbeats from 1000 IPs", n)
	}
	r.m.Expire(10 * time.Second)
	for i := range 20 {
		r.register(t, time.Duration(11+i)*time.Second, srv(2000+i), info68)
	}
	if n := len(r.m.servers); n != 10 {
		t.Errorf("%d servers listed, MaxServers 10", n)
	}
	for range 100 {
		r.m.HandlePacket(40*time.Second, netip.MustParseAddrPort("192.0.2.9:5000"), oobPkt("getservers 68 empty full"))
	}
	if n := len(r.take()); n != 8 {
		t.Errorf("%d listings for 100 getservers from one address, want 8", n)
	}
}

func FuzzHandlePacket(f *testing.F) {
	f.Add([]byte("\xff\xff\xff\xffheartbeat QuakeArena-1\n"))
	f.Add([]byte("\xff\xff\xff\xffgetservers 68 empty full\n"))
	f.Add([]byte("\xff\xff\xff\xffgetservers Quake3Arena 71\n"))
	f.Add([]byte("\xff\xff\xff\xffinfoResponse\n\\challenge\\abc\\protocol\\68"))
	f.Fuzz(func(t *testing.T, pkt []byte) {
		r := newRig(Config{})
		r.register(t, 0, srv(1), info68)
		r.m.HandlePacket(time.Second, srv(1), pkt)
		r.m.HandlePacket(time.Second, srv(2), pkt)
		for _, s := range r.take() {
			if len(s.p) > maxPacket {
				t.Fatalf("packet of %d bytes", len(s.p))
			}
			ParseServersResponse(s.p)
		}
	})
}

func FuzzParseServersResponse(f *testing.F) {
	f.Add([]byte("\xff\xff\xff\xffgetserversResponse\\\x0a\x00\x00\x01\x6d\x38\\EOT\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, pkt []byte) {
		addrs, _, _ := ParseServersResponse(pkt)
		if len(addrs) > len(pkt)/7 {
			t.Fatalf("%d addresses from %d bytes", len(addrs), len(pkt))
		}
	})
}
