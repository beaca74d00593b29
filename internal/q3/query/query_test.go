package query

import (
	"bytes"
	"fmt"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/snapwire/snapwire/internal/q3/oob"
)

// fixture is the server of q3/testdata/queries.pcap (session A's, after
// the client left): three bots on oa_dm2.
var fixture = SourceFunc(func(st *Status) {
	st.Hostname, st.MapName, st.Protocol, st.MaxClients = "snapwire-fixture-68", "oa_dm2", 68, 8
	st.Players = append(st.Players,
		Player{Name: "Penguin", Score: 0, Bot: true},
		Player{Name: "Liz", Score: 1, Bot: true},
		Player{Name: "Dark", Score: 1, Bot: true})
})

var client = netip.MustParseAddrPort("127.0.0.1:56356")

func TestInfoResponseBytes(t *testing.T) {
	r := NewResponder(fixture, Config{})
	// queries.pcap, minus the "\voip\opus" pair ioq3 adds for its VoIP.
	for _, tc := range []struct{ req, want string }{
		{"getinfo\n", `infoResponse` + "\n" + `\g_needpass\0\pure\0\gametype\0\sv_maxclients\8\g_humanplayers\0\clients\3\mapname\oa_dm2\hostname\snapwire-fixture-68\protocol\68\gamename\Quake3Arena`},
		{"getinfo snapwire-getinfo", `infoResponse` + "\n" + `\g_needpass\0\pure\0\gametype\0\sv_maxclients\8\g_humanplayers\0\clients\3\mapname\oa_dm2\hostname\snapwire-fixture-68\protocol\68\gamename\Quake3Arena\challenge\snapwire-getinfo`},
	} {
		got, ok := r.Handle(0, client, []byte("\xff\xff\xff\xff"+tc.req), nil)
		if !ok || string(got) != "\xff\xff\xff\xff"+tc.want {
			t.Errorf("%q:\n got %q\nwant %q", tc.req, got, tc.want)
		}
	}
}

func TestStatusResponse(t *testing.T) {
	r := NewResponder(fixture, Config{})
	got, ok := r.Handle(0, client, []byte("\xff\xff\xff\xffgetstatus snapwire-getstatus"), nil)
	if !ok {
		t.Fatal("no reply")
	}
	if !bytes.HasPrefix(got, []byte("\xff\xff\xff\xffstatusResponse\n\\challenge\\snapwire-getstatus\\sv_hostname\\snapwire-fixture-68\\mapname\\oa_dm2\\")) ||
		!bytes.HasSuffix(got, []byte("\n0 0 \"Penguin\"\n1 0 \"Liz\"\n1 0 \"Dark\"\n")) {
		t.Fatalf("%q", got)
	}
	m, err := oob.ParseServerPacket(got)
	if err != nil {
		t.Fatal(err)
	}
	sr := m.(*oob.StatusResponse)
	info, err := oob.ParseInfo(sr.Info, oob.BigInfoString)
	if err != nil || info.Value("sv_maxclients") != "8" || len(sr.Players) != 3 || sr.Players[1] != (oob.Player{Score: 1, Name: "Liz"}) {
		t.Fatalf("%v %+v %v", err, sr, info)
	}
}

// TestHostileValues: names and values cannot break the reply's syntax,
// a bad challenge is not echoed, a long one is not answered, and a huge
// player list is cut to one packet.
func TestHostileValues(t *testing.T) {
	r := NewResponder(SourceFunc(func(st *Status) {
		st.Hostname, st.MapName = `a\b;c"d`+"\n", "m"
		for i := range 200 {
			st.Players = append(st.Players, Player{Name: fmt.Sprintf("p\"%d\n", i)})
		}
	}), Config{})
	got, ok := r.Handle(0, client, []byte("\xff\xff\xff\xffgetstatus a\\b"), nil)
	if !ok || len(got) > maxReply {
		t.Fatalf("ok %v len %d", ok, len(got))
	}
	m, err := oob.ParseServerPacket(got)
	if err != nil {
		t.Fatal(err)
	}
	sr := m.(*oob.StatusResponse)
	info, err := oob.ParseInfo(sr.Info, oob.BigInfoString)
	if err != nil || info.Value("sv_hostname") != "a.b.c.d." || info.Value("challenge") != "" || len(sr.Players) == 0 || len(sr.Players) >= 200 {
		t.Fatalf("%v %q %d players", err, sr.Info, len(sr.Players))
	}
	for _, p := range sr.Players {
		if strings.ContainsAny(p.Name, "\"\n") {
			t.Fatalf("name %q", p.Name)
		}
	}
	if _, ok := r.Handle(0, client, []byte("\xff\xff\xff\xffgetinfo "+strings.Repeat("x", 129)), nil); ok {
		t.Error("answered a 129-byte challenge")
	}
	for _, p := range []string{"", "\xff\xff\xff", "\xff\xff\xff\xff", "\xff\xff\xff\xffgetchallenge", "\x01\x00\x00\x00getinfo", "\xff\xff\xff\xffconnect "} {
		if _, ok := r.Handle(0, client, []byte(p), nil); ok || (IsQuery([]byte(p)) && p != "") {
			t.Errorf("%q answered", p)
		}
	}
}

