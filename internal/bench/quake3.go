package bench

import (
	"errors"
	"fmt"

	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/events"
	"github.com/snapwire/snapwire/internal/q3/huffman"
	"github.com/snapwire/snapwire/internal/snapshot"
)

// The Quake 3 snapshot scheme (Quake 3 protocol description, Fedoryński, svc_snapshot; snapshot model, seed
// 003), on the same quantised values as ours:
//
//   - every entity is a fixed struct (Union: entityState_t), compared field by field through a
//     field table (netField_t: width per slot);
//   - the server keeps each client's last PacketBackup snapshots (a ring of 32) and encodes a new
//     snapshot against the last one the client acknowledged, or against nothing (the "dummy"
//     snapshot: every field zero) when that one is gone or too old (more than
//     PacketBackup-3 behind, as ioq3 SV_WriteSnapshotToClient);
//   - an entity in both snapshots is delta-compressed against its old state and omitted when
//     unchanged; an entity new to the snapshot is sent against its map baseline
//     (svEntities[].baseline, the state right after the map loaded) even when unchanged
//     ("force"); an entity that left is removed;
//   - the player state (here: the non-PVS states) is delta-compressed against the base
//     snapshot's copy or the dummy;
//   - optionally every byte is Huffman-coded with the fixed tree (ioq3 MSG_WriteBits: the low
//     n%8 bits raw, then each whole byte Huffman-coded), as every Quake 3 netchan message is.
//
// Message layout (bits, LSB first):
//
//	seq            32  message / snapshot sequence (raw, never Huffman-coded)
//	svc_snapshot    8
//	serverTime     32
//	deltaNum        8  seq - base seq, 0 = no delta (dummy)
//	snapFlags       8
//	areamask len    8  then len bytes: the visible rooms
//	per non-PVS state (MSG_WriteDeltaPlayerstate): lc 8, then for field i < lc:
//	                   changed 1, [value width]
//	entities, ascending (MSG_WriteDeltaEntity):
//	  number       12  (4095 is followed by 1 bit: 0 = entity 4095, 1 = end of entities)
//	  remove        1  1: the entity left the snapshot; nothing follows
//	  changed       1  0: unchanged (only sent for a new entity against its baseline)
//	  lc            8  fields up to the last changed one
//	  per field i < lc: changed 1; if changed: nonzero 1; if nonzero: value (slot width)
//	number 4095, 1     end of entities
//	svc_EOF         8
const (
	PacketBackup  = 32 // ioq3 PACKET_BACKUP: snapshots kept per client
	q3EntityBits  = events.EntityNumBits
	q3EntityNone  = game.MaxEntities - 1
	q3SvcSnapshot = 7
	q3SvcEOF      = 8
)

var errQ3 = errors.New("bench: quake3 snapshot")

// q3Ent is an entity of a snapshot.
type q3Ent struct {
	num game.EntityNum
	s   UnionState
}

// q3Snap is one snapshot of a client's ring (ioq3 clientSnapshot_t).
type q3Snap struct {
	seq   uint32
	valid bool
	frame game.Frame
	ents  []q3Ent
	ps    [][]uint32 // per non-PVS state: field values
	area  []byte
}

func (s *q3Snap) reset(seq uint32, frame game.Frame) {
	s.seq, s.valid, s.frame = seq, false, frame
	s.ents = s.ents[:0]
	s.area = s.area[:0]
}

// Q3Tables is what server and client share: the union entity layout, the non-PVS state
// layouts and the map baselines.
type Q3Tables struct {
	U        *Union
	PS       []*Layout
	Baseline []UnionState // per entity number; zero for an entity absent at map load
}

// Q3Frame holds the union form of every entity of one server frame, computed once per frame
// and shared by every client (the game fills entityState_t once per frame in Quake 3).
type Q3Frame struct {
	ents    [game.MaxEntities]UnionState
	present [game.MaxEntities]bool
}

// Q3Encoder is one client's Quake 3-style snapshot state on the server. It allocates nothing
// once its ring has grown to the largest snapshot.
type Q3Encoder struct {
	t     *Q3Tables
	ring  [PacketBackup]q3Snap
	next  uint32
	acked uint32 // latest snapshot the client acknowledged, 0 = none
	cur   *q3Snap
	base  *q3Snap
	zero  []uint32
	// maxEnts is the largest snapshot so far; a slot is brought up to it (and a quarter) when
	// reused, so slots stop growing once the largest snapshot has been seen.
	maxEnts int
}

