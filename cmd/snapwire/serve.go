package main

// "snapwire serve": the arena server (examples/arena) over real UDP through
// server.Listen's real-time Runner. It logs joins and leaves, prints a
// status line every few seconds and shuts down cleanly on SIGINT/SIGTERM
// (every client gets a reliable disconnect message).

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/snapwire/snapwire/examples/arena"
	"github.com/snapwire/snapwire/netchan"
	"github.com/snapwire/snapwire/proto"
	"github.com/snapwire/snapwire/q3/oob"
	"github.com/snapwire/snapwire/q3/query"
	"github.com/snapwire/snapwire/server"
)

func init() {
	register(command{
		name:    "serve",
		summary: "run the arena server over UDP (logs joins, leaves and status)",
		run:     runServe,
	})
}

type serveOptions struct {
	listen     string
	settings   string
	tick       int
	snaps      int
	maxClients int
	password   string
	rate       int
	status     time.Duration
	hostname   string
	keyFile    string
	insecure   bool
	public     string
	metrics    string
	pprof      bool
}

func parseServeFlags(args []string) (serveOptions, error) {
	o := serveOptions{}
	fs := newFlagSet("serve")
	fs.StringVar(&o.listen, "listen", "127.0.0.1:27960", "UDP address to serve on (port 0: any free port)")
	fs.StringVar(&o.settings, "map", "", `arena settings, e.g. "arena rooms=4x4 players=16" (default: the 3x3 arena)`)
	fs.IntVar(&o.tick, "tick", 60, "game frames per second (DOOM III: 60)")
	fs.IntVar(&o.snaps, "snaps", 20, "snapshots per second per client (10..60)")
	fs.IntVar(&o.maxClients, "max-clients", 8, "player slots (1..64)")
	fs.StringVar(&o.password, "password", "", "password clients must give")
	fs.IntVar(&o.rate, "rate", 0, "byte rate per client, UDP/IP headers included (0: unlimited)")
	fs.DurationVar(&o.status, "status", 5*time.Second, "interval of the status line (0: none)")
	fs.StringVar(&o.hostname, "hostname", "snapwire", "server name in Quake 3 getinfo/getstatus answers")
	fs.StringVar(&o.keyFile, "key-file", "", "private key file (snapwire token keygen): clients need connect tokens issued with it")
	fs.BoolVar(&o.insecure, "insecure", false, "accept clients without connect tokens, unencrypted (tests and trusted networks only)")
	fs.StringVar(&o.public, "public-addr", "", "comma-separated IP:PORT addresses tokens name this server by (default: the --listen address)")
	fs.StringVar(&o.metrics, "metrics", "", "serve Prometheus metrics over HTTP at this address, e.g. 127.0.0.1:9100 (path /metrics)")
	fs.BoolVar(&o.pprof, "pprof", false, "with --metrics: also serve net/http/pprof under /debug/pprof/ (CPU and heap profiles; keep it private)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if o.pprof && o.metrics == "" {
		return o, errors.New("--pprof needs --metrics ADDR (they share the HTTP listener)")
	}
	if o.keyFile == "" && !o.insecure {
		return o, errors.New("secure by default: give --key-file KEYFILE (make one with 'snapwire token keygen > KEYFILE'; " +
			"clients then need tokens from 'snapwire token issue'), or --insecure to accept unauthenticated clients")
	}
	if o.keyFile != "" && o.insecure {
		return o, errors.New("--key-file and --insecure exclude each other")
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(fs.Output(), "snapwire serve: unexpected argument %q\n", fs.Arg(0))
		return o, errUsage
	}
	switch {
	case o.tick < 1 || o.tick > 1000:
		return o, fmt.Errorf("--tick %d: want 1..1000", o.tick)
	case o.snaps < 10 || o.snaps > 60:
		return o, fmt.Errorf("--snaps %d: want 10..60", o.snaps)
	case o.maxClients < 1 || o.maxClients > 64:
		return o, fmt.Errorf("--max-clients %d: want 1..64", o.maxClients)
	case o.rate < 0 || o.status < 0:
		return o, errors.New("--rate and --status must not be negative")
	}
	return o, nil
}

// serveSettings returns the arena settings string, checking that the map
// has a player slot for every client.
func serveSettings(o serveOptions) (string, error) {
	var cfg arena.Config
	if o.settings == "" {
		cfg = arena.Config{MaxPlayers: max(16, o.maxClients)}
	} else {
		var err error
		if cfg, err = arena.ParseConfig(o.settings); err != nil {
			return "", err
		}
	}
	m, err := arena.NewMap(cfg)
	if err != nil {
		return "", err
	}
	if p := m.Config().MaxPlayers; p < o.maxClients {
		return "", fmt.Errorf("the map has %d player slots, fewer than --max-clients %d", p, o.maxClients)
	}
	return m.Config().String(), nil
}

func runServe(args []string, stdout io.Writer) error {
	o, err := parseServeFlags(args)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return serve(ctx, o, stdout)
}

