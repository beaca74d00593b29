package snapshot

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/game"
)

// skewDot is the guide's dot with a second field; its ReadSnapshot reads
// the last field skew bits wider than WriteSnapshot writes it (0: a
// symmetric codec).
type skewDot struct {
	X    int32
	Tail uint32
	skew int
}

func (d *skewDot) WriteSnapshot(w *bitmsg.DeltaWriter) {
	w.WriteInt(d.X, 20)
	w.WriteBits(d.Tail, 4)
}

func (d *skewDot) ReadSnapshot(r *bitmsg.DeltaReader) {
	d.X = r.ReadInt(20)
	d.Tail = r.ReadBits(4 + d.skew)
}

// skewState is a non-PVS state with the same flaw.
type skewState struct {
	Time uint32
	skew int
}

func (s *skewState) WriteSnapshot(w *bitmsg.DeltaWriter) { w.WriteBits(s.Time, 12) }
func (s *skewState) ReadSnapshot(r *bitmsg.DeltaReader)  { s.Time = r.ReadBits(12 + s.skew) }

// skewRegistry registers "guide.Dot" and "guide.clock" with the given
// skews: the server's registry has none, the client's the flawed codec.
// Both hash the same, as two builds of one game with a hand-written
// mismatch do.
func skewRegistry(dot, clock int) *game.Registry {
	r := game.NewRegistry()
	r.MustRegister(game.EntityType{Name: "guide.Dot", New: func() game.Entity { return &skewDot{skew: dot} }})
	r.MustRegisterState(game.StateType{Name: "guide.clock", New: func() game.Snapshotter { return &skewState{skew: clock} }})
	return r
}

// decodeSkewed runs a server with n dots (entities 10..10+n-1; in the
// map's base when inMap) and a client whose codecs are skewed, for frames
// frames or until a decode fails, and returns that error. Half the dots
// move each frame; their Tail changes too when tails.
func decodeSkewed(t *testing.T, dot, clock, n int, inMap, tails bool, frames int) error {
	t.Helper()
	srvReg, cliReg := skewRegistry(0, 0), skewRegistry(dot, clock)
	world := game.NewEntityTable(srvReg)
	states := []game.Snapshotter{&skewState{}}
	var pvs PVS
	spawn := func() {
		for i := range n {
			e, err := world.Spawn(game.EntityNum(10+i), 1)
			if err != nil {
				t.Fatal(err)
			}
			e.(*skewDot).X = int32(i)
			pvs.Add(game.EntityNum(10 + i))
		}
	}
	if inMap {
		spawn()
	}
	enc := NewEncoder(srvReg)
	if err := enc.Base().Init(world, states); err != nil {
		t.Fatal(err)
	}
	dec, err := NewDecoder(cliReg)
	if err != nil {
		t.Fatal(err)
	}
	dec.Base().CopyFrom(enc.Base())
	if !inMap {
		spawn()
	}
	rnd := rand.New(rand.NewPCG(3, 4))
	var snap Snapshot
	for f := range frames {
		for n, e := range world.Entities() {
			if rnd.IntN(2) == 0 {
				d := e.(*skewDot)
				d.X += int32(n)
				if tails {
					d.Tail = uint32(rnd.IntN(16))
				}
			}
		}
		states[0].(*skewState).Time = uint32(f / 3)
		w := bitmsg.NewWriter(make([]byte, 1<<12))
		h, err := enc.Build(w, &Input{Frame: game.Frame(f + 1), PVS: &pvs, World: world, States: states})
		if err != nil {
			t.Fatal(err)
		}
		if err := dec.Decode(bitmsg.NewReader(w.Bytes(), w.Len()), &snap); err != nil {
			return err
		}
		if m, ok := enc.Ack(h.Seq); ok {
			if err := dec.Apply(m); err != nil {
				t.Fatal(err)
			}
		}
	}
	return nil
}

