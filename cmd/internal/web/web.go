// Package web is what "snapwire serve --web" serves over HTTP beside the
// game's UDP socket: the browser page of "snapwire play" (/play), its
// WebAssembly binary (/play.wasm, cmd/snapwire-play built for GOOS=js
// GOARCH=wasm), Go's wasm_exec.js, and the WebRTC signalling endpoint
// (/rtc, package internal/rtc) through which the page's client joins the
// same match as UDP clients.
package web

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

//go:embed assets/play.html
var playHTML []byte

// wasmExecJS is Go's JavaScript support for wasm programs (its source is
// named at the top of the file).
//
//go:embed assets/wasm_exec.js
var wasmExecJS []byte

// Assets are the page's files.
type Assets struct {
	// WASM is the play client built for js/wasm.
	WASM []byte
	// WasmExecJS is the wasm_exec.js of the Go release that built WASM;
	// nil: the embedded copy (Go 1.26).
	WasmExecJS []byte
}

// Handler serves the page, its files and, at /rtc, signal.
func Handler(a Assets, signal http.Handler) http.Handler {
	js := a.WasmExecJS
	if js == nil {
		js = wasmExecJS
	}
	mux := http.NewServeMux()
	file := func(path, ctype string, b []byte) {
		mux.HandleFunc("GET "+path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", ctype)
			w.Header().Set("Cache-Control", "no-cache")
			http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(b))
		})
	}
	file("/play", "text/html; charset=utf-8", playHTML)
	file("/wasm_exec.js", "text/javascript; charset=utf-8", js)
	file("/play.wasm", "application/wasm", a.WASM)
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/play", http.StatusFound)
	})
	mux.Handle("/rtc", signal)
	return mux
}

// Build builds the play client for js/wasm from the snapwire source tree
// at root ("go build -tags play ./cmd/snapwire-play" with GOOS=js
// GOARCH=wasm; Go's build cache makes a rebuild quick) into dir, and
// returns the binary and the toolchain's wasm_exec.js (nil if the
// toolchain has none where Go 1.24+ keeps it, lib/wasm).
func Build(ctx context.Context, goBin, root, dir string) (wasm, execJS []byte, err error) {
	out := filepath.Join(dir, "play.wasm")
	// -s -w: no symbol table or DWARF, a smaller download (the browser
	// has no use for them).
	cmd := exec.CommandContext(ctx, goBin, "build", "-tags", "play", "-trimpath", "-ldflags=-s -w", "-o", out, "./cmd/snapwire-play")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm", "CGO_ENABLED=0")
	// A cancelled build (serve stopped during it) kills go, whose
	// compilers may keep the output pipe open: stop waiting for them.
	cmd.WaitDelay = time.Second
	if b, err := cmd.CombinedOutput(); err != nil {
		return nil, nil, fmt.Errorf("go build (js/wasm) of cmd/snapwire-play: %w\n%s", err, b)
	}
	if wasm, err = os.ReadFile(out); err != nil {
		return nil, nil, err
	}
	goroot, err := exec.CommandContext(ctx, goBin, "env", "GOROOT").Output()
	if err == nil {
		execJS, _ = os.ReadFile(filepath.Join(strings.TrimSpace(string(goroot)), "lib", "wasm", "wasm_exec.js"))
	}
	return wasm, execJS, nil
}

// ErrNoSource says how to get the wasm when serve cannot build it.
var ErrNoSource = errors.New(`--web needs the play client built for the browser: give --web-wasm FILE ` +
	`(GOOS=js GOARCH=wasm go build -tags play -o FILE ./cmd/snapwire-play, in snapwire's source tree), ` +
	`or run serve from inside snapwire's source tree with Go installed so it builds it at start-up`)