// serve runs the server until ctx is cancelled.
func serve(ctx context.Context, o serveOptions, stdout io.Writer) error {
	settings, err := serveSettings(o)
	if err != nil {
		return err
	}
	var seed [8]byte
	rand.Read(seed[:])
	cfg := server.Config{
		FrameRate:    o.tick,
		SnapshotRate: o.snaps,
		MaxClients:   o.maxClients,
		Password:     o.password,
		Seed:         binary.LittleEndian.Uint64(seed[:]), // game ids; secret and connection ids come from crypto/rand
		Channel:      netchan.Config{Rate: o.rate},
		VerifyBase:   true, // clients check the common base live (DOOM III §4.2)
		ProtocolID:   arenaProtocolID,
	}
	if o.keyFile != "" {
		key, err := readKeyFile(o.keyFile)
		if err != nil {
			return err
		}
		cfg.TokenKey = &key
	}
	for _, a := range strings.Split(o.public, ",") {
		if a = strings.TrimSpace(a); a == "" {
			continue
		}
		ap, err := netip.ParseAddrPort(a)
		if err != nil {
			return fmt.Errorf("--public-addr %q: %w", a, err)
		}
		cfg.PublicAddrs = append(cfg.PublicAddrs, ap)
	}
	// Quake 3 server queries ("getinfo", "getstatus": seed 002), so that
	// quakestat -q3s and server browsers list this server. The core hands
	// us every connectionless packet that is not a snapwire handshake; the
	// hook and qs.refresh both run on the Runner's goroutine.
	world := arena.NewGame()
	qs := newQueryStatus(o, settings, world)
	cfg.OnConnectionless = qs.handle
	var metricsLn net.Listener
	if o.metrics != "" {
		// Bound first, so a taken port fails before the game socket opens.
		if metricsLn, err = net.Listen("tcp", o.metrics); err != nil {
			return fmt.Errorf("--metrics: %w", err)
		}
		defer metricsLn.Close()
		// Frame and snapshot build times for the histograms: a monotonic
		// clock read at the edge, as the core asks (server.Config.Stopwatch).
		t0 := time.Now()
		cfg.Stopwatch = func() time.Duration { return time.Since(t0) }
	}
	r, err := server.Listen(o.listen, cfg, world, settings)
	if err != nil {
		return err
	}
	if metricsLn != nil {
		stop := serveMetrics(metricsLn, r, o.pprof)
		defer stop()
		fmt.Fprintf(stdout, "snapwire serve: metrics on http://%s/metrics%s\n", metricsLn.Addr(), map[bool]string{true: ", profiles on /debug/pprof/"}[o.pprof])
	}
	mode := "secure: connect tokens required, sessions encrypted"
	if cfg.TokenKey == nil {
		mode = "INSECURE: no connect tokens, sessions unencrypted"
	}
	fmt.Fprintf(stdout, "snapwire serve: listening on %s (udp), map %q, %d frames/s, %d snapshots/s, %d slots, %s\n",
		r.Addr(), settings, o.tick, o.snaps, o.maxClients, mode)

	runCtx, cancelRun := context.WithCancel(context.Background())
	defer cancelRun()
	done := make(chan error, 1)
	go func() { done <- r.Run(runCtx) }()
	r.Do(runCtx, func(now time.Duration, s *server.Server) { qs.refresh(s) })

	log := &serveLog{w: stdout, seen: map[netchan.ConnID]server.ClientStats{}, start: time.Now(), maxClients: o.maxClients}
	poll := time.NewTicker(200 * time.Millisecond)
	defer poll.Stop()
	nextStatus := time.Now().Add(o.status)
	for {
		select {
		case err := <-done: // the runner stopped on its own (socket error)
			return err
		case <-ctx.Done():
			// Last look at the clients, then the runner disconnects them.
			r.Do(runCtx, func(now time.Duration, s *server.Server) { log.update(now, s) })
			cancelRun()
			err := <-done
			fmt.Fprintf(stdout, "%s stopped: %d frames, %d joins, %d leaves\n", log.stamp(), log.frames, log.joins, log.leaves)
			return err
		case <-poll.C:
			status := o.status > 0 && !time.Now().Before(nextStatus)
			r.Do(runCtx, func(now time.Duration, s *server.Server) {
				log.update(now, s)
				qs.refresh(s)
				if status {
					log.status(now, s)
				}
			})
			if status {
				nextStatus = nextStatus.Add(o.status)
			}
		}
	}
}

// serveLog tracks the connected clients between polls to log joins and
// leaves, and the traffic between status lines.
type serveLog struct {
	w             io.Writer
	start         time.Time
	maxClients    int
	seen          map[netchan.ConnID]server.ClientStats
	joins, leaves int
	frames        uint64
	// traffic at the previous status line: bytes of channels gone are
	// kept in gone*, so the totals only grow
	lastAt                 time.Duration
	lastDown, lastUp       uint64
	goneDown, goneUp       uint64
	lastSnaps, lastSkipped uint64
	goneSnaps, goneSkipped uint64
}

func (l *serveLog) stamp() string {
	return fmt.Sprintf("[%7.1fs]", time.Since(l.start).Seconds())
}

