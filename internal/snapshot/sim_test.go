package snapshot

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/game"
)

// The simulation below models the message channel's guarantees (DOOM III
// §3): server→client packets are lost at random and arrive in order (a late
// packet is dropped, as netchan drops it); each carries every reliable
// "apply" not yet acknowledged, delivered before the snapshot;
// client→server acknowledgements are lost, duplicated and reordered.

type simDown struct {
	arrive   int
	sent     int
	relFirst int
	applies  []ApplyMessage
	snap     []byte
	bits     int
}

type simUp struct {
	arrive int
	ack    Seq
	relAck int // reliable messages received so far
}

type expectEnt struct {
	typ   game.TypeID
	state []byte
	bits  int
}

type expectSnap struct {
	ents   map[game.EntityNum]expectEnt
	states [][]byte
	cmds   []game.PlayerCmd
	events int
}

func TestRoundTripLossyAcks(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		simulate(t, seed, 600)
	}
}

func simulate(t *testing.T, seed uint64, ticks int) {
	r := rand.New(rand.NewPCG(seed, 99))
	reg := newRegistry()
	sworld := mapWorld(reg, 150, 11) // spread over many chunks
	cworld := mapWorld(reg, 150, 11)
	sstates := newStates()
	enc, dec := newPair(t, reg, sworld, sstates)
	codec := NewStateCodec()

	var pvs PVS
	for n := range sworld.Entities() {
		if r.IntN(2) == 0 {
			pvs.Add(n)
		}
	}
	expected := map[Seq]expectSnap{}
	serverHash := map[Seq]uint64{}
	var relQueue []ApplyMessage
	relBase := 0 // reliable number of relQueue[0]
	var down []simDown
	var up []simUp
	lastRecv := -1 // sent tick of the last delivered server packet
	relExpected := 0
	var lastAck Seq
	var applies, spawns, decodes, stateChecks int
	buf := make([]byte, 1<<16)
	var snap Snapshot

	for tick := 0; tick < ticks; tick++ {
		drain := tick >= ticks-40 // a clean network at the end
		// --- server: game changes
		for n, e := range sworld.Entities() {
			switch v := e.(type) {
			case *testEnt:
				if r.IntN(3) == 0 {
					v.X += float32(r.IntN(9) - 4)
				}
				if r.IntN(20) == 0 {
					v.Health = int32(r.IntN(101))
				}
				if r.IntN(100) == 0 {
					v.Flags ^= 1 << r.IntN(8)
				}
			case *testProj:
				v.Age = (v.Age + 1) & 63
				v.X++
			}
			if r.IntN(30) == 0 {
				if pvs.Has(n) {
					pvs.Remove(n)
				} else {
					pvs.Add(n)
				}
			}
		}
		if r.IntN(25) == 0 { // remove an entity
			n := game.EntityNum(r.IntN(150) * 11)
			sworld.Remove(n)
		}
		if r.IntN(15) == 0 { // spawn (possibly replacing, possibly changing type)
			n := game.EntityNum(r.IntN(game.MaxEntities))
			typ := entType
			if r.IntN(2) == 0 {
				typ = projType
			}
			if _, err := sworld.Spawn(n, typ); err != nil {
				t.Fatal(err)
			}
			pvs.Add(n)
		}
		if r.IntN(10) == 0 {
			sstates[0].(*gameState).Scores[r.IntN(4)] += 1
		}
		if r.IntN(20) == 0 {
			sstates[1].(*playerState).Ammo = uint8(r.IntN(200))
		}
		var cmds []game.PlayerCmd
		for _, n := range []game.EntityNum{0, 11, 22, 33} {
			cmds = append(cmds, game.PlayerCmd{Entity: n, Cmd: game.UserCmd{Forward: int8(r.IntN(3) - 1), Yaw: uint16(tick * 10)}})
		}
		var events []game.Event
		if r.IntN(8) == 0 {
			events = append(events, game.Event{Entity: 5, ID: 1, Frame: game.Frame(tick), Data: []byte{0xAA, 0x1}, Bits: 9})
		}

		// --- server: build the snapshot
		w := bitmsg.NewWriter(buf)
		in := &Input{Frame: game.Frame(tick), PVS: &pvs, World: sworld, States: sstates, Cmds: cmds, Events: events}
		h, err := enc.Build(w, in)
		if err != nil {
			t.Fatal(err)
		}
		exp := expectSnap{ents: map[game.EntityNum]expectEnt{}, events: len(events)}
		for n := range pvs.All() {
			e, typ := sworld.Entity(n)
			if e == nil {
				continue
			}
			st, nb := fullState(t, e)
			exp.ents[n] = expectEnt{typ, st, nb}
		}
		for _, s := range sstates {
			st, _ := fullState(t, s)
			exp.states = append(exp.states, st)
		}
		for _, c := range cmds {
			if _, ok := exp.ents[c.Entity]; ok {
				c.Cmd.Frame = game.Frame(tick)
				exp.cmds = append(exp.cmds, c)
			}
		}
		expected[h.Seq] = exp
		if drain || r.IntN(4) != 0 { // 25% loss
			down = append(down, simDown{
				arrive: tick + 3 + r.IntN(3), sent: tick, relFirst: relBase,
				applies: slices.Clone(relQueue), snap: bytes.Clone(w.Bytes()), bits: w.Len(),
			})
		}

		// --- client: receive in order
		slices.SortStableFunc(down, func(a, b simDown) int { return a.arrive - b.arrive })
		for len(down) > 0 && down[0].arrive <= tick {
			p := down[0]
			down = down[1:]
			if p.sent <= lastRecv {
				continue // late: the channel drops it
			}
			lastRecv = p.sent
			for i, m := range p.applies {
				if p.relFirst+i < relExpected {
					continue
				}
				if err := dec.Apply(m); err != nil {
					t.Fatalf("seed %d tick %d: apply %d: %v", seed, tick, m.Seq, err)
				}
				relExpected++
				applies++
				if dec.Base().Hash() != serverHash[m.Seq] {
					t.Fatalf("seed %d tick %d: base after applying %d differs from the server's", seed, tick, m.Seq)
				}
			}
			if err := dec.Decode(bitmsg.NewReader(p.snap, p.bits), &snap); err != nil {
				t.Fatalf("seed %d tick %d: decode: %v", seed, tick, err)
			}
			decodes++
			exp := expected[snap.Header.Seq]
			if len(snap.Entities) != len(exp.ents) {
				t.Fatalf("seed %d: %d entities, want %d", seed, len(snap.Entities), len(exp.ents))
			}
			for _, es := range snap.Entities {
				x := exp.ents[es.Num]
				if es.Type != x.typ || es.Bits != x.bits || !bytes.Equal(es.State, x.state) {
					t.Fatalf("seed %d seq %d: entity %d decoded state differs from the server's", seed, snap.Header.Seq, es.Num)
				}
				// The client world: spawn when needed, load the state.
				ce, ctyp := cworld.Entity(es.Num)
				if ce == nil || ctyp != es.Type || es.Spawn {
					if ce, err = cworld.Spawn(es.Num, es.Type); err != nil {
						t.Fatal(err)
					}
					spawns++
				}
				if err := codec.Load(ce, es.State, es.Bits); err != nil {
					t.Fatal(err)
				}
				if st, nb := fullState(t, ce); nb != x.bits || !bytes.Equal(st, x.state) {
					t.Fatalf("seed %d: client entity %d state differs after Load", seed, es.Num)
				}
				stateChecks++
			}
			for n := range cworld.Entities() {
				if !snap.PVS.Has(n) {
					cworld.Remove(n)
				}
			}
			for i, v := range snap.States {
				if !bytes.Equal(v.State, exp.states[i]) {
					t.Fatalf("seed %d: state %d differs", seed, i)
				}
			}
			if !slices.Equal(snap.Cmds, exp.cmds) || len(snap.Events) != exp.events {
				t.Fatalf("seed %d: cmds %v want %v, %d events want %d", seed, snap.Cmds, exp.cmds, len(snap.Events), exp.events)
			}
			for _, ev := range snap.Events {
				if ev.Bits != 9 || ev.Data[0] != 0xAA || ev.Data[1] != 1 {
					t.Fatalf("event %+v", ev)
				}
			}
			lastAck = snap.Header.Seq
			// Acks: every client tick while it has something, some lost,
			// some duplicated, delays reorder them.
			copies := 1
			if r.IntN(10) == 0 {
				copies = 2
			}
			for range copies {
				if drain || r.IntN(4) != 0 {
					up = append(up, simUp{arrive: tick + 1 + r.IntN(8), ack: lastAck, relAck: relExpected})
				}
			}
		}
		// A client also re-acknowledges its last snapshot with each command
		// message (3 per snapshot in DOOM III); old acks arrive late.
		if lastAck != 0 && r.IntN(2) == 0 {
			up = append(up, simUp{arrive: tick + 1 + r.IntN(8), ack: lastAck, relAck: relExpected})
		}

		// --- server: receive acks in arrival order (reordered by delay)
		slices.SortStableFunc(up, func(a, b simUp) int { return a.arrive - b.arrive })
		for len(up) > 0 && up[0].arrive <= tick {
			a := up[0]
			up = up[1:]
			if n := a.relAck - relBase; n > 0 {
				relQueue = relQueue[n:]
				relBase = a.relAck
			}
			if m, ok := enc.Ack(a.ack); ok {
				serverHash[m.Seq] = enc.Base().Hash()
				relQueue = append(relQueue, m)
			}
		}
	}
	if applies < ticks/10 || decodes < ticks/2 || spawns < 10 {
		t.Fatalf("seed %d: too little exercised: %d applies, %d decodes, %d spawns", seed, applies, decodes, spawns)
	}
	if enc.Base().Seq() == dec.Base().Seq() && enc.Base().Hash() != dec.Base().Hash() {
		t.Fatalf("seed %d: final bases differ", seed)
	}
	t.Logf("seed %d: %d decodes, %d applies, %d spawns, %d entity states checked, base at %d/%d",
		seed, decodes, applies, spawns, stateChecks, enc.Base().Seq(), dec.Base().Seq())
}
