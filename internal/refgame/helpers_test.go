package refgame

import (
	"testing"

	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/bitlayout"
	"github.com/snapwire/snapwire/internal/events"
)

// bitops starts an entity's delta and takes its new state, as the snapshot encoder and
// decoder do (bitmsg hands that plumbing to internal/bitlayout).
var bitops = bitlayout.Get[bitmsg.Writer, bitmsg.DeltaWriter, bitmsg.DeltaReader, bitmsg.Reader]()

// stateBits returns the full snapshot state of s (every field, no delta flags).
func stateBits(s game.Snapshotter, buf []byte) ([]byte, int, error) {
	var dw bitmsg.DeltaWriter
	bitops.ResetWriter(&dw, nil, 0, nil, buf)
	s.WriteSnapshot(&dw)
	b, n := bitops.WriterState(&dw)
	return b, n, dw.Err()
}

// fnv64 is FNV-1a.
type fnv64 uint64

func (h *fnv64) add(p []byte) {
	for _, b := range p {
		*h = (*h ^ fnv64(b)) * 1099511628211
	}
}

func (h *fnv64) addInt(v int) { h.add([]byte{byte(v), byte(v >> 8), byte(v >> 16), byte(v >> 24)}) }

// hashWorld hashes the synchronised state of the world: which entities exist, every entity's
// snapshot state, the scoreboard and every player's stats.
func hashWorld(t testing.TB, w *World) uint64 {
	t.Helper()
	h := fnv64(14695981039346656037)
	buf := make([]byte, game.MaxStateBytes)
	for n, e := range w.Entities() {
		b, bits, err := stateBits(e, buf)
		if err != nil {
			t.Fatalf("entity %d: %v", n, err)
		}
		h.addInt(int(n))
		h.addInt(bits)
		h.add(b)
	}
	b, bits, err := stateBits(&w.Score, buf)
	if err != nil {
		t.Fatal(err)
	}
	h.addInt(bits)
	h.add(b)
	for i := range w.Stats {
		b, bits, _ := stateBits(&w.Stats[i], buf)
		h.addInt(bits)
		h.add(b)
	}
	return uint64(h)
}

// match is a world driven by bots, as a server runs it.
type match struct {
	w    *World
	bots []*Bot
	ev   events.Buffer
	cmds []game.PlayerCmd
	tick game.Tick
}

func newMatch(t testing.TB, cfg Config, players int, mode BotMode) *match {
	t.Helper()
	w, err := NewWorld(cfg)
	if err != nil {
		t.Fatal(err)
	}
	m := &match{w: w}
	for c := 0; c < players; c++ {
		if err := w.ClientConnected(game.ClientNum(c)); err != nil {
			t.Fatal(err)
		}
		m.bots = append(m.bots, NewBot(cfg.Seed*1000+uint64(c), game.ClientNum(c), mode))
	}
	return m
}

// commands asks every bot for its command of frame f.
func (m *match) commands(f game.Frame) []game.PlayerCmd {
	m.cmds = m.cmds[:0]
	for _, b := range m.bots {
		m.cmds = append(m.cmds, game.PlayerCmd{Entity: game.EntityNum(b.Client), Cmd: b.Command(m.w, f)})
	}
	return m.cmds
}

// run runs frame f with cmds.
func (m *match) run(f game.Frame, cmds []game.PlayerCmd) {
	m.ev.Reset()
	m.ev.Frame = f
	m.tick = game.Tick{Frame: f, Cmds: cmds, Events: &m.ev}
	m.w.RunFrame(&m.tick)
}

// step runs the next frame with the bots' commands.
func (m *match) step() {
	f := m.w.Frame() + 1
	m.run(f, m.commands(f))
}

// roundTrip writes src as a snapshot delta against an empty base and reads it into dst, as a
// client receiving an entity new to it does (DOOM III §5).
func roundTrip(t testing.TB, dst, src game.Snapshotter) {
	t.Helper()
	var (
		msg   [game.MaxStateBytes]byte
		st    [game.MaxStateBytes]byte
		st2   [game.MaxStateBytes]byte
		dw    bitmsg.DeltaWriter
		dr    bitmsg.DeltaReader
		out   bitmsg.Writer
		in    bitmsg.Reader
		wrote int
	)
	out.Reset(msg[:])
	bitops.ResetWriter(&dw, nil, 0, &out, st[:])
	src.WriteSnapshot(&dw)
	if err := dw.Err(); err != nil {
		t.Fatalf("write: %v", err)
	}
	wrote = out.Len()
	in.Reset(out.Bytes(), wrote)
	bitops.ResetReader(&dr, nil, 0, &in, st2[:])
	dst.ReadSnapshot(&dr)
	if err := dr.Err(); err != nil {
		t.Fatalf("read: %v", err)
	}
	if left := in.BitsLeft(); left != 0 {
		t.Fatalf("read %d bits of %d", wrote-left, wrote)
	}
}

// copyWorld makes dst hold exactly src's entities (those keep(n) accepts) and non-PVS states, each
// through a snapshot round trip.
func copyWorld(t testing.TB, dst, src *World, keep func(game.EntityNum) bool) {
	t.Helper()
	for n := 0; n < game.MaxEntities; n++ {
		dst.Remove(game.EntityNum(n))
	}
	for n, e := range src.Entities() {
		if keep != nil && !keep(n) {
			continue
		}
		_, typ := src.Entity(n)
		de, err := dst.Spawn(n, typ)
		if err != nil {
			t.Fatal(err)
		}
		roundTrip(t, de, e)
	}
	roundTrip(t, &dst.Score, &src.Score)
	for i := range src.Stats {
		roundTrip(t, &dst.Stats[i], &src.Stats[i])
	}
}