// NewQ3Encoder returns an encoder for one client.
func NewQ3Encoder(t *Q3Tables) *Q3Encoder {
	e := &Q3Encoder{t: t, next: 1}
	n := 0
	for _, l := range t.PS {
		n = max(n, l.Fields())
	}
	e.zero = make([]uint32, n)
	for i := range e.ring {
		e.ring[i].ps = make([][]uint32, len(t.PS))
		for j, l := range t.PS {
			e.ring[i].ps[j] = make([]uint32, l.Fields())
		}
	}
	return e
}

// Ack records the client's acknowledgement of snapshot seq (the latest it received).
func (e *Q3Encoder) Ack(seq uint32) {
	if int32(seq-e.acked) > 0 && int32(e.next-seq) > 0 {
		e.acked = seq
	}
}

// Snapshot takes the next snapshot: the client's PVS entities of fr, its non-PVS states (field
// values per state) and its areamask, and picks the base it will be encoded against.
func (e *Q3Encoder) Snapshot(frame game.Frame, fr *Q3Frame, pvs *snapshot.PVS, ps [][]uint32, area []byte) {
	seq := e.next
	e.next++
	s := &e.ring[seq%PacketBackup]
	s.reset(seq, frame)
	if need := max(e.maxEnts, pvs.Len()); cap(s.ents) < need {
		s.ents = make([]q3Ent, 0, need+need/4)
	}
	for n := range pvs.All() {
		if fr.present[n] {
			s.ents = append(s.ents, q3Ent{num: n, s: fr.ents[n]})
		}
	}
	for i := range ps {
		copy(s.ps[i], ps[i])
	}
	s.area = append(s.area, area...)
	s.valid = true
	e.maxEnts = max(e.maxEnts, len(s.ents))
	e.cur = s
	// ioq3 SV_WriteSnapshotToClient: delta against the last acknowledged snapshot unless it is
	// too old (or was never sent); otherwise against the dummy.
	e.base = nil
	if e.acked != 0 && seq-e.acked < PacketBackup-3 {
		if b := &e.ring[e.acked%PacketBackup]; b.valid && b.seq == e.acked {
			e.base = b
		}
	}
}

// Write writes the snapshot taken by Snapshot into w; huff selects the fixed Huffman stage.
// It may be called more than once (with and without Huffman) for the same snapshot.
func (e *Q3Encoder) Write(w *bitmsg.Writer, huff *huffman.Fixed) error {
	q := q3Writer{w: w, huff: huff}
	s, b := e.cur, e.base
	w.WriteBits(s.seq, 32)
	q.bits(q3SvcSnapshot, 8)
	q.bits(uint32(s.frame)*1000/FrameRate, 32) // serverTime in ms
	delta := uint32(0)
	if b != nil {
		delta = s.seq - b.seq
	}
	q.bits(delta, 8)
	q.bits(0, 8) // snapFlags
	q.bits(uint32(len(s.area)), 8)
	for _, c := range s.area {
		q.bits(uint32(c), 8)
	}
	for i, l := range e.t.PS {
		from := e.zero[:l.Fields()]
		if b != nil {
			from = b.ps[i]
		}
		q.deltaFields(l.Widths, from, s.ps[i])
	}
	var old []q3Ent
	if b != nil {
		old = b.ents
	}
	u := e.t.U
	oi, ni := 0, 0
	for oi < len(old) || ni < len(s.ents) {
		on, nn := game.MaxEntities, game.MaxEntities
		if oi < len(old) {
			on = int(old[oi].num)
		}
		if ni < len(s.ents) {
			nn = int(s.ents[ni].num)
		}
		switch {
		case on == nn:
			q.deltaEntity(u.Widths, &old[oi].s, &s.ents[ni].s, s.ents[ni].num, false)
			oi++
			ni++
		case nn < on:
			q.deltaEntity(u.Widths, &e.t.Baseline[nn], &s.ents[ni].s, s.ents[ni].num, true)
			ni++
		default:
			q.number(old[oi].num)
			q.bits(1, 1) // remove
			oi++
		}
	}
	q.bits(q3EntityNone, q3EntityBits)
	q.bits(1, 1)
	q.bits(q3SvcEOF, 8)
	return w.Err()
}

// MemoryBytes returns the memory the client's ring holds.
func (e *Q3Encoder) MemoryBytes() int {
	n := 0
	for i := range e.ring {
		s := &e.ring[i]
		n += cap(s.ents)*int(sizeofQ3Ent) + cap(s.area)
		for _, p := range s.ps {
			n += 4 * cap(p)
		}
	}
	return n
}

const sizeofQ3Ent = 4 + 4*MaxSlots

