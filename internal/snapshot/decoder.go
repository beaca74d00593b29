package snapshot

import (
	"fmt"

	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/events"
	"github.com/snapwire/snapwire/internal/usercmd"
)

// EntityState is one entity of a decoded snapshot's PVS.
type EntityState struct {
	Num  game.EntityNum
	Type game.TypeID
	// Spawn is set when the base had no state for the entity or one of
	// another type: the client must create a fresh entity of Type.
	Spawn bool
	// Changed is set when the snapshot carried the entity; otherwise State
	// is the base's.
	Changed bool
	// State is the entity's full state (the bits its WriteSnapshot wrote on
	// the server); load it with StateCodec.Load. It aliases the Snapshot.
	State []byte
	Bits  int
}

// StateValue is a decoded non-PVS state.
type StateValue struct {
	Changed bool   // carried by the snapshot; otherwise the base's
	State   []byte // full state; aliases the Snapshot
	Bits    int
}

// Snapshot is a decoded snapshot. Decode reuses its memory; slices alias it
// until the next Decode into it.
type Snapshot struct {
	Header Header
	PVS    PVS
	// Entities holds every entity in the PVS, ascending by number.
	Entities []EntityState
	// States holds each non-PVS state, indexed by StateID.
	States []StateValue
	// Cmds holds the latest commands of other players in the PVS; each
	// Cmd.Frame is Header.Frame.
	Cmds []game.PlayerCmd
	// Events holds the unreliable events.
	Events []game.Event

	data    []byte // states and payloads; slices fixed up at the end
	offs    []int  // offset of each entity, state then event payload in data
	members []game.EntityNum
}

// Decoder decodes one client's snapshots and keeps its common base and the
// received snapshots' new states until the server says which to apply. It
// allocates nothing in steady state. Not safe for concurrent use.
type Decoder struct {
	reg      *game.Registry
	typeBits int
	base     *CommonBase
	ring     ring
	scratch  []game.Entity      // per TypeID, created on first use
	states   []game.Snapshotter // per StateID
	dr       *bitmsg.DeltaReader
	state    [game.MaxStateBytes]byte
	evbuf    [game.MaxEventBytes]byte

	// hand[t] and stateHand[id]: the codec is hand-written, and checked
	// (codeccheck.go).
	hand, stateHand []bool
	codec           codecCheck
}

// NewDecoder returns a decoder with an empty base; call Base().Init right
// after loading the map, as the server did.
func NewDecoder(reg *game.Registry) (*Decoder, error) {
	d := &Decoder{
		reg:      reg,
		typeBits: TypeBits(reg),
		base:     NewCommonBase(reg.NumStates()),
		scratch:  make([]game.Entity, int(MaxTypeID(reg))+1),
		hand:     make([]bool, int(MaxTypeID(reg))+1),
		dr:       new(bitmsg.DeltaReader),
	}
	for id := range reg.NumStates() {
		st, ok := reg.State(game.StateID(id))
		if !ok || st.New == nil {
			return nil, fmt.Errorf("%w: state %d", game.ErrUnknownType, id)
		}
		d.states = append(d.states, st.New())
		d.stateHand = append(d.stateHand, handWritten(d.states[id]))
	}
	return d, nil
}

// Base returns the client's common base.
func (d *Decoder) Base() *CommonBase { return d.base }

// Pending returns the number of decoded snapshots not yet applied or
// dropped.
func (d *Decoder) Pending() int { return d.ring.count() }

// Decode reads a snapshot built by the server's Encoder against the base
// this decoder holds, fills s, and keeps the snapshot's new states under
// its sequence number for a later Apply. Network input is hostile: every
// count, number, type and length is checked; on error s is unusable and
// nothing is kept.
func (d *Decoder) Decode(r *bitmsg.Reader, s *Snapshot) error {
	if err := s.Header.read(r); err != nil {
		return err
	}
	if s.Header.BaseSeq != d.base.seq {
		return fmt.Errorf("%w: snapshot %d is against base %d, have %d", ErrBaseMismatch, s.Header.Seq, s.Header.BaseSeq, d.base.seq)
	}
	p := d.ring.start(s.Header.Seq)
	if err := d.decode(r, s, p); err != nil {
		return err
	}
	d.ring.commit(p)
	return nil
}

func (d *Decoder) decode(r *bitmsg.Reader, s *Snapshot, p *pending) error {
	if err := s.PVS.ReadDelta(r, &d.base.pvs); err != nil {
		return err
	}
	*p.pvs = s.PVS
	s.members = s.PVS.appendMembers(s.members[:0])
	s.Entities, s.Cmds, s.Events = s.Entities[:0], s.Cmds[:0], s.Events[:0]
	s.data, s.offs = s.data[:0], s.offs[:0]
	s.States = s.States[:0]

	if err := d.decodeEntities(r, s, p); err != nil {
		return err
	}
	if err := d.decodeStates(r, s, p); err != nil {
		return err
	}
	if err := decodeCmds(r, s); err != nil {
		return err
	}
	if err := d.decodeEvents(r, s); err != nil {
		return err
	}
	s.pointIntoData()
	return nil
}

