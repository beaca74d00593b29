package snapshot

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/game"
)

// fuzzMap is the map both ends load in the fuzz target: 8 entities 0, 3, ..., 21.
func fuzzMap(reg *game.Registry) *game.EntityTable { return mapWorld(reg, 8, 3) }

func fuzzDecoder(t testing.TB, reg *game.Registry) *Decoder {
	d, err := NewDecoder(reg)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Base().Init(fuzzMap(reg), newStates()); err != nil {
		t.Fatal(err)
	}
	return d
}

// fuzzSeeds builds real snapshots against the map's base (no apply), with
// changes, spawns, type changes, commands and events.
func fuzzSeeds(t testing.TB) [][]byte {
	reg := newRegistry()
	world := fuzzMap(reg)
	states := newStates()
	enc := NewEncoder(reg)
	if err := enc.Base().Init(world, states); err != nil {
		t.Fatal(err)
	}
	var pvs PVS
	for n := range world.Entities() {
		pvs.Add(n)
	}
	var out [][]byte
	add := func(in *Input) {
		in.PVS, in.World, in.States = &pvs, world, states
		out = append(out, build(t, enc, in))
	}
	add(&Input{Frame: 1})
	e, _ := world.Entity(3)
	e.(*testEnt).Health = 7
	add(&Input{Frame: 2, Time: 33 * time.Millisecond, Duplicated: 2, Lead: -4 * time.Millisecond})
	p, _ := world.Spawn(6, projType)
	p.(*testProj).Age = 9
	world.Spawn(100, entType)
	pvs.Add(100)
	pvs.Remove(9)
	states[0].(*gameState).Scores[2] = -3
	add(&Input{Frame: 3, Cmds: []game.PlayerCmd{{Entity: 0, Cmd: game.UserCmd{Yaw: 5}}, {Entity: 21, Cmd: game.UserCmd{Buttons: 2}}}})
	add(&Input{Frame: 4, Events: []game.Event{{Entity: 3, ID: 9, Frame: 4, Data: []byte{0xff, 0x3}, Bits: 10}, {Entity: 4000, ID: 1, Frame: 1}}})
	for i := range 70 { // past the base-age escape
		e.(*testEnt).X = float32(i)
		add(&Input{Frame: game.Frame(5 + i)})
	}
	return out
}

func TestFuzzSeedsDecode(t *testing.T) {
	reg := newRegistry()
	for i, s := range fuzzSeeds(t) {
		var snap Snapshot
		if err := fuzzDecoder(t, reg).Decode(bitmsg.NewReader(s, len(s)*8), &snap); err != nil {
			t.Fatalf("seed %d: %v", i, err)
		}
	}
}

// FuzzDecodeSnapshot decodes hostile input against a known base; what
// decodes is rebuilt into a world, re-encoded against the same base and
// decoded again, and the two decodings must agree.
func FuzzDecodeSnapshot(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	reg := newRegistry()
	f.Fuzz(func(t *testing.T, data []byte) {
		dec := fuzzDecoder(t, reg)
		var s Snapshot
		if err := dec.Decode(bitmsg.NewReader(data, len(data)*8), &s); err != nil {
			if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrBaseMismatch) {
				t.Fatalf("error %v wraps neither ErrCorrupt nor ErrBaseMismatch", err)
			}
			if dec.Pending() != 0 {
				t.Fatal("failed decode left a pending snapshot")
			}
			return
		}
		if len(s.Entities) != s.PVS.Len() || len(s.States) != reg.NumStates() {
			t.Fatalf("%d entities for a PVS of %d", len(s.Entities), s.PVS.Len())
		}
		// Rebuild the server's view from the decoded snapshot.
		codec := NewStateCodec()
		world := game.NewEntityTable(reg)
		for _, es := range s.Entities {
			e, err := world.Spawn(es.Num, es.Type)
			if err != nil {
				t.Fatal(err)
			}
			if err := codec.Load(e, es.State, es.Bits); err != nil {
				t.Fatal(err)
			}
		}
		states := newStates()
		for i, v := range s.States {
			if err := codec.Load(states[i], v.State, v.Bits); err != nil {
				t.Fatal(err)
			}
		}
		enc := NewEncoder(reg)
		enc.Base().CopyFrom(fuzzDecoder(t, reg).Base())
		enc.next = s.Header.Seq
		in := &Input{Frame: s.Header.Frame, Time: s.Header.Time, Duplicated: s.Header.Duplicated, Lead: s.Header.Lead,
			PVS: &s.PVS, World: world, States: states, Cmds: s.Cmds, Events: s.Events}
		w := bitmsg.NewWriter(make([]byte, 1<<16))
		if _, err := enc.Build(w, in); err != nil {
			t.Fatalf("re-encode: %v", err)
		}
		var s2 Snapshot
		if err := fuzzDecoder(t, reg).Decode(bitmsg.NewReader(w.Bytes(), w.Len()), &s2); err != nil {
			t.Fatalf("decode of re-encoding: %v", err)
		}
		if s.Header != s2.Header || s.PVS != s2.PVS || len(s.Entities) != len(s2.Entities) || len(s.Cmds) != len(s2.Cmds) || len(s.Events) != len(s2.Events) {
			t.Fatalf("re-decoded snapshot differs:\n%+v\n%+v", s.Header, s2.Header)
		}
		for i, a := range s.Entities {
			b := s2.Entities[i]
			if a.Num != b.Num || a.Type != b.Type || a.Spawn != b.Spawn || a.Bits != b.Bits || !bytes.Equal(a.State, b.State) {
				t.Fatalf("entity %d differs: %+v vs %+v", a.Num, a, b)
			}
		}
		for i, a := range s.States {
			if b := s2.States[i]; a.Bits != b.Bits || !bytes.Equal(a.State, b.State) {
				t.Fatalf("state %d differs", i)
			}
		}
		for i, a := range s.Cmds {
			if a != s2.Cmds[i] {
				t.Fatalf("command %d differs", i)
			}
		}
		for i, a := range s.Events {
			b := s2.Events[i]
			if a.Entity != b.Entity || a.ID != b.ID || a.Frame != b.Frame || a.Bits != b.Bits || !bytes.Equal(a.Data, b.Data) {
				t.Fatalf("event %d differs", i)
			}
		}
	})
}
