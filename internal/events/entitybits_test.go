package events

import (
	"testing"

	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/game"
)

// TestEntityNumBits: the wire width of an entity number holds every
// EntityNum and no more (game.MaxEntities is a power of two).
func TestEntityNumBits(t *testing.T) {
	if got := bitmsg.BitsFor(game.MaxEntities - 1); got != EntityNumBits || 1<<EntityNumBits != game.MaxEntities {
		t.Errorf("EntityNumBits %d: BitsFor(MaxEntities-1) = %d, 1<<EntityNumBits = %d, MaxEntities = %d",
			EntityNumBits, got, 1<<EntityNumBits, game.MaxEntities)
	}
}
