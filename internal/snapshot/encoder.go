package snapshot

import (
	"fmt"
	"slices"
	"time"

	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/events"
)

// MaxEvents bounds the unreliable events in one snapshot.
const MaxEvents = 255

// Entities looks entities up by number; game.World and game.EntityTable
// implement it.
type Entities interface {
	// Entity returns entity n and its type, or (nil, NoType).
	Entity(n game.EntityNum) (game.Entity, game.TypeID)
}

// EntityVersions is an optional interface of the Entities given to a FrameCache: a world that
// tracks which entities its frames change, as most entities of a frame do not (a map's lights,
// pickups and props between uses). The cache keeps the previous frame's encoding of an entity
// whose version did not change instead of calling its WriteSnapshot again and comparing the bits
// (snapwire's, not DOOM III's: the paper writes every entity of a snapshot through
// WriteToSnapshot, §5).
type EntityVersions interface {
	// EntityVersion returns a number that identifies entity n's current state: its presence,
	// its type and every variable its WriteSnapshot writes. A world returns a new number after
	// any change to them, never one it returned for another state of n, and never one another
	// world given to the same cache could return for n; 0 means not known (the entity is
	// encoded). A wrong version sends a stale state, so a world that cannot see all of its
	// changes (its entities' fields set from outside) must not implement it, or must be told.
	EntityVersion(n game.EntityNum) uint64
}

// Input is what the server gives Encoder.Build for one client's snapshot.
type Input struct {
	Frame      game.Frame    // game frame of the snapshot (the state after running it)
	Time       time.Duration // game time of Frame
	Duplicated int           // client's commands duplicated since its previous snapshot
	Lead       time.Duration // how early the client's commands arrive
	// PVS is the client's PVS (Game.Visible); numbers without a live
	// entity are dropped. nil is the empty set.
	PVS *PVS
	// World gives the entities.
	World Entities
	// States holds the client's instance of each non-PVS state, indexed by
	// StateID (Game.State); len must be Registry.NumStates().
	States []game.Snapshotter
	// Cmds holds the latest commands of the other players, ascending by
	// entity; those whose entity is not in the PVS are skipped (DOOM III
	// §3.2). Leave out the receiving client's own player, or name it in
	// Own.
	Cmds []game.PlayerCmd
	// Own, when HasOwn, is the receiving client's player entity: its
	// command in Cmds is not written (the client has its own commands), so
	// a server gives every client of a frame the same Cmds.
	Own    game.EntityNum
	HasOwn bool
	// Events holds the unreliable events for this snapshot (DOOM III §8),
	// at most MaxEvents.
	Events []game.Event
	// Cache, when not nil, shares the entities' encoding between the clients
	// of a frame (see FrameCache): give every client's Build of a server the
	// same cache. nil encodes every entity through its WriteSnapshot for
	// this client alone. The snapshot's bits are the same either way.
	Cache *FrameCache
	// Hold, when set, is asked for every entity of the PVS that the base
	// holds with the same type: true leaves it out of this snapshot (not
	// written, and its base state stays when the snapshot is applied),
	// which is how a server updates entities at their own rate or stops
	// updating one the client's prediction carries (DOOM III §8). A new
	// entity (a spawn) is always written. nil holds nothing. The decoder
	// cannot tell a held entity from an unchanged one: a client gives it
	// its base state unless it knows by the same rule that the entity was
	// held ("snapwire models" measures the bytes §8's ideas save with it).
	Hold func(n game.EntityNum) bool
}

// member is a live entity of the PVS being written. It holds no pointer (its
// Entity is in Encoder.ents, its cached state in the FrameCache's entry of
// its number), so that filling the list costs no GC write barriers.
type member struct {
	num game.EntityNum
	typ game.TypeID
}

