package main

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/snapwire/snapwire/internal/tokenwire"
	"github.com/snapwire/snapwire/token"
)

// GET /token?match=NAME (serve --web --web-tokens --matches N) seals the
// match into the token; without ?match= the token admits to the default
// match, "1" with --matches; a name that is not a match name is a 400
// (not 404, on which the page would join without a token). --web with
// --matches needs --web-tokens.
func TestWebTokenMatch(t *testing.T) {
	key := token.Key{1: 1}
	srv := netip.MustParseAddrPort("192.0.2.1:27960")
	opener := tokenwire.NewOpener(tokenwire.Key(key), arenaProtocolID, []netip.AddrPort{srv})
	for _, c := range []struct {
		def, query, want string
	}{
		{"", "", ""},
		{webDefaultMatch(serveOptions{matches: 4}), "", "1"},
		{"1", "?match=duel-17", "duel-17"},
		{"1", "?match=", ""},
	} {
		h := tokenHandler(key, []netip.AddrPort{srv}, c.def)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/token"+c.query, nil))
		tok, err := token.Parse(w.Body.String())
		if w.Code != http.StatusOK || err != nil {
			t.Fatalf("default %q, %q: %d %s", c.def, c.query, w.Code, w.Body)
		}
		p, err := opener.Open(tokenwire.Of(tok).AppendPrivate(nil), time.Now())
		if err != nil || p.Match != c.want {
			t.Errorf("default %q, %q: match %q, %v; want %q", c.def, c.query, p.Match, err, c.want)
		}
	}
	w := httptest.NewRecorder()
	tokenHandler(key, []netip.AddrPort{srv}, "1").ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/token?match=a%20b", nil))
	if w.Code != http.StatusBadRequest {
		t.Errorf("?match=a b: %d %s", w.Code, w.Body)
	}
	if webDefaultMatch(serveOptions{}) != "" || webDefaultMatch(serveOptions{matches: 1}) != "" {
		t.Error("the default match of one match is not \"\"")
	}
	keyFile := writeKeyFile(t)
	if _, err := parseServeFlags(strings.Fields("--insecure --matches 2 --web 127.0.0.1:0")); err == nil || !strings.Contains(err.Error(), "--web-tokens") {
		t.Errorf("--insecure --matches 2 --web: %v", err)
	}
	if _, err := parseServeFlags(strings.Fields("--key-file " + keyFile + " --matches 2 --web 127.0.0.1:0 --web-tokens")); err != nil {
		t.Errorf("--matches 2 --web --web-tokens: %v", err)
	}
}
