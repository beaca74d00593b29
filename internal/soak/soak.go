// Package soak runs a secure arena server and many bot clients over real
// UDP sockets on loopback for a long time, optionally under a flood of
// malformed packets from other loopback hosts, and samples what an
// operator watches: resident memory, goroutines, heap, snapshots per
// client, disconnects. "snapwire soak" and the flood and soak tests use it.
//
// Everything runs in this process: the server runner on 127.0.0.1, each
// client runner on its own socket, the flooders on 127.0.0.2 and up (each
// loopback address is a distinct host to the server).
package soak

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/netip"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/netchan"
	"github.com/snapwire/snapwire/internal/refgame"
	"github.com/snapwire/snapwire/internal/serverhook"
	"github.com/snapwire/snapwire/internal/session"
	"github.com/snapwire/snapwire/server"
	"github.com/snapwire/snapwire/token"
)

// JoinLimit bounds the wait for every client to join before the run
// starts with the clients that did.
const JoinLimit = time.Minute

// Options configure a run.
type Options struct {
	Clients  int           // bot clients [64]
	Duration time.Duration // how long to play after all joined [30m]
	Interval time.Duration // between samples [10s]
	// Warmup is played before Duration; samples in it are reported but
	// left out of the memory verdict [1m, at most half of Duration].
	Warmup time.Duration
	// Baseline, with FloodRate, is a period played without the flood
	// before it, whose snapshot rate the flood's is compared with.
	Baseline time.Duration
	// FloodRate is the malformed packets per second sent at the server
	// during Duration (0: none); FloodSenders the sockets sending them [4].
	FloodRate    int
	FloodSenders int
	// OnSample, if set, sees every sample as it is taken.
	OnSample func(Sample)
}

// Sample is one look at the process. Its JSON gives At in seconds
// ("at_s").
type Sample struct {
	At         time.Duration `json:"-"`
	RSSBytes   uint64        `json:"rss_bytes"`
	HeapBytes  uint64        `json:"heap_bytes"`
	Goroutines int           `json:"goroutines"`
	Connected  int           `json:"clients_connected"`
	Snapshots  uint64        `json:"snapshots_received"` // all clients, since the start
	FloodSent  uint64        `json:"flood_packets_sent"`
}

// MarshalJSON writes the sample with its time in seconds.
func (s Sample) MarshalJSON() ([]byte, error) {
	type fields Sample // without this method
	return json.Marshal(struct {
		AtS float64 `json:"at_s"`
		fields
	}{s.At.Seconds(), fields(s)})
}

// ServerCounters are the server's counters a soak reports (serverhook.Stats).
type ServerCounters struct {
	Frames        uint64 `json:"frames"`
	FramesLate    uint64 `json:"frames_late"`
	Connects      uint64 `json:"connects"`
	Refused       uint64 `json:"refused"`
	Timeouts      uint64 `json:"timeouts"`
	Disconnects   uint64 `json:"disconnects"`
	Challenges    uint64 `json:"challenges"`
	BadCookies    uint64 `json:"bad_cookies"`
	BadPackets    uint64 `json:"bad_packets"`
	UnknownConn   uint64 `json:"unknown_connection"`
	AuthFailures  uint64 `json:"auth_failures"`
	WrongSource   uint64 `json:"wrong_source"`
	TokensRefused uint64 `json:"tokens_refused"`
	Throttled     uint64 `json:"throttled"`
	Queries       uint64 `json:"queries"`
}

func serverCounters(st serverhook.Stats) ServerCounters {
	return ServerCounters{Frames: st.Frames, FramesLate: st.FramesLate, Connects: st.Connects, Refused: st.Refused,
		Timeouts: st.Timeouts, Disconnects: st.Disconnects, Challenges: st.Challenges, BadCookies: st.BadCookies,
		BadPackets: st.BadPackets, UnknownConn: st.UnknownConn, AuthFailures: st.AuthFailures, WrongSource: st.WrongSource,
		TokensRefused: st.TokensRefused, Throttled: st.Throttled, Queries: st.Queries}
}