// Encoder builds the snapshots of one client on the server and keeps that
// client's common base and pending snapshots. It allocates nothing in
// steady state. Not safe for concurrent use.
type Encoder struct {
	reg      *game.Registry
	typeBits int
	base     *CommonBase
	ring     ring
	next     Seq
	dw       *bitmsg.DeltaWriter
	pvs      PVS
	members  []member
	cmdOps   []cmdOp       // writeCmds's steps
	ents     []game.Entity // without a FrameCache: members[i]'s Entity
	state    [game.MaxStateBytes]byte
	hold     func(n game.EntityNum) bool // Input.Hold of the Build under way
	// stateHint: per StateID, the index of this client's instance in the FrameCache's
	// states last time (FrameCache.state).
	stateHint []int32
}

// NewEncoder returns an encoder for one client with an empty base; call
// Base().Init or Base().CopyFrom before the first Build.
func NewEncoder(reg *game.Registry) *Encoder {
	return &Encoder{
		reg:       reg,
		typeBits:  TypeBits(reg),
		base:      NewCommonBase(reg.NumStates()),
		next:      1,
		dw:        new(bitmsg.DeltaWriter),
		stateHint: make([]int32, reg.NumStates()),
	}
}

// Base returns the client's common base on the server.
func (e *Encoder) Base() *CommonBase { return e.base }

// NextSeq returns the sequence number the next Build will use.
func (e *Encoder) NextSeq() Seq { return e.next }

// Pending returns the number of snapshots built and neither applied nor
// dropped.
func (e *Encoder) Pending() int { return e.ring.count() }

// Build writes the next snapshot into w (see doc.go for the layout) and
// records its new states as pending under its sequence number. On error
// (an invalid input, an entity whose state is invalid or exceeds
// game.MaxStateBits, or w overflowing) nothing is recorded, the sequence
// number is not used and w holds a partial message.
func (e *Encoder) Build(w *bitmsg.Writer, in *Input) (Header, error) {
	h := Header{Seq: e.next, BaseSeq: e.base.seq, Frame: in.Frame, Time: in.Time, Duplicated: in.Duplicated, Lead: in.Lead}
	switch {
	case len(in.States) != len(e.base.states):
		return h, fmt.Errorf("%w: %d states, registry has %d", ErrInput, len(in.States), len(e.base.states))
	case len(in.Events) > MaxEvents:
		return h, fmt.Errorf("%w: %d events, at most %d", ErrInput, len(in.Events), MaxEvents)
	case in.Frame < 0:
		return h, fmt.Errorf("%w: frame %d", ErrInput, in.Frame)
	case in.World == nil && in.PVS != nil && in.PVS.Len() > 0:
		return h, fmt.Errorf("%w: a PVS without a World", ErrInput)
	}
	p := e.ring.start(h.Seq)
	e.hold = in.Hold
	err := e.build(w, in, &h, p)
	e.hold = nil
	if err != nil {
		clear(e.ents)
		return h, err
	}
	clear(e.ents) // do not keep entities alive
	e.ring.commit(p)
	e.next++
	return h, nil
}

