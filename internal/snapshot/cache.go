package snapshot

import (
	"errors"
	"fmt"
	"math"
	"sync/atomic"
	"unsafe"

	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/bitlayout"
)

// FrameCache shares the encoding of entity states between the clients of one game frame.
// Every client's snapshot of a frame sees the same entity states; only the common base each
// is delta-compressed against differs (DOOM III §4.2). With a cache in Input.Cache, Build
// writes each visible entity's full state through its WriteSnapshot once per frame, keeping
// the state bits and their field layout (bitlayout.Layout); every client's Build then omits an
// entity whose state bits equal its base's (a length and memory compare) and writes the delta
// of a changed one from the two bit strings (the layout replay (bitlayout.Funcs.WriteDelta)), with no call into the
// game. The bits are exactly those the per-client DeltaWriter path writes (cache_test.go).
//
// What clients write is shared too, within a fixed memory bound per frame beyond which a
// client writes its own bits:
//   - a delta: clients whose bases advanced through the same acknowledged states hold the
//     same base state for an entity, so the delta one client wrote against it is replayed
//     for the next;
//   - a run of consecutive changed entities one client wrote is replayed, as far as it
//     matches, for a later client whose PVS members and base states match from its first
//     entity on;
//   - the other players' commands (Input.Cmds), when there are enough of them, are written
//     once per frame as a chain, each against the one before, and a client copies the
//     stretches of its own commands that follow the chain (each command checked by value)
//     and writes the others itself.
//
// The non-PVS states (Input.States) are cached the same way, per instance rather than per
// StateID (a scoreboard shared by every client is encoded once per frame, each client's own
// statistics once each): Build writes a 0 bit for a state whose bits equal its base's and the
// WriteDelta of a changed one (PrepareStates encodes them ahead, as Prepare does entities).
//
// Each cached entity state carries a version, a number no other encoding in the process has,
// kept from frame to frame while the entity's bits stay the same (Prepare compares them once
// per frame, not once per client; a world implementing EntityVersions spares even that for
// the entities it reports unchanged). An Encoder labels each state of its common base with
// the version it was taken from, so that an entity whose base label is its cached version is
// omitted without reading the base's bytes, and shared deltas are found by that label.
//
// The cache keys its contents on Input.Frame: a Build with another frame than the cache's
// starts a new frame. The entities must not change between Builds of the same frame: a server
// that changes entities outside its frame (a spawn on connect, say) calls Invalidate. The
// zero value is ready to use; one cache serves every client of a server (it is not safe for
// concurrent use, but ShareFrom makes read-only views of its frame for other goroutines). It
// allocates nothing in steady state.
type FrameCache struct {
	frame game.Frame
	gen   uint32 // entries of this generation are valid; 0: nothing cached
	ents  []cacheEntry
	// typs[n] is entity n's type this generation (NoType: no live entity), typUnknown until the
	// entity is looked up: what a Build reads first for each entity of its PVS, two bytes
	// apiece (the entries are 48).
	typs []game.TypeID
	// typsSet lists the entities whose typs entry this generation set, for Invalidate to
	// reset (not all MaxEntities of them: a small match looks up a few dozen).
	typsSet []game.EntityNum
	// layouts[n]: entity n's field layout, read only to write a delta that is not in the memo
	// (kept apart from ents so that the entries every client reads stay small).
	layouts []bitlayout.Layout
	// slots holds every entity's last encoding, each in a slot of its own (cacheEntry.off,
	// cap) kept from generation to generation: an entity the world reports unchanged keeps its
	// bits where they are. slotGarbage counts the bytes of slots no entry uses any more
	// (compactSlots). cap(slots) >= len(slots)+8: a whole-word read past the last state stays
	// inside.
	slots       []byte
	slotGarbage int
	scratch     [game.MaxStateBytes + 8]byte // where encode writes a state before it is compared and stored
	buf         []byte                       // the non-PVS states of this generation, back to back
	// nextVer up to endVer is the block of versions this cache draws from (newVersion).
	nextVer, endVer uint64
	dw              bitmsg.DeltaWriter
	// states holds the non-PVS state instances encoded this generation (the first nstates),
	// in the order first seen.
	states  []stateEntry
	nstates int
	stateIx map[[2]unsafe.Pointer]int32 // instance (ifaceWords) -> index in states
	// memo shares entity deltas between the clients of the generation (writeEntDelta):
	// records chained per cache entry, keyed by the base state's version, their delta bits in
	// memoBuf. Both are bounded (memoRecs, memoBytes); when full, deltas are written without
	// being kept.
	memo        []memoRec
	memoBuf     []byte
	memoHits    int // deltas replayed from the memo since the cache was made (tests)
	keptHits    int // encodings kept from an earlier generation by their EntityVersion (tests)
	stateHits   int // state deltas replayed from a state's memo (tests)
	compactions int // compactSlots runs (tests)
	// runs share longer stretches: the bits of consecutive entities one client wrote (each
	// changed, against the base state of a known version), replayed whole or in part for
	// the next client whose members and base versions match (Encoder.writeCached). Their
	// entities are in runEnts, their bits in memoBuf; bounded by memoRecs and runEntsMax.
	runs    []runRec
	runEnts []runEnt
	// runPents and runBytes: the runs' pending entries and state bytes (runRec.pents), bounded
	// by runEntsMax entries and memoBytes bytes.
	runPents []pendingEnt
	runBytes []byte
	runHits  int // entities replayed from runs since the cache was made (tests)
	// cmds is the command chain of this cache's generation (chain), made by the generation's
	// first Build with chainMinCmds commands or more; cmdHits counts the stretches of commands
	// copied from it (tests).
	cmds    cmdChain
	cmdHits int
	// vheads: a view's own heads of its memo records and runs per entity (a view does not
	// write the entries it shares), valid where stamped with vgen, which each ShareFrom
	// advances.
	vheads []viewHeads
	vgen   uint32

	// view: this cache is a read-only view of another's frame (ShareFrom); stale: a Build
	// asked it for another frame.
	view, stale bool
}

