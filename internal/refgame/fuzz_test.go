package refgame

import (
	"testing"

	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/game"
)

// FuzzEntityState decodes hostile entity states (as a client would from a snapshot delta against
// an empty base), re-encodes and decodes them again (decode -> encode -> decode must agree), and
// runs a world holding them for a few frames: nothing may panic, coordinates stay within bounds.
func FuzzEntityState(f *testing.F) {
	m := newMatch(f, Config{Seed: 3, Entities: 200}, 4, BotDeathmatch)
	for i := 0; i < 400; i++ {
		m.step()
	}
	var msg [game.MaxStateBytes]byte
	for n, e := range m.w.Entities() {
		_, typ := m.w.Entity(n)
		var out bitmsg.Writer
		var dw bitmsg.DeltaWriter
		out.Reset(msg[:])
		bitops.ResetWriter(&dw, nil, 0, &out, make([]byte, game.MaxStateBytes))
		e.WriteSnapshot(&dw)
		f.Add(uint8(typ), append([]byte(nil), out.Bytes()...))
	}
	reg := NewRegistry()
	f.Fuzz(func(t *testing.T, typ uint8, data []byte) {
		id := game.TypeID(typ%6 + 1)
		e, err := reg.New(id)
		if err != nil {
			t.Fatal(err)
		}
		var dr bitmsg.DeltaReader
		in := bitmsg.NewReader(data, len(data)*8)
		bitops.ResetReader(&dr, nil, 0, in, make([]byte, game.MaxStateBytes))
		e.ReadSnapshot(&dr)
		if dr.Err() != nil {
			return
		}
		e2, _ := reg.New(id)
		roundTrip(t, e2, e)
		b1, n1, err1 := stateBits(e, make([]byte, 512))
		b2, n2, err2 := stateBits(e2, make([]byte, 512))
		if err1 != nil || err2 != nil || n1 != n2 || string(b1) != string(b2) {
			t.Fatalf("decode-encode-decode differs: %+v vs %+v (%v %v)", e, e2, err1, err2)
		}
		// Put it into a world in place of an entity of its type and run.
		w, _ := NewWorld(Config{Seed: 1, RoomsX: 2, RoomsY: 2})
		for c := game.ClientNum(0); c < 3; c++ {
			w.ClientConnected(c)
		}
		var n game.EntityNum
		switch id {
		case TypePlayer:
			n = 1
		case TypeRocket:
			n = game.EntityNum(w.Map.FirstRocket)
		case TypeDoor:
			n = game.EntityNum(w.Map.FirstDoor)
		case TypeLight:
			n = game.EntityNum(w.Map.FirstLight)
		case TypePickup:
			n = game.EntityNum(w.Map.FirstPickup)
		case TypeProp:
			n = game.EntityNum(w.Map.FirstPickup) // no props on this map: spawn must fail
			if _, err := w.Spawn(n, TypeProp); err == nil {
				t.Fatal("prop spawned in a pickup slot")
			}
			return
		}
		dst, err := w.Spawn(n, id)
		if err != nil {
			t.Fatal(err)
		}
		roundTrip(t, dst, e)
		for fr := game.Frame(1); fr < 30; fr++ {
			w.RunFrame(&game.Tick{Frame: fr, Cmds: []game.PlayerCmd{{Entity: 1, Cmd: game.UserCmd{Forward: 127, Buttons: ButtonAttack | ButtonUse}}}, Events: game.Discard})
			var s entitySet
			w.Visible(1, &s)
		}
		for i := range w.Players {
			p := &w.Players[i]
			if !(p.X >= 0 && p.X <= maxCoord && p.Y >= 0 && p.Y <= maxCoord) {
				t.Fatalf("player %d at (%v,%v)", i, p.X, p.Y)
			}
		}
	})
}
