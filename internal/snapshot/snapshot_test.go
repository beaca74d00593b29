package snapshot

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/events"
)

func decode(t testing.TB, dec *Decoder, data []byte, nbits int) *Snapshot {
	t.Helper()
	var s Snapshot
	if err := dec.Decode(bitmsg.NewReader(data, nbits), &s); err != nil {
		t.Fatal(err)
	}
	return &s
}

func TestHeaderExact(t *testing.T) {
	h := Header{Seq: 5, BaseSeq: 3, Frame: 0x1234, Time: 1500 * time.Millisecond, Duplicated: 300, Lead: -20 * time.Millisecond}
	w := bitmsg.NewWriter(make([]byte, 64))
	h.Write(w)
	// seq 5 | age 2 (6) | frame 0x1234 (32) | time 1500 (32) | dup 255 (8) | lead -20 (16)
	want := []byte{0x05, 0x00, 0x00, 0x00, 0x02, 0x8d, 0x04, 0x00, 0x00, 0x77, 0x01, 0x00, 0xc0, 0x3f, 0xfb, 0x3f}
	if !bytes.Equal(w.Bytes(), want) {
		t.Fatalf("bytes %#v", w.Bytes())
	}
	if w.Len() != HeaderBits || h.Bits() != HeaderBits {
		t.Fatalf("header %d bits", w.Len())
	}
	var got Header
	if err := got.read(bitmsg.NewReader(w.Bytes(), w.Len())); err != nil {
		t.Fatal(err)
	}
	h.Duplicated = 255 // saturates
	if got != h {
		t.Fatalf("read %+v, want %+v", got, h)
	}
	// A base 63 or more behind needs the escape and the full base seq.
	h2 := Header{Seq: 1000, BaseSeq: 0, Frame: 7}
	w = bitmsg.NewWriter(make([]byte, 64))
	h2.Write(w)
	if w.Len() != HeaderBits+32 || h2.Bits() != w.Len() {
		t.Fatalf("escaped header %d bits", w.Len())
	}
	if err := got.read(bitmsg.NewReader(w.Bytes(), w.Len())); err != nil || got != h2 {
		t.Fatalf("escaped: %+v %v", got, err)
	}
	for n := 0; n < w.Len(); n++ {
		if err := got.read(bitmsg.NewReader(w.Bytes(), n)); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("prefix %d: %v", n, err)
		}
	}
}

