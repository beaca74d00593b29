package main

// "snapwire serve": the arena server (internal/refgame) over real UDP through
// server.Listen's real-time Runner (with --matches, server.ListenHost's:
// servematches.go). It logs joins and leaves, prints a
// status line every few seconds and shuts down cleanly on SIGINT/SIGTERM
// (every client gets a reliable disconnect message).

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/snapwire/snapwire/agones"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/crowdgame"
	"github.com/snapwire/snapwire/internal/netaddr"
	"github.com/snapwire/snapwire/internal/q3/oob"
	"github.com/snapwire/snapwire/internal/q3/query"
	"github.com/snapwire/snapwire/internal/refgame"
	"github.com/snapwire/snapwire/internal/serverhook"
	"github.com/snapwire/snapwire/internal/session"
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
	game       string
	settings   string
	tick       int
	snaps      int
	maxClients int
	matches    int
	admin      string
	adminToken string // --admin-token-file
	maxPerIP   int
	grace      time.Duration
	workers    int
	password   string
	rate       int
	status     time.Duration
	hostname   string
	keyFile    string
	insecure   bool
	public     string
	metrics    string
	pprof      bool
	logFormat  string
	logLevel   string
	masters    string
	heartbeat  time.Duration
	agones     bool
	matchTime  time.Duration
	web        string
	webWASM    string
	webPeers   int
	webTokens  bool
}

