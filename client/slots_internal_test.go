package client

import (
	"fmt"
	"testing"

	"github.com/snapwire/snapwire/game"
)

// forServerSlots runs f as two subtests: against a server of the default
// player slots (0) and of game.MaxClients (1,024, issue 25).
func forServerSlots(t *testing.T, f func(t *testing.T, slots int)) {
	for _, slots := range []int{0, game.MaxClients} {
		t.Run(fmt.Sprintf("slots=%d", slots), func(t *testing.T) { f(t, slots) })
	}
}