// shareHeads is where an entity's delta memo records and runs of the generation start (-1:
// none): in its cache entry, or for a view in the view's own table.
type shareHeads struct {
	memo int32 // first delta record (FrameCache.memo)
	run  int32 // first run (FrameCache.runs) starting at the entity
}

// viewHeads is a view's shareHeads of one entity, valid when gen is the view's vgen.
type viewHeads struct {
	gen uint32
	sh  shareHeads
}

// heads returns entity n's (entry ce's) memo and run heads for this cache: the entry's own, or a
// view's.
func (c *FrameCache) heads(n game.EntityNum, ce *cacheEntry) *shareHeads {
	if !c.view {
		return &ce.sh
	}
	if c.vheads == nil {
		c.vheads = make([]viewHeads, game.MaxEntities)
	}
	h := &c.vheads[n]
	if h.gen != c.vgen {
		h.gen, h.sh = c.vgen, shareHeads{memo: -1, run: -1}
	}
	return &h.sh
}

// typUnknown is FrameCache.typs's mark of an entity not looked up this generation: no TypeID.
const typUnknown = ^game.TypeID(0)

var _ [typUnknown - game.MaxTypeID - 1]struct{} // typUnknown is above every TypeID

// ErrNotPrepared is returned by a Build through a view of a FrameCache (ShareFrom) that meets
// an entity or state its cache did not prepare, or another frame than the cache's.
var ErrNotPrepared = errors.New("snapshot: entity, state or frame not prepared in the shared FrameCache")

