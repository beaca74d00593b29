package snapshot

import (
	"fmt"

	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/game"
)

// FrameCache shares the encoding of entity states between the clients of one game frame.
// Every client's snapshot of a frame sees the same entity states; only the common base each
// is delta-compressed against differs (DOOM III §4.2). With a cache in Input.Cache, Build
// writes each visible entity's full state through its WriteSnapshot once per frame, keeping
// the state bits and their field layout (bitmsg.Layout); every client's Build then omits an
// entity whose state bits equal its base's (a length and memory compare) and writes the delta
// of a changed one from the two bit strings (bitmsg.Writer.WriteDelta), with no call into the
// game. The bits are exactly those the per-client DeltaWriter path writes (cache_test.go).
//
// The cache keys its contents on Input.Frame: a Build with another frame than the cache's
// starts a new frame. The entities must not change between Builds of the same frame: a server
// that changes entities outside its frame (a spawn on connect, say) calls Invalidate. The
// zero value is ready to
// use; one cache serves every client of a server (it is not safe for concurrent use). It
// allocates nothing in steady state.
type FrameCache struct {
	frame game.Frame
	gen   uint32 // entries of this generation are valid; 0: nothing cached
	ents  []cacheEntry
	buf   []byte // the states of this generation, back to back
	dw    bitmsg.DeltaWriter
}

// cacheEntry is one entity's encoding in the current generation.
type cacheEntry struct {
	gen    uint32
	typ    game.TypeID // NoType: no live entity with this number
	bits   uint16
	off    uint32 // in FrameCache.buf
	layout bitmsg.Layout
}

// Invalidate forgets everything cached: the next Build encodes the entities again even for
// the same frame.
func (c *FrameCache) Invalidate() {
	c.gen++
	if c.gen == 0 { // wrapped: clear the stamps so that no old entry looks current
		for i := range c.ents {
			c.ents[i].gen = 0
		}
		c.gen = 1
	}
	c.buf = c.buf[:0]
}

// begin makes the cache hold frame f.
func (c *FrameCache) begin(f game.Frame) {
	if c.ents == nil {
		c.ents = make([]cacheEntry, game.MaxEntities)
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
	c.begin(f)
	for n := range pvs.All() {
		if _, err := c.entity(n, world, reg); err != nil {
			return err
		}
	}
	return nil
}

// entity returns entity n's cache entry for the current frame, encoding it if needed.
func (c *FrameCache) entity(n game.EntityNum, world Entities, reg *game.Registry) (*cacheEntry, error) {
	ce := &c.ents[n]
	if ce.gen == c.gen {
		return ce, nil // looked up this frame: no call into the game
	}
	ent, typ := world.Entity(n)
	ce.typ, ce.bits = game.NoType, 0
	if ent == nil {
		ce.gen = c.gen
		return ce, nil
	}
	if !reg.Known(typ) {
		return nil, fmt.Errorf("%w: entity %d has unregistered type %d", ErrInput, n, typ)
	}
	off := len(c.buf)
	if cap(c.buf)-off < game.MaxStateBytes+8 {
		nb := make([]byte, off, 2*cap(c.buf)+game.MaxStateBytes+8)
		copy(nb, c.buf)
		c.buf = nb
	}
	c.dw.Reset(nil, 0, nil, c.buf[off:off+game.MaxStateBytes])
	c.dw.RecordLayout(&ce.layout)
	ent.WriteSnapshot(&c.dw)
	if err := c.dw.Err(); err != nil {
		return nil, fmt.Errorf("snapshot: entity %d (type %d): %w", n, typ, err)
	}
	_, nbits := c.dw.State()
	c.buf = c.buf[:off+(nbits+7)/8]
	ce.gen, ce.typ, ce.bits, ce.off = c.gen, typ, uint16(nbits), uint32(off)
	return ce, nil
}

// state returns entry ce's state bits; the slice runs on past them to the end of the buffer's
// capacity, so that reads of whole words stay on the fast path.
func (c *FrameCache) state(ce *cacheEntry) []byte { return c.buf[ce.off:cap(c.buf)] }
