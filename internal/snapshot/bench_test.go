package snapshot

import (
	"math/rand/v2"
	"testing"

	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/game"
)

// scene256 is a server with 256 visible entities spread over 4096 numbers,
// a quarter of which move every snapshot, and its client.
type scene256 struct {
	world  *game.EntityTable
	states []game.Snapshotter
	enc    *Encoder
	dec    *Decoder
	in     Input
	pvs    PVS
	w      *bitmsg.Writer
	r      *bitmsg.Reader
	buf    []byte
	snap   Snapshot
	ents   []*testEnt
	rnd    *rand.Rand
	frame  game.Frame
}

func newScene256(t testing.TB) *scene256 {
	reg := newRegistry()
	world := mapWorld(reg, 256, 16)
	s := &scene256{world: world, states: newStates(), buf: make([]byte, 1<<16), rnd: rand.New(rand.NewPCG(7, 8))}
	s.enc, s.dec = newPair(t, reg, world, s.states)
	for n, e := range world.Entities() {
		s.pvs.Add(n)
		s.ents = append(s.ents, e.(*testEnt))
	}
	s.w = bitmsg.NewWriter(s.buf)
	s.r = bitmsg.NewReader(nil, 0)
	s.in = Input{PVS: &s.pvs, World: world, States: s.states,
		Cmds: []game.PlayerCmd{{Entity: 16, Cmd: game.UserCmd{Forward: 127}}, {Entity: 32, Cmd: game.UserCmd{Right: -5}}}}
	return s
}

// step moves a quarter of the entities, builds the snapshot, acknowledges
// the one two back (as a client with some latency would).
func (s *scene256) step(t testing.TB) int {
	s.frame++
	for i := 0; i < len(s.ents); i += 4 {
		e := s.ents[(i+int(s.frame))%len(s.ents)]
		e.X += 1
		e.Y -= 0.5
	}
	s.in.Frame = s.frame
	s.w.Reset(s.buf)
	h, err := s.enc.Build(s.w, &s.in)
	if err != nil {
		t.Fatal(err)
	}
	if h.Seq > 2 {
		s.enc.Ack(h.Seq - 2)
	}
	return s.w.Len()
}

func TestBuildAllocs(t *testing.T) {
	s := newScene256(t)
	for range 3 * RingSize {
		s.step(t)
	}
	if a := testing.AllocsPerRun(200, func() { s.step(t) }); a != 0 {
		t.Fatalf("%v allocations per snapshot build + ack", a)
	}
}

func TestDecodeAllocs(t *testing.T) {
	s := newScene256(t)
	round := func() {
		s.frame++
		for i := 0; i < len(s.ents); i += 4 {
			s.ents[(i+int(s.frame))%len(s.ents)].X++
		}
		s.in.Frame = s.frame
		s.w.Reset(s.buf)
		h, err := s.enc.Build(s.w, &s.in)
		if err != nil {
			t.Fatal(err)
		}
		s.r.Reset(s.w.Bytes(), s.w.Len())
		if err := s.dec.Decode(s.r, &s.snap); err != nil {
			t.Fatal(err)
		}
		if m, ok := s.enc.Ack(h.Seq); ok {
			if err := s.dec.Apply(m); err != nil {
				t.Fatal(err)
			}
		}
	}
	for range 3 * RingSize {
		round()
	}
	if a := testing.AllocsPerRun(200, round); a != 0 {
		t.Fatalf("%v allocations per build + decode + apply", a)
	}
	if s.enc.Base().Hash() != s.dec.Base().Hash() {
		t.Fatal("bases differ")
	}
}

// TestBaseMemory4096x64 shows that 64 clients' bases for 4096 entities fit
// in a few megabytes: one base is initialised from the map and copied. A
// slot is 16 bytes (with its 48-bit label), a state here 14 bytes in a
// 16-byte slot.
func TestBaseMemory4096x64(t *testing.T) {
	reg := newRegistry()
	world := mapWorld(reg, game.MaxEntities, 1)
	tmpl := NewCommonBase(reg.NumStates())
	if err := tmpl.Init(world, newStates()); err != nil {
		t.Fatal(err)
	}
	total := 0
	bases := make([]*CommonBase, 64)
	for i := range bases {
		bases[i] = NewCommonBase(reg.NumStates())
		bases[i].CopyFrom(tmpl)
		total += bases[i].MemoryBytes()
	}
	if bases[63].Hash() != tmpl.Hash() {
		t.Fatal("copy differs")
	}
	perEntity := float64(total) / 64 / game.MaxEntities
	t.Logf("64 bases × 4096 entities of %d bits: %.1f MiB (%.1f bytes per entity slot)", testEntBits, float64(total)/(1<<20), perEntity)
	if total > 64*game.MaxEntities*(16+16+8) {
		t.Fatalf("bases take %d bytes", total)
	}
}

func BenchmarkBuild256(b *testing.B) {
	s := newScene256(b)
	for range 3 * RingSize {
		s.step(b)
	}
	b.ReportAllocs()
	bits := 0
	n := 0
	for b.Loop() {
		bits += s.step(b)
		n++
	}
	b.ReportMetric(float64(bits)/float64(n), "bits/snapshot")
}

func BenchmarkBuildUnchanged256(b *testing.B) {
	s := newScene256(b)
	s.step(b)
	b.ReportAllocs()
	bits, n := 0, 0
	for b.Loop() {
		s.w.Reset(s.buf)
		h, err := s.enc.Build(s.w, &s.in)
		if err != nil {
			b.Fatal(err)
		}
		s.enc.Ack(h.Seq)
		bits += s.w.Len()
		n++
	}
	b.ReportMetric(float64(bits)/float64(n), "bits/snapshot")
}

func BenchmarkDecode256(b *testing.B) {
	s := newScene256(b)
	// One snapshot against the initial base: a quarter of the entities changed.
	s.step(b)
	data := append([]byte(nil), s.w.Bytes()...)
	nbits := s.w.Len()
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		s.r.Reset(data, nbits)
		if err := s.dec.Decode(s.r, &s.snap); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(nbits), "bits/snapshot")
}
