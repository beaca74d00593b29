package web

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"sync/atomic"
)

// Site serves the page while its play client is still being built: a
// build of the wasm takes a minute on a cold cache, and a browser that
// asks for /play meanwhile must be answered at once. Until the build
// returns, /play is a short page that says so and reloads itself every 2
// seconds, /play/status says "building", and the page's files answer 503
// Service Unavailable with Retry-After; /rtc (signalling) works all along.
// Once the build has returned, the site is Handler's (or, if the build
// failed, /play shows the error).
type Site struct {
	signal http.Handler
	ready  atomic.Pointer[http.Handler]
	failed atomic.Pointer[error]
	done   chan struct{}
	wait   http.Handler
}

// Start starts build on its own goroutine and returns the site that
// serves the page once build returns its assets. signal serves /rtc.
func Start(ctx context.Context, build func(context.Context) (Assets, error), signal http.Handler) *Site {
	s := &Site{signal: signal, done: make(chan struct{})}
	s.wait = s.waiting()
	go func() {
		defer close(s.done)
		a, err := build(ctx)
		if err != nil {
			s.failed.Store(&err)
			return
		}
		h := Handler(a, signal)
		s.ready.Store(&h)
	}()
	return s
}

// Ready returns the site of assets already at hand (Handler's), with Done
// closed.
func Ready(a Assets, signal http.Handler) *Site {
	s := &Site{signal: signal, done: make(chan struct{})}
	s.wait = s.waiting()
	h := Handler(a, signal)
	s.ready.Store(&h)
	close(s.done)
	return s
}

// Done is closed once the build has returned.
func (s *Site) Done() <-chan struct{} { return s.done }

// Err is the build's error once Done is closed (nil: it built).
func (s *Site) Err() error {
	if e := s.failed.Load(); e != nil {
		return *e
	}
	return nil
}

func (s *Site) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h := s.ready.Load(); h != nil {
		if r.URL.Path == "/play/status" {
			status(w, http.StatusOK, "ready")
			return
		}
		(*h).ServeHTTP(w, r)
		return
	}
	s.wait.ServeHTTP(w, r)
}

// waiting is the site while the build runs or after it failed.
func (s *Site) waiting() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /play", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		if err := s.Err(); err != nil {
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprintf(w, failedPage, html.EscapeString(err.Error()))
			return
		}
		w.Header().Set("Retry-After", "2")
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprint(w, buildingPage)
	})
	mux.HandleFunc("GET /play/status", func(w http.ResponseWriter, r *http.Request) {
		if err := s.Err(); err != nil {
			status(w, http.StatusInternalServerError, "failed: "+err.Error())
			return
		}
		status(w, http.StatusOK, "building")
	})
	unavailable := func(w http.ResponseWriter, r *http.Request) {
		if err := s.Err(); err != nil {
			http.Error(w, "the play client failed to build: "+err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Retry-After", "2")
		http.Error(w, "the play client is being built; try again in a moment", http.StatusServiceUnavailable)
	}
	mux.HandleFunc("GET /play.wasm", unavailable)
	mux.HandleFunc("GET /wasm_exec.js", unavailable)
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/play", http.StatusFound)
	})
	mux.Handle("/rtc", s.signal)
	return mux
}

func status(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	fmt.Fprintln(w, msg)
}

const buildingPage = `<!doctype html>
<html><head><meta charset="utf-8"><meta http-equiv="refresh" content="2">
<title>snapwire: building the browser client</title></head>
<body><h1>Building the browser client…</h1>
<p>The server is compiling the play client for the browser (GOOS=js GOARCH=wasm go build); a cold build takes a minute.
This page reloads itself every 2 seconds and shows the game when it is ready.</p>
</body></html>
`

const failedPage = `<!doctype html>
<html><head><meta charset="utf-8"><title>snapwire: the browser client failed to build</title></head>
<body><h1>The browser client failed to build</h1>
<pre>%s</pre>
<p>Restart the server with --web-wasm FILE (GOOS=js GOARCH=wasm go build -tags play -o FILE ./cmd/snapwire-play).</p>
</body></html>
`