// TestSnapshotExactBytes pins the layout of doc.go with one snapshot: two
// entities in the PVS, one changed field, one non-PVS state changed, one
// other player's command, one event.
func TestSnapshotExactBytes(t *testing.T) {
	reg := newRegistry()
	world := mapWorld(reg, 2, 1) // entities 0 and 1
	states := newStates()
	enc, dec := newPair(t, reg, world, states)
	e1, _ := world.Entity(1)
	e1.(*testEnt).Health = 99
	states[1].(*playerState).Weapon = 2
	var pvs PVS
	pvs.Add(0)
	pvs.Add(1)
	in := &Input{
		Frame: 10, Time: 166 * time.Millisecond, Lead: 8 * time.Millisecond,
		PVS: &pvs, World: world, States: states,
		Cmds:   []game.PlayerCmd{{Entity: 1, Cmd: game.UserCmd{Buttons: 1}}},
		Events: []game.Event{{Entity: 0, ID: 3, Frame: 10}},
	}
	data, nbits := buildBits(t, enc, in)
	wantBits := HeaderBits + 1 + 128 + 32 + // PVS changed flag, mask, one chunk
		nextBits(1) + 1 + (5 + 7) + 2 + // entity 1: next (skip 1), spawn 0, 5 flags + health; end
		1 + (1 + 1 + 1 + 3) + // state 0 unchanged; state 1: changed, ammo flag 0, weapon flag 1 + 3 bits
		nextBits(1) + 22 + 2 + // command of entity 1 (PVS index 1): buttons changed; end
		1 + events.WireBits(0) + 1
	if nbits != wantBits {
		t.Fatalf("snapshot %d bits, want %d", nbits, wantBits)
	}
	// Computed independently from the layout in doc.go, field by field:
	// header (seq 1, age 1, frame 10, time 166, dup 0, lead 8), PVS changed
	// flag 1, mask bit 0,
	// chunk 0 = 0b11, entity 1 (next 1010 = "1" ExpGolomb(1), spawn 0, 0 0 0,
	// 1 99), end 11, states (0; 1 0 1 2), command (next 1010, 1 Buttons=1,
	// 5×0), end 11,
	// event (more, entity 0, id 3, frame 10, length 0), end.
	want := []byte{
		0x01, 0x00, 0x00, 0x00, 0x81, 0x02, 0x00, 0x00, 0x80, 0x29, 0x00, 0x00,
		0x00, 0x00, 0x02, 0xc0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, 0x01, 0x00, 0x00, 0x80,
		0x82, 0x63, 0xab, 0x6a, 0x00, 0x00, 0x38, 0x00, 0x0c, 0x28, 0x00, 0x00,
		0x00, 0x00, 0x00,
	}
	if !bytes.Equal(data, want) {
		t.Errorf("bytes\n%#v\nwant\n%#v", data, want)
	}
	s := decode(t, dec, data, nbits)
	if s.Header.Seq != 1 || s.Header.BaseSeq != 0 || s.Header.Frame != 10 || s.Header.Time != 166*time.Millisecond || s.Header.Lead != 8*time.Millisecond {
		t.Fatalf("header %+v", s.Header)
	}
	if len(s.Entities) != 2 || s.Entities[0].Changed || !s.Entities[1].Changed || s.Entities[1].Spawn {
		t.Fatalf("entities %+v", s.Entities)
	}
	for i, es := range s.Entities {
		e, _ := world.Entity(es.Num)
		st, n := fullState(t, e)
		if es.Bits != n || !bytes.Equal(es.State, st) {
			t.Fatalf("entity %d state differs", i)
		}
	}
	if s.States[0].Changed || !s.States[1].Changed {
		t.Fatal("states")
	}
	var ps playerState
	if err := NewStateCodec().Load(&ps, s.States[1].State, s.States[1].Bits); err != nil || ps != (playerState{Ammo: 50, Weapon: 2}) {
		t.Fatalf("player state %+v %v", ps, err)
	}
	if len(s.Cmds) != 1 || s.Cmds[0] != (game.PlayerCmd{Entity: 1, Cmd: game.UserCmd{Frame: 10, Buttons: 1}}) {
		t.Fatalf("cmds %+v", s.Cmds)
	}
	if len(s.Events) != 1 || s.Events[0].ID != 3 || s.Events[0].Frame != 10 {
		t.Fatalf("events %+v", s.Events)
	}
	// Every truncated prefix fails cleanly.
	for n := 0; n < nbits; n++ {
		_, d2 := newPair(t, reg, mapWorld(reg, 2, 1), newStates())
		var s2 Snapshot
		if err := d2.Decode(bitmsg.NewReader(data, n), &s2); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("prefix of %d bits: %v", n, err)
		}
		if d2.Pending() != 0 {
			t.Fatal("failed decode left a pending snapshot")
		}
	}
}

// TestUnchangedEntityNeverWritten: with nothing changed a snapshot is
// exactly header + PVS bits + the fixed trailer, however many entities are
// in the PVS.
func TestUnchangedEntityNeverWritten(t *testing.T) {
	reg := newRegistry()
	world := mapWorld(reg, 300, 7)
	states := newStates()
	enc, dec := newPair(t, reg, world, states)
	var pvs PVS
	for n := range world.Entities() {
		pvs.Add(n)
	}
	in := &Input{Frame: 1, PVS: &pvs, World: world, States: states}
	trailer := 2 + reg.NumStates() + 2 + 1
	// First snapshot: the base PVS is empty, so every non-empty chunk is sent.
	data, nbits := buildBits(t, enc, in)
	if want := HeaderBits + pvs.DeltaBits(&PVS{}) + trailer; nbits != want {
		t.Fatalf("first snapshot %d bits, want %d", nbits, want)
	}
	s := decode(t, dec, data, nbits)
	if len(s.Entities) != 300 {
		t.Fatalf("%d entities", len(s.Entities))
	}
	for _, es := range s.Entities {
		if es.Changed || es.Spawn || es.Type != entType {
			t.Fatalf("entity %+v", es)
		}
	}
	m, ok := enc.Ack(1)
	if !ok {
		t.Fatal("ack")
	}
	if err := dec.Apply(m); err != nil {
		t.Fatal(err)
	}
	// Now the base PVS equals the PVS: its 1-bit changed flag, nothing else.
	in.Frame = 2
	_, nbits = buildBits(t, enc, in)
	if want := HeaderBits + PVSBaseBits + trailer; nbits != want {
		t.Fatalf("unchanged snapshot %d bits, want %d", nbits, want)
	}
	if want := 126 + 1 + 7; HeaderBits+PVSBaseBits+trailer != want {
		t.Fatalf("layout constants changed: %d", HeaderBits+PVSBaseBits+trailer)
	}
}

