package main

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"testing"
	"time"

	"github.com/snapwire/snapwire/internal/ratelimit"
	"github.com/snapwire/snapwire/token"
)

// Acceptance (issue 22, item 4): GET /token (serve --web-tokens) answers
// one address a burst of tokens and then 429 Too Many Requests with a
// Retry-After, while another address still gets its token.
//
// Guards against: a /token that minted thousands of tokens a second for
// one host (9.3k/s measured), enough to fill a secure server's slots
// from one machine.
func TestTokenHandlerRateLimited(t *testing.T) {
	srv := netip.MustParseAddrPort("192.0.2.1:27960")
	h := tokenHandler(token.Key{1: 1}, []netip.AddrPort{srv}, "")
	get := func(remote string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodGet, "/token", nil)
		r.RemoteAddr = remote
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	// 30 at once (microseconds apart: the refill of one a second adds
	// none unless this loop takes 20 s).
	var ok, limited int
	for i := range 30 {
		w := get("198.51.100.7:" + strconv.Itoa(40000+i)) // a new port each time
		switch w.Code {
		case http.StatusOK:
			if _, err := token.Parse(w.Body.String()); err != nil {
				t.Fatalf("token %d: %v", i, err)
			}
			ok++
		case http.StatusTooManyRequests:
			if w.Header().Get("Retry-After") == "" {
				t.Errorf("429 without Retry-After")
			}
			limited++
		default:
			t.Fatalf("GET /token: %d %s", w.Code, w.Body)
		}
		if i < tokenBurst && w.Code != http.StatusOK {
			t.Errorf("request %d of the burst refused: %d", i, w.Code)
		}
	}
	if limited == 0 {
		t.Errorf("30 tokens to one address, none refused")
	}
	if w := get("203.0.113.9:5000"); w.Code != http.StatusOK {
		t.Errorf("another address refused: %d", w.Code)
	}
	t.Logf("one address: %d tokens, %d refused", ok, limited)
}

// The limiter on a virtual clock: the burst, the refill of one per
// period, Retry-After in whole seconds, IPv6 counted by /64.
func TestLimitPerAddr(t *testing.T) {
	var now time.Duration
	served := 0
	h := limitPerAddr(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { served++ }),
		ratelimit.NewLimiter(64, 3, 1500*time.Millisecond), 1500*time.Millisecond, func() time.Duration { return now })
	code := func(remote string) (int, string) {
		r := httptest.NewRequest(http.MethodGet, "/token", nil)
		r.RemoteAddr = remote
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Code, w.Header().Get("Retry-After")
	}
	for i := range 3 {
		if c, _ := code("192.0.2.5:1"); c != 200 {
			t.Fatalf("burst request %d: %d", i, c)
		}
	}
	if c, ra := code("192.0.2.5:2"); c != http.StatusTooManyRequests || ra != "2" {
		t.Errorf("over the burst: %d Retry-After %q, want 429 and 2", c, ra)
	}
	now += 1500 * time.Millisecond
	if c, _ := code("192.0.2.5:3"); c != 200 {
		t.Errorf("after a period: %d", c)
	}
	if c, _ := code("192.0.2.5:3"); c != http.StatusTooManyRequests {
		t.Errorf("second after a period: %d", c)
	}
	// One /64: three addresses, one bucket.
	for i, a := range []string{"[2001:db8::1]:1", "[2001:db8::2]:1", "[2001:db8::ffff:1]:1"} {
		if c, _ := code(a); c != 200 {
			t.Errorf("v6 %d: %d", i, c)
		}
	}
	if c, _ := code("[2001:db8::9]:1"); c != http.StatusTooManyRequests {
		t.Errorf("a fourth address of the /64: %d", c)
	}
	if c, _ := code("[2001:db8:0:1::1]:1"); c != 200 {
		t.Errorf("another /64: %d", c)
	}
	if served != 3+1+3+1 {
		t.Errorf("served %d", served)
	}
}
