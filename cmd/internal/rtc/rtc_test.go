package rtc_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pion/webrtc/v4"

	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/cmd/internal/rtc"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/acceptance"
	"github.com/snapwire/snapwire/internal/clienthook"
	"github.com/snapwire/snapwire/internal/refgame"
	"github.com/snapwire/snapwire/internal/serverhook"
	"github.com/snapwire/snapwire/internal/snapshot"
	"github.com/snapwire/snapwire/server"
)

var loopback = []netip.Addr{netip.MustParseAddr("127.0.0.1")}

// match is a server runner with the WebRTC transport attached and its
// signalling endpoint on 127.0.0.1.
type match struct {
	run  *server.Runner
	rtc  *rtc.Server
	url  string
	rec  *states
	stop func()
}

func newMatch(t *testing.T, cfg server.Config, rcfg rtc.Config) *match {
	t.Helper()
	m := &match{rec: newStates()}
	world := refgame.NewGame()
	codec := snapshot.NewStateCodec()
	serverhook.Set(&cfg, serverhook.Hooks{OnFrame: func(f game.Frame) { m.rec.record(f, world, codec) }})
	// One room: every player is always in the other's PVS.
	run, err := server.Listen("127.0.0.1:0", cfg, world, "arena rooms=1x1 players=8")
	if err != nil {
		t.Fatal(err)
	}
	rcfg.HostIPs = loopback
	rs, err := rtc.Attach(serverhook.Host(run), rcfg)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: rs, ReadHeaderTimeout: 5 * time.Second}
	go hs.Serve(ln)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- run.Run(ctx) }()
	m.run, m.rtc, m.url = run, rs, "http://"+ln.Addr().String()+"/rtc"
	m.stop = func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("server run: %v", err)
			}
		case <-time.After(5 * time.Second):
			t.Error("server did not stop")
		}
		hs.Close()
		if err := rs.Close(); err != nil {
			t.Error(err)
		}
	}
	t.Cleanup(m.stop)
	return m
}

// states keeps the server's entity states of recent frames, for the
// client's state checks (the snapshot overwrites the client's states
// with the server's: DOOM III §2).
type states struct {
	mu     sync.Mutex
	frames map[game.Frame]map[game.EntityNum]string
}

func newStates() *states { return &states{frames: map[game.Frame]map[game.EntityNum]string{}} }

func (s *states) record(f game.Frame, w *refgame.World, codec *snapshot.StateCodec) {
	fr := map[game.EntityNum]string{}
	for n := game.EntityNum(0); n < game.MaxEntities; n++ {
		if e, _ := w.Entity(n); e != nil {
			st, bits, err := codec.Save(e)
			if err == nil {
				fr[n] = string(st[:(bits+7)/8]) + string(rune(bits))
			}
		}
	}
	s.mu.Lock()
	s.frames[f] = fr
	delete(s.frames, f-600)
	s.mu.Unlock()
}

// check compares the client's states of the entities in snapshot sn
// with the server's of the same frame: checked and mismatched counts, or
// unchecked when the frame is no longer recorded.
func (s *states) check(sn *snapshot.Snapshot, w *refgame.World, codec *snapshot.StateCodec) (checked, bad int, unchecked bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fr := s.frames[sn.Header.Frame]
	if fr == nil {
		return 0, 0, true
	}
	for n := range sn.PVS.All() {
		checked++
		e, _ := w.Entity(n)
		if e == nil {
			bad++
			continue
		}
		st, bits, err := codec.Save(e)
		if err != nil || fr[n] != string(st[:(bits+7)/8])+string(rune(bits)) {
			bad++
		}
	}
	return checked, bad, false
}

// player drives a client core over a rtc.Conn in real time, on the test
// goroutine: a reader goroutine passes messages through a channel.
type player struct {
	cl                     *client.Client
	w                      *refgame.World
	conn                   *rtc.Conn
	pkts                   chan []byte
	checks, bad, unchecked int
	moved                  map[game.EntityNum][2]float32 // others' first positions
	othersMoved            map[game.EntityNum]bool
}