// TestReenterCostsOnlyChangedFields: an entity that leaves the PVS and
// re-enters with one changed field costs exactly what it would have cost if
// it had stayed: the base kept its state (DOOM III §4.2), where Quake 3
// would send it in full.
func TestReenterCostsOnlyChangedFields(t *testing.T) {
	run := func(leave bool) (entityBits int) {
		reg := newRegistry()
		world := mapWorld(reg, 64, 1)
		states := newStates()
		enc, dec := newPair(t, reg, world, states)
		var pvs PVS
		for n := range world.Entities() {
			pvs.Add(n)
		}
		step := func(p *PVS) (int, *Snapshot) {
			data, nbits := buildBits(t, enc, &Input{PVS: p, World: world, States: states})
			s := decode(t, dec, data, nbits)
			m, ok := enc.Ack(s.Header.Seq)
			if !ok {
				t.Fatal("ack")
			}
			if err := dec.Apply(m); err != nil {
				t.Fatal(err)
			}
			return nbits, s
		}
		step(&pvs)
		if leave {
			out := pvs
			out.Remove(40)
			step(&out)
		}
		e, _ := world.Entity(40)
		e.(*testEnt).Health = 42
		before := *enc.Base().PVS()
		nbits, s := step(&pvs)
		if s.Entities[40].Spawn || !s.Entities[40].Changed {
			t.Fatalf("re-entered entity %+v", s.Entities[40])
		}
		return nbits - HeaderBits - pvs.DeltaBits(&before) - (2 + reg.NumStates() + 2 + 1)
	}
	stayed, reentered := run(false), run(true)
	want := nextBits(40) + 1 + 5 + 7 // next (skip over 40 members), spawn 0, 5 flags, health
	if stayed != want || reentered != want {
		t.Fatalf("entity bits: stayed %d, re-entered %d, want %d (full state would be %d)", stayed, reentered, want, testEntBits)
	}
}

func TestSpawnTypeChangeAndRemoval(t *testing.T) {
	reg := newRegistry()
	world := mapWorld(reg, 4, 1)
	states := newStates()
	enc, dec := newPair(t, reg, world, states)
	// Entity 2 is replaced by a projectile, entity 9 is new, entity 3 removed.
	p, _ := world.Spawn(2, projType)
	p.(*testProj).Age = 5
	if _, err := world.Spawn(9, entType); err != nil {
		t.Fatal(err)
	}
	world.Remove(3)
	var pvs PVS
	for _, n := range []game.EntityNum{0, 1, 2, 3, 9, 100} { // 3 and 100 do not exist
		pvs.Add(n)
	}
	data, nbits := buildBits(t, enc, &Input{PVS: &pvs, World: world, States: states})
	s := decode(t, dec, data, nbits)
	var nums []game.EntityNum
	for _, es := range s.Entities {
		nums = append(nums, es.Num)
	}
	if len(nums) != 4 || nums[2] != 2 || nums[3] != 9 || s.PVS.Has(3) || s.PVS.Has(100) {
		t.Fatalf("entities %v", nums)
	}
	if es := s.Entities[2]; !es.Spawn || es.Type != projType || es.Bits != 70 {
		t.Fatalf("type change %+v", es)
	}
	if es := s.Entities[3]; !es.Spawn || es.Type != entType {
		t.Fatalf("new entity %+v", es)
	}
	// An unchanged entity new to the base is still written (spawn).
	if m, ok := enc.Ack(1); !ok || dec.Apply(m) != nil {
		t.Fatal("apply")
	}
	if typ, _, n := dec.Base().Entity(2); typ != projType || n != 70 {
		t.Fatalf("base entity 2: type %d, %d bits", typ, n)
	}
	if enc.Base().Hash() != dec.Base().Hash() {
		t.Fatal("hash")
	}
}

