package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/snapwire/snapwire/cmd/internal/web"
	"github.com/snapwire/snapwire/internal/acceptance"
	"github.com/snapwire/snapwire/internal/refgame"
	"github.com/snapwire/snapwire/server"
)

// "serve --web" while its wasm builds: serveWebWith returns with the HTTP
// server answering, GET /play gets the page that says it is building,
// and once the build (here a step the test releases) returns, the game's
// page.
//
// Guards against: GET /play hanging for the whole build because the
// HTTP server started only after it (issue 21).
//
// Real loopback sockets (TCP for HTTP, UDP for the game, port 0):
// acceptance run "web-building". Nothing depends on timing.
func TestServeWebAnswersWhileBuilding(t *testing.T) {
	acceptance.Require(t, "web-building")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r, err := server.Listen("127.0.0.1:0", server.Config{}, refgame.NewGame(), refgame.Config{}.String())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	stop, err := serveWebWith(ctx, serveOptions{maxClients: 4}, ln, r, server.Config{}, newLogger("text", io.Discard), nil,
		func(ctx context.Context) (web.Assets, error) {
			select {
			case <-release:
				return web.Assets{WASM: []byte("\x00asm\x01\x00\x00\x00")}, nil
			case <-ctx.Done():
				return web.Assets{}, ctx.Err()
			}
		})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	get := func(path string) (int, string) {
		t.Helper()
		resp, err := http.Get("http://" + ln.Addr().String() + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get("/play"); code != http.StatusServiceUnavailable || !strings.Contains(body, "Building") {
		t.Errorf("/play while building: %d\n%s", code, body)
	}
	close(release)
	for {
		code, body := get("/play/status")
		if strings.TrimSpace(body) == "ready" {
			break
		}
		if code != http.StatusOK {
			t.Fatalf("/play/status: %d %q", code, body)
		}
	}
	if code, body := get("/play"); code != http.StatusOK || !strings.Contains(body, `<pre id="stats">`) {
		t.Errorf("/play once built: %d %.80q", code, body)
	}
}
