package lockstep

import (
	"encoding/binary"
	"hash/fnv"
	"testing"

	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/refgame"
)

// loadedWorld is an arena world on a fresh map with players clients.
func loadedWorld(t *testing.T, players int) *refgame.World {
	t.Helper()
	mp, err := refgame.NewMap(refgame.Config{MaxPlayers: 16})
	if err != nil {
		t.Fatal(err)
	}
	w := refgame.NewGame()
	if err := w.Load(mp.Config().String()); err != nil {
		t.Fatal(err)
	}
	for c := range players {
		if err := w.ClientConnected(game.ClientNum(c)); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

// referenceHash computes the layout stateHasher documents with the
// standard library's FNV-1a 64, each state encoded into a fresh buffer.
func referenceHash(t *testing.T, g game.Game) uint64 {
	t.Helper()
	h := fnv.New64a()
	put := func(s game.Snapshotter) {
		dw := new(bitmsg.DeltaWriter)
		bitops.ResetWriter(dw, nil, 0, nil, make([]byte, game.MaxStateBytes))
		s.WriteSnapshot(dw)
		if err := dw.Err(); err != nil {
			t.Fatal(err)
		}
		st, nbits := bitops.WriterState(dw)
		h.Write(binary.LittleEndian.AppendUint16(nil, uint16(nbits)))
		h.Write(st[:(nbits+7)/8])
	}
	for n, e := range g.Entities() {
		_, typ := g.Entity(n)
		h.Write(binary.LittleEndian.AppendUint16(nil, uint16(n)))
		h.Write(binary.LittleEndian.AppendUint16(nil, uint16(typ)))
		put(e)
	}
	h.Write([]byte{0xFF})
	for id := range g.Registry().NumStates() {
		put(g.State(0, game.StateID(id)))
	}
	return h.Sum64()
}

// The state hash is FNV-1a 64 over the documented layout, equal on two
// worlds that ran the same frames, and different once one runs a frame the
// other did not.
func TestStateHash(t *testing.T) {
	a, b := loadedWorld(t, 2), loadedWorld(t, 2)
	var ha, hb stateHasher
	x, err := ha.hash(a)
	if err != nil {
		t.Fatal(err)
	}
	if want := referenceHash(t, a); x != want {
		t.Fatalf("hash %#x, the documented layout gives %#x", x, want)
	}
	if y, err := hb.hash(b); err != nil || y != x {
		t.Fatalf("two equal worlds: %#x, %#x (%v)", x, y, err)
	}
	ea, _ := a.PlayerEntity(0)
	eb, _ := b.PlayerEntity(0)
	for f := game.Frame(1); f <= 10; f++ {
		a.RunFrame(&game.Tick{Frame: f, Cmds: []game.PlayerCmd{{Entity: ea, Cmd: game.UserCmd{Forward: 127}}}, Events: game.Discard})
		b.RunFrame(&game.Tick{Frame: f, Cmds: []game.PlayerCmd{{Entity: eb}}, Events: game.Discard})
	}
	x, err = ha.hash(a)
	if err != nil {
		t.Fatal(err)
	}
	if want := referenceHash(t, a); x != want {
		t.Fatalf("after 10 frames: hash %#x, the documented layout gives %#x", x, want)
	}
	y, err := hb.hash(b)
	if err != nil {
		t.Fatal(err)
	}
	if x == y {
		t.Fatalf("a player that moved and one that stood still hash alike (%#x)", x)
	}
	if again, _ := hb.hash(b); again != y {
		t.Fatalf("hashing twice: %#x then %#x", y, again)
	}
}
