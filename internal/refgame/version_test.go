package refgame

import (
	"bytes"
	"testing"

	"github.com/snapwire/snapwire/game"
)

// entityState is what EntityVersion stands for: presence, type and the snapshot state's bits.
type entityState struct {
	present bool
	typ     game.TypeID
	bits    int
	data    []byte
}

func snapshotOf(t *testing.T, w *World, n game.EntityNum) entityState {
	t.Helper()
	e, typ := w.Entity(n)
	if e == nil {
		return entityState{}
	}
	b, nbits, err := stateBits(e, make([]byte, game.MaxStateBytes))
	if err != nil {
		t.Fatalf("entity %d: %v", n, err)
	}
	return entityState{present: true, typ: typ, bits: nbits, data: bytes.Clone(b)}
}

// TestEntityVersionCoversChanges runs bot matches (players fighting, rockets spawning and going,
// pickups taken and back, doors, lights toggled, props spinning, clients leaving and joining,
// coarse frames) and checks after every frame that each entity whose EntityVersion did not change
// has exactly the state it had: a change the world made without a new version would send a
// stale state through a FrameCache. It also checks that versions do change (most frames change
// some entity) and that another world never repeats a version.
func TestEntityVersionCoversChanges(t *testing.T) {
	for _, tc := range []struct {
		name    string
		cfg     Config
		players int
	}{
		{"duel", Config{Seed: 1, RoomsX: 2, RoomsY: 2, MaxPlayers: 2, Entities: 100}, 2},
		{"16p", Config{Seed: 2, RoomsX: 3, RoomsY: 3, MaxPlayers: 16, Entities: 500}, 16},
		{"crowd", Config{Seed: 8, RoomsX: 2, RoomsY: 2, MaxPlayers: 24, Entities: 1500}, 24},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newMatch(t, tc.cfg, tc.players, BotDeathmatch)
			w := m.w
			n := w.Map.NumEntities
			prevVer := make([]uint64, n)
			prev := make([]entityState, n)
			for i := range n {
				prevVer[i], prev[i] = w.EntityVersion(game.EntityNum(i)), snapshotOf(t, w, game.EntityNum(i))
				if prevVer[i] == 0 {
					t.Fatalf("entity %d: version 0 after Load", i)
				}
			}
			kept, changed := 0, 0
			for f := game.Frame(1); f <= 900; f++ {
				switch {
				case f%300 == 100: // a client leaves, and comes back 50 frames later
					w.ClientDisconnected(1)
				case f%300 == 150:
					if err := w.ClientConnected(1); err != nil {
						t.Fatal(err)
					}
				}
				cmds := m.commands(f)
				if f%7 == 0 { // a coarse frame, as a client re-predicting one entity runs
					m.tick = game.Tick{Frame: f, Cmds: cmds, Events: &m.ev}
					m.ev.Reset()
					w.RunCoarseFrame(&m.tick, game.CoarseStep{Exact: 0, HasExact: true, Frames: 2})
				} else {
					m.run(f, cmds)
				}
				for i := range n {
					en := game.EntityNum(i)
					v, s := w.EntityVersion(en), snapshotOf(t, w, en)
					if v == prevVer[i] {
						kept++
						if s.present != prev[i].present || s.typ != prev[i].typ || s.bits != prev[i].bits || !bytes.Equal(s.data, prev[i].data) {
							t.Fatalf("frame %d: entity %d changed (%+v -> %+v) but kept version %d", f, i, prev[i], s, v)
						}
					} else {
						changed++
					}
					prevVer[i], prev[i] = v, s
				}
			}
			if kept == 0 || changed == 0 {
				t.Fatalf("kept %d versions, changed %d: the check saw no variety", kept, changed)
			}
			t.Logf("%d entity-frames kept their version, %d got a new one", kept, changed)

			// Another world on the same map draws versions no other world has.
			other, err := NewWorld(tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			seen := make(map[uint64]bool, n)
			for i := range n {
				seen[w.EntityVersion(game.EntityNum(i))] = true
			}
			for i := range n {
				if seen[other.EntityVersion(game.EntityNum(i))] {
					t.Fatalf("entity %d: a new world's version %d is one the first world holds", i, other.EntityVersion(game.EntityNum(i)))
				}
			}
		})
	}
}

// TestTouch: a change made outside the world's code, then Touch, gives a new version.
func TestTouch(t *testing.T) {
	w, err := NewWorld(Config{Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	n := game.EntityNum(w.Map.FirstLight)
	v := w.EntityVersion(n)
	w.Lights[0].On = !w.Lights[0].On
	w.Touch(n)
	if w.EntityVersion(n) == v || w.EntityVersion(n) == 0 {
		t.Fatalf("version %d after Touch, %d before", w.EntityVersion(n), v)
	}
	if NewGame().EntityVersion(0) != 0 {
		t.Fatal("a world with no map gives versions")
	}
	if w.EntityVersion(game.MaxEntities) != 0 {
		t.Fatal("an entity number past MaxEntities has a version")
	}
}
