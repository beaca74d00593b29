// Package events is the wire form of entity events (DOOM III §5
// ServerSendEvent, §8) and the buffer a server collects a frame's events in.
// A game sends events through game.EventSink and reads their payload with
// game.Event.Payload; the encoding below is the server's and client's
// business.
package events

import (
	"fmt"

	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/bitlayout"
)

// bitops replays an event's payload bits into a message (bitmsg hands that plumbing to
// internal/bitlayout).
var bitops = bitlayout.Get[bitmsg.Writer, bitmsg.DeltaWriter, bitmsg.DeltaReader, bitmsg.Reader]()

// EntityNumBits is the width of an entity number on the wire: it holds
// any game.EntityNum, 0..game.MaxEntities-1 (TestEntityNumBits).
const EntityNumBits = 12

// eventLenBits is the width of the payload length field.
var eventLenBits = bitmsg.BitsFor(game.MaxEventBits)

// WireBits returns the encoded size of an event with a payload of
// payloadBits bits.
func WireBits(payloadBits int) int {
	return EntityNumBits + 8 + 32 + eventLenBits + payloadBits
}

// Write appends event e to w (DOOM III §5; docs/PROTOCOL.md):
//
//	entity   12 bits
//	id        8 bits
//	frame    32 bits (two's complement; never negative)
//	length   12 bits: payload length in bits, 0..MaxEventBits
//	payload  length bits
//
// Save and Reliable are not written: the sender's channel carries them.
// It returns an error, writing nothing, if a field is out of range.
func Write(w *bitmsg.Writer, e *game.Event) error {
	switch {
	case int(e.Entity) >= game.MaxEntities:
		return fmt.Errorf("%w: event entity %d", game.ErrRange, e.Entity)
	case e.Frame < 0:
		return fmt.Errorf("%w: event frame %d", game.ErrRange, e.Frame)
	case e.Bits < 0 || e.Bits > game.MaxEventBits || e.Bits > len(e.Data)*8:
		return fmt.Errorf("%w: event payload of %d bits", game.ErrRange, e.Bits)
	}
	w.WriteBits(uint32(e.Entity), EntityNumBits)
	w.WriteBits(uint32(e.ID), 8)
	w.WriteBits(uint32(e.Frame), 32)
	w.WriteBits(uint32(e.Bits), eventLenBits)
	if e.Bits > 0 {
		bitops.WriteBitsFrom(w, e.Data, e.Bits)
	}
	return nil
}

// Read reads an event written by Write into e. The payload is copied into buf,
// which must hold game.MaxEventBytes bytes; e.Data aliases buf. Save and
// Reliable are left false.
func Read(r *bitmsg.Reader, e *game.Event, buf []byte) error {
	if len(buf) < game.MaxEventBytes {
		return fmt.Errorf("events: event buffer of %d bytes, need %d", len(buf), game.MaxEventBytes)
	}
	ent := r.ReadBits(EntityNumBits)
	id := r.ReadBits(8)
	frame := int32(r.ReadBits(32))
	n := int(r.ReadBits(eventLenBits))
	if err := r.Err(); err != nil {
		return fmt.Errorf("%w: event header: %w", game.ErrCorrupt, err)
	}
	if frame < 0 {
		return fmt.Errorf("%w: event frame %d", game.ErrCorrupt, frame)
	}
	if n > game.MaxEventBits {
		return fmt.Errorf("%w: event payload of %d bits", game.ErrCorrupt, n)
	}
	if n > r.BitsLeft() {
		return fmt.Errorf("%w: event payload of %d bits, %d left", game.ErrCorrupt, n, r.BitsLeft())
	}
	nb := (n + 7) / 8
	full := n / 8
	r.ReadBytes(buf[:full])
	if rem := n % 8; rem != 0 {
		buf[full] = byte(r.ReadBits(rem))
	}
	if err := r.Err(); err != nil {
		return fmt.Errorf("%w: event payload: %w", game.ErrCorrupt, err)
	}
	*e = game.Event{Entity: game.EntityNum(ent), ID: game.EventID(id), Frame: game.Frame(frame), Data: buf[:nb], Bits: n}
	return nil
}

// Buffer is a game.EventSink that collects events, stamping each with
// Frame. It reuses its memory after Reset, so a server can keep one for the
// life of the match without allocating per event.
type Buffer struct {
	// Frame is stamped on events as they arrive.
	Frame  game.Frame
	events []game.Event
	offs   []int
	data   []byte
	err    error
}

// ServerSendEvent implements game.EventSink.
func (b *Buffer) ServerSendEvent(ent game.EntityNum, ev game.EventID, msg *bitmsg.Writer, save bool) {
	b.add(ent, ev, msg, true, save)
}

// SendUnreliableEvent implements game.EventSink.
func (b *Buffer) SendUnreliableEvent(ent game.EntityNum, ev game.EventID, msg *bitmsg.Writer) {
	b.add(ent, ev, msg, false, false)
}

func (b *Buffer) add(ent game.EntityNum, ev game.EventID, msg *bitmsg.Writer, reliable, save bool) {
	bits := 0
	var p []byte
	if msg != nil {
		if err := msg.Err(); err != nil {
			b.fail(fmt.Errorf("events: event %d of entity %d: %w", ev, ent, err))
			return
		}
		bits, p = msg.Len(), msg.Bytes()
	}
	if bits > game.MaxEventBits || int(ent) >= game.MaxEntities {
		b.fail(fmt.Errorf("%w: event %d of entity %d with %d payload bits", game.ErrRange, ev, ent, bits))
		return
	}
	b.offs = append(b.offs, len(b.data))
	b.data = append(b.data, p[:(bits+7)/8]...)
	b.events = append(b.events, game.Event{Entity: ent, ID: ev, Frame: b.Frame, Bits: bits, Save: save, Reliable: reliable})
}

func (b *Buffer) fail(err error) {
	if b.err == nil {
		b.err = err
	}
}

// Events returns the collected events in the order they were sent. Their
// Data alias the buffer until Reset.
func (b *Buffer) Events() []game.Event {
	for i := range b.events {
		e := &b.events[i]
		e.Data = b.data[b.offs[i] : b.offs[i]+(e.Bits+7)/8]
	}
	return b.events
}

// Err returns the first rejected event's error (payload too long, bad
// entity number or a payload writer in error) since Reset.
func (b *Buffer) Err() error { return b.err }

// Reset forgets the collected events, keeping the memory.
func (b *Buffer) Reset() {
	b.events, b.offs, b.data, b.err = b.events[:0], b.offs[:0], b.data[:0], nil
}