// ShareFrom makes v a read-only view of c's current frame, through which one goroutine may
// Build snapshots while other goroutines Build through views of their own: the clients of a
// frame built in parallel. c must have been prepared for the frame first, with Prepare (the
// union of the clients' PVSs) and PrepareStates (every client's non-PVS states): a view
// encodes nothing, and a Build that meets an entity or a state c does not hold, or another
// frame, fails with ErrNotPrepared. A view keeps a delta memo and runs of its own, emptied by
// each ShareFrom: the clients built through one view share deltas among themselves, not with
// other views' clients; the bits are the same either way. c must not change (Prepare, Build,
// Invalidate) while views of it are in use, and the views are stale once it does. ShareFrom
// allocates nothing: the view's memo gets its memory in its first Builds and keeps it.
func (v *FrameCache) ShareFrom(c *FrameCache) {
	vgen := v.vgen + 1
	if vgen == 0 { // wrapped: no old stamp may look current
		clear(v.vheads)
		vgen = 1
	}
	*v = FrameCache{frame: c.frame, gen: c.gen, ents: c.ents, typs: c.typs, layouts: c.layouts, slots: c.slots, buf: c.buf, states: c.states,
		nstates: c.nstates, stateIx: c.stateIx, view: true,
		memo: v.memo[:0], memoBuf: v.memoBuf[:0], memoHits: v.memoHits,
		runs: v.runs[:0], runEnts: v.runEnts[:0], runPents: v.runPents[:0], runBytes: v.runBytes[:0],
		runHits: v.runHits, vheads: v.vheads, vgen: vgen,
		cmds: cmdChain{ents: v.cmds.ents[:0], buf: v.cmds.buf[:0]}, cmdHits: v.cmdHits}
}

// Bounds of the delta memo of one generation: at most memoRecs deltas and memoBytes bytes of
// delta bits (a few times 256 entities x 64 clients' changed entities), and at most memoChain
// distinct bases kept per entity.
const (
	memoRecs  = 8192
	memoBytes = 512 << 10
	memoChain = 4
	memoNoOut = ^uint32(0) // memoRec.outBits of a base seen once: no delta kept yet
	// noBaseVersion keys the memo's record of a spawn's delta, written against no base; no
	// state ever gets this version.
	noBaseVersion = ^uint64(0)
)

// memoRec is one entity delta of the generation: the delta of the entry's state against the base
// state of version baseVer, outBits bits at outOff in memoBuf (memoNoOut: the base was met once,
// its delta not kept yet).
type memoRec struct {
	baseVer uint64
	next    int32 // next record of the same entry, -1: none
	outOff  uint32
	outBits uint32
}

// runRec is a run of the generation: n entities (runEnts[first:first+n]) written one after the
// other by a client, each changed against the base state of a known version, starting at the
// cache entry that chains it (cacheEntry.run); its bits, from the first entity's spawn flag
// (its next code is the client's own) to the end of the last one's delta, at outOff in
// memoBuf.
type runRec struct {
	next   int32 // next run starting at the same entry, -1: none
	first  int32
	n      int32
	outOff uint32
	// pents: its entities' pending entries at runPents[pents:pents+n] (-1: not kept), their
	// state bytes from bytesOff in runBytes (the entries' offsets count from there).
	pents    int32
	bytesOff uint32
}

// runEnt is one entity of a run: its number, the version of the base state its delta is
// against, and the run's bits up to the end of its delta.
type runEnt struct {
	label  uint64
	endBit uint32
	num    game.EntityNum
}

// runEntsMax bounds the entities of the runs of one generation.
const runEntsMax = 1 << 14

// memoMemory gives the delta memo its memory (memoBytes of bits, memoRecs records), once.
func (c *FrameCache) memoMemory() {
	if c.memoBuf == nil {
		c.memoBuf = make([]byte, 0, memoBytes)
		c.memo = make([]memoRec, 0, memoRecs)
	}
}

// runFind returns the run starting at entity n (entry ce) against the base state of version
// baseVer, or nil.
func (c *FrameCache) runFind(n game.EntityNum, ce *cacheEntry, baseVer uint64) *runRec {
	for i := c.heads(n, ce).run; i >= 0; {
		r := &c.runs[i]
		if c.runEnts[r.first].label == baseVer {
			return r
		}
		i = r.next
	}
	return nil
}

