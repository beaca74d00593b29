package snapshot

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/game"
)

// nameEnt has variable-length fields: a name string, an optional block of bytes and a count of
// trailing fields, so its layout changes from frame to frame.
type nameEnt struct {
	Name  string
	Blob  []byte
	Extra int
	V     uint32
}

func (e *nameEnt) WriteSnapshot(w *bitmsg.DeltaWriter) {
	w.WriteUint32(e.V)
	w.WriteString(e.Name, 20)
	w.WriteBits(uint32(len(e.Blob)), 3)
	w.WriteBytes(e.Blob)
	w.WriteBits(uint32(e.Extra), 2)
	for i := range e.Extra {
		w.WriteUint64(uint64(e.V) * uint64(i+1) << 20)
	}
}

func (e *nameEnt) ReadSnapshot(r *bitmsg.DeltaReader) {
	e.V = r.ReadUint32()
	e.Name = r.ReadString(20)
	e.Blob = make([]byte, r.ReadBits(3))
	r.ReadBytes(e.Blob)
	e.Extra = int(r.ReadBits(2))
	for range e.Extra {
		r.ReadUint64()
	}
}

const nameType game.TypeID = 3

func cacheRegistry() *game.Registry {
	r := newRegistry()
	if typ := r.MustRegister(game.EntityType{Name: "name", New: func() game.Entity { return &nameEnt{} }}); typ != nameType {
		panic("type id")
	}
	return r
}

