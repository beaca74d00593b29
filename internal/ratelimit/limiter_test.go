package ratelimit

import (
	"net/netip"
	"testing"
	"time"
)

// TestLimiterBounded: a flood from a million addresses does not grow the
// table, and an address that keeps asking at its allowed rate keeps its
// bucket long enough to stay limited.
func TestLimiterBounded(t *testing.T) {
	l := NewLimiter(1024, 10, time.Second)
	size := l.Len()
	a := netip.MustParseAddr("192.0.2.1")
	for i := range 10 {
		l.Allow(0, a)
		_ = i
	}
	if l.Allow(0, a) {
		t.Fatal("11th request allowed")
	}
	for i := range 1 << 20 {
		b := netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)})
		l.Allow(time.Duration(i)*time.Microsecond, b)
	}
	if l.Len() != size {
		t.Fatalf("table grew from %d to %d", size, l.Len())
	}
	allocs := testing.AllocsPerRun(1000, func() { l.Allow(2*time.Second, a) })
	if allocs != 0 {
		t.Errorf("Allow allocates %v times", allocs)
	}
}

func BenchmarkLimiterAllow(b *testing.B) {
	l := NewLimiter(4096, 10, time.Second) // ioq3 SVC_RateLimitAddress: 10 at once, then 1 per second
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		l.Allow(time.Duration(i)*time.Millisecond, netip.AddrFrom4([4]byte{10, 0, byte(i >> 8), byte(i)}))
	}
}

// TestBucket: ioq3 outboundLeakyBucket in virtual time: the burst at once,
// then one more per period; a long silence empties the bucket.
func TestBucket(t *testing.T) {
	b := NewBucket(3, 100*time.Millisecond)
	for i := range 3 {
		if !b.Allow(0) {
			t.Fatalf("request %d of the burst refused", i+1)
		}
	}
	if b.Allow(50 * time.Millisecond) {
		t.Fatal("4th request within the period allowed")
	}
	if !b.Allow(100*time.Millisecond) || b.Allow(150*time.Millisecond) {
		t.Fatal("not one more request after one period")
	}
	for i := range 3 {
		if !b.Allow(10*time.Second + time.Duration(i)) {
			t.Fatalf("after 10 s, request %d of a new burst refused", i+1)
		}
	}
}