// versions is the process-wide source of state versions: every FrameCache draws blocks of
// versionBlock from it, so no two encodings anywhere share a version, and a base label taken
// from one cache can never match another cache's state by accident. 0 is no version.
// Versions have 48 bits (base slots and pending entries keep them in 6 bytes): 2^48 encodings,
// half a century of a server re-encoding 180,000 changed entities a second. Past that,
// newVersion returns 0, and every state is compared by its bytes.
var versions atomic.Uint64

const (
	versionBlock = 1 << 16
	maxVersion   = 1<<48 - 1
)

// newVersion returns a version no state has had, or 0 once there are none left.
func (c *FrameCache) newVersion() uint64 {
	if c.nextVer == c.endVer {
		end := versions.Add(versionBlock)
		if end > maxVersion {
			c.nextVer, c.endVer = 0, 0
			return 0
		}
		c.endVer = end + 1
		c.nextVer = c.endVer - versionBlock
	}
	v := c.nextVer
	c.nextVer++
	return v
}

// stateEntry is one non-PVS state instance's encoding in the current generation. A state is
// cached per instance (Snapshotter value), not per StateID: some states are shared by every
// client (a scoreboard), some are each client's own (its statistics).
type stateEntry struct {
	// s is the instance; holding it keeps a pointer instance alive while cached, so that no
	// other instance can take its address within the generation.
	s      game.Snapshotter
	bits   uint16
	off    uint32 // in FrameCache.buf
	layout bitlayout.Layout
	// memo: the deltas of this state written this generation against up to stateMemos
	// different base states (the first nmemo), kept for the next client with the same base: a
	// state shared by every client (a scoreboard) changes for all of them at once, against the
	// same base where their acknowledgements kept step. Not used through a view.
	memo  [stateMemos]stateMemo
	nmemo uint8
}

// stateMemos bounds the base states a state's deltas are kept for in one generation.
const stateMemos = 4

// stateMemo is one kept delta of a state: the base state's baseBits bits at baseOff and the
// delta's outBits bits at outOff, both in FrameCache.memoBuf.
type stateMemo struct {
	baseOff, outOff   uint32
	baseBits, outBits uint16
}

// cacheEntry is one entity's encoding in the current generation (its layout is in
// FrameCache.layouts).
type cacheEntry struct {
	ver  uint64 // the state's version: the same while the entity's bits do not change
	gver uint64 // the world's EntityVersion of the state (0: none)
	gen  uint32
	off  uint32      // its slot in FrameCache.slots
	sh   shareHeads  // its delta records and runs of this generation (FrameCache.heads)
	typ  game.TypeID // NoType: no live entity with this number
	bits uint16
	cap  uint16 // bytes of its slot, a multiple of 8 (0: none yet)
}

// Invalidate forgets everything cached: the next Build encodes the entities again even for
// the same frame.
func (c *FrameCache) Invalidate() {
	if c.view {
		c.stale = true // a view never writes to the cache it shares
		return
	}
	c.gen++
	if c.gen == 0 { // wrapped: clear the stamps so that no old entry looks current
		for i := range c.ents {
			c.ents[i].gen = 0
		}
		c.gen = 1
	}
	for _, n := range c.typsSet {
		c.typs[n] = typUnknown
	}
	c.typsSet = c.typsSet[:0]
	c.buf = c.buf[:0] // the entities' slots stay: an entity's bits are kept while they do not change
	for i := range c.states[:c.nstates] {
		c.states[i].s = nil // do not keep the game's objects alive
	}
	c.nstates = 0
	clear(c.stateIx) // keeps its memory
	c.memo, c.memoBuf = c.memo[:0], c.memoBuf[:0]
	c.runs, c.runEnts = c.runs[:0], c.runEnts[:0]
	c.runPents, c.runBytes = c.runPents[:0], c.runBytes[:0]
	c.cmds.reset()
}