// TestCachedBuildMatchesReference runs several clients over a world whose entities move,
// change their strings and field counts, spawn, change type and disappear, each client with
// two encoders in lockstep: one with a FrameCache shared by all clients, one without (the
// DeltaWriter reference path). Every snapshot's bits, and the bases after every ack, must be
// equal; the client decodes the cached encoder's snapshots.
func TestCachedBuildMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	reg := cacheRegistry()
	world := mapWorld(reg, 120, 7)
	for i := range 40 {
		e, err := world.Spawn(game.EntityNum(1+i*13), nameType)
		if err != nil {
			t.Fatal(err)
		}
		e.(*nameEnt).Name = "n"
	}
	// The non-PVS states: one game state shared by every client, a player state of each
	// client's own (FrameCache caches per instance).
	shared := newStates()[0].(*gameState)
	const clients = 8
	type cl struct {
		ref, fast *Encoder
		dec       *Decoder
		pvs       PVS
		states    []game.Snapshotter
		ps        *playerState
		cmds      []game.PlayerCmd
	}
	cls := make([]*cl, clients)
	// Players with commands, enough for the command chain (chainMinCmds): a block of
	// consecutive entity numbers (each client is one of them: its own command is not in its
	// snapshots), and a few apart.
	var cmds []game.PlayerCmd
	for n := range game.EntityNum(36) {
		cmds = append(cmds, game.PlayerCmd{Entity: 1 + n})
	}
	for _, n := range []game.EntityNum{40, 41, 90, 4000} {
		cmds = append(cmds, game.PlayerCmd{Entity: n})
	}
	for i := range cls {
		ps := &playerState{Ammo: 50}
		states := []game.Snapshotter{shared, ps}
		ref, dec := newPair(t, reg, world, states)
		fast := NewEncoder(reg)
		fast.Base().CopyFrom(ref.Base())
		cls[i] = &cl{ref: ref, fast: fast, dec: dec, states: states, ps: ps}
		for n := range world.Entities() {
			if rng.IntN(3) > 0 {
				cls[i].pvs.Add(n)
			}
		}
	}
	var cache FrameCache
	vw := &versionedWorld{EntityTable: world}
	bufA, bufB := make([]byte, 1<<16), make([]byte, 1<<16)
	var snap Snapshot
	written, omittedSome, cmdsWritten := 0, false, 0
	statesWritten, statesSame := 0, 0
	for tick := range 400 {
		frame := game.Frame(tick + 1)
		for n, e := range world.Entities() {
			switch v := e.(type) {
			case *testEnt:
				if rng.IntN(3) == 0 {
					v.X += float32(rng.IntN(5) - 2)
				}
				if rng.IntN(15) == 0 {
					v.Health = int32(rng.IntN(101))
				}
			case *testProj:
				v.Age = (v.Age + 1) & 63
			case *nameEnt:
				switch rng.IntN(8) {
				case 0:
					v.Name = string("abcdefghijklmnopqrst"[:rng.IntN(21)])
				case 1:
					v.Blob = bytes.Repeat([]byte{byte(rng.Uint32())}, rng.IntN(8))
				case 2:
					v.Extra = rng.IntN(4)
				case 3:
					v.V = rng.Uint32()
				}
			}
			if rng.IntN(40) == 0 {
				world.Remove(n)
			}
		}
		if rng.IntN(3) == 0 {
			shared.Scores[rng.IntN(4)] += int32(rng.IntN(3))
		}
		if rng.IntN(5) == 0 {
			shared.TimeLeft--
		}
		for _, c := range cls {
			if rng.IntN(4) == 0 {
				c.ps.Ammo = uint8(rng.IntN(4))
			}
			if rng.IntN(9) == 0 {
				c.ps.Weapon = uint8(rng.IntN(8))
			}
		}
		for range rng.IntN(3) {
			n := game.EntityNum(rng.IntN(game.MaxEntities))
			typ := []game.TypeID{entType, projType, nameType}[rng.IntN(3)]
			if _, err := world.Spawn(n, typ); err != nil {
				t.Fatal(err)
			}
			cls[rng.IntN(clients)].pvs.Add(n)
		}
		// Most ticks, Prepare first, through a world that gives versions (the entities whose
		// version stayed keep their encoding); otherwise every Build encodes lazily.
		if tick%5 != 4 {
			vw.refresh(t)
			var all PVS
			for n := range world.Entities() {
				if rng.IntN(6) > 0 {
					all.Add(n)
				}
			}
			if err := cache.Prepare(frame, vw, reg, &all); err != nil {
				t.Fatal(err)
			}
		}
		// The players' commands: most change a field or two each frame. A player that was
		// removed comes back; each client sees most players.
		for i := range cmds {
			randomizeCmd(rng, &cmds[i].Cmd)
			n := cmds[i].Entity
			if e, _ := world.Entity(n); e == nil {
				if _, err := world.Spawn(n, entType); err != nil {
					t.Fatal(err)
				}
			}
			for _, c := range cls {
				if rng.IntN(8) > 0 {
					c.pvs.Add(n)
				} else {
					c.pvs.Remove(n)
				}
			}
		}
		for ci, c := range cls {
			for range 3 {
				n := game.EntityNum(rng.IntN(1000))
				if c.pvs.Has(n) {
					c.pvs.Remove(n)
				} else {
					c.pvs.Add(n)
				}
			}
			in := Input{Frame: frame, PVS: &c.pvs, World: world, States: c.states, Cmds: clientCmds(rng, cmds, ci, c.cmds[:0])}
			c.cmds = in.Cmds
			ha, wb := buildBoth(t, tick, c.ref, c.fast, in, &cache, bufA, bufB)
			if err := c.dec.Decode(bitmsg.NewReader(wb.Bytes(), wb.Len()), &snap); err != nil {
				t.Fatalf("tick %d: decode: %v", tick, err)
			}
			written += len(snap.Entities)
			cmdsWritten += len(snap.Cmds)
			for _, st := range snap.States {
				if st.Changed {
					statesWritten++
				} else {
					statesSame++
				}
			}
			if len(snap.Entities) < c.pvs.Len()/2 {
				omittedSome = true
			}
			// Lossy acknowledgements: the same on both encoders.
			if ha.Seq > 2 && rng.IntN(4) > 0 {
				seq := ha.Seq - Seq(rng.IntN(3))
				ma, oka := c.ref.Ack(seq)
				mb, okb := c.fast.Ack(seq)
				if ma != mb || oka != okb {
					t.Fatalf("tick %d: ack differs", tick)
				}
				if oka {
					if err := c.dec.Apply(mb); err != nil {
						t.Fatal(err)
					}
				}
			}
			if c.ref.Base().Hash() != c.fast.Base().Hash() {
				t.Fatalf("tick %d: bases differ", tick)
			}
		}
	}
	if written == 0 || !omittedSome || statesWritten == 0 || statesSame == 0 || cache.memoHits == 0 || cache.runHits == 0 || cache.keptHits == 0 || cache.stateHits == 0 || cache.cmdHits == 0 || cmdsWritten == 0 {
		t.Fatalf("weak test: %d entities written, omitted some %v; states written %d, unchanged %d; %d deltas shared, %d in runs; %d encodings kept by version; %d state deltas shared; %d commands written, %d stretches copied", written, omittedSome, statesWritten, statesSame, cache.memoHits, cache.runHits, cache.keptHits, cache.stateHits, cmdsWritten, cache.cmdHits)
	}
	t.Logf("%d entities written, %d deltas shared between clients, %d of them in runs; %d encodings kept by version; %d state deltas shared; %d commands written, %d stretches of them copied", written, cache.memoHits, cache.runHits, cache.keptHits, cache.stateHits, cmdsWritten, cache.cmdHits)
}

