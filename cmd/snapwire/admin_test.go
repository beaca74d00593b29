package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/snapwire/snapwire/server"
)

// --admin listens on loopback unless a token guards it.
func TestAdminAddr(t *testing.T) {
	for _, addr := range []string{"127.0.0.1:0", "[::1]:9200", "localhost:9200"} {
		if err := checkAdminAddr(addr, false); err != nil {
			t.Errorf("%s: %v", addr, err)
		}
	}
	for _, addr := range []string{"0.0.0.0:9200", ":9200", "10.0.0.1:9200", "example.com:9200", "nonsense"} {
		if err := checkAdminAddr(addr, false); err == nil {
			t.Errorf("%s accepted without a token", addr)
		}
	}
	if err := checkAdminAddr("0.0.0.0:9200", true); err != nil {
		t.Errorf("0.0.0.0 with a token: %v", err)
	}
	if _, err := parseServeFlags(strings.Fields("--insecure --admin 0.0.0.0:9200")); err == nil || !strings.Contains(err.Error(), "--admin-token-file") {
		t.Errorf("--admin 0.0.0.0:9200: %v", err)
	}
	if _, err := parseServeFlags(strings.Fields("--insecure --admin-token-file x")); err == nil {
		t.Error("--admin-token-file without --admin accepted")
	}
	short := filepath.Join(t.TempDir(), "short")
	os.WriteFile(short, []byte("secret\n"), 0o600)
	if _, err := readAdminToken(short); err == nil {
		t.Error("a 6-character admin token accepted")
	}
}

// adminFixture is the admin interface over a running host with serve's
// matches "1" and "2" (4 slots each) on a loopback socket.
func adminFixture(t *testing.T, token string) (*httptest.Server, *server.Runner) {
	t.Helper()
	o, err := parseServeFlags(strings.Fields("--listen 127.0.0.1:0 --insecure --matches 2 --max-clients 4"))
	if err != nil {
		t.Fatal(err)
	}
	settings, err := serveSettings(o)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := serveConfig(o, newLogger("text", io.Discard))
	if err != nil {
		t.Fatal(err)
	}
	r, err := server.ListenHost(o.listen, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	hm := newHostedMatches(o, cfg)
	if err := createMatches(ctx, r, hm, o.matches, settings, o.maxClients); err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer((&adminAPI{o: o, r: r, hm: hm, token: token, logger: newLogger("text", io.Discard)}).handler())
	t.Cleanup(hs.Close)
	return hs, r
}

// adminCall makes one request and returns its status and body.
func adminCall(t *testing.T, method, url, body, auth string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// listMatches is GET /matches, decoded.
func listMatches(t *testing.T, base, auth string) []adminMatch {
	t.Helper()
	code, body := adminCall(t, "GET", base+"/matches", "", auth)
	var out struct{ Matches []adminMatch }
	if code != http.StatusOK || json.Unmarshal([]byte(body), &out) != nil {
		t.Fatalf("GET /matches: %d %s", code, body)
	}
	return out.Matches
}

// The admin interface lists, creates and ends matches on the running
// host; it refuses a name taken or not a match name, a map with too few
// player slots, and an end of a match it does not have.
func TestAdminMatches(t *testing.T) {
	hs, r := adminFixture(t, "")
	ms := listMatches(t, hs.URL, "")
	if len(ms) != 2 || ms[0].Name != "1" || ms[1].Name != "2" || ms[0].Slots != 4 || ms[0].GameID == ms[1].GameID || ms[0].Map == "" {
		t.Fatalf("matches at start: %+v", ms)
	}
	code, body := adminCall(t, "POST", hs.URL+"/matches", `{"name":"duel","map":"arena rooms=2x2 players=2","slots":2}`, "")
	var duel adminMatch
	if code != http.StatusCreated || json.Unmarshal([]byte(body), &duel) != nil || duel.Name != "duel" || duel.Slots != 2 ||
		!strings.Contains(duel.Map, "rooms=2x2") || duel.Players != 0 {
		t.Fatalf("POST duel: %d %s", code, body)
	}
	for _, c := range []struct {
		body string
		want int
	}{
		{`{"name":"duel"}`, http.StatusConflict},
		{`{"name":"a b"}`, http.StatusBadRequest},
		{`{"name":"x","slots":65}`, http.StatusBadRequest}, // the arena holds 64
		{`{"name":"x","map":"arena players=2","slots":3}`, http.StatusBadRequest},
		{`{"name":"x","map":"arena rooms=zz"}`, http.StatusBadRequest},
		{`{"name":"x","color":"red"}`, http.StatusBadRequest},
		{`not json`, http.StatusBadRequest},
	} {
		if code, body := adminCall(t, "POST", hs.URL+"/matches", c.body, ""); code != c.want {
			t.Errorf("POST %s: %d %s, want %d", c.body, code, body, c.want)
		}
	}
	// No name: the lowest free number.
	code, body = adminCall(t, "POST", hs.URL+"/matches", ``, "")
	if code != http.StatusCreated || !strings.Contains(body, `"name":"3"`) {
		t.Errorf("POST without a body: %d %s", code, body)
	}
	if code, body := adminCall(t, "DELETE", hs.URL+"/matches/1", "", ""); code != http.StatusNoContent {
		t.Errorf("DELETE 1: %d %s", code, body)
	}
	if code, _ := adminCall(t, "DELETE", hs.URL+"/matches/1", "", ""); code != http.StatusNotFound {
		t.Errorf("DELETE 1 again: %d", code)
	}
	var names []string
	r.DoHost(context.Background(), func(_ time.Duration, h *server.Host) { names = h.Matches() })
	if strings.Join(names, ",") != "2,duel,3" {
		t.Errorf("the host's matches: %q", names)
	}
	if ms := listMatches(t, hs.URL, ""); len(ms) != 3 || ms[1].Name != "duel" || ms[1].Slots != 2 {
		t.Errorf("matches at the end: %+v", ms)
	}
}

// With --admin-token-file every request needs the token.
func TestAdminToken(t *testing.T) {
	const tok = "0123456789abcdef-admin"
	hs, _ := adminFixture(t, tok)
	for _, auth := range []string{"", "Bearer wrong", "Bearer " + tok + "x", tok} {
		if code, _ := adminCall(t, "GET", hs.URL+"/matches", "", auth); code != http.StatusUnauthorized {
			t.Errorf("Authorization %q: %d", auth, code)
		}
		if code, _ := adminCall(t, "DELETE", hs.URL+"/matches/1", "", auth); code != http.StatusUnauthorized {
			t.Errorf("DELETE with Authorization %q: %d", auth, code)
		}
	}
	if ms := listMatches(t, hs.URL, "Bearer "+tok); len(ms) != 2 {
		t.Errorf("with the token: %+v", ms)
	}
}