// begin makes the cache hold frame f.
func (c *FrameCache) begin(f game.Frame) {
	if c.view {
		c.stale = c.stale || c.gen == 0 || c.frame != f
		return
	}
	if c.ents == nil {
		c.ents = make([]cacheEntry, game.MaxEntities)
		c.typs = make([]game.TypeID, game.MaxEntities)
		for i := range c.typs {
			c.typs[i] = typUnknown
		}
		c.typsSet = make([]game.EntityNum, 0, game.MaxEntities)
		c.layouts = make([]bitlayout.Layout, game.MaxEntities)
	}
	if c.gen == 0 || c.frame != f {
		c.Invalidate()
		c.frame = f
	}
}

// Prepare encodes, for frame f, every live entity of pvs that is not cached yet, as the first
// Build of the frame would on its way. A server may call it once per frame with the union of
// its clients' PVSs to keep the shared work in one place; Build does it lazily otherwise.
func (c *FrameCache) Prepare(f game.Frame, world Entities, reg *game.Registry, pvs *PVS) error {
	if c.view {
		return errors.New("snapshot: Prepare on a view of a FrameCache")
	}
	c.begin(f)                        // makes c.ents
	vers, _ := world.(EntityVersions) // asked once per frame, not per entity
	ents, gen := c.ents[:game.MaxEntities], c.gen
	for i, bits := range pvs {
		for bits != 0 {
			b := bits & -bits
			bits &^= b
			n := game.EntityNum(i*32 + trailingZeros(b))
			ce := &ents[n]
			if ce.gen == gen {
				continue // looked up this frame already
			}
			// lookup, inline: most entities of a frame are kept, and a call apiece costs
			// about 1% of the server's snapshot work.
			gver := uint64(0)
			if vers != nil {
				if gver = vers.EntityVersion(n); c.unchanged(ce, gver) {
					c.keep(n, ce)
					continue
				}
			}
			if err := c.encode(n, ce, world, gver, reg); err != nil {
				return err
			}
		}
	}
	return nil
}

// entity returns entity n's cache entry for the current frame, looking it up if needed (a
// Build meeting an entity Prepare did not).
func (c *FrameCache) entity(n game.EntityNum, world Entities, reg *game.Registry) (*cacheEntry, error) {
	if c.view && (c.stale || c.ents == nil) {
		return nil, ErrNotPrepared
	}
	ce := &c.ents[n]
	if ce.gen == c.gen {
		return ce, nil // looked up this frame: no call into the game
	}
	if c.view {
		return nil, ErrNotPrepared
	}
	vers, _ := world.(EntityVersions)
	if err := c.lookup(n, ce, world, vers, reg); err != nil {
		return nil, err
	}
	return ce, nil
}

// lookup makes entry ce entity n's for this generation: kept as it is when vers (world's
// EntityVersions, or nil) says the entity did not change, else encoded.
func (c *FrameCache) lookup(n game.EntityNum, ce *cacheEntry, world Entities, vers EntityVersions, reg *game.Registry) error {
	gver := uint64(0)
	if vers != nil {
		if gver = vers.EntityVersion(n); c.unchanged(ce, gver) {
			c.keep(n, ce)
			return nil
		}
	}
	return c.encode(n, ce, world, gver, reg)
}

// unchanged reports whether entry ce, looked up in an earlier generation, holds a live entity
// whose EntityVersion was and still is gver (not 0): the world says nothing of it changed.
func (c *FrameCache) unchanged(ce *cacheEntry, gver uint64) bool {
	return gver != 0 && gver == ce.gver && ce.gen != 0 && ce.typ != game.NoType
}

// keep carries entry ce's state into this generation unchanged: the same type, bits (in its
// slot), layout and version.
func (c *FrameCache) keep(n game.EntityNum, ce *cacheEntry) {
	ce.gen, ce.sh = c.gen, shareHeads{memo: -1, run: -1}
	c.setTyp(n, ce.typ)
	c.keptHits++
}