func newPlayer(t *testing.T, ctx context.Context, url string, seed uint64, rec *states) *player {
	t.Helper()
	conn, err := rtc.Dial(ctx, url, rtc.DialConfig{HostIPs: loopback})
	if err != nil {
		t.Fatal(err)
	}
	p := &player{w: refgame.NewGame(), conn: conn, pkts: make(chan []byte, 256),
		moved: map[game.EntityNum][2]float32{}, othersMoved: map[game.EntityNum]bool{}}
	bot := refgame.NewBot(seed, 0, refgame.BotDeathmatch)
	codec := snapshot.NewStateCodec()
	cfg := client.Config{Name: "rtc"}
	clienthook.Set(&cfg, clienthook.Hooks{
		OnSnapshot: func(sn *snapshot.Snapshot) {
			c, b, u := rec.check(sn, p.w, codec)
			p.checks, p.bad = p.checks+c, p.bad+b
			if u {
				p.unchecked++
			}
		}})
	p.cl, err = client.New(cfg, p.w, client.InputFunc(func(in client.Input) game.UserCmd {
		bot.Client = in.Client
		return bot.Command(p.w, in.Frame)
	}), client.SendFunc(func(to netip.AddrPort, b []byte) { conn.Write(b) }))
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(p.pkts)
		for {
			buf := make([]byte, rtc.MaxMessage)
			n, err := conn.Read(buf)
			if err != nil {
				return
			}
			select {
			case p.pkts <- buf[:n]:
			default: // the owner is behind: lost, as on UDP
			}
		}
	}()
	t.Cleanup(func() { conn.Close() })
	return p
}

// play runs the client until until returns true or d passes.
func (p *player) play(start time.Time, d time.Duration, until func() bool) {
	timer := time.NewTimer(0)
	defer timer.Stop()
	end := time.NewTimer(d)
	defer end.Stop()
	for !until() {
		select {
		case b, ok := <-p.pkts:
			if !ok {
				return
			}
			p.cl.HandlePacket(time.Since(start), b)
		case <-timer.C:
		case <-end.C:
			return
		}
		now := time.Since(start)
		p.cl.Advance(now)
		p.watchOthers()
		timer.Reset(max(p.cl.Next()-time.Since(start), 0))
	}
}

// watchOthers notes the other players that moved in the client's world.
func (p *player) watchOthers() {
	if p.cl.State() != client.Connected {
		return
	}
	me := game.EntityNum(p.cl.ClientNum())
	for n := range p.cl.Visible() {
		e, typ := p.w.Entity(n)
		if typ != refgame.TypePlayer || n == me {
			continue
		}
		x, y, _ := e.(client.Positioner).Position()
		if first, ok := p.moved[n]; !ok {
			p.moved[n] = [2]float32{x, y}
		} else if first != [2]float32{x, y} {
			p.othersMoved[n] = true
		}
	}
}

