package server_test

import (
	"fmt"
	"testing"

	"github.com/snapwire/snapwire/game"
)

// forSlots runs f as two subtests: with the server's player slots at the
// test's own count (0: server.Config's default) and at game.MaxClients
// (1,024, issue 25), so every attack is proven against a full-size server.
func forSlots(t *testing.T, own int, f func(t *testing.T, slots int)) {
	for _, slots := range []int{own, game.MaxClients} {
		t.Run(fmt.Sprintf("slots=%d", slots), func(t *testing.T) { f(t, slots) })
	}
}