func parseServeFlags(args []string) (serveOptions, error) {
	o := serveOptions{}
	fs := newFlagSet("serve")
	fs.StringVar(&o.listen, "listen", "127.0.0.1:27960", "UDP address to serve on (port 0: any free port)")
	fs.StringVar(&o.game, "game", gameArena, gameFlagUsage)
	fs.StringVar(&o.settings, "map", "", `arena settings, e.g. "arena rooms=4x4 players=16" (default: the 3x3 arena)`)
	fs.IntVar(&o.tick, "tick", 60, "game frames per second (DOOM III: 60)")
	fs.IntVar(&o.snaps, "snaps", 20, "snapshots per second per client (10..60)")
	fs.IntVar(&o.maxClients, "max-clients", 8, "player slots (1..1024; the arena holds at most 64)")
	fs.IntVar(&o.matches, "matches", 1, fmt.Sprintf("matches hosted on the one socket (1..%d), named 1..N, each its own game, map and --max-clients slots (1: one default match, named \"\")", maxServeMatches))
	fs.StringVar(&o.admin, "admin", "", "serve the admin interface over HTTP at this address, e.g. 127.0.0.1:9200: GET/POST /matches, DELETE /matches/NAME (loopback unless --admin-token-file)")
	fs.StringVar(&o.adminToken, "admin-token-file", "", "with --admin: a file holding a secret (16+ characters) every admin request must carry as Authorization: Bearer SECRET; needed off loopback")
	fs.IntVar(&o.maxPerIP, "max-clients-per-ip", 4, "player slots one IP address may hold, secure or not (1..1024)")
	fs.DurationVar(&o.grace, "reconnect-grace", 20*time.Second, "with --key-file: how long a silent client's slot, player and score are held for it to resume with its token (0: not at all)")
	fs.IntVar(&o.workers, "snapshot-workers", 1, "goroutines that build each frame's snapshots (1..64; the same bytes as 1)")
	fs.StringVar(&o.password, "password", "", "password clients must give")
	fs.IntVar(&o.rate, "rate", 0, "byte rate per client, UDP/IP headers included (0: unlimited)")
	fs.DurationVar(&o.status, "status", 5*time.Second, "interval of the status line (0: none)")
	fs.StringVar(&o.hostname, "hostname", "snapwire", "server name in Quake 3 getinfo/getstatus answers")
	fs.StringVar(&o.keyFile, "key-file", "", "private key file (snapwire token keygen): clients need connect tokens issued with it")
	fs.BoolVar(&o.insecure, "insecure", false, "accept clients without connect tokens, unencrypted (tests and trusted networks only)")
	fs.StringVar(&o.public, "public-addr", "", "comma-separated HOST:PORT addresses tokens name this server by (default: the --listen address)")
	fs.StringVar(&o.metrics, "metrics", "", "serve Prometheus metrics over HTTP at this address, e.g. 127.0.0.1:9100 (path /metrics)")
	fs.StringVar(&o.masters, "master", "", "comma-separated Quake 3 master servers (HOST:PORT) to heartbeat, so browsers and 'snapwire servers' list this server")
	fs.DurationVar(&o.heartbeat, "heartbeat", 5*time.Minute, "interval of the master heartbeats (ioq3: 5 minutes)")
	fs.BoolVar(&o.agones, "agones", false, "report to the Agones SDK sidecar (also when "+agones.EnvPort+" is set): Ready, Health, players, Shutdown at the end")
	fs.DurationVar(&o.matchTime, "match-duration", 0, "end the match (and the process) after this long (0: run until SIGINT/SIGTERM)")
	fs.StringVar(&o.web, "web", "", "also serve browsers over HTTP at this address, e.g. 127.0.0.1:8080: the page /play, and WebRTC data channels into the same match")
	fs.StringVar(&o.webWASM, "web-wasm", "", "with --web: the play client built for js/wasm (default: build it with go at start-up, inside snapwire's source tree)")
	fs.IntVar(&o.webPeers, "web-peers", 0, "with --web: most browser connections at once, connecting or playing (default: --max-clients times --matches)")
	fs.BoolVar(&o.webTokens, "web-tokens", false, "with --web and --key-file: hand a connect token to anyone who asks at /token (the page does), so browsers join a secure server")
	fs.StringVar(&o.logFormat, "log-format", "text", "log events as text (key=value) or json, one per line")
	fs.StringVar(&o.logLevel, "log-level", "info", "log events at this level and above: debug (adds each match's status line with --matches), info or warn")
	fs.BoolVar(&o.pprof, "pprof", false, "with --metrics: also serve net/http/pprof under /debug/pprof/ (CPU and heap profiles; keep it private)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if err := checkGameFlag(o.game); err != nil {
		return o, err
	}
	if o.game == gameCrowd && (o.settings != "" || o.web != "") {
		return o, errors.New("--game crowd takes no --map and no --web (the arena's)")
	}
	if o.logFormat != "text" && o.logFormat != "json" {
		return o, fmt.Errorf("--log-format %q: want text or json", o.logFormat)
	}
	if _, ok := logLevels[o.logLevel]; !ok {
		return o, fmt.Errorf("--log-level %q: want debug, info or warn", o.logLevel)
	}
	if _, set := agones.FromEnv(); set {
		o.agones = true
	}
	if o.matchTime < 0 {
		return o, errors.New("--match-duration must not be negative")
	}
	if o.heartbeat <= 0 {
		return o, errors.New("--heartbeat must be positive")
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
	switch {
	case o.web == "" && (o.webWASM != "" || o.webPeers != 0 || o.webTokens):
		return o, errors.New("--web-wasm, --web-peers and --web-tokens need --web ADDR")
	case o.webPeers < 0 || o.webPeers > 1024:
		return o, fmt.Errorf("--web-peers %d: want 0..1024", o.webPeers)
	case o.web != "" && o.keyFile != "" && !o.webTokens:
		return o, errors.New("--web with --key-file: browsers need connect tokens; give --web-tokens to hand them out at /token " +
			"(anyone who can load the page then gets one), or --insecure")
	case o.webTokens && o.keyFile == "":
		return o, errors.New("--web-tokens needs --key-file")
	}
	if o.adminToken != "" && o.admin == "" {
		return o, errors.New("--admin-token-file needs --admin ADDR")
	}
	if o.admin != "" {
		if err := checkAdminAddr(o.admin, o.adminToken != ""); err != nil {
			return o, err
		}
	}
	if o.matches > 1 && o.web != "" && !o.webTokens {
		return o, errors.New("--web with --matches: browsers choose their match by their token (/play?match=NAME); " +
			"give --key-file and --web-tokens")
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
	case o.maxClients < 1 || o.maxClients > game.MaxClients:
		return o, fmt.Errorf("--max-clients %d: want 1..%d", o.maxClients, game.MaxClients)
	case o.matches < 1 || o.matches > maxServeMatches:
		return o, fmt.Errorf("--matches %d: want 1..%d", o.matches, maxServeMatches)
	case o.grace < 0 || o.grace > 10*time.Minute:
		return o, fmt.Errorf("--reconnect-grace %v: want 0..10m", o.grace)
	case o.maxPerIP < 1 || o.maxPerIP > game.MaxClients:
		return o, fmt.Errorf("--max-clients-per-ip %d: want 1..%d", o.maxPerIP, game.MaxClients)
	case o.rate < 0 || o.status < 0:
		return o, errors.New("--rate and --status must not be negative")
	}
	return o, nil
}

// serveSettings returns the arena settings string, checking that the map
// has a player slot for every client.
func serveSettings(o serveOptions) (string, error) {
	if o.game == gameCrowd {
		return crowdgame.Settings, nil
	}
	if o.maxClients > refgame.MaxPlayersLimit {
		return "", fmt.Errorf("--max-clients %d: the arena holds at most %d players (--game crowd holds %d)", o.maxClients, refgame.MaxPlayersLimit, game.MaxClients)
	}
	var cfg refgame.Config
	if o.settings == "" {
		cfg = refgame.Config{MaxPlayers: max(16, o.maxClients)}
	} else {
		var err error
		if cfg, err = refgame.ParseConfig(o.settings); err != nil {
			return "", err
		}
	}
	m, err := refgame.NewMap(cfg)
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
	logger := newLevelLogger(o.logFormat, o.logLevel, stdout)
	settings, err := serveSettings(o)
	if err != nil {
		return err
	}
	cfg, err := serveConfig(o, logger)
	if err != nil {
		return err
	}
	if o.agones {
		// Tokens name the server by the address players reach: under a
		// Dynamic port policy the GameServer's, not --listen's.
		if err := addAgonesPublicAddr(ctx, &cfg, logger); err != nil {
			return err
		}
	}
	// Quake 3 server queries ("getinfo", "getstatus": Quake 3 protocol description), so that
	// quakestat -q3s and server browsers list this server. The core hands
	// us every connectionless packet that is not a snapwire handshake; the
	// hook and qs.refresh both run on the Runner's goroutine.
	hm := newHostedMatches(o, cfg)
	qs := newQueryStatus(o, settings, hm)
	serverhook.Edit(&cfg, func(h *serverhook.Hooks) { h.OnConnectionless = qs.handle })
	var metricsLn net.Listener
	if o.metrics != "" {
		// Bound first, so a taken port fails before the game socket opens.
		if metricsLn, err = net.Listen("tcp", o.metrics); err != nil {
			return fmt.Errorf("--metrics: %w", err)
		}
		defer metricsLn.Close()
		// Frame and snapshot build times for the histograms: a monotonic
		// clock read at the edge, as the core asks (serverhook.Hooks.Stopwatch).
		t0 := time.Now()
		serverhook.Edit(&cfg, func(h *serverhook.Hooks) { h.Stopwatch = func() time.Duration { return time.Since(t0) } })
	}
	var adminLn net.Listener
	adminTok := ""
	if o.admin != "" {
		if o.adminToken != "" {
			if adminTok, err = readAdminToken(o.adminToken); err != nil {
				return err
			}
		}
		// Bound first, so a taken port fails before the game socket opens.
		if adminLn, err = net.Listen("tcp", o.admin); err != nil {
			return fmt.Errorf("--admin: %w", err)
		}
		defer adminLn.Close()
	}
	var webLn net.Listener
	if o.web != "" {
		// Bound first, so a taken port fails before the wasm is built.
		if webLn, err = net.Listen("tcp", o.web); err != nil {
			return fmt.Errorf("--web: %w", err)
		}
		defer webLn.Close()
	}
	hm.cfg = cfg
	var r *server.Runner
	if o.matches <= 1 {
		world, arena := serveGame(o.game)
		if r, err = server.Listen(o.listen, cfg, world, settings); err != nil {
			return err
		}
		hm.add("", o.maxClients, arena)
	} else if r, err = server.ListenHost(o.listen, cfg); err != nil { // the matches come in runServer, once it runs
		return err
	}
	if webLn != nil {
		stop, err := serveWeb(ctx, o, webLn, r, cfg, logger)
		if err != nil {
			r.Close()
			return err
		}
		defer stop()
	}
	if metricsLn != nil {
		stop := serveMetrics(metricsLn, metricsSource{r, hm}, o.pprof)
		defer stop()
		logger.Info("metrics", "url", fmt.Sprintf("http://%s/metrics", metricsLn.Addr()), "pprof", o.pprof)
	}
	if adminLn != nil {
		stop := serveAdmin(adminLn, &adminAPI{o: o, r: r, hm: hm, token: adminTok, logger: logger})
		defer stop()
		logger.Info("admin", "url", fmt.Sprintf("http://%s/matches", adminLn.Addr()), "token", adminTok != "")
	}
	mode := "secure: connect tokens required, sessions encrypted"
	if cfg.TokenKey == nil {
		mode = "INSECURE: no connect tokens, sessions unencrypted"
	}
	// "listening" once the matches exist: a script that starts its
	// clients on it finds every match there.
	listening := func() {
		logger.Info("listening", "addr", r.Addr().String(), "map", settings, "frames_per_s", o.tick, "snapshots_per_s", o.snaps,
			"slots", o.maxClients, "matches", max(1, o.matches), "mode", mode)
	}
	return runServer(ctx, o, r, qs, hm, settings, logger, listening)
}

// reconnectGrace is --reconnect-grace as server.Advanced.ReconnectGrace,
// where 0 means the default and a negative value none.
func reconnectGrace(d time.Duration) time.Duration {
	if d == 0 {
		return -1
	}
	return d
}

// serveConfig is the server's configuration from the flags.
func serveConfig(o serveOptions, logger *slog.Logger) (server.Config, error) {
	cfg := server.Config{
		FrameRate:    o.tick,
		SnapshotRate: o.snaps,
		MaxClients:   o.maxClients,
		Password:     o.password,
		Rate:         o.rate,
		Logger:       logger,
		ProtocolID:   arenaProtocolID,
		Advanced: server.Advanced{
			MaxClientsPerIP: o.maxPerIP,
			ReconnectGrace:  reconnectGrace(o.grace),
			SnapshotWorkers: o.workers,
			VerifyBase:      true, // clients check the common base live (DOOM III §4.2)
		},
	}
	if o.keyFile != "" {
		key, err := readKeyFile(o.keyFile)
		if err != nil {
			return cfg, err
		}
		cfg.TokenKey = &key
	}
	for _, a := range strings.Split(o.public, ",") {
		if a = strings.TrimSpace(a); a == "" {
			continue
		}
		ap, err := netaddr.Resolve(a)
		if err != nil {
			return cfg, fmt.Errorf("--public-addr: %w", err)
		}
		cfg.PublicAddrs = append(cfg.PublicAddrs, ap)
	}
	return cfg, nil
}

// runServer runs r until ctx ends (or --match-duration), with the status
// line, the query answers, the master heartbeats and the Agones reports,
// then stops it: the runner disconnects every client.
func runServer(ctx context.Context, o serveOptions, r *server.Runner, qs *queryStatus, hm *hostedMatches, settings string, logger *slog.Logger, listening func()) error {
	var masters []netip.AddrPort
	for _, a := range splitList(o.masters) {
		ap, err := netaddr.Resolve(a)
		if err != nil {
			return fmt.Errorf("--master: %w", err)
		}
		masters = append(masters, ap)
	}
	runCtx, cancelRun := context.WithCancel(context.Background())
	defer cancelRun()
	done := make(chan error, 1)
	go func() { done <- r.Run(runCtx) }()
	if o.matches > 1 {
		if err := createMatches(runCtx, r, hm, o.matches, settings, o.maxClients); err != nil {
			cancelRun()
			<-done
			return err
		}
	}
	listening()
	r.DoHost(runCtx, func(now time.Duration, h *server.Host) { qs.refresh(h) })

	log := &serveLog{log: logger, hm: hm}
	poll := time.NewTicker(200 * time.Millisecond)
	defer poll.Stop()
	nextStatus := time.Now().Add(o.status)
	// Quake 3 master heartbeats from the game socket (the master checks
	// them with a getinfo to the address they came from, which our query
	// responder answers). "QuakeArena-1" is ioq3's HEARTBEAT_FOR_MASTER,
	// the tag masters expect of a Quake 3 protocol server.
	heartbeat := func() {
		r.DoHost(runCtx, func(now time.Duration, h *server.Host) {
			// From the match that answers the queries (Host.HandlePacket:
			// the default one, else the first): one heartbeat for the
			// process, whatever its matches.
			s := h.Match("")
			if names := h.Matches(); s == nil && len(names) > 0 {
				s = h.Match(names[0])
			}
			if s == nil {
				return
			}
			for _, m := range masters {
				serverhook.SendConnectionless(s, m, []byte("heartbeat QuakeArena-1\n"))
			}
		})
	}
	nextHeartbeat := time.Now().Add(o.heartbeat)
	if o.matchTime > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.matchTime)
		defer cancel()
	}
	if o.agones {
		stop := startAgones(ctx, o, r, logger)
		defer stop()
	}
	if len(masters) > 0 {
		heartbeat()
		logger.Info("heartbeat", "masters", o.masters, "interval", o.heartbeat)
	}
	for {
		select {
		case err := <-done: // the runner stopped on its own (socket error)
			return err
		case <-ctx.Done():
			// Last look at the counters, then the runner disconnects the
			// clients.
			var st server.Stats
			r.DoHost(runCtx, func(now time.Duration, h *server.Host) { st = hostStats(h, hm) })
			cancelRun()
			err := <-done
			logger.Info("stopped", "frames", st.Frames, "joins", st.Connects, "leaves", st.Disconnects)
			return err
		case <-poll.C:
			if len(masters) > 0 && !time.Now().Before(nextHeartbeat) {
				heartbeat()
				nextHeartbeat = nextHeartbeat.Add(o.heartbeat)
			}
			status := o.status > 0 && !time.Now().Before(nextStatus)
			r.DoHost(runCtx, func(now time.Duration, h *server.Host) {
				qs.refresh(h)
				if status {
					log.status(now, h)
				}
			})
			if status {
				nextStatus = nextStatus.Add(o.status)
			}
		}
	}
}

