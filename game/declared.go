package game

import "github.com/snapwire/snapwire/bitmsg"

// Declared is implemented by the entity, state and message types whose
// networked fields are declared once, as Go struct fields with `snap` tags,
// and whose codecs are written by the generator (go run
// github.com/snapwire/snapwire/snapgen). SnapFields returns the wire layout
// the generator wrote: one "name kind" entry per field in wire order,
// separated by ";". The layout is part of the registry hash, so two ends
// whose declarations differ do not play together.
type Declared interface {
	SnapFields() string
}

// Message is a game message: a reliable, in-order message from a client to
// the server or from the server to one client or all (chat, "buy",
// "ready"), outside the entities' snapshots. It writes and reads its own
// fields; declared messages get both methods from the generator.
type Message interface {
	WriteMessage(w *bitmsg.Writer)
	ReadMessage(r *bitmsg.Reader)
}
