package snapshot

import (
	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/game"
)

// What the snapshot layout needs of a game.Registry beyond what a game
// asks of it: the wire width of a type id and whether an id is registered.

// MaxTypeID returns the largest TypeID registered in reg (game.NoType if
// none). It scans the ids down from game.MaxTypeID: encoders and decoders
// call it once, when they are made.
func MaxTypeID(reg *game.Registry) game.TypeID {
	for id := game.MaxTypeID; id > game.NoType; id-- {
		if _, ok := reg.Type(id); ok {
			return id
		}
	}
	return game.NoType
}

// TypeBits returns the width in bits of a TypeID in a snapshot's spawn
// records: enough for MaxTypeID(reg), at least 1. Both ends derive it from
// equal registries.
func TypeBits(reg *game.Registry) int { return bitmsg.BitsFor(uint32(MaxTypeID(reg))) }

// known reports whether typ is registered in reg.
func known(reg *game.Registry, typ game.TypeID) bool {
	_, ok := reg.Type(typ)
	return ok
}