// Result is a run's outcome.
type Result struct {
	Clients  int     `json:"clients"`
	Duration float64 `json:"duration_s"` // the measured period, in seconds
	// Stopped: the context ended the run before its duration (SIGINT);
	// the figures cover the time played until then.
	Stopped bool     `json:"stopped"`
	Samples []Sample `json:"samples"`
	// RSS after the warm-up: first, min, max, and the largest deviation
	// from the first as a fraction (the ±10% verdict).
	RSSAfterWarmup uint64  `json:"rss_after_warmup_bytes"`
	RSSMin         uint64  `json:"rss_min_bytes"`
	RSSMax         uint64  `json:"rss_max_bytes"`
	RSSDeviation   float64 `json:"rss_deviation"`
	// Snapshots per client per second in the baseline and during the
	// measured period, per client that joined; MinRatio is the lowest
	// measured/baseline.
	BaselineRate []float64 `json:"baseline_snapshots_per_s,omitempty"` // with FloodRate
	MeasuredRate []float64 `json:"snapshots_per_s"`
	MinRatio     float64   `json:"min_snapshot_ratio"`
	// Joined is the clients connected when the measured run began (all
	// of Clients unless some failed to join within JoinLimit) and JoinTime
	// how long they took, in seconds; Disconnects counts those of them
	// not connected at the end; Server the server's counters.
	Joined      int            `json:"clients_joined"`
	JoinTime    float64        `json:"join_s"`
	Disconnects int            `json:"disconnects"`
	Server      ServerCounters `json:"server"`
	// FloodPackets and FloodRate: malformed packets sent, per second
	// achieved; ReaderDrops the server socket reader's drops.
	FloodPackets uint64  `json:"flood_packets"`
	FloodRate    float64 `json:"flood_rate_achieved"`
	ReaderDrops  uint64  `json:"server_reader_drops"`
}

var soakKey = token.Key{0: 's', 1: 'o', 2: 'a', 3: 'k'}

const soakProtocol = 0x50a6

// defaults fills the options left zero.
func (o *Options) defaults() {
	if o.Clients <= 0 {
		o.Clients = 64
	}
	if o.Duration <= 0 {
		o.Duration = 30 * time.Minute
	}
	if o.Interval <= 0 {
		o.Interval = 10 * time.Second
	}
	if o.Warmup <= 0 || o.Warmup > o.Duration/2 {
		o.Warmup = min(time.Minute, o.Duration/2)
	}
	if o.FloodSenders <= 0 {
		o.FloodSenders = 4
	}
}

// dialClients starts n bots with tokens for srv, each running until cctx
// ends (wg counts them).
func dialClients(ctx, cctx context.Context, wg *sync.WaitGroup, srv *server.Runner, n int) ([]*client.Runner, error) {
	var clients []*client.Runner
	for i := range n {
		tok, err := token.Issue(soakKey, token.Params{ProtocolID: soakProtocol, ClientID: uint64(i),
			Servers: []netip.AddrPort{srv.Addr()}, Lifetime: time.Minute}, time.Now())
		if err != nil {
			return nil, err
		}
		w := refgame.NewGame()
		bot := refgame.NewBot(uint64(i+1), 0, refgame.BotDeathmatch)
		r, err := client.Dial(srv.Addr().String(), client.Config{Name: "soak" + strconv.Itoa(i), Token: tok}, w,
			client.InputFunc(func(in client.Input) game.UserCmd {
				bot.Client = in.Client
				return bot.Command(w, in.Frame)
			}))
		if err != nil {
			return nil, err
		}
		clients = append(clients, r)
		wg.Add(1)
		go func() { defer wg.Done(); r.Run(cctx) }()
	}
	return clients, nil
}