// encode writes entity n's state (entry ce) for this generation through its WriteSnapshot;
// gver is the world's EntityVersion of it (0: none).
func (c *FrameCache) encode(n game.EntityNum, ce *cacheEntry, world Entities, gver uint64, reg *game.Registry) error {
	prev := *ce // the entry as last looked up (its bits in its slot)
	ent, typ := world.Entity(n)
	ce.typ, ce.bits, ce.sh, ce.ver, ce.gver = game.NoType, 0, shareHeads{memo: -1, run: -1}, 0, gver
	if ent == nil {
		ce.gen = c.gen
		c.setTyp(n, game.NoType)
		return nil
	}
	if !known(reg, typ) {
		return fmt.Errorf("%w: entity %d has unregistered type %d", ErrInput, n, typ)
	}
	bitops.ResetWriter(&c.dw, nil, 0, nil, c.scratch[:game.MaxStateBytes])
	bitops.RecordLayout(&c.dw, &c.layouts[n])
	ent.WriteSnapshot(&c.dw)
	if err := c.dw.Err(); err != nil {
		return fmt.Errorf("snapshot: entity %d (type %d): %w", n, typ, err)
	}
	st, nbits := bitops.WriterState(&c.dw)
	nb := (nbits + 7) / 8
	// The version stays while the bits do (the same type and bits as its slot holds).
	ver := uint64(0)
	if prev.cap != 0 && prev.typ == typ && int(prev.bits) == nbits && prev.ver != 0 &&
		string(c.slots[prev.off:prev.off+uint32(nb)]) == string(st[:nb]) {
		ver = prev.ver
	} else {
		ver = c.newVersion()
		c.storeSlot(ce, st[:nb])
	}
	ce.gen, ce.typ, ce.bits, ce.ver = c.gen, typ, uint16(nbits), ver
	c.setTyp(n, typ)
	return nil
}

// setTyp records entity n's type for this generation (FrameCache.typs); an entry is set once
// per generation, as its cache entry is.
func (c *FrameCache) setTyp(n game.EntityNum, typ game.TypeID) {
	c.typs[n] = typ
	c.typsSet = append(c.typsSet, n)
}

// storeSlot puts state st (whole bytes) into entry ce's slot, giving it a larger one at the end
// of slots when it does not fit (the old one becomes garbage, compacted away once it is most of
// slots).
func (c *FrameCache) storeSlot(ce *cacheEntry, st []byte) {
	if len(st) > int(ce.cap) {
		c.slotGarbage += int(ce.cap)
		ce.cap = 0
		if c.slotGarbage > 64<<10 && c.slotGarbage > len(c.slots)/2 {
			c.compactSlots()
		}
		size := max(8, (len(st)+7)&^7)
		off := len(c.slots)
		if cap(c.slots)-off < size+8 {
			ns := make([]byte, off, 2*cap(c.slots)+size+8)
			copy(ns, c.slots)
			c.slots = ns
		}
		c.slots = c.slots[:off+size]
		ce.off, ce.cap = uint32(off), uint16(size)
	}
	copy(c.slots[ce.off:], st)
}

// compactSlots moves every entry's slot to a new slots without the garbage.
func (c *FrameCache) compactSlots() {
	live := len(c.slots) - c.slotGarbage
	ns := make([]byte, 0, live+live/4+game.MaxStateBytes+8)
	for i := range c.ents {
		ce := &c.ents[i]
		if ce.cap == 0 {
			continue
		}
		off := len(ns)
		ns = append(ns, c.slots[ce.off:ce.off+uint32(ce.cap)]...)
		ce.off = uint32(off)
	}
	c.slots, c.slotGarbage = ns, 0
	c.compactions++
}

// reserve makes room for one more non-PVS state at the end of c.buf (its largest size, and 8
// bytes more for the whole-word reads past a state's bits) and returns its offset.
func (c *FrameCache) reserve() int {
	off := len(c.buf)
	if cap(c.buf)-off < game.MaxStateBytes+8 {
		nb := make([]byte, off, 2*cap(c.buf)+game.MaxStateBytes+8)
		copy(nb, c.buf)
		c.buf = nb
	}
	return off
}