// randomizeCmd changes one field of cmd or more, or none.
func randomizeCmd(rng *rand.Rand, cmd *game.UserCmd) {
	switch rng.IntN(8) {
	case 0:
		cmd.Buttons = game.Buttons(rng.IntN(4))
	case 1:
		cmd.Forward = int8(rng.IntN(255) - 127)
	case 2:
		cmd.Right, cmd.Up = int8(rng.IntN(3)-1), int8(rng.IntN(3)-1)
	case 3, 4:
		cmd.Yaw += uint16(rng.IntN(600))
	case 5:
		cmd.Pitch = uint16(rng.Uint32())
	case 6:
		cmd.Yaw, cmd.Pitch = cmd.Yaw+1, cmd.Pitch-1
	}
}

// clientCmds returns in dst the commands client ci is given: the frame's cmds but its own
// (entity ci+1), and now and then one missing or differing from the others' (in its pitch
// alone, say), as a server whose clients' commands arrive at different times might give.
func clientCmds(rng *rand.Rand, cmds []game.PlayerCmd, ci int, dst []game.PlayerCmd) []game.PlayerCmd {
	for _, pc := range cmds {
		if int(pc.Entity) == ci+1 || rng.IntN(20) == 0 {
			continue
		}
		if rng.IntN(10) == 0 {
			if rng.IntN(2) == 0 {
				pc.Cmd.Pitch++
			} else {
				randomizeCmd(rng, &pc.Cmd)
			}
		}
		dst = append(dst, pc)
	}
	return dst
}

// versionedWorld is a world with EntityVersions whose versions the test derives by comparing
// every entity's type and state with what it was at the last refresh (a game tracks its changes
// instead).
type versionedWorld struct {
	*game.EntityTable
	ver   [game.MaxEntities]uint64
	last  [game.MaxEntities]string
	clock uint64
}

func (v *versionedWorld) EntityVersion(n game.EntityNum) uint64 { return v.ver[n] }

// refresh gives every entity whose type or state changed since the last refresh a new version.
func (v *versionedWorld) refresh(t *testing.T) {
	for n := range game.MaxEntities {
		key := ""
		if e, typ := v.Entity(game.EntityNum(n)); e != nil {
			b, nbits := fullState(t, e)
			key = fmt.Sprintf("%d/%d/%x", typ, nbits, b)
		}
		if v.ver[n] == 0 || key != v.last[n] {
			v.clock++
			v.ver[n], v.last[n] = v.clock, key
		}
	}
}

