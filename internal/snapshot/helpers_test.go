package snapshot

import (
	"bytes"
	"testing"

	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/game"
)

// testEnt: a position (full floats, DOOM III §4.1), a health (7 bits) and a
// rarely changing flags byte, written least-changing last.
type testEnt struct {
	X, Y, Z float32
	Health  int32
	Flags   uint8
}

func (e *testEnt) WriteSnapshot(w *bitmsg.DeltaWriter) {
	w.WriteFloat(e.X)
	w.WriteFloat(e.Y)
	w.WriteFloat(e.Z)
	w.WriteRangedInt(e.Health, 0, 100)
	w.WriteUint8(e.Flags)
}

func (e *testEnt) ReadSnapshot(r *bitmsg.DeltaReader) {
	e.X = r.ReadFloat()
	e.Y = r.ReadFloat()
	e.Z = r.ReadFloat()
	e.Health = r.ReadRangedInt(0, 100)
	e.Flags = r.ReadUint8()
}

// testProj: a second type, to change an entity number's type.
type testProj struct {
	X, Y float32
	Age  uint8
}

func (p *testProj) WriteSnapshot(w *bitmsg.DeltaWriter) {
	w.WriteFloat(p.X)
	w.WriteFloat(p.Y)
	w.WriteBits(uint32(p.Age), 6)
}

func (p *testProj) ReadSnapshot(r *bitmsg.DeltaReader) {
	p.X = r.ReadFloat()
	p.Y = r.ReadFloat()
	p.Age = uint8(r.ReadBits(6))
}

// gameState and playerState: the non-PVS states.
type gameState struct {
	Scores   [4]int32
	TimeLeft uint16
}

func (g *gameState) WriteSnapshot(w *bitmsg.DeltaWriter) {
	for _, s := range g.Scores {
		w.WriteInt(s, 16)
	}
	w.WriteUint16(g.TimeLeft)
}

func (g *gameState) ReadSnapshot(r *bitmsg.DeltaReader) {
	for i := range g.Scores {
		g.Scores[i] = r.ReadInt(16)
	}
	g.TimeLeft = r.ReadUint16()
}

type playerState struct {
	Ammo, Weapon uint8
}

func (p *playerState) WriteSnapshot(w *bitmsg.DeltaWriter) {
	w.WriteUint8(p.Ammo)
	w.WriteBits(uint32(p.Weapon), 3)
}

func (p *playerState) ReadSnapshot(r *bitmsg.DeltaReader) {
	p.Ammo = r.ReadUint8()
	p.Weapon = uint8(r.ReadBits(3))
}

const (
	entType  game.TypeID = 1
	projType game.TypeID = 2
)

// testEntBits is the size of a testEnt's full state.
const testEntBits = 32*3 + 7 + 8

func newRegistry() *game.Registry {
	r := game.NewRegistry()
	r.MustRegister(game.EntityType{Name: "ent", New: func() game.Entity { return &testEnt{Health: 100} }})
	r.MustRegister(game.EntityType{Name: "proj", New: func() game.Entity { return &testProj{} }})
	r.MustRegisterState(game.StateType{Name: "game", New: func() game.Snapshotter { return &gameState{} }})
	r.MustRegisterState(game.StateType{Name: "player", New: func() game.Snapshotter { return &playerState{} }})
	return r
}

// mapWorld returns the "map" both ends load: entities 0..n-1 of type ent at
// deterministic places (numbers spread over the chunks when spread > 1).
func mapWorld(reg *game.Registry, n, spread int) *game.EntityTable {
	w := game.NewEntityTable(reg)
	for i := range n {
		e, err := w.Spawn(game.EntityNum(i*spread), entType)
		if err != nil {
			panic(err)
		}
		t := e.(*testEnt)
		t.X, t.Y, t.Z = float32(i), float32(2*i), 0
	}
	return w
}

func newStates() []game.Snapshotter {
	return []game.Snapshotter{&gameState{TimeLeft: 600}, &playerState{Ammo: 50}}
}

// pair is a server encoder and a client decoder with bases initialised from
// the same map.
func newPair(t testing.TB, reg *game.Registry, world *game.EntityTable, states []game.Snapshotter) (*Encoder, *Decoder) {
	t.Helper()
	enc := NewEncoder(reg)
	if err := enc.Base().Init(world, states); err != nil {
		t.Fatal(err)
	}
	dec, err := NewDecoder(reg)
	if err != nil {
		t.Fatal(err)
	}
	dec.Base().CopyFrom(enc.Base())
	if enc.Base().Hash() != dec.Base().Hash() {
		t.Fatal("bases differ after init")
	}
	return enc, dec
}

// fullState returns e's full state bits (copied).
func fullState(t testing.TB, e game.Snapshotter) ([]byte, int) {
	t.Helper()
	st, n, err := NewStateCodec().Save(e)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Clone(st), n
}

func build(t testing.TB, enc *Encoder, in *Input) []byte {
	t.Helper()
	w := bitmsg.NewWriter(make([]byte, 1<<16))
	if _, err := enc.Build(w, in); err != nil {
		t.Fatal(err)
	}
	return bytes.Clone(w.Bytes())
}

func buildBits(t testing.TB, enc *Encoder, in *Input) ([]byte, int) {
	t.Helper()
	w := bitmsg.NewWriter(make([]byte, 1<<16))
	if _, err := enc.Build(w, in); err != nil {
		t.Fatal(err)
	}
	return bytes.Clone(w.Bytes()), w.Len()
}

// buildBoth builds one snapshot of in twice: with ref, which has no FrameCache (the DeltaWriter
// reference path), into bufA, and with fast through cache into bufB. It fails the test unless
// the two headers and messages are equal, and returns the header and fast's message.
func buildBoth(t testing.TB, tick int, ref, fast *Encoder, in Input, cache *FrameCache, bufA, bufB []byte) (Header, *bitmsg.Writer) {
	t.Helper()
	in.Cache = nil
	wa := bitmsg.NewWriter(bufA)
	ha, err := ref.Build(wa, &in)
	if err != nil {
		t.Fatal(err)
	}
	in.Cache = cache
	wb := bitmsg.NewWriter(bufB)
	hb, err := fast.Build(wb, &in)
	if err != nil {
		t.Fatal(err)
	}
	if ha != hb || wa.Len() != wb.Len() || !bytes.Equal(wa.Bytes(), wb.Bytes()) {
		t.Fatalf("tick %d: cached snapshot (%d bits) differs from the reference (%d bits)", tick, wb.Len(), wa.Len())
	}
	return hb, wb
}
