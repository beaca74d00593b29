// Package acceptance gates the real-time acceptance runs: tests that use
// real sockets and the wall clock (soak, flood, the window under Xvfb, the
// browser, live OpenArena and quakestat, kubectl, attacks over real sockets)
// and whose outcome can depend on how busy the machine is.
//
// `go test ./...` is the deterministic suite: virtual time through netsim, no
// wall-clock thresholds, no fixed ports. An acceptance test calls Require
// first; it runs only when the environment variable SNAPWIRE_ACCEPTANCE names
// it (a comma-separated list of run names) or is "all". `.ci/run` starts
// each acceptance run once, serially, and prints its figures.
package acceptance

import (
	"os"
	"strings"
	"testing"
)

// Env is the environment variable that selects the acceptance runs.
const Env = "SNAPWIRE_ACCEPTANCE"

// Enabled reports whether the acceptance run called name is selected.
func Enabled(name string) bool {
	for _, v := range strings.Split(os.Getenv(Env), ",") {
		v = strings.TrimSpace(v)
		if v == "all" || v == "1" || v == name {
			return true
		}
	}
	return false
}

// Require skips tb unless the acceptance run called name is selected. The
// skip message says how to run it.
func Require(tb testing.TB, name string) {
	tb.Helper()
	if !Enabled(name) {
		tb.Skipf("acceptance run %q: real time and real sockets; run with %s=%s (or all)", name, Env, name)
	}
}