// startFlood starts o.FloodSenders goroutines flooding srv from
// 127.0.0.2, 127.0.0.3, ... until ctx ends (wg counts them).
func startFlood(ctx context.Context, wg *sync.WaitGroup, srv netip.AddrPort, o Options, sent *atomic.Uint64) error {
	for k := range o.FloodSenders {
		conn, err := net.ListenUDP("udp", net.UDPAddrFromAddrPort(netip.AddrPortFrom(netip.AddrFrom4([4]byte{127, 0, 0, byte(2 + k)}), 0)))
		if err != nil {
			return fmt.Errorf("soak: flood socket on 127.0.0.%d: %w", 2+k, err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer conn.Close()
			flood(ctx, conn, srv, o.FloodRate/o.FloodSenders, uint64(k), sent)
		}()
	}
	return nil
}

// kept returns the v[i] whose keep[i] is true.
func kept(v []float64, keep []bool) []float64 {
	var out []float64
	for i, x := range v {
		if keep[i] {
			out = append(out, x)
		}
	}
	return out
}

// sleepCtx waits d, or until ctx ends (its error).
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// observeRSS keeps the RSS range after the warm-up: the first reading
// once warm (and not yet warmed) is RSSAfterWarmup; it returns whether
// the warm-up is over.
func (res *Result) observeRSS(rss uint64, warm, warmed bool) bool {
	switch {
	case warm && !warmed:
		res.RSSAfterWarmup, res.RSSMin, res.RSSMax = rss, rss, rss
	case warmed:
		res.RSSMin, res.RSSMax = min(res.RSSMin, rss), max(res.RSSMax, rss)
	}
	return warm
}

// finishRatios fills RSSDeviation and MinRatio from the other figures.
func (res *Result) finishRatios() {
	if res.RSSAfterWarmup > 0 {
		lo := float64(res.RSSAfterWarmup-res.RSSMin) / float64(res.RSSAfterWarmup)
		hi := float64(res.RSSMax-res.RSSAfterWarmup) / float64(res.RSSAfterWarmup)
		res.RSSDeviation = max(lo, hi)
	}
	if res.BaselineRate != nil {
		res.MinRatio = 1e9
		for i := range res.MeasuredRate {
			res.MinRatio = min(res.MinRatio, res.MeasuredRate[i]/max(res.BaselineRate[i], 1e-9))
		}
	}
}

// reader reads every client's snapshot count through cctx, which lives
// until the end, not the run's ctx, which a SIGINT ends: a cancelled read
// left zeros that the rates subtracted from the earlier counts. A client
// whose Runner has returned (disconnected) is read after it. isConnected
// holds each client's state at the last read.
type reader struct {
	clients     []*client.Runner
	cctx        context.Context
	isConnected []bool
}

// snapshots returns every client's snapshot count and how many are
// connected.
func (rd *reader) snapshots() ([]uint64, int) {
	out := make([]uint64, len(rd.clients))
	connected := 0
	for i, r := range rd.clients {
		read := func(c *client.Client) {
			out[i] = c.Stats().SnapshotsReceived
			rd.isConnected[i] = c.State() == client.Connected
			if rd.isConnected[i] {
				connected++
			}
		}
		if !r.Do(rd.cctx, func(_ time.Duration, c *client.Client) { read(c) }) {
			r.After(read)
		}
	}
	return out, connected
}

// waitJoin waits until every client is connected or the deadline has
// passed; it fails if ctx ends first.
func (rd *reader) waitJoin(ctx context.Context, deadline time.Time) error {
	for {
		if _, n := rd.snapshots(); n == len(rd.clients) || time.Now().After(deadline) {
			return nil
		}
		if ctx.Err() != nil {
			_, n := rd.snapshots()
			return fmt.Errorf("soak: stopped while the clients joined (%d of %d connected)", n, len(rd.clients))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Run plays until the duration has passed or ctx ends.
func Run(ctx context.Context, o Options) (*Result, error) {
	o.defaults()
	settings := refgame.Config{MaxPlayers: max(16, o.Clients)}.String()
	srv, err := server.Listen("127.0.0.1:0", server.Config{
		MaxClients: o.Clients, TokenKey: &soakKey, ProtocolID: soakProtocol,
		Advanced: server.Advanced{VerifyBase: true,
			MaxClientsPerIP: o.Clients, // every client is on 127.0.0.1
		},
	}, refgame.NewGame(), settings)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	defer wg.Wait()
	srvCtx, stopSrv := context.WithCancel(context.Background())
	defer stopSrv()
	wg.Add(1)
	go func() { defer wg.Done(); srv.Run(srvCtx) }()

	cctx, stopClients := context.WithCancel(context.Background())
	defer stopClients()
	clients, err := dialClients(ctx, cctx, &wg, srv, o.Clients)
	if err != nil {
		return nil, err
	}
	rd := &reader{clients: clients, cctx: cctx, isConnected: make([]bool, len(clients))}
	snapshots, isConnected := rd.snapshots, rd.isConnected
	// Everyone in, or as many as joined within JoinLimit: the verdict
	// counts the clients that joined, and reports the others.
	joinStart := time.Now()
	if err := rd.waitJoin(ctx, joinStart.Add(JoinLimit)); err != nil {
		return nil, err
	}
	res := &Result{Clients: o.Clients, JoinTime: time.Since(joinStart).Seconds()}
	_, res.Joined = snapshots()
	joined := slices.Clone(isConnected) // the clients the verdict counts
	if res.Joined == 0 {
		return nil, fmt.Errorf("soak: none of %d clients connected after %v", o.Clients, JoinLimit)
	}
	// ofJoined keeps the figures of the clients that joined.
	ofJoined := func(v []float64) []float64 { return kept(v, joined) }
	start := time.Now()
	var floodSent atomic.Uint64
	sample := func() Sample {
		// A collection that also returns freed pages to the OS before each
		// reading: otherwise RSS reports where the collector happened to be
		// in its cycle (a 2-minute run once moved 11.8 % that way with the
		// live heap flat), and a leak is what the verdict is for.
		debug.FreeOSMemory()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		snaps, connected := snapshots()
		var sum uint64
		for _, s := range snaps {
			sum += s
		}
		s := Sample{At: time.Since(start), RSSBytes: rss(), HeapBytes: ms.HeapAlloc, Goroutines: runtime.NumGoroutine(),
			Connected: connected, Snapshots: sum, FloodSent: floodSent.Load()}
		res.Samples = append(res.Samples, s)
		if o.OnSample != nil {
			o.OnSample(s)
		}
		return s
	}
	wait := func(d time.Duration) error { return sleepCtx(ctx, d) }

	sample()
	if o.FloodRate > 0 && o.Baseline > 0 {
		a, _ := snapshots()
		t0 := time.Now()
		res.Stopped = wait(o.Baseline) != nil
		b, _ := snapshots()
		res.BaselineRate = ofJoined(rates(a, b, time.Since(t0)))
		sample()
	}
	floodCtx, stopFlood := context.WithCancel(ctx)
	defer stopFlood()
	var floodWG sync.WaitGroup
	floodStart := time.Now()
	if o.FloodRate > 0 && !res.Stopped {
		if err := startFlood(floodCtx, &floodWG, srv.Addr(), o, &floodSent); err != nil {
			return nil, err
		}
	}
	a, _ := snapshots()
	t0 := time.Now()
	end := t0.Add(o.Duration)
	warmed := false
	for !res.Stopped && time.Now().Before(end) {
		if err := wait(min(o.Interval, time.Until(end))); err != nil {
			res.Stopped = true
			break
		}
		warmed = res.observeRSS(sample().RSSBytes, warmed || time.Since(t0) >= o.Warmup, warmed)
	}
	b, _ := snapshots()
	elapsed := time.Since(t0)
	stopFlood()
	floodWG.Wait()
	if o.FloodRate > 0 {
		res.FloodPackets = floodSent.Load()
		res.FloodRate = float64(res.FloodPackets) / time.Since(floodStart).Seconds()
	}
	res.Duration = elapsed.Seconds()
	res.MeasuredRate = ofJoined(rates(a, b, elapsed))
	res.finishRatios()
	for i := range clients {
		if joined[i] && !isConnected[i] { // also when its runner has ended
			res.Disconnects++
		}
	}
	srv.Do(context.Background(), func(_ time.Duration, s *server.Server) { res.Server = serverCounters(serverhook.ServerStats(s)) })
	_, res.ReaderDrops = srv.ReadStats()
	stopClients()
	stopSrv()
	return res, nil
}

// rates are the snapshots per second of each client between the counts a
// and b taken d apart: 0 for a count that did not grow or an empty
// period (never the wrap-around of b < a, nor a division by zero).
func rates(a, b []uint64, d time.Duration) []float64 {
	out := make([]float64, len(a))
	for i := range a {
		if i < len(b) && b[i] > a[i] && d > 0 {
			out[i] = float64(b[i]-a[i]) / d.Seconds()
		}
	}
	return out
}

// flood sends malformed packets of many kinds at about rate per second,
// in bursts every millisecond, until ctx ends.
func flood(ctx context.Context, conn *net.UDPConn, to netip.AddrPort, rate int, seed uint64, sent *atomic.Uint64) {
	rng := rand.New(rand.NewPCG(seed, 0xF100D))
	kinds := floodKinds(rng)
	start := time.Now()
	var n uint64
	for ctx.Err() == nil {
		due := uint64(time.Since(start).Seconds() * float64(rate))
		if n >= due {
			time.Sleep(time.Millisecond)
			continue
		}
		for limit := min(due, n+20000); n < limit; n++ {
			p := kinds[n%uint64(len(kinds))]
			mutate(rng, p)
			if _, err := conn.WriteToUDPAddrPort(p, to); err != nil && !errors.Is(err, net.ErrClosed) {
				// ENOBUFS and the like: the kernel is full; go on.
				continue
			}
			sent.Add(1)
		}
	}
}

// floodKinds are the templates of the malformed packets: random bytes,
// truncated headers, channel headers with random connection ids (plain
// and encrypted-looking), bad fragment fields, oversized packets,
// connectionless garbage, unpadded and bad-cookie handshakes.
func floodKinds(rng *rand.Rand) [][]byte {
	randBytes := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		return b
	}
	chanHdr := func(flags byte, extra int) []byte {
		b := append([]byte{flags, 1}, randBytes(6)...)
		return append(b, randBytes(extra)...)
	}
	var c session.Cookie
	return [][]byte{
		randBytes(1), randBytes(7), randBytes(40), randBytes(200),
		chanHdr(0, 30), chanHdr(0x20, 40), chanHdr(0x24, 100), // plain, encrypted, encrypted reliable
		chanHdr(0x02, 3), chanHdr(0x22, 1000), // fragments
		chanHdr(0x01, 50), chanHdr(0x10, 50), chanHdr(0x11, 50), chanHdr(0xC0, 10), // compressed, Huffman, both, reserved
		randBytes(1400),
		netchan.AppendConnectionless(nil, randBytes(20)),
		netchan.AppendConnectionless(nil, []byte{byte(session.KindGetChallenge), 1, 2}),
		netchan.AppendConnectionless(nil, session.Connect{Nonce: 1, Cookie: c}.Append(nil)),
		netchan.AppendConnectionless(nil, []byte("getinfo xxx")),
	}
}

// mutate changes a few random bytes of p (never the first 4 of a
// connectionless packet, so it stays one).
func mutate(rng *rand.Rand, p []byte) {
	lo := 0
	if netchan.IsConnectionless(p) {
		lo = 5
	}
	if len(p) <= lo {
		return
	}
	for range 3 {
		i := lo + rng.IntN(len(p)-lo)
		if i == 0 && lo == 0 {
			continue // keep the flags byte of the channel templates
		}
		p[i] = byte(rng.Uint32())
	}
}

// rss is this process's resident set size (Linux /proc/self/status VmRSS).
func rss() uint64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			fields := strings.Fields(v)
			if len(fields) > 0 {
				kb, _ := strconv.ParseUint(fields[0], 10, 64)
				return kb * 1024
			}
		}
	}
	return 0
}

