package matchsim

import (
	"bytes"
	"slices"

	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/snapshot"
)

// recorder keeps the server's authoritative entity states and positions of
// the last frames, in a ring reused in place: the window the state and
// prediction checks look back into (a snapshot arrives about half a round
// trip after its frame; a prediction is checked right after the frame).
type recorder struct {
	ring  []frameRec
	codec *snapshot.StateCodec
}

// frameRec is the server's world after one frame.
type frameRec struct {
	frame game.Frame
	valid bool
	ents  []entRec // ascending by number
	buf   []byte   // the states, back to back
}

type entRec struct {
	n      game.EntityNum
	typ    game.TypeID
	off    int32 // into buf
	bits   int32
	hasPos bool
	pos    [3]float32
}

func newRecorder(frames int) *recorder {
	return &recorder{ring: make([]frameRec, frames), codec: snapshot.NewStateCodec()}
}

// record stores the state of every entity of w, numbered below limit,
// after frame f.
func (r *recorder) record(f game.Frame, w game.World, limit int) *frameRec {
	fr := &r.ring[int(f)%len(r.ring)]
	fr.frame, fr.valid = f, true
	fr.ents, fr.buf = fr.ents[:0], fr.buf[:0]
	// Entity numbers are scanned: an iterator called through an interface
	// allocates its closures, and a live match records every frame.
	for n := game.EntityNum(0); int(n) < min(limit, game.MaxEntities); n++ {
		e, typ := w.Entity(n)
		if e == nil {
			continue
		}
		er := entRec{n: n, typ: typ, off: int32(len(fr.buf))}
		if st, bits, err := r.codec.Save(e); err == nil {
			er.bits = int32(bits)
			fr.buf = append(fr.buf, st[:(bits+7)/8]...)
		} else {
			er.bits = -1 // never equal to a client's state
		}
		if p, ok := e.(client.Positioner); ok {
			er.hasPos = true
			er.pos[0], er.pos[1], er.pos[2] = p.Position()
		}
		fr.ents = append(fr.ents, er)
	}
	return fr
}

// at returns the record of frame f if it is still in the window.
func (r *recorder) at(f game.Frame) *frameRec {
	fr := &r.ring[int(f)%len(r.ring)]
	if !fr.valid || fr.frame != f {
		return nil
	}
	return fr
}

// find returns entity n's record, or nil when the server had no entity n.
func (fr *frameRec) find(n game.EntityNum) *entRec {
	i, ok := slices.BinarySearchFunc(fr.ents, n, func(e entRec, n game.EntityNum) int { return int(e.n) - int(n) })
	if !ok {
		return nil
	}
	return &fr.ents[i]
}

// equal reports whether entity e of type typ, as the client holds it, has
// exactly the server's state of entity n in this frame (DOOM III §2: the
// snapshot overwrites the client's states with the server's).
func (fr *frameRec) equal(n game.EntityNum, typ game.TypeID, e game.Entity, codec *snapshot.StateCodec) bool {
	want := fr.find(n)
	if want == nil || want.typ != typ || want.bits < 0 {
		return false
	}
	st, bits, err := codec.Save(e)
	if err != nil || bits != int(want.bits) {
		return false
	}
	nb := (bits + 7) / 8
	return bytes.Equal(st[:nb], fr.buf[want.off:want.off+int32(nb)])
}