func (e *Encoder) build(w *bitmsg.Writer, in *Input, h *Header, p *pending) error {
	h.Write(w)

	// The PVS written is the client's PVS restricted to live entities.
	e.pvs.Clear()
	e.members, e.ents = e.members[:0], e.ents[:0]
	cache := in.Cache
	if cache != nil {
		cache.begin(in.Frame)
	}
	if in.PVS != nil && cache != nil {
		// The entries Prepare (or an earlier Build) looked up this frame are read in place;
		// the others go through the cache, which encodes them.
		typs := &noTypes // indexed by numbers masked to their range
		if !cache.stale && cache.ents != nil {
			typs = (*[game.MaxEntities]game.TypeID)(cache.typs)
		}
		members := e.members
		for i, bits := range in.PVS {
			live := bits // less the numbers with no live entity, met below
			for ; bits != 0; bits &= bits - 1 {
				n := game.EntityNum(i*32 + trailingZeros(bits))
				typ := typs[n&(game.MaxEntities-1)]
				if typ == typUnknown {
					ce, err := cache.entity(n, in.World, e.reg)
					if err != nil {
						e.members = members
						return err
					}
					typ = ce.typ
				}
				if typ == game.NoType {
					live &^= bits & -bits
					continue
				}
				members = append(members, member{num: n, typ: typ})
			}
			e.pvs[i] = live
		}
		e.members = members
	} else if in.PVS != nil {
		for i, bits := range in.PVS {
			for bits != 0 {
				b := bits & -bits
				bits &^= b
				n := game.EntityNum(i*32 + trailingZeros(b))
				ent, typ := in.World.Entity(n)
				if ent == nil {
					continue
				}
				if !known(e.reg, typ) {
					return fmt.Errorf("%w: entity %d has unregistered type %d", ErrInput, n, typ)
				}
				e.pvs[i] |= b
				e.members = append(e.members, member{num: n, typ: typ})
				e.ents = append(e.ents, ent)
			}
		}
	}
	*p.pvs = e.pvs
	e.pvs.WriteDelta(w, &e.base.pvs)

	// Entities whose encoding differs from the base (DOOM III §4.2, §5).
	var err error
	if cache != nil {
		err = e.writeCached(w, cache, p)
	} else {
		err = e.writeEntities(w, p)
	}
	if err != nil {
		return err
	}
	writeEnd(w)

	// Non-PVS states (DOOM III §3.2, §8): a changed flag, then the delta.
	if err := e.writeStates(w, in, cache, p); err != nil {
		return err
	}

	// Latest commands of the other players in the PVS (DOOM III §2, §3.2).
	own := -1
	if in.HasOwn {
		own = int(in.Own)
	}
	if err := e.writeCmds(w, in.Cmds, own, cache); err != nil {
		return err
	}
	writeEnd(w)

	// Unreliable events: written once, lost with the snapshot (DOOM III §8).
	for i := range in.Events {
		w.WriteBool(true)
		if err := events.Write(w, &in.Events[i]); err != nil {
			return fmt.Errorf("snapshot: event %d: %w", i, err)
		}
	}
	w.WriteBool(false)
	if err := w.Err(); err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	return nil
}

// writeStates writes the non-PVS states (DOOM III §3.2, §8): per state a
// changed flag, then the delta against the base.
func (e *Encoder) writeStates(w *bitmsg.Writer, in *Input, cache *FrameCache, p *pending) error {
	for id, s := range in.States {
		if cache != nil {
			if err := e.writeCachedState(w, cache, game.StateID(id), s, p); err != nil {
				return err
			}
			continue
		}
		bstate, bbits := e.base.State(game.StateID(id))
		mark := w.Len()
		w.WriteBool(true)
		bitops.ResetWriter(e.dw, bstate, bbits, w, e.state[:])
		s.WriteSnapshot(e.dw)
		if err := e.dw.Err(); err != nil {
			return fmt.Errorf("snapshot: state %d: %w", id, err)
		}
		if err := w.Err(); err != nil {
			return fmt.Errorf("snapshot: state %d: %w", id, err)
		}
		if !bitops.WriterChanged(e.dw) {
			bitops.Truncate(w, mark)
			w.WriteBool(false)
			continue
		}
		st, nb := bitops.WriterState(e.dw)
		p.addState(game.StateID(id), st, nb)
	}
	return nil
}

// Ack handles the client's acknowledgement of snapshot seq. If seq is newer
// than the last applied snapshot and still pending, Ack applies it to the
// base, drops it and every older pending snapshot, and returns the reliable
// message the caller must queue to the client ("apply S", DOOM III §4.2).
// Late, duplicate and unknown acknowledgements return ok == false and
// change nothing.
func (e *Encoder) Ack(seq Seq) (msg ApplyMessage, ok bool) {
	if !seq.Newer(e.base.seq) {
		return ApplyMessage{}, false
	}
	p := e.ring.find(seq)
	if p == nil {
		return ApplyMessage{}, false
	}
	e.base.apply(p)
	e.ring.dropThrough(seq)
	return ApplyMessage{Seq: seq}, true
}