// Summary is a one-paragraph report of r.
func (r *Result) Summary() string {
	var b strings.Builder
	if r.Stopped {
		b.WriteString("stopped early: ")
	}
	fmt.Fprintf(&b, "%d clients, %d joined in %.1f s; %.1f s: %d disconnected; ", r.Clients, r.Joined, r.JoinTime, r.Duration, r.Disconnects)
	if r.RSSAfterWarmup > 0 {
		fmt.Fprintf(&b, "RSS after warm-up %.1f MB (min %.1f, max %.1f: %.1f%% deviation); ",
			mb(r.RSSAfterWarmup), mb(r.RSSMin), mb(r.RSSMax), 100*r.RSSDeviation)
	}
	if n := len(r.Samples); n > 0 {
		fmt.Fprintf(&b, "goroutines %d; ", r.Samples[n-1].Goroutines)
	}
	if len(r.MeasuredRate) > 0 {
		rates := slices.Clone(r.MeasuredRate)
		slices.Sort(rates)
		fmt.Fprintf(&b, "snapshots/s per client %.1f..%.1f", rates[0], rates[len(rates)-1])
	}
	if r.FloodPackets > 0 {
		fmt.Fprintf(&b, "; flood %d packets (%.0f/s achieved), lowest snapshot ratio to baseline %.3f, server: %d bad, %d unknown connection, %d auth failures, %d reader drops",
			r.FloodPackets, r.FloodRate, r.MinRatio, r.Server.BadPackets, r.Server.UnknownConn, r.Server.AuthFailures, r.ReaderDrops)
	}
	return b.String()
}

func mb(b uint64) float64 { return float64(b) / (1 << 20) }
