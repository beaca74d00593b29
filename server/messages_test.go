package server

import (
	"testing"
	"time"

	"github.com/snapwire/snapwire/internal/session"
)

// Advanced's game message limits: zero takes the documented defaults
// [1024, 64, 16], the size is capped at what a client may send and the
// rate at what the bucket counts; the bucket lets the burst through at
// once, then one message per 1/rate.
func TestGameMessageLimits(t *testing.T) {
	for _, tc := range []struct {
		in, want [3]int
	}{
		{[3]int{}, [3]int{session.MaxGameMessageLen, 64, 16}},
		{[3]int{100, 5, 2}, [3]int{100, 5, 2}},
		{[3]int{5000, 1, 50000}, [3]int{session.MaxGameMessageLen, 1, 1000}},
		{[3]int{-1, -1, -1}, [3]int{session.MaxGameMessageLen, 64, 16}},
	} {
		c := config{}
		c.MaxGameMessageBytes, c.GameMessageBurst, c.GameMessageRate = tc.in[0], tc.in[1], tc.in[2]
		c.defaults()
		if got := [3]int{c.MaxGameMessageBytes, c.GameMessageBurst, c.GameMessageRate}; got != tc.want {
			t.Errorf("limits %v: %v, want %v", tc.in, got, tc.want)
		}
	}
	c := config{}
	c.GameMessageBurst, c.GameMessageRate = 3, 10
	c.defaults()
	b := c.newMessageBucket()
	now := 5 * time.Second
	for i := range 3 {
		if !b.Allow(now) {
			t.Fatalf("message %d of the burst refused", i+1)
		}
	}
	if b.Allow(now + 50*time.Millisecond) {
		t.Fatal("a 4th message within 100 ms allowed")
	}
	if !b.Allow(now+100*time.Millisecond) || b.Allow(now+150*time.Millisecond) {
		t.Fatal("not one more message per 100 ms at 10 a second")
	}
}