// A hand-written codec that reads one bit too many or too few is named
// with its entity, type and the bits read and written, whether the entity
// is new to the client (a spawn against an empty base) or in its base.
func TestCodecMismatchNamed(t *testing.T) {
	cases := []struct {
		name         string
		dot, clock   int
		inMap, tails bool
		want         string
	}{
		// A dot's full state is 24 bits (X 20, Tail 4), the clock's 12.
		{"one bit too many, spawned", 1, 0, false, true, `entity 10 of type "guide.Dot": ReadSnapshot read 25 bits, WriteSnapshot wrote 24`},
		{"one bit too few, spawned", -1, 0, false, true, `entity 10 of type "guide.Dot": ReadSnapshot read 23 bits, WriteSnapshot wrote 24`},
		{"one bit too many, in the base", 1, 0, true, true, `of type "guide.Dot": ReadSnapshot read 25 bits, WriteSnapshot wrote 24`},
		{"one bit too few, in the base", -1, 0, true, true, `of type "guide.Dot": ReadSnapshot read 23 bits, WriteSnapshot wrote 24`},
		// Tail unchanged: taken from the base, which ends a bit short.
		{"one bit too many, past the base", 1, 0, true, false, `of type "guide.Dot": ReadSnapshot read more than the 24 bits WriteSnapshot wrote`},
		{"state one bit too many", 0, 1, false, true, `state 0 ("guide.clock"): ReadSnapshot read 13 bits, WriteSnapshot wrote 12`},
		{"state one bit too few", 0, -1, true, true, `state 0 ("guide.clock"): ReadSnapshot read 11 bits, WriteSnapshot wrote 12`},
	}
	for _, c := range cases {
		err := decodeSkewed(t, c.dot, c.clock, 3, c.inMap, c.tails, 60)
		var ce *CodecError
		if !errors.As(err, &ce) || !errors.Is(err, ErrCodec) {
			t.Errorf("%s: %v, want a CodecError", c.name, err)
			continue
		}
		if !strings.HasSuffix(err.Error(), c.want) || (!ce.IsState && !strings.HasPrefix(err.Error(), "entity 1")) {
			t.Errorf("%s:\n got %s\nwant %s", c.name, err, c.want)
		}
	}
}

// moodyEnt is a symmetric codec whose layout depends on its values (a flag
// and the fields it guards, a string of varying length), the shapes a
// hand-written codec may take: the check never fires on what it writes.
type moodyEnt struct {
	Armed bool
	Ammo  int32
	Name  string
	Angle float32
}

func (m *moodyEnt) WriteSnapshot(w *bitmsg.DeltaWriter) {
	w.WriteBool(m.Armed)
	if m.Armed {
		w.WriteRangedInt(m.Ammo, 0, 200)
	}
	w.WriteString(m.Name, 16)
	w.WriteRangedFloat(m.Angle, -180, 180, 9)
}

func (m *moodyEnt) ReadSnapshot(r *bitmsg.DeltaReader) {
	m.Armed = r.ReadBool()
	m.Ammo = 0
	if m.Armed {
		m.Ammo = r.ReadRangedInt(0, 200)
	}
	m.Name = r.ReadString(16)
	m.Angle = r.ReadRangedFloat(-180, 180, 9)
}

func TestCodecCheckQuietOnValidSnapshots(t *testing.T) {
	reg := game.NewRegistry()
	reg.MustRegister(game.EntityType{Name: "moody", New: func() game.Entity { return &moodyEnt{} }})
	world := game.NewEntityTable(reg)
	var pvs PVS
	for i := range 40 {
		if _, err := world.Spawn(game.EntityNum(i), 1); err != nil {
			t.Fatal(err)
		}
		pvs.Add(game.EntityNum(i))
	}
	enc, dec := newPair(t, reg, world, nil)
	rnd := rand.New(rand.NewPCG(5, 6))
	names := []string{"", "a", "rocket", "sixteen-letters!"}
	var snap Snapshot
	for f := range 400 {
		for _, e := range world.Entities() {
			if m := e.(*moodyEnt); rnd.IntN(3) == 0 {
				m.Armed = rnd.IntN(2) == 0
				m.Ammo = int32(rnd.IntN(201))
				m.Name = names[rnd.IntN(len(names))]
				m.Angle = rnd.Float32()*360 - 180
			}
		}
		w := bitmsg.NewWriter(make([]byte, 1<<14))
		h, err := enc.Build(w, &Input{Frame: game.Frame(f + 1), PVS: &pvs, World: world})
		if err != nil {
			t.Fatal(err)
		}
		if err := dec.Decode(bitmsg.NewReader(w.Bytes(), w.Len()), &snap); err != nil {
			t.Fatalf("frame %d: %v", f, err)
		}
		if f%3 == 0 {
			continue // its ack lost: the next deltas are against an older base
		}
		if m, ok := enc.Ack(h.Seq); ok {
			if err := dec.Apply(m); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := decodeSkewed(t, 0, 0, 5, true, true, 100); err != nil {
		t.Fatalf("symmetric skewDot: %v", err)
	}
}
