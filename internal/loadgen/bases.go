package loadgen

import (
	"fmt"
	"sync"

	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/snapshot"
)

// maxBases bounds the map bases kept: a server names the settings, so
// their number is the server's to choose (each client also bounds its
// loads, maxLoads per loadWindow).
const maxBases = 8

// Bases builds the common base of each map once (DOOM III §8: "the common
// base ... could be initialized with the states of entities from right
// after a map is loaded") and hands it to every light client, which
// copies it, as the server copies one base for each of its clients. Safe
// for concurrent use.
type Bases struct {
	reg     *game.Registry
	newGame func() game.Game

	mu sync.Mutex
	m  map[string]*snapshot.CommonBase
}

// NewBases returns the bases of the game newGame creates; it calls
// newGame for the registry and once per map loaded.
func NewBases(newGame func() game.Game) *Bases {
	return &Bases{reg: newGame().Registry(), newGame: newGame, m: make(map[string]*snapshot.CommonBase)}
}

// get returns the base of the map settings names, loading it the first
// time. The base is shared: read it only (CopyFrom).
func (b *Bases) get(settings string) (*snapshot.CommonBase, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if base, ok := b.m[settings]; ok {
		return base, nil
	}
	g := b.newGame()
	if g.Registry().Hash() != b.reg.Hash() {
		return nil, fmt.Errorf("loadgen: the game's registry changed between instances")
	}
	if err := g.Load(settings); err != nil {
		return nil, fmt.Errorf("loadgen: load %q: %w", settings, err)
	}
	base := snapshot.NewCommonBase(b.reg.NumStates())
	if err := base.Init(g, nil); err != nil {
		return nil, err
	}
	if len(b.m) >= maxBases {
		clear(b.m)
	}
	b.m[settings] = base
	return base, nil
}