// TestFrameCacheInvalidate: a change within a frame is picked up only after Invalidate.
func TestFrameCacheInvalidate(t *testing.T) {
	reg := newRegistry()
	world := mapWorld(reg, 4, 1)
	enc, _ := newPair(t, reg, world, newStates())
	var pvs PVS
	pvs.Add(2)
	var cache FrameCache
	in := Input{Frame: 5, PVS: &pvs, World: world, States: newStates(), Cache: &cache}
	e2, _ := world.Entity(2)
	e2.(*testEnt).X = 99
	w := bitmsg.NewWriter(make([]byte, 1024))
	if _, err := enc.Build(w, &in); err != nil {
		t.Fatal(err)
	}
	e2.(*testEnt).X = 100
	if _, err := enc.Build(w, &in); err != nil {
		t.Fatal(err)
	}
	st, _ := enc.ring.find(2).buf, 0
	if got, _ := fullState(t, &testEnt{X: 99, Y: 4, Health: 100}); !bytes.Equal(st, got) {
		t.Fatalf("same frame without Invalidate: state %x, want the cached %x", st, got)
	}
	cache.Invalidate()
	if _, err := enc.Build(w, &in); err != nil {
		t.Fatal(err)
	}
	if got, _ := fullState(t, e2); !bytes.Equal(enc.ring.find(3).buf, got) {
		t.Fatalf("after Invalidate: state %x, want %x", enc.ring.find(3).buf, got)
	}
}

func TestCachedBuildAllocs(t *testing.T) {
	s := newScene256(t)
	var cache FrameCache
	s.in.Cache = &cache
	for range 3 * RingSize {
		s.step(t)
	}
	if a := testing.AllocsPerRun(200, func() { s.step(t) }); a != 0 {
		t.Fatalf("%v allocations per cached snapshot build + ack", a)
	}
}

// TestCachedBuildSharedDeltasAllocs: 8 clients with the same view, acknowledging at different
// ages, build every frame from one cache; the deltas shared between them (most of them) cost no
// allocation once the memo has its memory.
func TestCachedBuildSharedDeltasAllocs(t *testing.T) {
	s := newScene256(t)
	var cache FrameCache
	s.in.Cache = &cache
	encs := []*Encoder{s.enc}
	for range 7 {
		e := NewEncoder(s.enc.reg)
		e.Base().CopyFrom(s.enc.Base())
		encs = append(encs, e)
	}
	// The commands of 32 players, changing every frame, copied from the frame's command chain.
	s.in.Cmds = nil
	for n := range 32 {
		s.in.Cmds = append(s.in.Cmds, game.PlayerCmd{Entity: game.EntityNum(n * 16)}) // live entities
	}
	frame := func() {
		s.frame++
		for i := 0; i < len(s.ents); i += 4 {
			s.ents[(i+int(s.frame))%len(s.ents)].X++
		}
		for i := range s.in.Cmds {
			s.in.Cmds[i].Cmd.Yaw += uint16(i)
		}
		s.in.Frame = s.frame
		for k, e := range encs {
			s.w.Reset(s.buf)
			h, err := e.Build(s.w, &s.in)
			if err != nil {
				t.Fatal(err)
			}
			if lag := Seq(1 + k%3); h.Seq > lag {
				e.Ack(h.Seq - lag)
			}
		}
	}
	for range 3 * RingSize {
		frame()
	}
	hits, cmdHits := cache.memoHits, cache.cmdHits
	if a := testing.AllocsPerRun(50, frame); a != 0 {
		t.Fatalf("%v allocations per frame of 8 cached builds + acks", a)
	}
	if cache.memoHits == hits || cache.cmdHits == cmdHits {
		t.Fatalf("no delta shared between the clients (%d), or no command copied (%d)", cache.memoHits-hits, cache.cmdHits-cmdHits)
	}
}

