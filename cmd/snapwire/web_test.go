package main

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/snapwire/snapwire/cmd/internal/play"
	"github.com/snapwire/snapwire/internal/acceptance"
	"github.com/snapwire/snapwire/token"
)

func TestServeWebFlags(t *testing.T) {
	key := writeKeyFile(t)
	for _, c := range []struct {
		args, err string
	}{
		{"--insecure --web-wasm x", "need --web"},
		{"--insecure --web-tokens", "need --web"},
		{"--insecure --web 127.0.0.1:0 --web-peers -1", "--web-peers"},
		{"--key-file " + key + " --web 127.0.0.1:0", "--web-tokens"},
		{"--insecure --web 127.0.0.1:0 --web-tokens", "--web-tokens needs --key-file"},
	} {
		if _, err := parseServeFlags(strings.Fields(c.args)); err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%q: %v, want an error about %s", c.args, err, c.err)
		}
	}
	o, err := parseServeFlags(strings.Fields("--key-file " + key + " --web 127.0.0.1:0 --web-tokens --web-peers 3"))
	if err != nil || o.web != "127.0.0.1:0" || !o.webTokens || o.webPeers != 3 {
		t.Errorf("%+v %v", o, err)
	}
}

// A secure "serve --web --web-tokens": the page, wasm_exec.js and the
// wasm are served with their types; /token hands out a connect token for
// this server, with which a client joins over the WebRTC channel (here
// the Go client, pion: the wasm is the same session code) into an
// encrypted session. Without --web-tokens there is no /token.
//
// Guards against: a secure server that browsers cannot join, or that
// lets them join without a token.
func TestServeWebSecure(t *testing.T) {
	acceptance.Require(t, "webrtc")
	if testing.Short() {
		t.Skip("real sockets, WebRTC on loopback")
	}
	dir := t.TempDir()
	wasm := filepath.Join(dir, "play.wasm")
	if err := os.WriteFile(wasm, []byte("\x00asm\x01\x00\x00\x00"), 0o644); err != nil {
		t.Fatal(err)
	}
	o, err := parseServeFlags([]string{"--listen", "127.0.0.1:0", "--web", "127.0.0.1:0", "--web-wasm", wasm,
		"--key-file", writeKeyFile(t), "--web-tokens", "--max-clients", "4", "--status", "0s"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var srvOut syncBuffer
	done := make(chan error, 1)
	go func() { done <- serve(ctx, o, &srvOut) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	}()
	base := waitMatch(&srvOut, webRE, 10*time.Second)
	if base == "" {
		t.Fatalf("no web server:\n%s", srvOut.String())
	}
	get := func(path string) (int, string, string) {
		t.Helper()
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		return resp.StatusCode, resp.Header.Get("Content-Type"), string(b)
	}
	for _, c := range []struct{ path, ctype, has string }{
		{"/play", "text/html", `<pre id="stats">`},
		{"/wasm_exec.js", "text/javascript", "wasm_exec.js"},
		{"/play.wasm", "application/wasm", "\x00asm"},
	} {
		code, ctype, body := get(c.path)
		if code != 200 || !strings.HasPrefix(ctype, c.ctype) || !strings.Contains(body, c.has) {
			t.Errorf("%s: %d %q %.40q", c.path, code, ctype, body)
		}
	}
	code, _, tokStr := get("/token")
	tok, err := token.Parse(strings.TrimSpace(tokStr))
	if code != 200 || err != nil {
		t.Fatalf("/token: %d %v %q", code, err, tokStr)
	}
	opt := play.DefaultOptions()
	opt.Connect, opt.Token, opt.Autoplay = base+"/rtc", tok, true
	s, err := play.New(opt)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	for time.Since(start) < 3*time.Second {
		s.Step(time.Since(start), play.Input{})
		time.Sleep(5 * time.Millisecond)
	}
	sum := s.Summary()
	s.Close()
	if err := sum.Check(); err != nil || sum.Mode != "webrtc" || sum.Snapshots < 30 {
		t.Errorf("%v: %+v\n%s", err, sum, srvOut.String())
	}
	if !strings.Contains(srvOut.String(), "secure") {
		t.Errorf("the server is not secure:\n%s", srvOut.String())
	}
	// A client without a token is refused.
	opt.Token = nil
	s, err = play.New(opt)
	if err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	for time.Since(start) < 2*time.Second {
		s.Step(time.Since(start), play.Input{})
		time.Sleep(5 * time.Millisecond)
	}
	if sum := s.Summary(); sum.State == "connected" {
		t.Errorf("joined a secure server without a token: %+v", sum)
	}
	s.Close()
}
