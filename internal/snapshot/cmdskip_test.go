package snapshot

import (
	"math/rand/v2"
	"testing"

	"github.com/snapwire/snapwire/game"
)

// PVS.next and cmdsBelow, which let planCmds pass over the commands of
// players outside a PVS, agree with a linear scan on random sets, at the
// edges of words and of the entity range.
func TestCmdSkip(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 1))
	for round := range 200 {
		var pvs PVS
		var cmds []game.PlayerCmd
		density := 1 + rng.IntN(64)
		for n := range game.MaxEntities {
			if rng.IntN(density) == 0 || round == 0 && (n == 31 || n == 32 || n == game.MaxEntities-1) {
				pvs.Add(game.EntityNum(n))
			}
			if rng.IntN(density) == 0 {
				cmds = append(cmds, game.PlayerCmd{Entity: game.EntityNum(n)})
			}
		}
		for _, n := range []int{0, 1, 31, 32, 33, 4095, 4096, 5000, rng.IntN(game.MaxEntities)} {
			want := n
			for want < game.MaxEntities && !pvs.Has(game.EntityNum(want)) {
				want++
			}
			want = min(want, game.MaxEntities)
			if got := pvs.next(n); got != want {
				t.Fatalf("round %d: next(%d) = %d, want %d", round, n, got, want)
			}
			below := 0
			for below < len(cmds) && int(cmds[below].Entity) < n {
				below++
			}
			if got := cmdsBelow(cmds, n); got != below {
				t.Fatalf("round %d: cmdsBelow(%d) = %d, want %d", round, n, got, below)
			}
		}
	}
}
