// Package statecheck compares, for any game, the entity states a client
// holds after a snapshot with the server's states of the snapshot's
// frame: a snapshot overwrites the client's states of the entities it
// carries with the server's (DOOM III §2), so after decoding they must be
// equal bit for bit, as each entity's WriteSnapshot writes them.
// internal/matchsim checks the arena this way; the example games' windows
// (play/internal/tanks) and their tests use this package.
//
// The client side reduces each snapshot to a Sample: its frame, the
// entity numbers it carries and a digest of their states. The server side
// records its states after every frame (a Recorder, from
// serverhook.Hooks.OnFrame) and computes the digest of the same entities
// at the same frame (Recorder.Check). The two may be in one process
// (compared at once) or apart (a browser's samples, sent home in its
// summary, checked against the server's record afterwards).
package statecheck

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"

	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/snapshot"
)

// Sample is one snapshot as a client decoded it.
type Sample struct {
	Frame    game.Frame       `json:"frame"`
	Entities []game.EntityNum `json:"entities"` // ascending
	Digest   uint64           `json:"digest"`
}

// digester hashes entity states: number, type, length in bits and the
// state's bytes, for each entity in ascending number order (FNV-1a, 64
// bits).
type digester struct {
	codec *snapshot.StateCodec
	buf   [8]byte
}

func newDigester() *digester { return &digester{codec: snapshot.NewStateCodec()} }

// add adds entity n of type typ with the state st of bits bits to h.
func (d *digester) add(h interface{ Write([]byte) (int, error) }, n game.EntityNum, typ game.TypeID, st []byte, bits int) {
	binary.LittleEndian.PutUint16(d.buf[0:], uint16(n))
	binary.LittleEndian.PutUint16(d.buf[2:], uint16(typ))
	binary.LittleEndian.PutUint32(d.buf[4:], uint32(bits))
	h.Write(d.buf[:])
	h.Write(st[:(bits+7)/8])
}

// Client makes the samples of one client's snapshots.
type Client struct {
	d *digester
}

// NewClient returns a Client.
func NewClient() *Client { return &Client{d: newDigester()} }

// Sample reduces the snapshot of frame f to a Sample: w is the client's
// world right after the snapshot was written into it (clienthook.Hooks
// OnSnapshot), pvs the entities the snapshot carries. An entity the world
// lacks, or whose state cannot be saved, is hashed as type game.NoType
// with no bits, which no server state matches.
func (c *Client) Sample(f game.Frame, w game.World, pvs *snapshot.PVS) Sample {
	s := Sample{Frame: f, Entities: make([]game.EntityNum, 0, pvs.Len())}
	h := fnv.New64a()
	for n := range pvs.All() {
		s.Entities = append(s.Entities, n)
		e, typ := w.Entity(n)
		if e == nil {
			c.d.add(h, n, game.NoType, nil, 0)
			continue
		}
		st, bits, err := c.d.codec.Save(e)
		if err != nil {
			c.d.add(h, n, game.NoType, nil, 0)
			continue
		}
		c.d.add(h, n, typ, st, bits)
	}
	s.Digest = h.Sum64()
	return s
}

// Recorder keeps the server's entity states after each of the last
// frames, in a ring reused in place.
type Recorder struct {
	ring []frameRec
	d    *digester
}

// frameRec is the server's world after one frame.
type frameRec struct {
	frame game.Frame
	valid bool
	ents  []entRec // ascending by number
	buf   []byte   // the states, back to back
}

type entRec struct {
	n    game.EntityNum
	typ  game.TypeID
	off  int32 // into buf
	bits int32 // -1: WriteSnapshot failed
}

// NewRecorder returns a Recorder that keeps the last frames frames.
func NewRecorder(frames int) *Recorder {
	return &Recorder{ring: make([]frameRec, max(frames, 1)), d: newDigester()}
}

// Record stores the states of w's entities after frame f; it runs on the
// goroutine that owns the server (serverhook.Hooks.OnFrame).
func (r *Recorder) Record(f game.Frame, w game.World) {
	fr := &r.ring[int(f)%len(r.ring)]
	fr.frame, fr.valid = f, true
	fr.ents, fr.buf = fr.ents[:0], fr.buf[:0]
	for n, e := range w.Entities() {
		_, typ := w.Entity(n)
		er := entRec{n: n, typ: typ, off: int32(len(fr.buf)), bits: -1}
		if st, bits, err := r.d.codec.Save(e); err == nil {
			er.bits = int32(bits)
			fr.buf = append(fr.buf, st[:(bits+7)/8]...)
		}
		fr.ents = append(fr.ents, er)
	}
}

// ErrUnrecorded is Check's error for a frame no longer (or never) in the
// record.
var ErrUnrecorded = errors.New("statecheck: the frame is not in the server's record")

// Check compares s with the server's states of the same entities at the
// same frame: nil when they are equal, ErrUnrecorded when the frame is
// out of the record, else an error naming the frame and the entities the
// server had not.
func (r *Recorder) Check(s Sample) error {
	fr := &r.ring[int(s.Frame)%len(r.ring)]
	if !fr.valid || fr.frame != s.Frame {
		return ErrUnrecorded
	}
	h := fnv.New64a()
	var missing []game.EntityNum
	for _, n := range s.Entities {
		i, ok := slices.BinarySearchFunc(fr.ents, n, func(e entRec, n game.EntityNum) int { return int(e.n) - int(n) })
		if !ok || fr.ents[i].bits < 0 {
			missing = append(missing, n)
			r.d.add(h, n, game.NoType, nil, 0)
			continue
		}
		e := fr.ents[i]
		r.d.add(h, n, e.typ, fr.buf[e.off:], int(e.bits))
	}
	switch {
	case len(missing) > 0:
		return fmt.Errorf("statecheck: frame %d: the server had no state of entities %v", s.Frame, missing)
	case h.Sum64() != s.Digest:
		return fmt.Errorf("statecheck: frame %d: the client's states of entities %v differ from the server's", s.Frame, s.Entities)
	}
	return nil
}

// Counts are the figures of a run of checks.
type Counts struct {
	Checks     uint64 `json:"state_checks"`     // snapshots compared
	Entities   uint64 `json:"state_entities"`   // entity states they carried
	Mismatches uint64 `json:"state_mismatches"` // snapshots that differed: must be 0
	Unchecked  uint64 `json:"state_unchecked"`  // snapshots whose frame was out of the record
}

// Add counts the outcome of Check(s) and returns the error of a mismatch
// (nil for a match or an unrecorded frame).
func (c *Counts) Add(s Sample, err error) error {
	switch {
	case errors.Is(err, ErrUnrecorded):
		c.Unchecked++
		return nil
	case err != nil:
		c.Checks++
		c.Entities += uint64(len(s.Entities))
		c.Mismatches++
		return err
	}
	c.Checks++
	c.Entities += uint64(len(s.Entities))
	return nil
}