func BenchmarkBuild256Cached(b *testing.B) {
	s := newScene256(b)
	var cache FrameCache
	s.in.Cache = &cache
	for range 3 * RingSize {
		s.step(b)
	}
	b.ReportAllocs()
	bits, n := 0, 0
	for b.Loop() {
		bits += s.step(b)
		n++
	}
	b.ReportMetric(float64(bits)/float64(n), "bits/snapshot")
}

// benchClients8 builds a frame's snapshots for 8 clients that all see the same 256 entities
// (a quarter of which move every frame) but acknowledge at different ages, and reports the
// cost per client-snapshot: with a cache, the states are encoded once per frame for all 8.
func benchClients8(b *testing.B, cached bool) {
	s := newScene256(b)
	var cache FrameCache
	if cached {
		s.in.Cache = &cache
	}
	encs := []*Encoder{s.enc}
	for range 7 {
		e := NewEncoder(s.enc.reg)
		e.Base().CopyFrom(s.enc.Base())
		encs = append(encs, e)
	}
	bits, n := 0, 0
	// The commands of 32 players, changing every frame, copied from the frame's command chain.
	s.in.Cmds = nil
	for n := range 32 {
		s.in.Cmds = append(s.in.Cmds, game.PlayerCmd{Entity: game.EntityNum(n)})
	}
	frame := func() {
		s.frame++
		for i := 0; i < len(s.ents); i += 4 {
			s.ents[(i+int(s.frame))%len(s.ents)].X++
		}
		for i := range s.in.Cmds {
			s.in.Cmds[i].Cmd.Yaw += uint16(i)
		}
		s.in.Frame = s.frame
		for k, e := range encs {
			s.w.Reset(s.buf)
			h, err := e.Build(s.w, &s.in)
			if err != nil {
				b.Fatal(err)
			}
			if lag := Seq(1 + k%3); h.Seq > lag {
				e.Ack(h.Seq - lag)
			}
			bits += s.w.Len()
			n++
		}
	}
	for range 3 * RingSize {
		frame()
	}
	bits, n = 0, 0
	b.ReportAllocs()
	for b.Loop() {
		frame()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n)/1000, "µs/client-snapshot")
	b.ReportMetric(float64(bits)/float64(n), "bits/snapshot")
}

func BenchmarkBuild256Clients8(b *testing.B)       { benchClients8(b, false) }
func BenchmarkBuild256Clients8Cached(b *testing.B) { benchClients8(b, true) }

// bytesState is a non-PVS state of an uncomparable type (a slice): the FrameCache must tell
// its instances apart without ==, which would panic.
type bytesState []uint8

func (s bytesState) WriteSnapshot(w *bitmsg.DeltaWriter) {
	for _, v := range s {
		w.WriteUint8(v)
	}
}

func (s bytesState) ReadSnapshot(r *bitmsg.DeltaReader) {
	for i := range s {
		s[i] = r.ReadUint8()
	}
}

