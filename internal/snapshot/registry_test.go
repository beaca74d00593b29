package snapshot

import (
	"testing"

	"github.com/snapwire/snapwire/game"
)

// TestTypeBits: the wire width of a type id follows the largest id
// registered, explicit ids included, and is 1 for an empty registry.
func TestTypeBits(t *testing.T) {
	reg := game.NewRegistry()
	if MaxTypeID(reg) != game.NoType || TypeBits(reg) != 1 {
		t.Fatalf("empty registry: max %d, %d bits", MaxTypeID(reg), TypeBits(reg))
	}
	newEnt := func() game.Entity { return &varEnt{} }
	for _, c := range []struct {
		id   game.TypeID // 0: Register (the next id)
		max  game.TypeID
		bits int
	}{
		{0, 1, 1}, {0, 2, 2}, {3, 3, 2}, {10, 10, 4}, {0, 11, 4}, {game.MaxTypeID, game.MaxTypeID, 12},
	} {
		name := "t" + string(rune('a'+int(c.max%26))) + string(rune('a'+int(c.max/26%26)))
		if c.id == 0 {
			if _, err := reg.Register(game.EntityType{Name: name, New: newEnt}); err != nil {
				t.Fatal(err)
			}
		} else if err := reg.RegisterAs(c.id, game.EntityType{Name: name, New: newEnt}); err != nil {
			t.Fatal(err)
		}
		if MaxTypeID(reg) != c.max || TypeBits(reg) != c.bits {
			t.Errorf("after id %d: max %d, %d bits; want %d, %d", c.max, MaxTypeID(reg), TypeBits(reg), c.max, c.bits)
		}
		if !known(reg, c.max) || known(reg, c.max-1) && c.max == 10 {
			t.Errorf("known(%d) %v, known(%d) %v", c.max, known(reg, c.max), c.max-1, known(reg, c.max-1))
		}
	}
}