// writeCmds writes the commands of cmds whose entities are in the live PVS, each
// delta-compressed against the one written before it. With a cache and chainMinCmds commands
// or more, a command whose bits are the next element of the frame's command chain (the command
// written before it being the element before, with no member between their entities) is
// copied from the chain, a stretch of them in one go. planCmds decides, without a call (its
// values stay in registers); the writes follow. The command of entity own (-1: none) is not
// written.
func (e *Encoder) writeCmds(w *bitmsg.Writer, cmds []game.PlayerCmd, own int, cache *FrameCache) error {
	if cache == nil || len(cmds) < chainMinCmds {
		return e.writeCmdsDirect(w, cmds, own)
	}
	ch := cache.chain(cmds)
	e.cmdOps = slices.Grow(e.cmdOps[:0], len(cmds))
	ops, ok := planCmds(e.cmdOps[:len(cmds)], cmds, own, &e.pvs, ch.ents)
	if !ok {
		return fmt.Errorf("%w: commands not in ascending entity order", ErrInput)
	}
	var zero game.UserCmd
	for _, op := range ops {
		if op.cmd < 0 {
			writeBitsRange(w, ch.buf, int(op.from), int(op.to-op.from))
			cache.cmdHits++
			continue
		}
		c, base, from := &cmds[op.cmd], &zero, game.EntityNum(0)
		if op.base >= 0 {
			base, from = &cmds[op.base].Cmd, cmds[op.base].Entity+1
		}
		skip := e.pvs.count(from, c.Entity) // the members passed over since the last command
		code, n := nextCode(skip)
		if err := writeCmdDelta(w, base, &c.Cmd, code, n); err != nil {
			return fmt.Errorf("snapshot: command of entity %d: %w", c.Entity, err)
		}
	}
	return nil
}

// chainMinCmds is how many commands a Build needs for the frame's command chain: with fewer, a
// client writes them itself (writeCmdsDirect), which costs less than planning copies (callgrind:
// the chain took the 16-player scenarios' cost up by 2%, and the 64-player one's down by 7%).
const chainMinCmds = 32

// writeCmdsDirect is writeCmds without the chain: every command written against the one before.
func (e *Encoder) writeCmdsDirect(w *bitmsg.Writer, cmds []game.PlayerCmd, own int) error {
	prev, j := -1, 0 // the member index of the last command written; the member walk
	var zero game.UserCmd
	last, members := &zero, e.members
	for i := range cmds {
		c := &cmds[i]
		if i > 0 && c.Entity <= cmds[i-1].Entity {
			return fmt.Errorf("%w: commands not in ascending entity order", ErrInput)
		}
		if int(c.Entity) == own {
			continue
		}
		for j < len(members) && members[j].num < c.Entity {
			j++
		}
		if j == len(members) || members[j].num != c.Entity {
			continue
		}
		code, n := nextCode(j - prev - 1)
		if err := writeCmdDelta(w, last, &c.Cmd, code, n); err != nil {
			return fmt.Errorf("snapshot: command of entity %d: %w", c.Entity, err)
		}
		last, prev = &c.Cmd, j
	}
	return nil
}

// cmdOp is a step of writing the commands: command cmd delta-compressed against command base
// (-1: the zero command), or when cmd is -1, bits from to to of the chain.
type cmdOp struct {
	cmd, base int32
	from, to  uint32
}