// q3Writer is MSG_WriteBits: raw bits, or with huff the low n%8 bits raw and each whole byte
// Huffman-coded (ioq3 msg.c, Huff_offsetTransmit).
type q3Writer struct {
	w    *bitmsg.Writer
	huff *huffman.Fixed
}

func (q *q3Writer) bits(v uint32, n int) {
	if q.huff == nil {
		q.w.WriteBits(v, n)
		return
	}
	if odd := n & 7; odd != 0 {
		q.w.WriteBits(v, odd)
		v >>= uint(odd)
		n -= odd
	}
	for ; n > 0; n -= 8 {
		c, l := q.huff.Code(byte(v))
		q.w.WriteBits(c, l)
		v >>= 8
	}
}

func (q *q3Writer) number(n game.EntityNum) {
	q.bits(uint32(n), q3EntityBits)
	if n == q3EntityNone {
		q.bits(0, 1) // a real entity 4095, not the end marker
	}
}

// deltaFields is MSG_WriteDeltaPlayerstate's field loop: lc, then a changed bit and the value
// of every field up to the last changed one.
func (q *q3Writer) deltaFields(widths []uint8, from, to []uint32) {
	lc := 0
	for i := len(widths) - 1; i >= 0; i-- {
		if from[i] != to[i] {
			lc = i + 1
			break
		}
	}
	q.bits(uint32(lc), 8)
	for i := range lc {
		if from[i] == to[i] {
			q.bits(0, 1)
			continue
		}
		q.bits(1, 1)
		q.bits(to[i], int(widths[i]))
	}
}

// deltaEntity is MSG_WriteDeltaEntity for integer fields.
func (q *q3Writer) deltaEntity(widths []uint8, from, to *UnionState, n game.EntityNum, force bool) {
	lc := 0
	for i := len(widths) - 1; i >= 0; i-- {
		if from[i] != to[i] {
			lc = i + 1
			break
		}
	}
	if lc == 0 {
		if !force {
			return // unchanged: nothing at all
		}
		q.number(n)
		q.bits(0, 1) // not removed
		q.bits(0, 1) // no delta
		return
	}
	q.number(n)
	q.bits(0, 1)
	q.bits(1, 1)
	q.bits(uint32(lc), 8)
	for i := range lc {
		if from[i] == to[i] {
			q.bits(0, 1)
			continue
		}
		q.bits(1, 1)
		if to[i] == 0 {
			q.bits(0, 1)
			continue
		}
		q.bits(1, 1)
		q.bits(to[i], int(widths[i]))
	}
}

// Q3Decoder is the client end, used to check that the encoder's output carries exactly the
// states it took (the harness decodes every delivered snapshot).
type Q3Decoder struct {
	t    *Q3Tables
	ring [PacketBackup]q3Snap
}

// NewQ3Decoder returns a decoder sharing the encoder's tables.
func NewQ3Decoder(t *Q3Tables) *Q3Decoder {
	d := &Q3Decoder{t: t}
	for i := range d.ring {
		d.ring[i].ps = make([][]uint32, len(t.PS))
		for j, l := range t.PS {
			d.ring[i].ps[j] = make([]uint32, l.Fields())
		}
	}
	return d
}