func (l *serveLog) update(now time.Duration, s *server.Server) {
	l.frames = s.Stats().Frames
	cur := map[netchan.ConnID]bool{}
	for _, c := range s.Clients() {
		cur[c.ConnID] = true
		if _, ok := l.seen[c.ConnID]; !ok {
			l.joins++
			fmt.Fprintf(l.w, "%s join: client %d %q from %s (connection %d)\n", l.stamp(), c.Num, c.Name, c.Addr, c.ConnID)
		}
		l.seen[c.ConnID] = c
	}
	var gone []server.ClientStats
	for id, c := range l.seen {
		if !cur[id] {
			gone = append(gone, c)
		}
	}
	slices.SortFunc(gone, func(a, b server.ClientStats) int { return int(a.Num) - int(b.Num) })
	for _, c := range gone {
		l.leaves++
		l.goneDown += c.Channel.BytesOut
		l.goneUp += c.Channel.BytesIn
		l.goneSnaps += c.SnapshotsSent
		l.goneSkipped += c.SnapshotsSkipped
		fmt.Fprintf(l.w, "%s leave: client %d %q from %s (%d snapshots sent, %d commands duplicated)\n",
			l.stamp(), c.Num, c.Name, c.Addr, c.SnapshotsSent, c.Duplicated)
		delete(l.seen, c.ConnID)
	}
}

func (l *serveLog) status(now time.Duration, s *server.Server) {
	down, up, snaps, skipped := l.goneDown, l.goneUp, l.goneSnaps, l.goneSkipped
	var dup uint64
	var lead time.Duration
	clients := s.Clients()
	for i, c := range clients {
		down += c.Channel.BytesOut
		up += c.Channel.BytesIn
		snaps += c.SnapshotsSent
		skipped += c.SnapshotsSkipped
		dup += c.Duplicated
		if i == 0 || c.Lead < lead {
			lead = c.Lead
		}
	}
	secs := (now - l.lastAt).Seconds()
	perClient := func(b uint64) float64 {
		if secs <= 0 || len(clients) == 0 {
			return 0
		}
		return float64(b) * 8 / 1000 / secs / float64(len(clients))
	}
	st := s.Stats()
	fmt.Fprintf(l.w, "%s status: frame %d  clients %d/%d  down %.1f kbit/s/client  up %.1f  snapshots %d (+%d skipped)  duplicated %d  lowest lead %v  refused %d  timeouts %d\n",
		l.stamp(), s.Frame(), len(clients), l.maxClients, perClient(down-l.lastDown), perClient(up-l.lastUp),
		snaps-l.lastSnaps, skipped-l.lastSkipped, dup, lead.Round(time.Millisecond), st.Refused, st.Timeouts)
	l.lastAt, l.lastDown, l.lastUp, l.lastSnaps, l.lastSkipped = now, down, up, snaps, skipped
}

// queryStatus answers Quake 3 getinfo/getstatus queries (package q3/query:
// ioq3's rate limits, a burst of 10 then 1 per second per address) from
// the players the server last reported. It is used only on the Runner's
// goroutine: refresh in Runner.Do, handle from server.Config.OnConnectionless.
type queryStatus struct {
	hostname, mapName string
	maxClients        int
	world             *arena.World
	players           []query.Player
	responder         *query.Responder
	pkt, out          []byte
}

func newQueryStatus(o serveOptions, settings string, world *arena.World) *queryStatus {
	q := &queryStatus{hostname: o.hostname, maxClients: o.maxClients, world: world, mapName: "arena"}
	if cfg, err := arena.ParseConfig(settings); err == nil {
		q.mapName = fmt.Sprintf("arena%dx%d", cfg.RoomsX, cfg.RoomsY)
	}
	q.responder = query.NewResponder(query.SourceFunc(q.fill), query.Config{})
	return q
}

// refresh copies the connected players' names, frags and round trips.
func (q *queryStatus) refresh(s *server.Server) {
	q.players = q.players[:0]
	for _, c := range s.Clients() {
		score := 0
		if int(c.Num) < len(q.world.Score.Frags) {
			score = int(q.world.Score.Frags[c.Num])
		}
		q.players = append(q.players, query.Player{Name: c.Name, Score: score, Ping: int(c.Channel.RTT.Milliseconds())})
	}
}

func (q *queryStatus) fill(st *query.Status) {
	st.Hostname, st.MapName = q.hostname, q.mapName
	st.GameName, st.Game = "snapwire", "arena"
	st.Protocol = int(proto.Version)
	st.MaxClients = q.maxClients
	st.Players = append(st.Players, q.players...)
}

// handle answers one connectionless payload (after FF FF FF FF) if it is a
// query; the responder works on whole packets, reply adds the marker.
func (q *queryStatus) handle(now time.Duration, from netip.AddrPort, payload []byte, reply func([]byte)) {
	q.pkt = append(append(q.pkt[:0], oob.Marker...), payload...)
	if !query.IsQuery(q.pkt) {
		return
	}
	out, ok := q.responder.Handle(now, from, q.pkt, q.out[:0])
	q.out = out
	if ok && len(out) > len(oob.Marker) {
		reply(out[len(oob.Marker):])
	}
}