// planCmds returns the steps that write the commands of cmds whose entities are in pvs (the
// live PVS) other than entity own's, in ops (len(ops) >= len(cmds): there is at most one step
// per command), and false if cmds are not in ascending entity order.
func planCmds(ops []cmdOp, cmds []game.PlayerCmd, own int, pvs *PVS, chain []chainEnt) ([]cmdOp, bool) {
	// The order first: the walk below jumps over commands.
	for i := 1; i < len(cmds); i++ {
		if cmds[i].Entity <= cmds[i-1].Entity {
			return nil, false
		}
	}
	k := 0                  // steps so far
	prevEnt, last := -1, -1 // the entity and the command index of the last command written
	ci, next := 0, -1       // the chain's element for the command; the element that would go on a stretch
	for i := 0; i < len(cmds); i++ {
		c := &cmds[i]
		ent := int(c.Entity) & (game.MaxEntities - 1)
		if int(c.Entity) != ent {
			break // out of range, and so are the commands after it
		}
		if pvs[ent/32]&(1<<(ent%32)) == 0 || ent == own {
			// Not in the live PVS, or the client's own: on to the first command at or after the
			// next member, so that a client's walk follows its PVS, not the players (issue 25).
			i += cmdsBelow(cmds[i+1:], pvs.next(ent+1))
			continue
		}
		if ci < len(chain) && int(chain[ci].num) < ent {
			ci += chainBelow(chain[ci:], ent)
		}
		onChain := ci < len(chain) && int(chain[ci].num) == ent && chain[ci].key == cmdKey(&c.Cmd) &&
			chain[ci].pitch == c.Cmd.Pitch
		if onChain && ci == next && pvs.noneBetween(prevEnt, ent) { // next >= 1: the element before ends where ci starts
			ops[k] = cmdOp{cmd: -1, from: chain[ci-1].end, to: chain[ci].end}
		} else {
			ops[k] = cmdOp{cmd: int32(i), base: int32(last)}
		}
		k++
		next = -1
		if onChain {
			// The commands after it that go on along the chain, copied with it.
			if n := chainStretch(cmds[i:], chain[ci:], own, pvs); n > 0 {
				if ops[k-1].cmd >= 0 {
					ops[k] = cmdOp{cmd: -1, from: chain[ci].end}
					k++
				}
				i, ci = i+n, ci+n
				ops[k-1].to = chain[ci].end
			}
			next = ci + 1
		}
		prevEnt, last = int(cmds[i].Entity), i
	}
	return ops[:k], true
}

// chainStretch returns how many commands after cmds[0], whose bits are chain[0]'s, have the bits
// of the chain's next elements: each in pvs, with no member of pvs between it and the one
// before (within one word of pvs here; planCmds looks further), and equal to the element; the
// stretch ends before entity own's command.
func chainStretch(cmds []game.PlayerCmd, chain []chainEnt, own int, pvs *PVS) int {
	k := 1
	for ; k < len(cmds) && k < len(chain); k++ {
		c, ce := &cmds[k], &chain[k]
		num := c.Entity
		if num != ce.num || num >= game.MaxEntities || ce.key != cmdKey(&c.Cmd) || ce.pitch != c.Cmd.Pitch || int(num) == own {
			break
		}
		// The command before is the element before, whose number is below num (the chain
		// ascends): num is the next member if no member of its word lies between them.
		prev, word := cmds[k-1].Entity, pvs[num/32%PVSChunks]
		if word>>(num%32)&1 == 0 ||
			num != prev+1 && (num/32 != prev/32 || word&(1<<(num%32)-1)>>(prev%32)>>1 != 0) {
			break
		}
	}
	return k - 1
}

// writeEntities writes the members whose encoding differs from the base,
// each through its WriteSnapshot and a DeltaWriter seeded with its base
// state: the reference path, used without a FrameCache.
func (e *Encoder) writeEntities(w *bitmsg.Writer, p *pending) error {
	prev := -1
	for i := range e.members {
		m := &e.members[i]
		btyp, bstate, bbits := e.base.Entity(m.num)
		spawn := btyp != m.typ
		if !spawn && e.hold != nil && e.hold(m.num) {
			continue // held: the base state stands (§8)
		}
		mark := w.Len()
		writeNext(w, i-prev-1)
		w.WriteBool(spawn)
		if spawn {
			w.WriteBits(uint32(m.typ), e.typeBits)
			bstate, bbits = nil, 0
		}
		bitops.ResetWriter(e.dw, bstate, bbits, w, e.state[:])
		e.ents[i].WriteSnapshot(e.dw)
		if err := e.dw.Err(); err != nil {
			return fmt.Errorf("snapshot: entity %d (type %d): %w", m.num, m.typ, err)
		}
		if err := w.Err(); err != nil { // before Truncate, which clears ErrOverflow
			return fmt.Errorf("snapshot: entity %d: %w", m.num, err)
		}
		if !spawn && !bitops.WriterChanged(e.dw) {
			bitops.Truncate(w, mark) // unchanged: omitted, costs nothing
			continue
		}
		st, nb := bitops.WriterState(e.dw)
		p.addEnt(m.num, m.typ, st, nb, 0)
		prev = i
	}
	return nil
}

