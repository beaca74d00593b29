//go:build !linux

package play

import "time"

// ThreadCPU reports false: this system's thread CPU clock is not read, and
// callers fall back to the wall clock.
func ThreadCPU() (time.Duration, bool) { return 0, false }

// LockThread does nothing where ThreadCPU is not read.
func LockThread() {}
