package server_test

import (
	"fmt"
	"testing"

	"github.com/snapwire/snapwire/game"
)

// serverSize is the server an attack runs against: a server of slots
// player slots (0: server.Config's default), or, with matches set, a
// server.Host of that many matches, the victims' match one of them.
type serverSize struct{ slots, matches int }

// hostMatches is the number of matches of the host variant (issue 25
// part 2's acceptance: 128 matches in one process).
const hostMatches = 128

// forSlots runs f as three subtests: with the server's player slots at the
// test's own count (0: server.Config's default), at game.MaxClients
// (1,024, issue 25), and on a host of 128 matches with the test's own
// count in each (issue 25 part 2), so every attack is proven against a
// full-size server and a busy host.
func forSlots(t *testing.T, own int, f func(t *testing.T, sz serverSize)) {
	for _, sz := range []serverSize{{slots: own}, {slots: game.MaxClients}, {slots: own, matches: hostMatches}} {
		name := fmt.Sprintf("slots=%d", sz.slots)
		if sz.matches > 0 {
			name = fmt.Sprintf("matches=%d", sz.matches)
		}
		t.Run(name, func(t *testing.T) { f(t, sz) })
	}
}