// writeCached writes the members whose encoding differs from the base from
// their cached states. An entity whose state bits equal its base's is
// omitted (the DeltaWriter would find every field equal and the lengths
// too): found by its base label, the version of its cached state, or else
// by a memory compare, which a delta kept for the same base makes needless
// (it was written because the bits differ). A changed one is written by
// the layout replay (bitlayout.Funcs.WriteDelta) from the two bit strings and the layout, which
// gives the DeltaWriter's bits, or replayed from the delta memo; and a
// stretch of changed members that another client of the frame wrote
// against the same base versions is replayed whole from the cache's runs.
func (e *Encoder) writeCached(w *bitmsg.Writer, c *FrameCache, p *pending) error {
	ents := (*[game.MaxEntities]cacheEntry)(c.ents) // indexed by numbers masked to their range: no bounds checks
	base := e.base
	// The pending snapshot's lists in locals, stored back once: no write barrier per entity.
	pents, pbuf := p.ents, p.buf
	// Runs are recorded and replayed only where every member is written or omitted by its
	// bits alone (no Hold).
	runs := e.hold == nil
	var rec runRecording
	members := e.members // in a local: the stores below cannot change it
	hold := e.hold
	prev := -1
	for i := 0; i < len(members); i++ {
		if hold == nil {
			// Most members are omitted, their base state being this very encoding: passed over
			// in a loop of their own, with few values to keep in registers.
			i = omitted(members, i, ents, &base.ents)
			if i == len(members) {
				break
			}
		}
		m := &members[i]
		ce := &ents[m.num&(game.MaxEntities-1)]
		be := &base.ents[m.num&(game.MaxEntities-1)]
		label := be.label()
		if label == ce.ver && label != 0 {
			// Its base state is this very encoding (so of the same type): omitted, whether
			// held (§8) or unchanged.
			if hold != nil {
				hold(m.num)
			}
			continue
		}
		spawn := be.typ != m.typ
		var memo *memoRec // a delta of this entity against this base, kept or to keep
		if !spawn {
			if hold != nil && hold(m.num) {
				continue // held: the base state stands (§8)
			}
			if runs && label != 0 {
				if r := c.runFind(m.num, ce, label); r != nil {
					// Another client wrote this entity against the same base, and the
					// members after it: replay as many as are this client's too.
					k := e.runMatch(c, r, i)
					rec.close(c, w, pents, pbuf)
					code, n := nextCode(i - prev - 1)
					w.WriteBits(code, n) // the run's bits start at the spawn flag
					bitops.WriteBitsFrom(w, c.memoBuf[r.outOff:cap(c.memoBuf)], int(c.runEnts[int(r.first)+k-1].endBit))
					if err := w.Err(); err != nil {
						p.ents, p.buf = pents, pbuf
						return fmt.Errorf("snapshot: entity %d: %w", m.num, err)
					}
					if r.pents >= 0 { // the run's pending entries and bytes, appended whole
						rp := c.runPents[r.pents : int(r.pents)+k]
						last := &rp[k-1]
						boff := uint32(len(pbuf))
						j := len(pents)
						pents = append(pents, rp...)
						added := pents[j:]
						for q := range added {
							added[q].off += boff
						}
						pbuf = append(pbuf, c.runBytes[r.bytesOff:r.bytesOff+last.off+(uint32(last.bits)+7)/8]...)
					} else {
						for _, mm := range members[i : i+k] {
							cm := &ents[mm.num&(game.MaxEntities-1)]
							pents, pbuf = appendEnt(pents, pbuf, mm.num, mm.typ, c.state(cm), int(cm.bits), cm.ver)
						}
					}
					c.memoHits += k
					c.runHits += k
					prev = i + k - 1
					i = prev
					continue
				}
			}
			if memo = c.memoFind(m.num, ce, label); memo == nil && be.bits == ce.bits {
				nb := uint32(ce.bits+7) / 8
				if string(base.arena[be.off:be.off+nb]) == string(c.slots[ce.off:ce.off+nb]) {
					be.setLabel(ce.ver) // equal bits: the label saves the compare next time
					continue            // unchanged: omitted
				}
			}
		}
		st, nbits := c.state(ce), int(ce.bits)
		// The next code and the spawn flag in one write (writeNext, then WriteBool).
		code, n := nextCode(i - prev - 1)
		if spawn {
			code |= 1 << n
		}
		// A run goes on while the members written follow one another; it starts at an
		// entity's spawn flag.
		if !runs || spawn || label == 0 || prev != i-1 {
			rec.close(c, w, pents, pbuf)
		}
		mark := w.Len() + n
		w.WriteBits(code, n+1)
		if spawn {
			w.WriteBits(uint32(m.typ), e.typeBits)
			c.writeEntDelta(w, m.num, ce, st, nbits, nil, 0, noBaseVersion, c.memoFind(m.num, ce, noBaseVersion))
		} else {
			c.writeEntDelta(w, m.num, ce, st, nbits, base.arena[be.off:], int(be.bits), label, memo)
		}
		if err := w.Err(); err != nil {
			p.ents, p.buf = pents, pbuf
			return fmt.Errorf("snapshot: entity %d: %w", m.num, err)
		}
		if runs && !spawn && label != 0 {
			rec.add(c, m.num, label, mark, w.Len(), len(pents), len(pbuf))
		}
		pents, pbuf = appendEnt(pents, pbuf, m.num, m.typ, st, nbits, ce.ver)
		prev = i
	}
	rec.close(c, w, pents, pbuf)
	p.ents, p.buf = pents, pbuf
	return nil
}

