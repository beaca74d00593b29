package game

import (
	"fmt"

	"github.com/snapwire/snapwire/bitmsg"
)

// MaxEventBits bounds an event's payload: 2048 bits (256 bytes).
const MaxEventBits = 2048

// MaxEventBytes is MaxEventBits in bytes.
const MaxEventBytes = MaxEventBits / 8

// eventLenBits is the width of the payload length field.
var eventLenBits = bitmsg.BitsFor(MaxEventBits)

// Event is an entity event sent by the server (DOOM III §5
// ServerSendEvent). Reliable events go through the message channel's
// reliable stream and are not affected by the PVS; unreliable events are
// written once, to the client's next snapshot (DOOM III §8).
type Event struct {
	Entity   EntityNum
	ID       EventID
	Frame    Frame  // server frame at which the event was sent
	Data     []byte // bit-packed payload: the first Bits bits
	Bits     int
	Save     bool // reliable only: replayed to clients that connect later
	Reliable bool
}

// Payload points r at the event's payload.
func (e *Event) Payload(r *bitmsg.Reader) { r.Reset(e.Data, e.Bits) }

// EventWireBits returns the encoded size of an event with a payload of
// payloadBits bits.
func EventWireBits(payloadBits int) int {
	return EntityNumBits + 8 + 32 + eventLenBits + payloadBits
}

// Write appends the event to w:
//
//	entity   12 bits
//	id        8 bits
//	frame    32 bits (two's complement; never negative)
//	length   12 bits: payload length in bits, 0..MaxEventBits
//	payload  length bits
//
// Save and Reliable are not written: the sender's channel carries them.
// It returns an error, writing nothing, if a field is out of range.
func (e *Event) Write(w *bitmsg.Writer) error {
	switch {
	case int(e.Entity) >= MaxEntities:
		return fmt.Errorf("%w: event entity %d", ErrRange, e.Entity)
	case e.Frame < 0:
		return fmt.Errorf("%w: event frame %d", ErrRange, e.Frame)
	case e.Bits < 0 || e.Bits > MaxEventBits || e.Bits > len(e.Data)*8:
		return fmt.Errorf("%w: event payload of %d bits", ErrRange, e.Bits)
	}
	w.WriteBits(uint32(e.Entity), EntityNumBits)
	w.WriteBits(uint32(e.ID), 8)
	w.WriteBits(uint32(e.Frame), 32)
	w.WriteBits(uint32(e.Bits), eventLenBits)
	if e.Bits > 0 {
		w.WriteBitsFrom(e.Data, e.Bits)
	}
	return nil
}

// Read reads an event written by Write. The payload is copied into buf,
// which must hold MaxEventBytes bytes; e.Data aliases buf. Save and
// Reliable are left false.
func (e *Event) Read(r *bitmsg.Reader, buf []byte) error {
	if len(buf) < MaxEventBytes {
		return fmt.Errorf("game: event buffer of %d bytes, need %d", len(buf), MaxEventBytes)
	}
	ent := r.ReadBits(EntityNumBits)
	id := r.ReadBits(8)
	frame := int32(r.ReadBits(32))
	n := int(r.ReadBits(eventLenBits))
	if err := r.Err(); err != nil {
		return fmt.Errorf("%w: event header: %w", ErrCorrupt, err)
	}
	if frame < 0 {
		return fmt.Errorf("%w: event frame %d", ErrCorrupt, frame)
	}
	if n > MaxEventBits {
		return fmt.Errorf("%w: event payload of %d bits", ErrCorrupt, n)
	}
	if n > r.BitsLeft() {
		return fmt.Errorf("%w: event payload of %d bits, %d left", ErrCorrupt, n, r.BitsLeft())
	}
	nb := (n + 7) / 8
	full := n / 8
	r.ReadBytes(buf[:full])
	if rem := n % 8; rem != 0 {
		buf[full] = byte(r.ReadBits(rem))
	}
	if err := r.Err(); err != nil {
		return fmt.Errorf("%w: event payload: %w", ErrCorrupt, err)
	}
	*e = Event{Entity: EntityNum(ent), ID: EventID(id), Frame: Frame(frame), Data: buf[:nb], Bits: n}
	return nil
}

// EventSink receives the events the game sends while running a frame. The
// server provides one; the client passes Discard while predicting.
type EventSink interface {
	// ServerSendEvent sends a reliable event for entity ent (DOOM III §5).
	// msg holds the bit-packed parameters (nil for none); the sink copies
	// it. With save set the event is replayed to clients that connect
	// later.
	ServerSendEvent(ent EntityNum, ev EventID, msg *bitmsg.Writer, save bool)
	// SendUnreliableEvent queues an event for the next snapshot of each
	// client only (DOOM III §8); it is lost with that snapshot.
	SendUnreliableEvent(ent EntityNum, ev EventID, msg *bitmsg.Writer)
}

// Discard is an EventSink that drops every event.
var Discard EventSink = discard{}

type discard struct{}

func (discard) ServerSendEvent(EntityNum, EventID, *bitmsg.Writer, bool) {}
func (discard) SendUnreliableEvent(EntityNum, EventID, *bitmsg.Writer)   {}

// EventBuffer is an EventSink that collects events, stamping each with
// Frame. It reuses its memory after Reset, so a server can keep one for the
// life of the match without allocating per event.
type EventBuffer struct {
	// Frame is stamped on events as they arrive.
	Frame  Frame
	events []Event
	offs   []int
	data   []byte
	err    error
}

// ServerSendEvent implements EventSink.
func (b *EventBuffer) ServerSendEvent(ent EntityNum, ev EventID, msg *bitmsg.Writer, save bool) {
	b.add(ent, ev, msg, true, save)
}

// SendUnreliableEvent implements EventSink.
func (b *EventBuffer) SendUnreliableEvent(ent EntityNum, ev EventID, msg *bitmsg.Writer) {
	b.add(ent, ev, msg, false, false)
}

func (b *EventBuffer) add(ent EntityNum, ev EventID, msg *bitmsg.Writer, reliable, save bool) {
	bits := 0
	var p []byte
	if msg != nil {
		if err := msg.Err(); err != nil {
			b.fail(fmt.Errorf("game: event %d of entity %d: %w", ev, ent, err))
			return
		}
		bits, p = msg.Len(), msg.Bytes()
	}
	if bits > MaxEventBits || int(ent) >= MaxEntities {
		b.fail(fmt.Errorf("%w: event %d of entity %d with %d payload bits", ErrRange, ev, ent, bits))
		return
	}
	b.offs = append(b.offs, len(b.data))
	b.data = append(b.data, p[:(bits+7)/8]...)
	b.events = append(b.events, Event{Entity: ent, ID: ev, Frame: b.Frame, Bits: bits, Save: save, Reliable: reliable})
}

func (b *EventBuffer) fail(err error) {
	if b.err == nil {
		b.err = err
	}
}

// Events returns the collected events in the order they were sent. Their
// Data alias the buffer until Reset.
func (b *EventBuffer) Events() []Event {
	for i := range b.events {
		e := &b.events[i]
		e.Data = b.data[b.offs[i] : b.offs[i]+(e.Bits+7)/8]
	}
	return b.events
}

// Err returns the first rejected event's error (payload too long, bad
// entity number or a payload writer in error) since Reset.
func (b *EventBuffer) Err() error { return b.err }

// Reset forgets the collected events, keeping the memory.
func (b *EventBuffer) Reset() {
	b.events, b.offs, b.data, b.err = b.events[:0], b.offs[:0], b.data[:0], nil
}
