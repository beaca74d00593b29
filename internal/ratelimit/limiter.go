package ratelimit

import (
	"hash/maphash"
	"net/netip"
	"time"
)

// probeWindow is how many slots of the table an address may use.
const probeWindow = 8

// bucket is ioq3 leakyBucket_t.
type bucket struct {
	addr  [16]byte
	last  int64 // ms
	burst int32
	used  bool
}

// allow is ioq3 SVC_RateLimit: the bucket leaks one request per period;
// a request is allowed while fewer than burst are in it.
func (b *bucket) allow(nowMs int64, burst int32, periodMs int64) bool {
	interval := nowMs - b.last
	expired := interval / periodMs
	if expired > int64(b.burst) || interval < 0 {
		b.burst, b.last = 0, nowMs
	} else {
		b.burst -= int32(expired)
		b.last = nowMs - interval%periodMs
	}
	if b.burst < burst {
		b.burst++
		return true
	}
	return false
}

// Limiter is a per-address rate limiter with bounded memory: a table of
// buckets indexed by a keyed hash of the address (ioq3
// SVC_RateLimitAddress keys on the IP address without the port).
type Limiter struct {
	burst    int32
	periodMs int64
	slots    []bucket
	mask     uint64
	seed     maphash.Seed
}

// NewLimiter returns a limiter of n buckets (rounded up to a power of
// two, at least probeWindow) allowing burst requests, then one per period.
func NewLimiter(n, burst int, period time.Duration) *Limiter {
	size := probeWindow
	for size < n {
		size <<= 1
	}
	return &Limiter{
		burst: int32(max(burst, 1)), periodMs: max(period.Milliseconds(), 1),
		slots: make([]bucket, size), mask: uint64(size - 1), seed: maphash.MakeSeed(),
	}
}

// Allow reports whether addr may be answered at now, and counts the request.
func (l *Limiter) Allow(now time.Duration, addr netip.Addr) bool {
	key := addr.Unmap().As16()
	h := maphash.Bytes(l.seed, key[:])
	nowMs := now.Milliseconds()
	var pick *bucket
	for i := range uint64(probeWindow) {
		b := &l.slots[(h+i)&l.mask]
		if b.used && b.addr == key {
			return b.allow(nowMs, l.burst, l.periodMs)
		}
		switch {
		case !b.used:
			if pick == nil || pick.used {
				pick = b
			}
		case pick == nil || (pick.used && b.last < pick.last):
			pick = b // the stalest bucket of the window
		}
	}
	*pick = bucket{addr: key, last: nowMs, used: true}
	return pick.allow(nowMs, l.burst, l.periodMs)
}

// Len is the number of buckets (the memory bound).
func (l *Limiter) Len() int { return len(l.slots) }

// Bucket is one leaky bucket for all senders together (ioq3
// outboundLeakyBucket, which SVC_Info and SVC_Status check after the
// per-address bucket): it caps what a flood from spoofed addresses, which
// no per-address bucket stops, can make a server send.
type Bucket struct {
	b        bucket
	burst    int32
	periodMs int64
}

// NewBucket returns an empty bucket allowing burst requests, then one per
// period.
func NewBucket(burst int, period time.Duration) *Bucket {
	return &Bucket{b: bucket{used: true}, burst: int32(max(burst, 1)), periodMs: max(period.Milliseconds(), 1)}
}

// Allow reports whether one more request may be answered at now, and
// counts it.
func (b *Bucket) Allow(now time.Duration) bool {
	return b.b.allow(now.Milliseconds(), b.burst, b.periodMs)
}