// omitted returns the index of the first of members from i on whose base state is not its cached
// encoding (the label is not the entry's version), or len(members).
func omitted(members []member, i int, ents *[game.MaxEntities]cacheEntry, base *[game.MaxEntities]baseEntry) int {
	for ; i < len(members); i++ {
		n := members[i].num & (game.MaxEntities - 1)
		if l := base[n].label(); l != ents[n].ver || l == 0 {
			break
		}
	}
	return i
}

// noTypes is FrameCache.typs for a cache that holds nothing: every entity to be looked up.
var noTypes = func() (t [game.MaxEntities]game.TypeID) {
	for i := range t {
		t[i] = typUnknown
	}
	return t
}()

// runMatch returns how many entities of run r, at least its first, are written by this client
// from member i on with the run's bits: the same entity numbers one after the other, each
// changed against a base state of the version the run's delta is against (and so of the same
// type: not a spawn).
func (e *Encoder) runMatch(c *FrameCache, r *runRec, i int) int {
	return matchRun(c.runEnts[r.first:r.first+r.n], e.members[i:], &e.base.ents, (*[game.MaxEntities]cacheEntry)(c.ents))
}

// matchRun is runMatch's loop, over the run's entities rents and the members from the first
// of the run on; it calls nothing, so that its values stay in registers.
func matchRun(rents []runEnt, members []member, base *[game.MaxEntities]baseEntry, ents *[game.MaxEntities]cacheEntry) int {
	n := min(len(rents), len(members))
	k := 1
	for ; k < n; k++ {
		m, num := &members[k], rents[k].num
		be := &base[num&(game.MaxEntities-1)]
		if m.num != num || be.typ != m.typ {
			break
		}
		if l := be.label(); l != rents[k].label || l == ents[num&(game.MaxEntities-1)].ver {
			break
		}
	}
	return k
}

// runRecording is the run a client is writing (writeCached): its entities go into the cache's
// runEnts as they are written, from index first; its bits start at startBit of the writer.
type runRecording struct {
	on       bool
	first    int
	startBit int
	num      game.EntityNum // its first entity
	// pent and pbufOff: where its first entity's pending entry and state bytes are in the
	// client's pending snapshot (its entities' entries and bytes follow one another there).
	pent, pbufOff int
}

// add appends entity n, written against the base state of version label from bit mark (its
// spawn flag) to bit end, to the run being recorded, or starts one with it; its pending entry
// and state bytes are to be at pent and pbufOff of the client's pending snapshot.
func (r *runRecording) add(c *FrameCache, n game.EntityNum, label uint64, mark, end, pent, pbufOff int) {
	if !r.on {
		if len(c.runEnts) == runEntsMax {
			return
		}
		r.on, r.first, r.startBit, r.num = true, len(c.runEnts), mark, n
		r.pent, r.pbufOff = pent, pbufOff
	}
	if len(c.runEnts) == runEntsMax {
		return // the run ends here
	}
	c.runEnts = append(c.runEnts, runEnt{num: n, label: label, endBit: uint32(end - r.startBit)})
}

