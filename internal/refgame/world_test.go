package refgame

import (
	"math/rand/v2"
	"testing"

	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/entropy"
)

// Two worlds fed the same commands for 10,000 frames stay bit-identical (DOOM III §2: everything
// but player input is deterministic).
func TestDeterminism(t *testing.T) {
	cfg := Config{Seed: 11, Entities: 300}
	a := newMatch(t, cfg, 16, BotDeathmatch)
	b := newMatch(t, cfg, 16, BotDeathmatch)
	doorEvents := 0
	for f := game.Frame(1); f <= 10000; f++ {
		cmds := a.commands(f)
		a.run(f, cmds)
		b.run(f, cmds)
		for _, e := range a.ev.Events() {
			if e.ID == EventDoor {
				doorEvents++
			}
		}
		if f%50 == 0 || f == 10000 {
			if ha, hb := hashWorld(t, a.w), hashWorld(t, b.w); ha != hb {
				t.Fatalf("frame %d: hashes differ %x %x", f, ha, hb)
			}
		}
	}
	var deaths int32
	for _, slot := range a.w.Score.Slots {
		deaths += slot.Deaths
	}
	// The run must have exercised the simulation, or equal hashes prove little.
	if deaths == 0 || doorEvents == 0 {
		t.Fatalf("dull run: %d deaths, %d door events", deaths, doorEvents)
	}
	// A different seed gives a different game.
	c := newMatch(t, Config{Seed: 12, Entities: 300}, 16, BotDeathmatch)
	for f := game.Frame(1); f <= 600; f++ {
		c.step()
	}
	d := newMatch(t, cfg, 16, BotDeathmatch)
	for f := game.Frame(1); f <= 600; f++ {
		d.step()
	}
	if hashWorld(t, c.w) == hashWorld(t, d.w) {
		t.Fatal("different seeds, same world")
	}
}

// A world copied through WriteSnapshot/ReadSnapshot (delta against an empty base) and stepped with
// the same commands stays bit-identical to the original: every variable the simulation uses is
// synchronised, in the precision it is sent.
func TestSnapshotRoundTripThenStep(t *testing.T) {
	for _, at := range []game.Frame{1, 450, 2400} {
		cfg := Config{Seed: 5, Entities: 500}
		a := newMatch(t, cfg, 16, BotDeathmatch)
		for a.w.Frame() < at {
			a.step()
		}
		b := newMatch(t, cfg, 0, BotDeathmatch)
		copyWorld(t, b.w, a.w, nil)
		if ha, hb := hashWorld(t, a.w), hashWorld(t, b.w); ha != hb {
			t.Fatalf("copy at %d: hashes differ", at)
		}
		for i := 0; i < 900; i++ {
			f := a.w.Frame() + 1
			cmds := a.commands(f)
			a.run(f, cmds)
			b.run(f, cmds)
			if ha, hb := hashWorld(t, a.w), hashWorld(t, b.w); ha != hb {
				t.Fatalf("copied at %d, frame %d: hashes differ", at, f)
			}
		}
	}
}

// A client predicting only its PVS, with prediction rules (no spawns, no removals), reproduces
// the server exactly for NeverTouch players (the engine's exact-prediction scenario).
func TestPredictSubsetNeverTouch(t *testing.T) {
	cfg := Config{Seed: 3, Entities: 200}
	srv := newMatch(t, cfg, 16, BotNeverTouch)
	for i := 0; i < 120; i++ {
		srv.step()
	}
	for c := game.ClientNum(0); c < 16; c += 5 {
		var pvs entitySet
		srv.w.Visible(c, &pvs)
		cl := newMatch(t, cfg, 0, BotNeverTouch)
		copyWorld(t, cl.w, srv.w, pvs.has)
		var tick game.Tick
		for i := 0; i < 600; i++ {
			f := srv.w.Frame() + 1
			cmds := srv.commands(f)
			srv.run(f, cmds)
			var own []game.PlayerCmd
			for _, pc := range cmds {
				if pvs.has(pc.Entity) {
					own = append(own, pc)
				}
			}
			tick = game.Tick{Frame: f, Cmds: own, Events: game.Discard, Predicting: true}
			cl.w.RunFrame(&tick)
		}
		buf1, buf2 := make([]byte, 512), make([]byte, 512)
		n := 0
		for num, e := range cl.w.Entities() {
			se, _ := srv.w.Entity(num)
			b1, l1, _ := stateBits(e, buf1)
			b2, l2, _ := stateBits(se, buf2)
			if l1 != l2 || string(b1) != string(b2) {
				t.Fatalf("client %d: entity %d predicted %x, server %x", c, num, b1, b2)
			}
			n++
		}
		if n < 10 {
			t.Fatalf("client %d predicted only %d entities", c, n)
		}
	}
}

// entitySet is a game.EntitySet for tests.
type entitySet struct{ bits [game.MaxEntities / 64]uint64 }

