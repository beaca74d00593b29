package main

// "serve --web-tokens": GET /token mints a connect token for anyone who
// asks, so it is rate-limited per address (a burst, then one a second),
// the way ioq3 limits its getinfo answers (package internal/q3/query's Limiter:
// a bounded table of buckets, so a flood of addresses costs no memory).
// The per-address cap on sessions (server.Config.MaxClientsPerIP) is what
// keeps one host from holding every slot; this bounds what minting costs.

import (
	"math"
	"net/http"
	"net/netip"
	"strconv"
	"sync"
	"time"

	"github.com/snapwire/snapwire/internal/q3/query"
)

// Limits of GET /token per client address (an IPv6 address counts by its
// /64, which one host usually holds whole).
const (
	tokenBurst   = 10
	tokenPeriod  = time.Second
	tokenBuckets = 4096
)

// limitPerAddr serves h to at most burst requests from one address, then
// one per period; the rest get 429 Too Many Requests with Retry-After.
// now is the clock the limiter runs on (time.Since a start, in serve).
func limitPerAddr(h http.Handler, l *query.Limiter, period time.Duration, now func() time.Duration) http.Handler {
	retry := strconv.Itoa(int(math.Ceil(period.Seconds())))
	var mu sync.Mutex // the Limiter is not safe for concurrent use
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		ok := l.Allow(now(), limitKey(r.RemoteAddr))
		mu.Unlock()
		if !ok {
			w.Header().Set("Retry-After", retry)
			http.Error(w, "too many requests from this address", http.StatusTooManyRequests)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// limitKey is the address a request counts against: its remote IP, an
// IPv6 one cut to its /64. Forwarding headers are not believed (anyone can
// write them); behind a proxy every request counts against the proxy.
func limitKey(remote string) netip.Addr {
	ap, err := netip.ParseAddrPort(remote)
	if err != nil {
		return netip.Addr{} // all unparsable remotes share one bucket
	}
	a := ap.Addr().Unmap()
	if a.Is6() {
		p, _ := a.Prefix(64)
		a = p.Addr()
	}
	return a
}