func TestAckEdgeCases(t *testing.T) {
	reg := newRegistry()
	world := mapWorld(reg, 8, 1)
	states := newStates()
	enc, dec := newPair(t, reg, world, states)
	var pvs PVS
	pvs.Add(1)
	var snaps [][]byte
	for i := range 5 {
		e, _ := world.Entity(1)
		e.(*testEnt).X = float32(100 + i)
		snaps = append(snaps, build(t, enc, &Input{PVS: &pvs, World: world, States: states}))
	}
	for _, d := range snaps {
		decode(t, dec, d, len(d)*8)
	}
	if _, ok := enc.Ack(9); ok {
		t.Fatal("ack of an unsent snapshot applied")
	}
	m3, ok := enc.Ack(3)
	if !ok {
		t.Fatal("ack 3")
	}
	for _, s := range []Seq{3, 2, 1} { // duplicate and late acks
		if _, ok := enc.Ack(s); ok {
			t.Fatalf("late ack %d applied", s)
		}
	}
	if enc.Pending() != 2 || dec.Pending() != 5 {
		t.Fatalf("pending %d %d", enc.Pending(), dec.Pending())
	}
	if err := dec.Apply(m3); err != nil {
		t.Fatal(err)
	}
	if dec.Pending() != 2 || enc.Base().Hash() != dec.Base().Hash() {
		t.Fatal("after apply 3")
	}
	if err := dec.Apply(ApplyMessage{Seq: 2}); !errors.Is(err, ErrUnknownSnapshot) {
		t.Fatalf("apply of old: %v", err)
	}
	if err := dec.Apply(ApplyMessage{Seq: 8}); !errors.Is(err, ErrUnknownSnapshot) {
		t.Fatalf("apply of unknown: %v", err)
	}
	// Snapshot 4 was encoded against base 0: the decoder now has base 3.
	var s Snapshot
	if err := dec.Decode(bitmsg.NewReader(snaps[3], len(snaps[3])*8), &s); !errors.Is(err, ErrBaseMismatch) {
		t.Fatalf("stale snapshot: %v", err)
	}
	m5, ok := enc.Ack(5)
	if !ok || dec.Apply(m5) != nil || enc.Base().Hash() != dec.Base().Hash() {
		t.Fatal("apply 5")
	}
	if typ, st, n := dec.Base().Entity(1); typ != entType || n != testEntBits {
		t.Fatal("base entity 1", st)
	} else {
		var got testEnt
		if err := NewStateCodec().Load(&got, st, n); err != nil || got.X != 104 {
			t.Fatalf("base entity 1 = %+v", got)
		}
	}
}

func TestBuildErrors(t *testing.T) {
	reg := newRegistry()
	world := mapWorld(reg, 4, 1)
	states := newStates()
	enc, _ := newPair(t, reg, world, states)
	var pvs PVS
	pvs.Add(0)
	pvs.Add(1)
	w := bitmsg.NewWriter(make([]byte, 1<<12))
	bad := map[string]*Input{
		"states":      {PVS: &pvs, World: world, States: states[:1]},
		"frame":       {Frame: -1, PVS: &pvs, World: world, States: states},
		"cmd order":   {PVS: &pvs, World: world, States: states, Cmds: []game.PlayerCmd{{Entity: 1}, {Entity: 0}}},
		"cmd -128":    {PVS: &pvs, World: world, States: states, Cmds: []game.PlayerCmd{{Entity: 1, Cmd: game.UserCmd{Up: -128}}}},
		"event":       {PVS: &pvs, World: world, States: states, Events: []game.Event{{Bits: 9, Data: []byte{1}}}},
		"many events": {PVS: &pvs, World: world, States: states, Events: make([]game.Event, MaxEvents+1)},
	}
	for name, in := range bad {
		w.Reset(w.Bytes()[:cap(w.Bytes())])
		if _, err := enc.Build(w, in); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if enc.NextSeq() != 1 || enc.Pending() != 0 {
		t.Fatal("a failed build used a sequence number")
	}
	// Overflow: a buffer too small for the snapshot.
	small := bitmsg.NewWriter(make([]byte, 20))
	if _, err := enc.Build(small, &Input{PVS: &pvs, World: world, States: states}); !errors.Is(err, bitmsg.ErrOverflow) {
		t.Fatalf("overflow: %v", err)
	}
	// A state bigger than MaxStateBits is refused.
	big := game.NewRegistry()
	big.MustRegister(game.EntityType{Name: "big", New: func() game.Entity { return &bigEnt{} }})
	bw := game.NewEntityTable(big)
	if _, err := bw.Spawn(0, 1); err != nil {
		t.Fatal(err)
	}
	benc := NewEncoder(big)
	var bp PVS
	bp.Add(0)
	if _, err := benc.Build(bitmsg.NewWriter(make([]byte, 1<<14)), &Input{PVS: &bp, World: bw}); err == nil {
		t.Fatal("oversized state accepted")
	}
}

type bigEnt struct{}

func (bigEnt) WriteSnapshot(w *bitmsg.DeltaWriter) {
	for range game.MaxStateBytes + 1 {
		w.WriteUint8(1)
	}
}
func (bigEnt) ReadSnapshot(r *bitmsg.DeltaReader) {}