// close ends the run being recorded, w being at its end: a run of two entities or more is kept
// for the generation (bounded: memoRecs runs, memoBytes of bits in memoBuf, memoChain runs per
// starting entity), a shorter one dropped.
func (r *runRecording) close(c *FrameCache, w *bitmsg.Writer, pents []pendingEnt, pbuf []byte) {
	if !r.on {
		return
	}
	r.on = false
	n := len(c.runEnts) - r.first
	h := c.heads(r.num, &c.ents[r.num])
	depth := 0
	for i := h.run; i >= 0 && depth < memoChain; i = c.runs[i].next {
		depth++
	}
	c.memoMemory()
	if n < 2 || depth >= memoChain || len(c.runs) == memoRecs || cap(c.memoBuf)-len(c.memoBuf) < (w.Len()-r.startBit+7)/8 {
		c.runEnts = c.runEnts[:r.first]
		return
	}
	if c.runs == nil {
		c.runs = make([]runRec, 0, memoRecs)
		c.runEnts = slices.Grow(c.runEnts, runEntsMax)
	}
	off := len(c.memoBuf)
	c.memoBuf, _ = bitops.AppendSince(w, c.memoBuf, r.startBit)
	rr := runRec{next: h.run, first: int32(r.first), n: int32(n), outOff: uint32(off), pents: -1}
	// The run's pending entries and state bytes too, which every client replaying it appends
	// to its pending snapshot as they are (offsets from the run's first byte).
	if r.pent+n <= len(pents) {
		last := &pents[r.pent+n-1]
		end := int(last.off) + (int(last.bits)+7)/8
		if c.runPents == nil {
			c.runPents = make([]pendingEnt, 0, runEntsMax)
			c.runBytes = make([]byte, 0, memoBytes)
		}
		if end <= len(pbuf) && cap(c.runBytes)-len(c.runBytes) >= end-r.pbufOff {
			rr.pents, rr.bytesOff = int32(len(c.runPents)), uint32(len(c.runBytes))
			for _, pe := range pents[r.pent : r.pent+n] {
				pe.off -= uint32(r.pbufOff)
				c.runPents = append(c.runPents, pe)
			}
			c.runBytes = append(c.runBytes, pbuf[r.pbufOff:end]...)
		}
	}
	c.runs = append(c.runs, rr)
	h.run = int32(len(c.runs) - 1)
}

// writeCachedState writes non-PVS state id of instance s from its cached encoding (encoded
// once per frame per instance): a 0 bit when its bits equal the base's (the DeltaWriter would
// find it unchanged), else a 1 bit and its delta by the layout replay (bitlayout.Funcs.WriteDelta), which gives the
// DeltaWriter's bits.
func (e *Encoder) writeCachedState(w *bitmsg.Writer, c *FrameCache, id game.StateID, s game.Snapshotter, p *pending) error {
	se, err := c.stateOf(s, &e.stateHint[id])
	if err != nil {
		return fmt.Errorf("snapshot: state %d: %w", id, err)
	}
	st, nbits := c.buf[se.off:cap(c.buf)], int(se.bits)
	bstate, bbits := e.base.stateWide(id)
	if bbits == nbits {
		nb := (nbits + 7) / 8
		if string(bstate[:nb]) == string(st[:nb]) {
			w.WriteBool(false)
			return nil
		}
	}
	w.WriteBool(true)
	if c.view {
		bitops.WriteDelta(w, &se.layout, st, nbits, bstate, bbits)
	} else {
		c.writeStateDelta(w, se, st, nbits, bstate, bbits)
	}
	if err := w.Err(); err != nil {
		return fmt.Errorf("snapshot: state %d: %w", id, err)
	}
	p.addState(id, st, nbits)
	return nil
}
