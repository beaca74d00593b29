package snapshot

import (
	"math/bits"

	"github.com/snapwire/snapwire/game"
)

// next returns the smallest member of p that is n or more, or
// game.MaxEntities if there is none (at most PVSChunks words read).
func (p *PVS) next(n int) int {
	if n >= game.MaxEntities {
		return game.MaxEntities
	}
	w := n / 32
	word := p[w] >> (n % 32) << (n % 32) // the members below n cleared
	for word == 0 {
		if w++; w == PVSChunks {
			return game.MaxEntities
		}
		word = p[w]
	}
	return w*32 + bits.TrailingZeros32(word)
}

// cmdsBelow returns how many commands of cmds (ascending by entity) have
// an entity below n: a binary search, so that planCmds passes over the
// commands of the players outside a PVS in log time.
func cmdsBelow(cmds []game.PlayerCmd, n int) int {
	lo, hi := 0, len(cmds)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if int(cmds[mid].Entity) < n {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// chainBelow returns how many elements of chain (ascending by entity)
// have an entity below n.
func chainBelow(chain []chainEnt, n int) int {
	lo, hi := 0, len(chain)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if int(chain[mid].num) < n {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}