// A client core and a server core talk through WebRTC data channels
// (pion on both ends, ICE on 127.0.0.1): the handshake, 300 snapshots at
// 60 Hz with the common base checked on every apply and every entity
// state compared with the server's, a UDP client in the same match seeing
// the WebRTC player move and the WebRTC player seeing it move; then a
// clean disconnect.
//
// Guards against: packets of a data channel not reaching the one server
// core, sends to a synthetic address going to the UDP socket, a channel
// that is ordered or reliable (a lost packet would stall it, not be lost),
// and a peer left behind after it leaves.
func TestDataChannelMatch(t *testing.T) {
	acceptance.Require(t, "webrtc")
	m := newMatch(t, server.Config{SnapshotRate: 60, MaxClients: 4, Advanced: server.Advanced{VerifyBase: true}}, rtc.Config{})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	// A UDP bot in the same match; it notes the other players it sees
	// move (on its runner's goroutine).
	udpWorld := refgame.NewGame()
	var udpCl *client.Client
	udpBot := refgame.NewBot(99, 0, refgame.BotDeathmatch)
	udpFirst, udpMoved := map[game.EntityNum][2]float32{}, map[game.EntityNum]bool{}
	udpCfg := client.Config{Name: "udp"}
	clienthook.Set(&udpCfg, clienthook.Hooks{OnSnapshot: func(sn *snapshot.Snapshot) {
		if udpCl == nil {
			return
		}
		for n := range sn.PVS.All() {
			e, typ := udpWorld.Entity(n)
			if typ != refgame.TypePlayer || n == game.EntityNum(udpCl.ClientNum()) {
				continue
			}
			x, y, _ := e.(client.Positioner).Position()
			if first, ok := udpFirst[n]; !ok {
				udpFirst[n] = [2]float32{x, y}
			} else if first != [2]float32{x, y} {
				udpMoved[n] = true
			}
		}
	}})
	udp, err := client.Dial(m.run.Addr().String(), udpCfg, udpWorld,
		client.InputFunc(func(in client.Input) game.UserCmd {
			udpBot.Client = in.Client
			return udpBot.Command(udpWorld, in.Frame)
		}))
	if err != nil {
		t.Fatal(err)
	}
	udpCtx, udpStop := context.WithCancel(ctx)
	udpDone := make(chan error, 1)
	go func() { udpDone <- udp.Run(udpCtx) }()
	udp.Do(ctx, func(now time.Duration, c *client.Client) { udpCl = c })

	p := newPlayer(t, ctx, m.url, 1, m.rec)
	start := time.Now()
	p.cl.Connect(0, rtc.PeerAddr(0)) // the server's address is unused: the channel has one peer
	p.play(start, 20*time.Second, func() bool { return p.cl.Stats().SnapshotsReceived >= 300 })

	st, ctr := p.cl.Stats(), clienthook.CountersOf(p.cl)
	t.Logf("webrtc client: %d snapshots (%d lost), base checks %d (%d bad), state checks %d (%d bad, %d unchecked snapshots), rtt %v",
		st.SnapshotsReceived, st.SnapshotsLost, ctr.BaseChecks, ctr.BaseMismatches, p.checks, p.bad, p.unchecked, st.RTT)
	if p.checks < 1000 || p.bad != 0 {
		t.Errorf("state checks: %d, %d mismatches", p.checks, p.bad)
	}
	if ctr.SnapshotsReceived < 300 || ctr.BaseChecks < 100 || ctr.BaseMismatches != 0 || ctr.DecodeErrors != 0 || ctr.ApplyErrors != 0 {
		t.Errorf("client counters %+v", ctr)
	}
	rs := m.rtc.Stats()
	t.Logf("rtc server: %+v", rs)
	if rs.Opened != 1 || rs.MsgsIn == 0 || rs.MsgsOut < 300 {
		t.Errorf("rtc stats %+v", rs)
	}
	// Both players saw the other move.
	var udpSaw bool
	me := game.EntityNum(p.cl.ClientNum())
	udp.Do(ctx, func(now time.Duration, c *client.Client) { udpSaw = udpMoved[me] })
	if !udpSaw {
		t.Error("the UDP client did not see the WebRTC player move")
	}
	if len(p.othersMoved) != 1 {
		t.Errorf("the WebRTC client saw %d other players move, want 1", len(p.othersMoved))
	}
	var n int
	m.run.Do(ctx, func(now time.Duration, s *server.Server) { n = s.NumClients() })
	if n != 2 {
		t.Errorf("%d clients on the server, want 2", n)
	}
	// A clean leave: the disconnect rides the data channel.
	p.cl.Disconnect(time.Since(start))
	deadline := time.Now().Add(5 * time.Second)
	for n != 1 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		m.run.Do(ctx, func(now time.Duration, s *server.Server) { n = s.NumClients() })
	}
	if n != 1 {
		t.Errorf("%d clients after the WebRTC client left, want 1", n)
	}
	udpStop()
	if err := <-udpDone; err != nil {
		t.Errorf("udp client: %v", err)
	}
}

