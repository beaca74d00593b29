package rtc

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pion/webrtc/v4"

	"github.com/snapwire/snapwire/internal/acceptance"
)

// testOffer is a real offer (pion's, the data channel negotiated as the
// server's) whose candidates name 127.0.0.1: posted from another
// address, every candidate is dropped and the peer never connects, as an
// attacker's offers that are never followed by ICE.
func testOffer(t testing.TB) string {
	t.Helper()
	api := newAPI([]netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil)
	pc, err := api.NewPeerConnection(webrtc.Configuration{})
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	if _, err := pc.CreateDataChannel(Channel, channelInit()); err != nil {
		t.Fatal(err)
	}
	offer, err := pc.CreateOffer(nil)
	if err != nil {
		t.Fatal(err)
	}
	gathered := webrtc.GatheringCompletePromise(pc)
	if err := pc.SetLocalDescription(offer); err != nil {
		t.Fatal(err)
	}
	<-gathered
	return pc.LocalDescription().SDP
}

// post posts offer to s as if from remote and returns the status.
func post(s *Server, offer, remote string) int {
	r := httptest.NewRequest(http.MethodPost, "/rtc", strings.NewReader(offer))
	r.RemoteAddr = remote
	w := httptest.NewRecorder()
	s.ServeHTTP(w, r)
	return w.Code
}

// halfOpenCost posts n never-completing offers from n addresses and
// returns the heap bytes and goroutines per half-open peer.
func halfOpenCost(t testing.TB, n int) (bytesPer, goroutinesPer float64) {
	s, err := NewServer(Config{HostIPs: []netip.Addr{netip.MustParseAddr("127.0.0.1")}, MaxPeers: n,
		ConnectTimeout: time.Minute, Inject: func(netip.AddrPort, []byte) bool { return true }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	offer := testOffer(t)
	post(s, offer, "192.0.2.250:1") // warm up pion's one-time state
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	g0 := runtime.NumGoroutine()
	for i := range n - 1 {
		if c := post(s, offer, netip.AddrPortFrom(netip.AddrFrom4([4]byte{198, 18, byte(i >> 8), byte(i)}), 1).String()); c != http.StatusOK {
			t.Fatalf("offer %d: %d", i, c)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&m1)
	g1 := runtime.NumGoroutine()
	k := float64(n - 1)
	if testing.Verbose() {
		buf := make([]byte, 1<<22)
		buf = buf[:runtime.Stack(buf, true)]
		counts := map[string]int{}
		for _, g := range strings.Split(string(buf), "\n\n") {
			lines := strings.Split(g, "\n")
			if len(lines) > 1 {
				f := lines[1]
				if i := strings.LastIndexByte(f, '('); i > 0 {
					f = f[:i]
				}
				counts[f+" <- "+strings.Fields(lines[len(lines)-2] + " x x x")[2]]++
			}
		}
		for f, c := range counts {
			if c >= n/4 {
				t.Logf("%4d goroutines in %s", c, f)
			}
		}
	}
	mem := func(m *runtime.MemStats) int64 { return int64(m.HeapInuse + m.StackInuse) }
	return float64(mem(&m1)-mem(&m0)) / k, float64(g1-g0) / k
}

// The memory (heap and goroutine stacks) and goroutines of one half-open
// peer (an offer answered, no ICE ever), measured over 128 of them: at
// most 6 goroutines and 128 KiB each.
//
// Guards against: pion's default interceptors (four RTCP goroutines per
// peer connection, for media a data channel never sends), a watcher
// goroutine per peer for the connect timeout, a certificate generated per
// offer: 10 goroutines and about 100 KB per half-open peer before.
func TestHalfOpenPeerCost(t *testing.T) {
	if testing.Short() {
		t.Skip("128 pion peer connections")
	}
	b, g := halfOpenCost(t, 129)
	t.Logf("per half-open peer: %.0f bytes (heap and stacks), %.1f goroutines", b, g)
	if g > 6 || b > 128<<10 {
		t.Errorf("a half-open peer costs %.1f goroutines and %.0f bytes; want at most 6 and 128 KiB", g, b)
	}
}

// Acceptance (issue 22, item 6): with 8 browser slots (serve's default),
// two addresses posting 10 offers each that they never connect hold at
// most MaxHalfOpenPerIP slots each (the rest get 429 with Retry-After),
// and a browser from a third address joins while they wait.
//
// Guards against: half-open offers from 2 addresses holding every slot
// (MaxPeersPerIP 4 each), every newcomer refused with 503 until the
// connect timeout after the attack.
func TestHalfOpenOffersLeaveSlots(t *testing.T) {
	if testing.Short() {
		t.Skip("real WebRTC connection")
	}
	loop := []netip.Addr{netip.MustParseAddr("127.0.0.1")}
	s, err := NewServer(Config{HostIPs: loop, MaxPeers: 8, ConnectTimeout: time.Minute,
		Inject: func(netip.AddrPort, []byte) bool { return true }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	offer := testOffer(t)
	codes := map[int]int{}
	for _, from := range []string{"192.0.2.1", "192.0.2.2"} {
		for i := range 10 {
			codes[post(s, offer, from+":"+strconv.Itoa(40000+i))]++
		}
	}
	half := s.Stats().Peers
	t.Logf("20 half-open offers from 2 addresses: statuses %v, %d peers held", codes, half)
	if half > 4 {
		t.Errorf("2 addresses hold %d of 8 slots with offers never connected", half)
	}
	// A real browser joining during the attack (ICE and DTLS over
	// loopback, in real time) is part of the webrtc acceptance run.
	if !acceptance.Enabled("webrtc") {
		return
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: s}
	go hs.Serve(ln)
	defer hs.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := Dial(ctx, "http://"+ln.Addr().String()+"/rtc", DialConfig{HostIPs: loop})
	if err != nil {
		t.Fatalf("a browser during the attack: %v", err)
	}
	defer c.Close()
	if _, err := c.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
}

// Retry-After on the half-open refusal: the connect timeout in seconds.
func TestHalfOpenRetryAfter(t *testing.T) {
	if testing.Short() {
		t.Skip("pion peer connections")
	}
	s, err := NewServer(Config{HostIPs: []netip.Addr{netip.MustParseAddr("127.0.0.1")}, ConnectTimeout: 2500 * time.Millisecond,
		Inject: func(netip.AddrPort, []byte) bool { return true }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	offer := testOffer(t)
	for range 2 {
		if c := post(s, offer, "192.0.2.9:1"); c != http.StatusOK {
			t.Fatalf("offer: %d", c)
		}
	}
	r := httptest.NewRequest(http.MethodPost, "/rtc", strings.NewReader(offer))
	r.RemoteAddr = "192.0.2.9:2"
	w := httptest.NewRecorder()
	s.ServeHTTP(w, r)
	if w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") != "3" {
		t.Errorf("third half-open offer: %d, Retry-After %q; want 429 and 3", w.Code, w.Header().Get("Retry-After"))
	}
}