// state returns entry ce's state bits; the slice runs on past them to the end of the buffer's
// capacity, so that reads of whole words stay on the fast path.
func (c *FrameCache) state(ce *cacheEntry) []byte { return c.slots[ce.off:cap(c.slots)] }

// PrepareStates encodes, for frame f, every non-PVS state instance of states that is not cached
// yet, as the first Build to meet each would. A server may call it once per frame with every
// client's states (the shared ones, like a scoreboard, once) to keep the shared work in one
// place; Build does it lazily otherwise.
func (c *FrameCache) PrepareStates(f game.Frame, states []game.Snapshotter) error {
	if c.view {
		return errors.New("snapshot: PrepareStates on a view of a FrameCache")
	}
	c.begin(f)
	for id, s := range states {
		if _, err := c.stateOf(s, nil); err != nil {
			return fmt.Errorf("snapshot: state %d: %w", id, err)
		}
	}
	return nil
}

// ifaceWords returns the two words of an interface value: its dynamic type (itab) and its
// data word (the pointer for a pointer type, the boxed copy otherwise). Two values with the same
// words hold the same value; unlike ==, comparing them never panics on an uncomparable dynamic
// type, and it reads no type information (no reflection on the hot path).
func ifaceWords(s *game.Snapshotter) [2]unsafe.Pointer {
	return *(*[2]unsafe.Pointer)(unsafe.Pointer(s))
}

// stateOf returns instance s's cache entry for the current generation, encoding it if needed.
// hint, when not nil, holds the entry's index last time (updated): a client's instances are
// met in the same order frame after frame, so the lookup is one compare in steady state.
func (c *FrameCache) stateOf(s game.Snapshotter, hint *int32) (*stateEntry, error) {
	if c.view && c.stale {
		return nil, ErrNotPrepared
	}
	key := ifaceWords(&s)
	if hint != nil {
		if i := int(*hint); i >= 0 && i < c.nstates && ifaceWords(&c.states[i].s) == key {
			return &c.states[i], nil
		}
	}
	if i, ok := c.stateIx[key]; ok {
		if hint != nil {
			*hint = i
		}
		return &c.states[i], nil
	}
	if c.view {
		return nil, ErrNotPrepared
	}
	if c.nstates == len(c.states) {
		c.states = append(c.states, stateEntry{})
	}
	se := &c.states[c.nstates]
	off := c.reserve()
	bitops.ResetWriter(&c.dw, nil, 0, nil, c.buf[off:off+game.MaxStateBytes])
	bitops.RecordLayout(&c.dw, &se.layout)
	s.WriteSnapshot(&c.dw)
	if err := c.dw.Err(); err != nil {
		return nil, err
	}
	_, nbits := bitops.WriterState(&c.dw)
	c.buf = c.buf[:off+(nbits+7)/8]
	se.s, se.bits, se.off, se.nmemo = s, uint16(nbits), uint32(off), 0
	if hint != nil {
		*hint = int32(c.nstates)
	}
	if c.stateIx == nil {
		c.stateIx = make(map[[2]unsafe.Pointer]int32)
	}
	c.stateIx[key] = int32(c.nstates)
	c.nstates++
	return se, nil
}

// memoFind returns entity n's (entry ce's) delta memo record for the base state of version
// baseVer, or nil (none, or an unknown base). A record exists only for a base whose bits differ
// from the entry's: it is made when such a delta is written.
func (c *FrameCache) memoFind(n game.EntityNum, ce *cacheEntry, baseVer uint64) *memoRec {
	if baseVer == 0 {
		return nil
	}
	for i := c.heads(n, ce).memo; i >= 0; {
		r := &c.memo[i]
		if r.baseVer == baseVer {
			return r
		}
		i = r.next
	}
	return nil
}

