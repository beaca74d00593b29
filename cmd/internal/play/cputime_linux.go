package play

import (
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// ThreadCPU returns the CPU time the calling OS thread has used
// (CLOCK_THREAD_CPUTIME_ID) and true. A caller that measures a span of
// work with it locks its goroutine to its thread first (LockThread), so
// that the span runs on one thread; time the thread waited for a core
// (the machine busy with other work) is not in it, unlike a wall clock's.
func ThreadCPU() (time.Duration, bool) {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}

// LockThread wires the calling goroutine to its OS thread for the rest of
// its life, so that ThreadCPU spans measure its work alone.
func LockThread() { runtime.LockOSThread() }
