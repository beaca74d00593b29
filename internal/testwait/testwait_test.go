package testwait

import (
	"sync/atomic"
	"testing"
	"time"
)

func TestUntil(t *testing.T) {
	var n atomic.Int32
	if !Until(Hang, func() bool { return n.Add(1) >= 3 }) {
		t.Error("Until gave up on a condition that became true")
	}
	if n.Load() != 3 {
		t.Errorf("cond called %d times after it held, want 3", n.Load())
	}
	if Until(20*time.Millisecond, func() bool { return false }) {
		t.Error("Until returned true for a condition that never held")
	}
}