// decodeEntities reads the PVS entities: written ones are flagged with a
// skip over the omitted, which take their base state.
func (d *Decoder) decodeEntities(r *bitmsg.Reader, s *Snapshot, p *pending) error {
	next := -1 // PVS index of the next written entity; -1: none left
	if k, end := readNext(r); !end {
		next = k
	}
	for i, n := range s.members {
		if next >= len(s.members) {
			break
		}
		es := EntityState{Num: n}
		btyp, bstate, bbits := d.base.Entity(n)
		if i != next {
			if btyp == game.NoType {
				return fmt.Errorf("%w: entity %d in the PVS has no state", ErrCorrupt, n)
			}
			es.Type = btyp
			d.addEntity(s, &es, bstate, int(bbits))
			continue
		}
		es.Changed = true
		es.Spawn = r.ReadBool()
		es.Type = btyp
		if es.Spawn {
			es.Type = game.TypeID(r.ReadBits(d.typeBits))
			if err := r.Err(); err != nil {
				return fmt.Errorf("%w: entity %d: %w", ErrCorrupt, n, err)
			}
			if !known(d.reg, es.Type) || es.Type == btyp {
				return fmt.Errorf("%w: entity %d spawned with type %d (base type %d)", ErrCorrupt, n, es.Type, btyp)
			}
			bstate, bbits = nil, 0
		} else if btyp == game.NoType {
			return fmt.Errorf("%w: entity %d not in the base and not spawned", ErrCorrupt, n)
		}
		ent, err := d.scratchEntity(es.Type)
		if err != nil {
			return err
		}
		bitops.ResetReader(d.dr, bstate, bbits, r, d.state[:])
		ent.ReadSnapshot(d.dr)
		if err := d.dr.Err(); err != nil {
			if e := d.codec.check(d.hand[es.Type], ent, 0, err, r); e != nil {
				return d.entityCodecError(e, n, es.Type)
			}
			return fmt.Errorf("%w: entity %d (type %d): %w", ErrCorrupt, n, es.Type, err)
		}
		if !es.Spawn && !bitops.ReaderChanged(d.dr) {
			return fmt.Errorf("%w: entity %d written without a change", ErrCorrupt, n)
		}
		st, nb := bitops.ReaderState(d.dr)
		if nb != bbits { // a spawn, a new length or a misread (codeccheck.go)
			if e := d.codec.check(d.hand[es.Type], ent, nb, nil, r); e != nil {
				return d.entityCodecError(e, n, es.Type)
			}
		}
		d.addEntity(s, &es, st, nb)
		p.addEnt(n, es.Type, st, nb, 0)
		next = -1
		if k, end := readNext(r); !end {
			next = i + 1 + k
		}
	}
	if err := r.Err(); err != nil {
		return fmt.Errorf("%w: entities: %w", ErrCorrupt, err)
	}
	if next >= 0 {
		return fmt.Errorf("%w: entity index %d beyond the PVS's %d entities", ErrCorrupt, next, len(s.members))
	}
	return nil
}

// decodeStates reads the non-PVS states, each flagged when written.
func (d *Decoder) decodeStates(r *bitmsg.Reader, s *Snapshot, p *pending) error {
	for id, st := range d.states {
		bstate, bbits := d.base.State(game.StateID(id))
		if !r.ReadBool() {
			d.addState(s, false, bstate, bbits)
			continue
		}
		bitops.ResetReader(d.dr, bstate, bbits, r, d.state[:])
		st.ReadSnapshot(d.dr)
		if err := d.dr.Err(); err != nil {
			if e := d.codec.check(d.stateHand[id], st, 0, err, r); e != nil {
				return d.stateCodecError(e, game.StateID(id))
			}
			return fmt.Errorf("%w: state %d: %w", ErrCorrupt, id, err)
		}
		if !bitops.ReaderChanged(d.dr) {
			return fmt.Errorf("%w: state %d written without a change", ErrCorrupt, id)
		}
		nst, nb := bitops.ReaderState(d.dr)
		if nb != bbits {
			if e := d.codec.check(d.stateHand[id], st, nb, nil, r); e != nil {
				return d.stateCodecError(e, game.StateID(id))
			}
		}
		d.addState(s, true, nst, nb)
		p.addState(game.StateID(id), nst, nb)
	}
	return nil
}

// decodeCmds reads the other players' commands, each delta-compressed
// against the one before.
func decodeCmds(r *bitmsg.Reader, s *Snapshot) error {
	prev := -1
	var last game.UserCmd
	for {
		k, end := readNext(r)
		if end || r.Err() != nil {
			break
		}
		j := prev + 1 + k
		if j >= len(s.members) {
			return fmt.Errorf("%w: command for PVS index %d of %d", ErrCorrupt, j, len(s.members))
		}
		c := game.PlayerCmd{Entity: s.members[j], Cmd: game.UserCmd{Frame: s.Header.Frame}}
		if err := usercmd.ReadDelta(r, &last, &c.Cmd); err != nil {
			return fmt.Errorf("%w: command of entity %d: %w", ErrCorrupt, c.Entity, err)
		}
		s.Cmds = append(s.Cmds, c)
		last, prev = c.Cmd, j
	}
	return nil
}

