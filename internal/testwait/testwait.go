// Package testwait waits, in tests of goroutines and real sockets, for a
// condition that other goroutines make true. Its bound is a hang detector,
// not a threshold: a machine however loaded passes, only a stuck program
// fails. Tests poll with it instead of sleeping a guessed time.
package testwait

import "time"

// Hang is the bound to pass to Until when only a hang should fail: far
// beyond what any step of a test takes on a loaded machine.
const Hang = time.Minute

// Until calls cond every few milliseconds until it returns true (Until
// returns true) or limit has passed (Until returns cond's last answer).
func Until(limit time.Duration, cond func() bool) bool {
	if cond() {
		return true
	}
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-deadline.C:
			return cond()
		case <-tick.C:
			if cond() {
				return true
			}
		}
	}
}
