package main

// "snapwire serve --web": browsers play in the same match as UDP clients.
// The page (internal/web) runs the play client compiled to WebAssembly,
// which joins over a WebRTC data channel (internal/rtc) attached to the
// server's Runner: one match, one server core.

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"time"

	"github.com/snapwire/snapwire/cmd/internal/rtc"
	"github.com/snapwire/snapwire/cmd/internal/web"
	"github.com/snapwire/snapwire/internal/ratelimit"
	"github.com/snapwire/snapwire/internal/serverhook"
	"github.com/snapwire/snapwire/server"
	"github.com/snapwire/snapwire/token"
)

// serveWeb attaches the WebRTC transport to r and serves the page, its
// files, signalling and (--web-tokens) tokens on ln. stop closes the
// HTTP server and every peer.
func serveWeb(ctx context.Context, o serveOptions, ln net.Listener, r *server.Runner, cfg server.Config, logger *slog.Logger) (stop func(), err error) {
	assets, build, err := webAssets(o, logger)
	if err != nil {
		return nil, err
	}
	return serveWebWith(ctx, o, ln, r, cfg, logger, assets, build)
}

// serveWebWith is serveWeb with the page's assets at hand, or (assets
// nil) the step that makes them: then the HTTP server answers at once,
// and while build runs /play is a page that says so and reloads itself
// (web.Site). stop also ends the build and waits for it.
func serveWebWith(ctx context.Context, o serveOptions, ln net.Listener, r *server.Runner, cfg server.Config, logger *slog.Logger,
	assets *web.Assets, build func(context.Context) (web.Assets, error)) (stop func(), err error) {
	peers := o.webPeers
	if peers == 0 {
		peers = o.maxClients * max(1, o.matches)
	}
	rs, err := rtc.Attach(serverhook.Host(r), rtc.Config{HostIPs: webHostIPs(ln.Addr()), MaxPeers: peers, Logger: logger})
	if err != nil {
		return nil, err
	}
	bctx, cancelBuild := context.WithCancel(ctx)
	var site *web.Site
	if assets != nil {
		site = web.Ready(*assets, rs)
	} else {
		site = web.Start(bctx, func(ctx context.Context) (web.Assets, error) {
			a, err := build(ctx)
			if err != nil && ctx.Err() == nil {
				logger.Error("web", "build failed", err.Error(), "page", "/play shows the error; UDP clients are not affected")
			}
			return a, err
		}, rs)
	}
	var h http.Handler = site
	if o.webTokens {
		mux := http.NewServeMux()
		mux.Handle("/", h)
		mux.Handle("GET /token", tokenHandler(*cfg.TokenKey, append(append([]netip.AddrPort(nil), cfg.PublicAddrs...), r.Addr()), webDefaultMatch(o)))
		h = mux
	}
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second,
		WriteTimeout: 60 * time.Second, IdleTimeout: 60 * time.Second, MaxHeaderBytes: 16 << 10}
	go hs.Serve(ln)
	logger.Info("web", "url", fmt.Sprintf("http://%s/play", ln.Addr()), "signalling", "/rtc", "peers", peers,
		"tokens", o.webTokens, "ice_hosts", fmt.Sprint(webHostIPs(ln.Addr())))
	return func() {
		cancelBuild()
		<-site.Done()
		hs.Close()
		rs.Close()
	}, nil
}

// webHostIPs are the addresses the server's ICE candidates may use: the
// --web address's IP when it names one, every interface when it is
// unspecified.
func webHostIPs(a net.Addr) []netip.Addr {
	ta, ok := a.(*net.TCPAddr)
	if !ok {
		return nil
	}
	ip := ta.AddrPort().Addr().Unmap()
	if ip.IsUnspecified() {
		return nil
	}
	return []netip.Addr{ip}
}

// webAssets returns the page's assets from --web-wasm, read now (so a
// missing file fails at start-up), or else the step that builds the play
// client for js/wasm from the source tree the working directory is in,
// which serveWebWith runs while it already answers.
func webAssets(o serveOptions, logger *slog.Logger) (*web.Assets, func(context.Context) (web.Assets, error), error) {
	if o.webWASM != "" {
		b, err := os.ReadFile(o.webWASM)
		if err != nil {
			return nil, nil, fmt.Errorf("--web-wasm: %w", err)
		}
		return &web.Assets{WASM: b}, nil, nil
	}
	root, ok := sourceRoot()
	goBin, err := exec.LookPath("go")
	if !ok || err != nil {
		return nil, nil, web.ErrNoSource
	}
	return nil, func(ctx context.Context) (web.Assets, error) {
		dir, err := os.MkdirTemp("", "snapwire-web")
		if err != nil {
			return web.Assets{}, err
		}
		defer os.RemoveAll(dir)
		logger.Info("web", "building", "GOOS=js GOARCH=wasm go build -tags play ./cmd/snapwire-play", "source", root)
		t0 := time.Now()
		bctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
		defer cancel()
		wasm, execJS, err := web.Build(bctx, goBin, root, dir)
		if err != nil {
			return web.Assets{}, err
		}
		logger.Info("web", "built", len(wasm), "took", time.Since(t0).Round(time.Millisecond))
		return web.Assets{WASM: wasm, WasmExecJS: execJS}, nil
	}, nil
}

// tokenHandler hands out connect tokens for this server (--web-tokens):
// 30 s to use, a session timeout of 10 s, a random client id, at most
// tokenBurst to one address and then one per tokenPeriod. Anyone who
// can reach it gets one; the sessions are still encrypted and a token
// still binds to the first address that uses it. The token admits to the
// match ?match=NAME names (serve --matches), else to defaultMatch.
func tokenHandler(key token.Key, servers []netip.AddrPort, defaultMatch string) http.Handler {
	if len(servers) > token.MaxServers {
		servers = servers[len(servers)-token.MaxServers:]
	}
	start := time.Now()
	l := ratelimit.NewLimiter(tokenBuckets, tokenBurst, tokenPeriod)
	return limitPerAddr(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var id [8]byte
		rand.Read(id[:])
		match, asked := defaultMatch, r.URL.Query().Has("match")
		if asked {
			match = r.URL.Query().Get("match")
		}
		tok, err := token.Issue(key, token.Params{ProtocolID: arenaProtocolID, ClientID: binary.LittleEndian.Uint64(id[:]),
			Servers: servers, Lifetime: 30 * time.Second, Timeout: 10 * time.Second, Match: match}, time.Now())
		if err != nil && asked {
			// Not a match name (token.Params.Match); not 404, on which the
			// page would join without a token.
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		fmt.Fprint(w, tok.String())
	}), l, tokenPeriod, func() time.Duration { return time.Since(start) })
}

// webDefaultMatch is the match /token admits to without ?match=: the
// default match, or "1" with --matches (which has no default match).
func webDefaultMatch(o serveOptions) string {
	if o.matches > 1 {
		return matchName(1)
	}
	return ""
}
