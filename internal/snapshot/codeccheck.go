package snapshot

// The check that a hand-written codec reads what it wrote (issue 24 part
// 1). An entity's ReadSnapshot and WriteSnapshot are written twice by hand,
// in the same order and widths; when they disagree, the snapshot's bits are
// misread from that entity on. The decoder sees it without any bit on the
// wire:
//
//   - ReadSnapshot rebuilds the state it read field by field (the
//     DeltaReader copies each field's encoding into the new state), so the
//     decoder knows how many bits it read. It then lets the entity write
//     itself again through WriteSnapshot, which writes the widths the
//     server's WriteSnapshot wrote for the same values. A symmetric codec
//     reads exactly what it writes, whatever the values (a layout that
//     depends on a value depends on the value read back); a codec that
//     reads one bit more or fewer gives two lengths.
//   - A field that the stream marks unchanged is taken from the base, the
//     full state the server's WriteSnapshot wrote earlier. A DeltaWriter
//     marks every field the base cannot supply as changed, so a reader
//     that runs past the end of its base (bitmsg.ErrUnderflow with the
//     snapshot itself unread to its end) reads more than was written. A
//     forged snapshot can show this sign too (a spawn whose first flag is
//     0); on a secure session every snapshot decoded has passed the
//     channel's authentication, so it comes from the server.
//
// The first check runs only when the read's length differs from the base
// state's (always for a spawn, whose base is empty), the second when the
// read failed. A base state is what WriteSnapshot wrote (the map's,
// CommonBase.Init) or what an earlier read rebuilt under the same rule, so
// for a codec whose layout does not depend on its values a read of the
// base's length is the writer's length: the skipped reads are ones that
// cannot fail the check. (A codec whose layout depends on its values may
// misread to exactly the base's length; the next read of another length
// shows it.) In steady state changed entities keep their length, and the
// check costs the decoder nothing for them (BenchmarkDecode256 under
// callgrind: 207,195 instructions per decode before the check, 207,720
// with it). Declared codecs (game.Declared) are generated in pairs and skip
// it. The WriteSnapshot goes into a buffer of the decoder: nothing is
// allocated.

import (
	"errors"
	"fmt"

	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/game"
)

// ErrCodec: an entity's or state's ReadSnapshot does not read what its
// WriteSnapshot wrote (CodecError).
var ErrCodec = errors.New("snapshot: ReadSnapshot does not read what WriteSnapshot wrote")

// CodecError names the entity (or non-PVS state) whose hand-written codec
// misread a snapshot, and the bits read and written.
type CodecError struct {
	Entity   game.EntityNum // the entity; meaningless when IsState
	IsState  bool           // a non-PVS state, StateID State
	State    game.StateID
	TypeName string // the registered name of its type or state
	// Read is the number of bits ReadSnapshot read, Wrote the number
	// WriteSnapshot writes for the values read (-1: unknown). PastBase:
	// ReadSnapshot took a field from past the end of its base state, which
	// the writer never leaves unsent (Read is unknown).
	Read, Wrote int
	PastBase    bool
}

func (e *CodecError) Error() string {
	what := fmt.Sprintf("entity %d of type %q", e.Entity, e.TypeName)
	if e.IsState {
		what = fmt.Sprintf("state %d (%q)", e.State, e.TypeName)
	}
	switch {
	case e.PastBase && e.Wrote < 0:
		return fmt.Sprintf("%s: ReadSnapshot read more than WriteSnapshot wrote", what)
	case e.PastBase:
		return fmt.Sprintf("%s: ReadSnapshot read more than the %d bits WriteSnapshot wrote", what, e.Wrote)
	}
	return fmt.Sprintf("%s: ReadSnapshot read %d bits, WriteSnapshot wrote %d", what, e.Read, e.Wrote)
}

// Is makes errors.Is(err, ErrCodec) and errors.Is(err, ErrCorrupt) true:
// the snapshot does not decode.
func (e *CodecError) Is(target error) bool { return target == ErrCodec || target == ErrCorrupt }

// codecCheck holds the decoder's scratch for the check.
type codecCheck struct {
	dw  *bitmsg.DeltaWriter
	buf [game.MaxStateBytes]byte
}

// handWritten reports whether s's codec is written by hand (not
// game.Declared), so that the decoder checks it.
func handWritten(s game.Snapshotter) bool {
	_, declared := s.(game.Declared)
	return !declared
}

// written returns the number of bits s's WriteSnapshot writes now, or -1 if
// it fails (then the check has nothing to compare).
func (c *codecCheck) written(s game.Snapshotter) int {
	if c.dw == nil {
		c.dw = new(bitmsg.DeltaWriter)
	}
	bitops.ResetWriter(c.dw, nil, 0, nil, c.buf[:])
	s.WriteSnapshot(c.dw)
	if c.dw.Err() != nil {
		return -1
	}
	_, nb := bitops.WriterState(c.dw)
	return nb
}

// check compares what s's ReadSnapshot read (readBits; err is the
// DeltaReader's error, in the snapshot reader being read) with what its
// WriteSnapshot writes, if hand (a hand-written codec), and returns a
// CodecError, with Entity, IsState, State and TypeName left for the caller,
// if they differ.
func (c *codecCheck) check(hand bool, s game.Snapshotter, readBits int, err error, in *bitmsg.Reader) *CodecError {
	switch {
	case !hand:
		return nil
	case err != nil:
		if errors.Is(err, bitmsg.ErrUnderflow) && in.Err() == nil {
			return &CodecError{PastBase: true, Wrote: c.written(s)}
		}
		return nil
	}
	if wrote := c.written(s); wrote >= 0 && wrote != readBits {
		return &CodecError{Read: readBits, Wrote: wrote}
	}
	return nil
}

// entityCodecError names entity n of type t in e.
func (d *Decoder) entityCodecError(e *CodecError, n game.EntityNum, t game.TypeID) error {
	typ, _ := d.reg.Type(t)
	e.Entity, e.TypeName = n, typ.Name
	return e
}

// stateCodecError names state id in e.
func (d *Decoder) stateCodecError(e *CodecError, id game.StateID) error {
	st, _ := d.reg.State(id)
	e.IsState, e.State, e.TypeName = true, id, st.Name
	return e
}