// newLogger returns the command's logger: slog's text or JSON handler on w.
func newLogger(format string, w io.Writer) *slog.Logger {
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, nil))
	}
	return slog.New(slog.NewTextHandler(w, nil))
}

// queryStatus answers Quake 3 getinfo/getstatus queries (package internal/q3/query:
// ioq3's rate limits, a burst of 10 then 1 per second per address) from
// the players the server last reported. It is used only on the Runner's
// goroutine: refresh in Runner.Do, handle from serverhook.Hooks.OnConnectionless.
type queryStatus struct {
	hostname, mapName string
	matches           *hostedMatches
	maxClients        int
	players           []query.Player
	clients           []server.ClientStats // refresh's reused slice
	responder         *query.Responder
	pkt, out          []byte
}

func newQueryStatus(o serveOptions, settings string, hm *hostedMatches) *queryStatus {
	q := &queryStatus{hostname: o.hostname, matches: hm, maxClients: o.maxClients * max(1, o.matches), mapName: o.game}
	if cfg, err := refgame.ParseConfig(settings); err == nil && o.game == gameArena {
		q.mapName = fmt.Sprintf("arena%dx%d", cfg.RoomsX, cfg.RoomsY)
	}
	q.responder = query.NewResponder(query.SourceFunc(q.fill), query.Config{})
	return q
}

// refresh copies the connected players' names, frags and round trips.
// The answers are the whole process's: every match's players, and the
// sum of the matches' slots as the maximum (with --matches a server
// browser lists the process as one server; the map named is --map's).
func (q *queryStatus) refresh(h *server.Host) {
	q.players = q.players[:0]
	for _, name := range h.Matches() {
		world := q.matches.byName[name].world
		q.clients = h.Match(name).AppendClients(q.clients[:0])
		for _, c := range q.clients {
			score := 0
			if world != nil && int(c.Num) < len(world.Score.Slots) {
				score = int(world.Score.Slots[c.Num].Frags)
			}
			q.players = append(q.players, query.Player{Name: c.Name, Score: score, Ping: int(c.RTT.Milliseconds())})
		}
	}
	q.maxClients = q.matches.slots(h)
}

func (q *queryStatus) fill(st *query.Status) {
	st.Hostname, st.MapName = q.hostname, q.mapName
	st.GameName, st.Game = "snapwire", "arena"
	st.Protocol = int(session.Version)
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