// Decode reads one message written by Q3Encoder.Write and keeps the snapshot in its ring.
func (d *Q3Decoder) Decode(data []byte, nbits int, huff *huffman.Fixed) (*q3Snap, error) {
	var r q3Reader
	r.reset(data, nbits, huff)
	seq := r.raw(32)
	if op := r.bits(8); op != q3SvcSnapshot {
		return nil, fmt.Errorf("%w: op %d", errQ3, op)
	}
	ms := r.bits(32)
	delta := r.bits(8)
	r.bits(8)
	var b *q3Snap
	if delta != 0 {
		b = &d.ring[(seq-delta)%PacketBackup]
		if !b.valid || b.seq != seq-delta {
			return nil, fmt.Errorf("%w: delta from snapshot %d, not held", errQ3, seq-delta)
		}
	}
	s := &d.ring[seq%PacketBackup]
	if s == b {
		return nil, fmt.Errorf("%w: delta from itself", errQ3)
	}
	s.reset(seq, game.Frame(ms*FrameRate/1000))
	for range r.bits(8) {
		s.area = append(s.area, byte(r.bits(8)))
	}
	for i, l := range d.t.PS {
		var from []uint32
		if b != nil {
			from = b.ps[i]
		}
		if err := r.deltaFields(l.Widths, from, s.ps[i]); err != nil {
			return nil, err
		}
	}
	var old []q3Ent
	if b != nil {
		old = b.ents
	}
	u := d.t.U
	oi := 0
	for {
		n := int(r.bits(q3EntityBits))
		if n == q3EntityNone && r.bits(1) == 1 {
			break
		}
		if err := r.err; err != nil {
			return nil, fmt.Errorf("%w: %w", errQ3, err)
		}
		if len(s.ents) > 0 && int(s.ents[len(s.ents)-1].num) >= n {
			return nil, fmt.Errorf("%w: entity %d out of order", errQ3, n)
		}
		// Old entities before n are unchanged and stay.
		for oi < len(old) && int(old[oi].num) < n {
			s.ents = append(s.ents, old[oi])
			oi++
		}
		var from *UnionState
		inOld := oi < len(old) && int(old[oi].num) == n
		if inOld {
			from = &old[oi].s
			oi++
		} else {
			from = &d.t.Baseline[n]
		}
		if r.bits(1) == 1 { // removed
			if !inOld {
				return nil, fmt.Errorf("%w: removed entity %d not in base", errQ3, n)
			}
			continue
		}
		s.ents = append(s.ents, q3Ent{num: game.EntityNum(n)})
		if err := r.deltaEntity(u.Widths, from, &s.ents[len(s.ents)-1].s); err != nil {
			return nil, err
		}
	}
	s.ents = append(s.ents, old[oi:]...)
	if op := r.bits(8); op != q3SvcEOF {
		return nil, fmt.Errorf("%w: no svc_EOF", errQ3)
	}
	if err := r.err; err != nil {
		return nil, fmt.Errorf("%w: %w", errQ3, err)
	}
	s.valid = true
	return s, nil
}

// q3Reader is MSG_ReadBits, the inverse of q3Writer. A read past the end sets a sticky error
// and returns zero.
type q3Reader struct {
	buf   []byte
	nbits int
	pos   int
	err   error
	huff  *huffman.Fixed
}

func (q *q3Reader) reset(buf []byte, nbits int, huff *huffman.Fixed) {
	*q = q3Reader{buf: buf, nbits: min(nbits, 8*len(buf)), huff: huff}
}

// peek returns the next n bits (n <= 64), zero past the end.
func (q *q3Reader) peek(n int) uint64 {
	var v uint64
	for i := 0; i < n; {
		p := q.pos + i
		if p >= q.nbits {
			break
		}
		k := min(8-p%8, n-i, q.nbits-p)
		v |= uint64(q.buf[p/8]>>(p%8)&(1<<k-1)) << i
		i += k
	}
	return v
}

func (q *q3Reader) raw(n int) uint32 {
	if q.err != nil || q.pos+n > q.nbits {
		q.err = bitmsg.ErrUnderflow
		return 0
	}
	v := uint32(q.peek(n))
	q.pos += n
	return v
}

func (q *q3Reader) bits(n int) uint32 {
	if q.huff == nil {
		return q.raw(n)
	}
	var v uint32
	shift := 0
	if odd := n & 7; odd != 0 {
		v = q.raw(odd)
		shift = odd
		n -= odd
	}
	for ; n > 0; n -= 8 {
		if q.err != nil {
			return 0
		}
		sym, l := q.huff.Decode(q.peek(q.huff.MaxLen()))
		if q.pos+l > q.nbits || sym > 255 {
			q.err = bitmsg.ErrUnderflow
			return 0
		}
		q.pos += l
		v |= uint32(sym) << uint(shift)
		shift += 8
	}
	return v
}

func (q *q3Reader) deltaFields(widths []uint8, from, to []uint32) error {
	lc := int(q.bits(8))
	if lc > len(widths) {
		return fmt.Errorf("%w: lc %d of %d fields", errQ3, lc, len(widths))
	}
	for i := range widths {
		var f uint32
		if from != nil {
			f = from[i]
		}
		if i < lc && q.bits(1) == 1 {
			f = q.bits(int(widths[i]))
		}
		to[i] = f
	}
	return q.err
}

func (q *q3Reader) deltaEntity(widths []uint8, from, to *UnionState) error {
	*to = *from
	if q.bits(1) == 0 {
		return q.err
	}
	lc := int(q.bits(8))
	if lc > len(widths) {
		return fmt.Errorf("%w: lc %d of %d fields", errQ3, lc, len(widths))
	}
	for i := range lc {
		if q.bits(1) == 0 {
			continue
		}
		if q.bits(1) == 0 {
			to[i] = 0
			continue
		}
		to[i] = q.bits(int(widths[i]))
	}
	return q.err
}
