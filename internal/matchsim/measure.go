package matchsim

import (
	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/bitlayout"
	"github.com/snapwire/snapwire/internal/snapshot"
	"github.com/snapwire/snapwire/internal/zrle"
)

// bitops starts an entity's delta and takes its new state, as the snapshot encoder does
// (bitmsg hands that plumbing to internal/bitlayout).
var bitops = bitlayout.Get[bitmsg.Writer, bitmsg.DeltaWriter, bitmsg.DeltaReader, bitmsg.Reader]()

// measurer re-encodes the snapshots clients receive to measure what each
// compression step of DOOM III saves (§6), in bits, with the real codecs:
//
//   - bit packing (§4.1): every variable of the PVS entities and non-PVS
//     states as the naive in-memory layout of 32 bits per variable (the
//     paper's "full 32-bit" variables), against the bits WriteSnapshot packs
//     them into. The number of variables is counted by writing the state
//     through a DeltaWriter against an empty base: each variable then costs
//     one flag bit plus its encoding.
//   - delta compression (§4.2): the snapshot built by a snapshot.Encoder
//     whose base is a copy of the client's common base (the base the server
//     encoded it against, so this reproduces the server's snapshot), against
//     the same snapshot built by an Encoder whose base stays empty (every
//     PVS entity written in full, with spawn flag and type; the PVS in full),
//     less the one flag bit per variable that encoding adds (so "full" is
//     the packed full states plus the same framing).
//   - zrle (§4.3): the delta snapshot through zrle.Compress with DOOM III's
//     3-bit words.
//
// Both re-encodings carry the snapshot's real header (its sequence and base
// sequence), so header sizes match what was sent.
type measurer struct {
	reg    *game.Registry
	codec  *snapshot.StateCodec
	delta  *snapshot.Encoder
	full   *snapshot.Encoder
	dw     *bitmsg.DeltaWriter
	states []game.Snapshotter

	w, hw, vw    bitmsg.Writer
	buf, hbuf    []byte
	zbuf         []byte
	stBuf, dwOut []byte

	snapshots uint64
	errors    uint64
	bits      CompressionBits
}

func newMeasurer(reg *game.Registry) (*measurer, error) {
	m := &measurer{reg: reg, codec: snapshot.NewStateCodec(), delta: snapshot.NewEncoder(reg),
		full: snapshot.NewEncoder(reg), dw: new(bitmsg.DeltaWriter),
		states: make([]game.Snapshotter, reg.NumStates()),
		buf:    make([]byte, 1<<16), hbuf: make([]byte, 1<<16), zbuf: make([]byte, 1<<17),
		stBuf: make([]byte, game.MaxStateBytes), dwOut: make([]byte, 2*game.MaxStateBytes)}
	m.full.Base().Reset() // never acknowledged: stays empty
	return m, nil
}

// measure re-encodes snapshot s, which the client with number me and
// common base base has just written into its world w (the server's states
// of s's frame for the entities of s's PVS).
func (m *measurer) measure(w game.Game, me game.ClientNum, copyBase func(dst *snapshot.CommonBase) bool, s *snapshot.Snapshot) {
	for i := range m.states {
		m.states[i] = w.State(me, game.StateID(i))
	}
	in := snapshot.Input{Frame: s.Header.Frame, Time: s.Header.Time, Duplicated: s.Header.Duplicated,
		Lead: s.Header.Lead, PVS: &s.PVS, World: w, States: m.states, Cmds: s.Cmds, Events: s.Events}

	if !copyBase(m.delta.Base()) {
		return
	}
	deltaBits, ok := m.build(m.delta, &in, &s.Header)
	if !ok {
		return
	}
	z, err := zrle.Compress(m.zbuf, m.hw.Bytes(), deltaBits, zrle.DefaultWordBits)
	if err != nil {
		m.errors++
		return
	}
	fullBits, ok := m.build(m.full, &in, &s.Header)
	if !ok {
		return
	}
	var vars, packed uint64
	for n := range s.PVS.All() {
		e, _ := w.Entity(n)
		if e == nil {
			continue
		}
		v, p, ok := m.variables(e)
		if !ok {
			return
		}
		vars, packed = vars+v, packed+p
	}
	for _, st := range m.states {
		if st == nil {
			continue
		}
		v, p, ok := m.variables(st)
		if !ok {
			return
		}
		vars, packed = vars+v, packed+p
	}
	m.snapshots++
	m.bits.Delta += uint64(deltaBits)
	m.bits.ZRLE += uint64(z)
	// Without delta compression the per-variable change flags would not be
	// written either: the full states are the packed bits alone.
	m.bits.Full += uint64(fullBits) - vars
	m.bits.Naive += 32 * vars
	m.bits.Packed += packed
}

// build encodes in with enc and rewrites the result with the real header
// hd into m.hw, returning its length in bits.
func (m *measurer) build(enc *snapshot.Encoder, in *snapshot.Input, hd *snapshot.Header) (int, bool) {
	m.w.Reset(m.buf)
	h, err := enc.Build(&m.w, in)
	if err != nil || m.w.Err() != nil {
		m.errors++
		return 0, false
	}
	skip := h.Bits()
	total := m.w.Len()
	m.hw.Reset(m.hbuf)
	hd.Write(&m.hw)
	r := bitmsg.NewReader(m.w.Bytes(), total)
	r.ReadBits(32) // skip the shadow header
	for left := skip - 32; left > 0; left -= min(left, 32) {
		r.ReadBits(min(left, 32))
	}
	for r.BitsLeft() > 0 {
		k := min(r.BitsLeft(), 32)
		m.hw.WriteBits(r.ReadBits(k), k)
	}
	if r.Err() != nil || m.hw.Err() != nil {
		m.errors++
		return 0, false
	}
	return m.hw.Len(), true
}

// variables returns the number of variables s writes and their packed
// size in bits.
func (m *measurer) variables(s game.Snapshotter) (vars, bits uint64, ok bool) {
	out := &m.vw
	out.Reset(m.dwOut)
	bitops.ResetWriter(m.dw, nil, 0, out, m.stBuf)
	s.WriteSnapshot(m.dw)
	_, nb := bitops.WriterState(m.dw)
	if m.dw.Err() != nil || out.Err() != nil {
		m.errors++
		return 0, 0, false
	}
	return uint64(out.Len() - nb), uint64(nb), true
}