// offer returns a real SDP offer with its candidates from a pion peer
// that will never complete the connection.
func offer(t testing.TB) string {
	t.Helper()
	pc, err := webrtc.NewPeerConnection(webrtc.Configuration{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	if _, err := pc.CreateDataChannel("x", nil); err != nil {
		t.Fatal(err)
	}
	o, err := pc.CreateOffer(nil)
	if err != nil {
		t.Fatal(err)
	}
	gathered := webrtc.GatheringCompletePromise(pc)
	if err := pc.SetLocalDescription(o); err != nil {
		t.Fatal(err)
	}
	select {
	case <-gathered:
	case <-time.After(10 * time.Second):
		t.Fatal("gathering did not complete")
	}
	return pc.LocalDescription().SDP
}

// The signalling endpoint bounds what a stranger can make it do: only
// POST, an offer of at most MaxOffer bytes that parses as SDP, at most
// MaxPeers peers at once, and a peer that never opens its channel is
// closed after ConnectTimeout, freeing its slot.
//
// Guards against: unbounded bodies, peers piling up from offers that
// never connect, a nil dereference on garbage.
func TestSignallingBounds(t *testing.T) {
	acceptance.Require(t, "webrtc")
	m := newMatch(t, server.Config{}, rtc.Config{MaxPeers: 1, MaxOffer: 8 << 10, ConnectTimeout: 500 * time.Millisecond})
	post := func(body string) (int, string) {
		t.Helper()
		resp, err := http.Post(m.url, "application/sdp", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
		return resp.StatusCode, string(b)
	}
	resp, err := http.Get(m.url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET: %s", resp.Status)
	}
	if code, _ := post("v=0\r\n" + strings.Repeat("a=x\r\n", 4<<10)); code != http.StatusRequestEntityTooLarge {
		t.Errorf("a 20 KB offer: %d", code)
	}
	for _, bad := range []string{"", "hello", "v=0\r\nm=garbage\r\n", "v=0\r\no=- 0 0 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\n"} {
		if code, _ := post(bad); code != http.StatusBadRequest {
			t.Errorf("offer %q: %d", bad, code)
		}
	}
	if st := m.rtc.Stats(); st.Peers != 0 {
		t.Errorf("%d peers left by bad offers", st.Peers)
	}
	o := offer(t)
	code, ans := post(o)
	if code != http.StatusOK || !strings.HasPrefix(ans, "v=0") || !strings.Contains(ans, "127.0.0.1") {
		t.Fatalf("offer: %d %q", code, ans)
	}
	if code, _ := post(offer(t)); code != http.StatusServiceUnavailable {
		t.Errorf("a second peer over MaxPeers 1: %d", code)
	}
	deadline := time.Now().Add(5 * time.Second)
	for m.rtc.Stats().Peers != 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	st := m.rtc.Stats()
	if st.Peers != 0 || st.TimedOut != 1 || st.Opened != 0 {
		t.Errorf("after the connect timeout: %+v", st)
	}
	if code, _ := post(offer(t)); code != http.StatusOK {
		t.Errorf("an offer once the slot is free: %d", code)
	}
}

// One address cannot take every slot: with MaxPeersPerIP 1, a second
// offer from 127.0.0.1 while the first peer is connecting is refused with
// 429, though MaxPeers has room; once the first times out, an offer is
// answered again.
//
// Guards against: a stranger holding all MaxPeers slots with offers it
// never connects.
func TestSignallingPerIP(t *testing.T) {
	acceptance.Require(t, "webrtc")
	m := newMatch(t, server.Config{}, rtc.Config{MaxPeers: 8, MaxPeersPerIP: 1, ConnectTimeout: 500 * time.Millisecond})
	post := func() int {
		t.Helper()
		resp, err := http.Post(m.url, "application/sdp", strings.NewReader(offer(t)))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := post(); code != http.StatusOK {
		t.Fatalf("first offer: %d", code)
	}
	if code := post(); code != http.StatusTooManyRequests {
		t.Errorf("second offer from the same address: %d", code)
	}
	deadline := time.Now().Add(5 * time.Second)
	for m.rtc.Stats().Peers != 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if code := post(); code != http.StatusOK {
		t.Errorf("an offer after the first peer timed out: %d", code)
	}
}