// TestFrameCacheStates: states cached per instance with PrepareStates (two clients' own
// instances of an uncomparable type, one shared instance) give the reference path's bits, and
// an instance changed within a frame is picked up only after Invalidate.
func TestFrameCacheStates(t *testing.T) {
	reg := game.NewRegistry()
	reg.MustRegisterState(game.StateType{Name: "shared", New: func() game.Snapshotter { return &playerState{} }})
	reg.MustRegisterState(game.StateType{Name: "own", New: func() game.Snapshotter { return bytesState{0, 0, 0} }})
	shared := &playerState{Ammo: 9, Weapon: 2}
	own := []bytesState{{1, 2, 3}, {4, 5, 6}}
	var cache FrameCache
	buf := make([]byte, 256)
	for frame := range game.Frame(6) {
		shared.Ammo++
		own[frame%2][1]++
		var all []game.Snapshotter
		for c := range own {
			all = append(all, shared, own[c])
		}
		if err := cache.PrepareStates(frame, all); err != nil {
			t.Fatal(err)
		}
		for c := range own {
			states := []game.Snapshotter{shared, own[c]}
			ref, fast := NewEncoder(reg), NewEncoder(reg)
			in := Input{Frame: frame, States: states}
			wa := bitmsg.NewWriter(make([]byte, 256))
			if _, err := ref.Build(wa, &in); err != nil {
				t.Fatal(err)
			}
			in.Cache = &cache
			wb := bitmsg.NewWriter(buf)
			if _, err := fast.Build(wb, &in); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(wa.Bytes(), wb.Bytes()) || wa.Len() != wb.Len() {
				t.Fatalf("frame %d client %d: cached %x, reference %x", frame, c, wb.Bytes(), wa.Bytes())
			}
		}
	}
	// A change within the frame: the cache keeps the frame's encoding until Invalidate.
	build := func(c *FrameCache) []byte {
		in := Input{Frame: 6, States: []game.Snapshotter{shared, own[0]}, Cache: c}
		w := bitmsg.NewWriter(make([]byte, 256))
		if _, err := NewEncoder(reg).Build(w, &in); err != nil {
			t.Fatal(err)
		}
		return w.Bytes()
	}
	if err := cache.PrepareStates(6, []game.Snapshotter{shared, own[0]}); err != nil {
		t.Fatal(err)
	}
	before := build(nil)
	shared.Ammo++
	after := build(nil)
	if bytes.Equal(before, after) {
		t.Fatal("weak test: the change does not show")
	}
	if got := build(&cache); !bytes.Equal(got, before) {
		t.Fatalf("same frame without Invalidate: %x, want the cached %x", got, before)
	}
	cache.Invalidate()
	if got := build(&cache); !bytes.Equal(got, after) {
		t.Fatalf("after Invalidate: %x, want %x", got, after)
	}
}

// TestFrameCacheSlotsGrow: entity states that keep outgrowing their slots (names and trailing
// fields growing, then starting small again) leave old slots behind until the cache compacts
// them; every snapshot, before and after, is the reference path's bit for bit.
func TestFrameCacheSlotsGrow(t *testing.T) {
	reg := cacheRegistry()
	world := game.NewEntityTable(reg)
	var pvs PVS
	for i := range 3000 {
		n := game.EntityNum(i)
		if _, err := world.Spawn(n, nameType); err != nil {
			t.Fatal(err)
		}
		pvs.Add(n)
	}
	ref, _ := newPair(t, reg, world, newStates())
	fast := NewEncoder(reg)
	fast.Base().CopyFrom(ref.Base())
	var cache FrameCache
	vw := &versionedWorld{EntityTable: world}
	bufA, bufB := make([]byte, 1<<18), make([]byte, 1<<18)
	for tick := range 40 {
		for _, e := range world.Entities() {
			v := e.(*nameEnt)
			step := tick % 21 // grows a byte a tick for 20 ticks, then starts again
			v.Name = string("abcdefghijklmnopqrst"[:step])
			v.V = uint32(tick)
		}
		vw.refresh(t)
		frame := game.Frame(tick + 1)
		if err := cache.Prepare(frame, vw, reg, &pvs); err != nil {
			t.Fatal(err)
		}
		in := Input{Frame: frame, PVS: &pvs, World: world, States: newStates()}
		h, _ := buildBoth(t, tick, ref, fast, in, &cache, bufA, bufB)
		if h.Seq > 2 {
			ma, oka := ref.Ack(h.Seq - 2)
			mb, okb := fast.Ack(h.Seq - 2)
			if ma != mb || oka != okb {
				t.Fatalf("tick %d: ack differs", tick)
			}
		}
	}
	if cache.compactions == 0 {
		t.Fatalf("no compaction (%d bytes of garbage in %d)", cache.slotGarbage, len(cache.slots))
	}
	t.Logf("%d compactions; slots %d bytes, %d garbage", cache.compactions, len(cache.slots), cache.slotGarbage)
}
