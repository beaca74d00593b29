package main

// "serve --admin ADDR": an HTTP interface to the process's matches while
// it serves (issue 25 part 2: matches "created and ended through ...
// serve's admin interface"). Every request goes through Runner.DoHost,
// on the game loop's goroutine:
//
//	GET    /matches       the matches: name, map, players, slots, game id, frame (JSON)
//	POST   /matches       create one: {"name": "duel-7", "map": "arena rooms=2x2", "slots": 2}
//	                      (every field optional: the next free number, --map, --max-clients)
//	DELETE /matches/NAME  end one: its clients get the disconnect
//
// It can end every match and fill the process, so it listens on a
// loopback address unless --admin-token-file names a file whose contents
// every request must then carry (Authorization: Bearer TOKEN), as the
// admin interfaces of Colyseus and Nakama take a secret.

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"strings"
	"time"

	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/server"
)

// adminMatch is one match in the admin interface's JSON.
type adminMatch struct {
	Name    string `json:"name"`
	Map     string `json:"map"`
	Players int    `json:"players"`
	Slots   int    `json:"slots"`
	GameID  uint64 `json:"game_id"`
	Frame   uint64 `json:"frame"`
}

// adminCreate is the body of POST /matches.
type adminCreate struct {
	Name  string `json:"name"`
	Map   string `json:"map"`
	Slots int    `json:"slots"`
}

// maxAdminBody bounds a request body: a name of 32 bytes and a map's
// settings fit many times over.
const maxAdminBody = 4 << 10

// checkAdminAddr refuses an address other than loopback for --admin
// without a token: the interface ends matches and fills the process.
func checkAdminAddr(addr string, withToken bool) error {
	if withToken {
		return nil
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--admin %q: %w", addr, err)
	}
	if host == "localhost" {
		return nil
	}
	if ip, err := netip.ParseAddr(host); err == nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("--admin %q: not a loopback address; the admin interface creates and ends matches, so give "+
		"--admin-token-file FILE (requests then need Authorization: Bearer with its contents) or listen on 127.0.0.1", addr)
}

// readAdminToken reads --admin-token-file: its contents, trimmed, at
// least 16 bytes.
func readAdminToken(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("--admin-token-file: %w", err)
	}
	tok := strings.TrimSpace(string(b))
	if len(tok) < 16 {
		return "", fmt.Errorf("--admin-token-file %s: want a secret of at least 16 characters", path)
	}
	return tok, nil
}

// adminAPI serves the admin interface over r's host and serve's record of
// its matches.
type adminAPI struct {
	o      serveOptions // the flags: the defaults of a new match
	r      *server.Runner
	hm     *hostedMatches
	token  string // "" on loopback without --admin-token-file
	logger *slog.Logger
}

func (a *adminAPI) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /matches", a.list)
	mux.HandleFunc("POST /matches", a.create)
	mux.HandleFunc("DELETE /matches/{name}", a.end)
	if a.token == "" {
		return mux
	}
	want := []byte("Bearer " + a.token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1 {
			w.Header().Set("WWW-Authenticate", "Bearer")
			http.Error(w, "admin token required", http.StatusUnauthorized)
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// do runs f on the host's goroutine, answering 503 when the server no
// longer runs.
func (a *adminAPI) do(w http.ResponseWriter, r *http.Request, f func(now time.Duration, h *server.Host)) bool {
	ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
	defer cancel()
	if !a.r.DoHost(ctx, f) {
		http.Error(w, "the server is not running", http.StatusServiceUnavailable)
		return false
	}
	return true
}

// describe is the JSON of the match name, s.
func (a *adminAPI) describe(name string, s *server.Server) adminMatch {
	return adminMatch{Name: name, Map: s.Settings(), Players: s.NumClients(), Slots: a.hm.byName[name].slots,
		GameID: uint64(s.GameID()), Frame: uint64(s.Frame())}
}

func (a *adminAPI) list(w http.ResponseWriter, r *http.Request) {
	var out []adminMatch
	if !a.do(w, r, func(_ time.Duration, h *server.Host) {
		for _, name := range h.Matches() {
			out = append(out, a.describe(name, h.Match(name)))
		}
	}) {
		return
	}
	writeJSON(w, http.StatusOK, struct {
		Matches []adminMatch `json:"matches"`
	}{append([]adminMatch{}, out...)})
}

func (a *adminAPI) create(w http.ResponseWriter, r *http.Request) {
	var req adminCreate
	dec := json.NewDecoder(io.LimitReader(r.Body, maxAdminBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil && !errors.Is(err, io.EOF) {
		http.Error(w, "body: "+err.Error(), http.StatusBadRequest)
		return
	}
	o := a.o
	if req.Map != "" {
		o.settings = req.Map
	}
	if req.Slots != 0 {
		o.maxClients = req.Slots
	}
	if o.maxClients < 1 || o.maxClients > game.MaxClients {
		http.Error(w, fmt.Sprintf("slots %d: want 1..%d", o.maxClients, game.MaxClients), http.StatusBadRequest)
		return
	}
	if o.game == gameCrowd && req.Map != "" {
		http.Error(w, "the crowd game takes no map", http.StatusBadRequest)
		return
	}
	settings, err := serveSettings(o)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var m adminMatch
	status, msg := http.StatusCreated, ""
	if !a.do(w, r, func(now time.Duration, h *server.Host) {
		name := req.Name
		if name == "" {
			name = a.hm.freeName(h)
		}
		if len(h.Matches()) >= maxServeMatches {
			status, msg = http.StatusConflict, fmt.Sprintf("the process hosts %d matches, the most it takes", maxServeMatches)
			return
		}
		s, err := a.hm.create(now, h, name, settings, o.maxClients)
		switch {
		case errors.Is(err, server.ErrMatchExists):
			status, msg = http.StatusConflict, err.Error()
		case err != nil:
			status, msg = http.StatusBadRequest, err.Error()
		default:
			m = a.describe(name, s)
		}
	}) {
		return
	}
	if msg != "" {
		http.Error(w, msg, status)
		return
	}
	a.logger.Info("match created", "match", m.Name, "map", m.Map, "slots", m.Slots, "by", r.RemoteAddr)
	writeJSON(w, status, m)
}

func (a *adminAPI) end(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	var err error
	players := 0
	if !a.do(w, r, func(now time.Duration, h *server.Host) {
		if s := h.Match(name); s != nil {
			players = s.NumClients()
		}
		err = a.hm.end(now, h, name)
	}) {
		return
	}
	if errors.Is(err, server.ErrNoMatch) {
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	} else if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	a.logger.Info("match ended", "match", name, "players", players, "by", r.RemoteAddr)
	w.WriteHeader(http.StatusNoContent)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// serveAdmin serves the admin interface on ln until stop.
func serveAdmin(ln net.Listener, a *adminAPI) (stop func()) {
	srv := &http.Server{Handler: a.handler(), ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second,
		WriteTimeout: 10 * time.Second, MaxHeaderBytes: 16 << 10}
	go srv.Serve(ln)
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	}
}
