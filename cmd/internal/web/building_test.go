package web

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// get serves one GET of path on h in memory.
func get(h http.Handler, path string) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
	return w
}

// While the play client builds, /play answers at once with a page that
// says so and reloads itself, the files answer 503 with Retry-After and
// signalling works; once the build returns, the real page and files are
// served.
//
// Guards against: "serve --web" leaving GET /play without an answer for
// the whole wasm build (issue 21).
func TestSiteWhileBuilding(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{})
	signal := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTeapot) })
	s := Start(context.Background(), func(ctx context.Context) (Assets, error) {
		close(started)
		<-release
		return Assets{WASM: []byte("\x00asm\x01\x00\x00\x00")}, nil
	}, signal)
	<-started
	w := get(s, "/play")
	body := w.Body.String()
	if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") == "" ||
		!strings.HasPrefix(w.Header().Get("Content-Type"), "text/html") ||
		!strings.Contains(body, `http-equiv="refresh"`) || !strings.Contains(body, "Building") {
		t.Errorf("/play while building: %d %v\n%s", w.Code, w.Header(), body)
	}
	if w := get(s, "/play/status"); w.Code != http.StatusOK || strings.TrimSpace(w.Body.String()) != "building" {
		t.Errorf("/play/status while building: %d %q", w.Code, w.Body.String())
	}
	for _, p := range []string{"/play.wasm", "/wasm_exec.js"} {
		if w := get(s, p); w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") == "" {
			t.Errorf("%s while building: %d %v", p, w.Code, w.Header())
		}
	}
	if w := get(s, "/rtc"); w.Code != http.StatusTeapot {
		t.Errorf("/rtc while building: %d", w.Code)
	}
	if w := get(s, "/"); w.Code != http.StatusFound || w.Header().Get("Location") != "/play" {
		t.Errorf("/ while building: %d %v", w.Code, w.Header())
	}

	close(release)
	<-s.Done()
	if s.Err() != nil {
		t.Fatal(s.Err())
	}
	if w := get(s, "/play"); w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `<pre id="stats">`) {
		t.Errorf("/play once built: %d %.80q", w.Code, w.Body.String())
	}
	if w := get(s, "/play.wasm"); w.Code != http.StatusOK || w.Header().Get("Content-Type") != "application/wasm" ||
		!strings.HasPrefix(w.Body.String(), "\x00asm") {
		t.Errorf("/play.wasm once built: %d %v", w.Code, w.Header())
	}
	if w := get(s, "/play/status"); w.Code != http.StatusOK || strings.TrimSpace(w.Body.String()) != "ready" {
		t.Errorf("/play/status once built: %d %q", w.Code, w.Body.String())
	}
}

// A build that fails: /play says so with the error (escaped) instead of
// reloading for ever.
func TestSiteBuildFailed(t *testing.T) {
	s := Start(context.Background(), func(ctx context.Context) (Assets, error) {
		return Assets{}, errors.New("go build: <exit status 1>")
	}, http.NotFoundHandler())
	<-s.Done()
	w := get(s, "/play")
	body := w.Body.String()
	if w.Code != http.StatusInternalServerError || strings.Contains(body, "refresh") || !strings.Contains(body, "go build: &lt;exit status 1&gt;") {
		t.Errorf("/play after a failed build: %d\n%s", w.Code, body)
	}
	if w := get(s, "/play/status"); w.Code != http.StatusInternalServerError || !strings.HasPrefix(w.Body.String(), "failed: ") {
		t.Errorf("/play/status after a failed build: %d %q", w.Code, w.Body.String())
	}
}