// decodeEvents reads the unreliable events.
func (d *Decoder) decodeEvents(r *bitmsg.Reader, s *Snapshot) error {
	for r.ReadBool() {
		if len(s.Events) == MaxEvents {
			return fmt.Errorf("%w: more than %d events", ErrCorrupt, MaxEvents)
		}
		var ev game.Event
		if err := events.Read(r, &ev, d.evbuf[:]); err != nil {
			return fmt.Errorf("%w: event %d: %w", ErrCorrupt, len(s.Events), err)
		}
		s.offs = append(s.offs, len(s.data))
		s.data = append(s.data, ev.Data...)
		ev.Data = nil
		s.Events = append(s.Events, ev)
	}
	if err := r.Err(); err != nil {
		return fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	return nil
}

// pointIntoData points the entities', states' and events' slices into
// s.data, now that it no longer grows.
func (s *Snapshot) pointIntoData() {
	k := 0
	for i := range s.Entities {
		e := &s.Entities[i]
		e.State = s.data[s.offs[k] : s.offs[k]+(e.Bits+7)/8]
		k++
	}
	for i := range s.States {
		v := &s.States[i]
		v.State = s.data[s.offs[k] : s.offs[k]+(v.Bits+7)/8]
		k++
	}
	for i := range s.Events {
		ev := &s.Events[i]
		ev.Data = s.data[s.offs[k] : s.offs[k]+(ev.Bits+7)/8]
		k++
	}
}

func (d *Decoder) addEntity(s *Snapshot, es *EntityState, state []byte, nbits int) {
	es.Bits = nbits
	s.addData(state, nbits)
	s.Entities = append(s.Entities, *es)
}

func (d *Decoder) addState(s *Snapshot, changed bool, state []byte, nbits int) {
	s.addData(state, nbits)
	s.States = append(s.States, StateValue{Changed: changed, Bits: nbits})
}

// addData appends a state to s.data with the unused bits of its last byte
// cleared, so that equal states have equal bytes.
func (s *Snapshot) addData(state []byte, nbits int) {
	s.offs = append(s.offs, len(s.data))
	s.data = append(s.data, state[:(nbits+7)/8]...)
	if r := nbits & 7; r != 0 {
		s.data[len(s.data)-1] &= byte(1)<<r - 1
	}
}

var (
	_ game.EntitySet = (*PVS)(nil)
	_ Entities       = (game.World)(nil)
)

func (d *Decoder) scratchEntity(t game.TypeID) (game.Entity, error) {
	if int(t) >= len(d.scratch) {
		return nil, fmt.Errorf("%w: type %d", ErrCorrupt, t)
	}
	if d.scratch[t] == nil {
		e, err := d.reg.New(t)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
		}
		d.scratch[t] = e
		d.hand[t] = handWritten(e)
	}
	return d.scratch[t], nil
}

// Apply handles the server's reliable "apply S": it applies snapshot S's new
// states to the base exactly as the server did and drops S and every older
// pending snapshot. An S that is not newer than the base, or that the
// decoder does not hold, means the ends are out of sync: ErrUnknownSnapshot
// (the client must reconnect).
func (d *Decoder) Apply(m ApplyMessage) error {
	if !m.Seq.Newer(d.base.seq) {
		return fmt.Errorf("%w: %d, base is at %d", ErrUnknownSnapshot, m.Seq, d.base.seq)
	}
	p := d.ring.find(m.Seq)
	if p == nil {
		return fmt.Errorf("%w: %d not held", ErrUnknownSnapshot, m.Seq)
	}
	d.base.apply(p)
	d.ring.dropThrough(m.Seq)
	return nil
}

// StateCodec moves full states in and out of entities: Load makes an
// entity read a state (a decoded EntityState, or a base state) through its
// ReadSnapshot; Save returns what its WriteSnapshot writes. It reuses its
// buffers; the client keeps one.
type StateCodec struct {
	dr  *bitmsg.DeltaReader
	dw  *bitmsg.DeltaWriter
	buf [game.MaxStateBytes]byte
}

// NewStateCodec returns a StateCodec.
func NewStateCodec() *StateCodec {
	return &StateCodec{dr: new(bitmsg.DeltaReader), dw: new(bitmsg.DeltaWriter)}
}

// Load makes dst read the full state (nbits bits of state).
func (c *StateCodec) Load(dst game.Snapshotter, state []byte, nbits int) error {
	bitops.ResetReader(c.dr, state, nbits, nil, c.buf[:])
	dst.ReadSnapshot(c.dr)
	return c.dr.Err()
}

// Save returns src's full state; the bytes alias c until the next call.
func (c *StateCodec) Save(src game.Snapshotter) ([]byte, int, error) {
	bitops.ResetWriter(c.dw, nil, 0, nil, c.buf[:])
	src.WriteSnapshot(c.dw)
	st, nb := bitops.WriterState(c.dw)
	return st, nb, c.dw.Err()
}