func (s *entitySet) Add(n game.EntityNum)      { s.bits[n/64] |= 1 << (n % 64) }
func (s *entitySet) has(n game.EntityNum) bool { return s.bits[n/64]&(1<<(n%64)) != 0 }
func (s *entitySet) list() []game.EntityNum {
	var l []game.EntityNum
	for n := 0; n < game.MaxEntities; n++ {
		if s.has(game.EntityNum(n)) {
			l = append(l, game.EntityNum(n))
		}
	}
	return l
}

// Players driven by random input (running, turning, using doors, firing) never end a frame with
// their box inside a wall or a door that is not open, and their velocity is always a half float
// within MaxVelocity.
func TestCollisionRandom(t *testing.T) {
	cfg := Config{Seed: 9, RoomsX: 3, RoomsY: 2, RoomTiles: 8}
	m := newMatch(t, cfg, 16, BotDeathmatch)
	rng := rand.New(rand.NewPCG(1, 2))
	cmds := make([]game.PlayerCmd, 16)
	for c := range cmds {
		cmds[c].Entity = game.EntityNum(c)
	}
	for f := game.Frame(1); f <= 20000; f++ {
		for c := range cmds {
			cmd := &cmds[c].Cmd
			if rng.IntN(20) == 0 {
				cmd.Forward = int8(rng.IntN(255) - 127)
				cmd.Right = int8(rng.IntN(255) - 127)
				cmd.Yaw = uint16(rng.Uint32())
			}
			cmd.Buttons = game.Buttons(rng.IntN(4)) & (ButtonUse | ButtonAttack)
			if rng.IntN(3) != 0 {
				cmd.Buttons &^= ButtonAttack
			}
		}
		m.run(f, cmds)
		for i := range m.w.Players {
			p := &m.w.Players[i]
			if !p.Alive() {
				continue
			}
			if !m.w.boxClear(vec2{p.X, p.Y}, PlayerRadius) {
				t.Fatalf("frame %d: player %d at (%v,%v) overlaps a wall", f, i, p.X, p.Y)
			}
			for _, v := range []float32{p.VX, p.VY} {
				if bitmsg.QuantizeHalf(v) != v || v > MaxVelocity || v < -MaxVelocity {
					t.Fatalf("frame %d: player %d velocity %v not a bounded half float", f, i, v)
				}
			}
		}
	}
}

func TestFrameAllocs(t *testing.T) {
	m := newMatch(t, Config{Seed: 1, Entities: 500}, 16, BotDeathmatch)
	for i := 0; i < 600; i++ {
		m.step()
	}
	f := m.w.Frame()
	cmds := append([]game.PlayerCmd(nil), m.commands(f+1)...)
	allocs := testing.AllocsPerRun(200, func() {
		f++
		m.run(f, cmds)
	})
	if allocs != 0 {
		t.Fatalf("RunFrame allocates %v times per frame", allocs)
	}
}

// BenchmarkRunFrame: one server frame of a 16-player match on a map of 500 entities.
func BenchmarkRunFrame(b *testing.B) {
	for _, ents := range []int{500, 4096} {
		b.Run(itoa(ents)+"ents", func(b *testing.B) {
			m := newMatch(b, Config{Seed: 1, Entities: ents}, 16, BotDeathmatch)
			for i := 0; i < 600; i++ {
				m.step()
			}
			const n = 512
			cmds := make([][]game.PlayerCmd, n)
			for i := range cmds {
				cmds[i] = append([]game.PlayerCmd(nil), m.commands(m.w.Frame()+game.Frame(i)+1)...)
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				m.run(m.w.Frame()+1, cmds[i%n])
				i++
			}
			b.ReportMetric(float64(len(m.w.Players)), "players")
		})
	}
}

// BenchmarkBotCommand: one deathmatch bot's decision.
func BenchmarkBotCommand(b *testing.B) {
	m := newMatch(b, Config{Seed: 1, Entities: 500}, 16, BotDeathmatch)
	for i := 0; i < 600; i++ {
		m.step()
	}
	b.ReportAllocs()
	f := m.w.Frame()
	for b.Loop() {
		f++
		m.bots[3].Command(m.w, f)
	}
}

func itoa(v int) string {
	if v == 0 {
		return "0"
	}
	var b []byte
	for ; v > 0; v /= 10 {
		b = append([]byte{byte('0' + v%10)}, b...)
	}
	return string(b)
}

// TestHuffmanTableLoads: the generated code lengths form a complete code of
// at most entropy.HuffmanMaxBits bits (NewHuffmanTable checks both).
func TestHuffmanTableLoads(t *testing.T) {
	if _, err := entropy.NewHuffmanTable(huffmanLengths); err != nil {
		t.Fatal(err)
	}
	if HuffmanTable().Lengths() != huffmanLengths {
		t.Fatal("HuffmanTable does not hold the generated lengths")
	}
}

// TestEntropyModelLoads: the embedded entropy model is well formed.
func TestEntropyModelLoads(t *testing.T) {
	if _, err := entropy.NewModel(entropyModel); err != nil {
		t.Fatal(err)
	}
}
