package game

import "github.com/snapwire/snapwire/bitmsg"

// MaxEventBits bounds an event's payload: 2048 bits (256 bytes).
const MaxEventBits = 2048

// MaxEventBytes is MaxEventBits in bytes.
const MaxEventBytes = MaxEventBits / 8

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