// writeEntDelta writes the delta of entity n's cached state (entry ce: st, nbits bits) against
// a base state (base, baseBits bits; base runs on past them, nil for none) of version baseVer (0:
// unknown, noBaseVersion: no base) into w, as the layout replay (bitlayout.Funcs.WriteDelta) does; rec is
// memoFind(n, ce, baseVer). Clients whose bases advanced through the same acknowledged states hold
// the same base state for an entity (DOOM III §4.2), so the delta written for one is kept for
// the generation, keyed by the base's version, and replayed with WriteBitsFrom for the next
// client with that base: the bits are the same, and the per-field loop runs once per entity and
// distinct base. A base of unknown version is written without the memo.
func (c *FrameCache) writeEntDelta(w *bitmsg.Writer, n game.EntityNum, ce *cacheEntry, st []byte, nbits int, base []byte, baseBits int, baseVer uint64, rec *memoRec) {
	if rec != nil && rec.outBits != memoNoOut {
		bitops.WriteBitsFrom(w, c.memoBuf[rec.outOff:cap(c.memoBuf)], int(rec.outBits)) // words past the bits: the fast reads
		c.memoHits++
		return
	}
	start := w.Len()
	bitops.WriteDelta(w, &c.layouts[n], st, nbits, base, baseBits)
	if w.Err() != nil || baseVer == 0 {
		return
	}
	// The first client with a base only records the base (most entities are seen by one
	// client with a given base, or by none other); the second keeps the delta's bits.
	if rec != nil {
		if cap(c.memoBuf)-len(c.memoBuf) >= (w.Len()-start+7)/8 {
			rec.outOff = uint32(len(c.memoBuf))
			var out int
			c.memoBuf, out = bitops.AppendSince(w, c.memoBuf, start)
			rec.outBits = uint32(out)
		}
		return
	}
	h := c.heads(n, ce)
	depth := 0
	for i := h.memo; i >= 0 && depth < memoChain; i = c.memo[i].next {
		depth++
	}
	if depth >= memoChain || len(c.memo) == memoRecs {
		return
	}
	c.memoMemory()
	c.memo = append(c.memo, memoRec{next: h.memo, baseVer: baseVer, outBits: memoNoOut})
	h.memo = int32(len(c.memo) - 1)
}

// writeStateDelta writes the delta of state entry se (st, nbits bits) against a base state
// (base, baseBits bits; base runs on past them) into w as WriteDelta does, replaying the delta
// kept for an equal base (the bytes compared: a base's bits past baseBits are zero) or keeping
// the one it writes while se and the memory have room. An error stays in w.
func (c *FrameCache) writeStateDelta(w *bitmsg.Writer, se *stateEntry, st []byte, nbits int, base []byte, baseBits int) {
	nbb := uint32(baseBits+7) / 8
	for i := range se.nmemo {
		m := &se.memo[i]
		if int(m.baseBits) == baseBits && string(c.memoBuf[m.baseOff:m.baseOff+nbb]) == string(base[:nbb]) {
			bitops.WriteBitsFrom(w, c.memoBuf[m.outOff:cap(c.memoBuf)], int(m.outBits)) // words past the bits: the fast reads
			c.stateHits++
			return
		}
	}
	start := w.Len()
	bitops.WriteDelta(w, &se.layout, st, nbits, base, baseBits)
	out := w.Len() - start
	if w.Err() != nil || int(se.nmemo) == stateMemos || out > math.MaxUint16 {
		return
	}
	c.memoMemory()
	if cap(c.memoBuf)-len(c.memoBuf) < int(nbb)+(out+7)/8 {
		return // the generation's memory is spent: written, not kept
	}
	m := &se.memo[se.nmemo]
	m.baseOff, m.baseBits = uint32(len(c.memoBuf)), uint16(baseBits)
	c.memoBuf = append(c.memoBuf, base[:nbb]...)
	m.outOff = uint32(len(c.memoBuf))
	c.memoBuf, out = bitops.AppendSince(w, c.memoBuf, start)
	m.outBits = uint16(out)
	se.nmemo++
}