// TestRateLimit: ioq3's limits in virtual time. Per address: 10 at once,
// then one a second; the port does not matter. Globally: 10 per 100 ms.
func TestRateLimit(t *testing.T) {
	r := NewResponder(fixture, Config{})
	q := []byte("\xff\xff\xff\xffgetinfo")
	ask := func(now time.Duration, from string) bool {
		_, ok := r.Handle(now, netip.MustParseAddrPort(from), q, nil)
		return ok
	}
	n := 0
	for i := range 15 {
		if ask(time.Duration(i)*20*time.Millisecond, fmt.Sprintf("10.0.0.1:%d", 1000+i)) {
			n++
		}
	}
	if n != 10 {
		t.Fatalf("burst: %d answered, want 10", n)
	}
	if ask(999*time.Millisecond, "10.0.0.1:1") {
		t.Error("answered before a period leaked")
	}
	if !ask(1300*time.Millisecond, "10.0.0.1:1") || ask(1400*time.Millisecond, "10.0.0.1:1") {
		t.Error("want one more after a second, not two")
	}
	if !ask(1500*time.Millisecond, "10.0.0.2:1") {
		t.Error("another address was limited")
	}
	// Global: 12 fresh addresses inside 100 ms.
	n = 0
	for i := range 12 {
		if ask(5*time.Second+time.Duration(i)*time.Millisecond, fmt.Sprintf("10.1.0.%d:1", i)) {
			n++
		}
	}
	if n != 10 || r.Stats().LimitedGlobal != 2 {
		t.Fatalf("global: %d answered, stats %+v", n, r.Stats())
	}
	// After 10 s everything is forgiven.
	if !ask(20*time.Second, "10.0.0.1:1") {
		t.Error("address still limited after 10 s")
	}
}

func BenchmarkHandleStatus(b *testing.B) {
	r := NewResponder(fixture, Config{Burst: 1 << 30, GlobalBurst: 1 << 30})
	q := []byte("\xff\xff\xff\xffgetstatus x")
	var out []byte
	b.ReportAllocs()
	for b.Loop() {
		out, _ = r.Handle(0, client, q, out[:0])
	}
	b.ReportMetric(float64(len(out)), "bytes/reply")
}

// FuzzHandle: any packet either gets no reply or one the engine's parser
// reads back with the source's player count.
func FuzzHandle(f *testing.F) {
	for _, s := range []string{"\xff\xff\xff\xffgetinfo\n", "\xff\xff\xff\xffgetstatus snapwire-getstatus", "\xff\xff\xff\xffgetinfo \"a b\"", "\xff\xff\xff\xffGETSTATUS \\x"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, pkt []byte) {
		r := NewResponder(fixture, Config{})
		out, ok := r.Handle(0, client, pkt, nil)
		if !ok {
			return
		}
		if !IsQuery(pkt) {
			t.Fatalf("answered a non-query %q", pkt)
		}
		m, err := oob.ParseServerPacket(out)
		if err != nil {
			t.Fatalf("reply %q: %v", out, err)
		}
		switch m := m.(type) {
		case *oob.InfoResponse:
			info, err := oob.ParseInfo(m.Info, oob.MaxInfoString)
			if err != nil || info.Value("clients") != "3" {
				t.Fatalf("%v %q", err, m.Info)
			}
		case *oob.StatusResponse:
			if len(m.Players) != 3 {
				t.Fatalf("%d players", len(m.Players))
			}
		default:
			t.Fatalf("reply %T", m)
		}
	})
}
