package game

import (
	"fmt"
	"reflect"
)

// maxMessageTypes bounds the registered message types: the message id is
// one byte on the wire (docs/PROTOCOL.md, "Game messages").
const maxMessageTypes = 256

// messageType is a registered game message type: its name (part of the
// registry hash), its constructor and the Go type the constructor returns,
// which identifies a message given to a sender.
type messageType struct {
	name   string
	new    func() Message
	goType reflect.Type
}

// RegisterMessage adds a game message type (Message): name identifies it
// on both ends and is part of Hash; newMessage returns a fresh message of
// one concrete type (typically a pointer to a struct), which is how a
// message given to a server's or client's SendMessage is recognised. Ids
// follow registration order from 0; at most 256 types. Like the entity
// types, both ends register the same messages in the same order.
func (r *Registry) RegisterMessage(name string, newMessage func() Message) error {
	switch {
	case len(r.msgs) >= maxMessageTypes:
		return fmt.Errorf("%w: more than %d message types", ErrRange, maxMessageTypes)
	case name == "" || len(name) > 255:
		return fmt.Errorf("%w: message name %q must be 1..255 bytes", ErrRange, name)
	case newMessage == nil:
		return fmt.Errorf("game: message %q has no constructor", name)
	}
	m := newMessage()
	if m == nil {
		return fmt.Errorf("game: message %q: the constructor returned nil", name)
	}
	t := reflect.TypeOf(m)
	for _, o := range r.msgs {
		switch {
		case o.name == name:
			return fmt.Errorf("%w: message %q", ErrDuplicateType, name)
		case o.goType == t:
			return fmt.Errorf("%w: message %q has the Go type %v of message %q", ErrDuplicateType, name, t, o.name)
		}
	}
	r.msgs = append(r.msgs, messageType{name: name, new: newMessage, goType: t})
	return nil
}

// MessageType returns the name and constructor of the message type
// registered with id; ok is false for an id not registered.
func (r *Registry) MessageType(id int) (name string, newMessage func() Message, ok bool) {
	if id < 0 || id >= len(r.msgs) {
		return "", nil, false
	}
	return r.msgs[id].name, r.msgs[id].new, true
}

// hashMessages adds the message types to a registry hash (Hash).
func (r *Registry) hashMessages(h *fnv) {
	if len(r.msgs) == 0 {
		return // the hash of a registry without messages is unchanged
	}
	h.byte(0xFE)
	for _, m := range r.msgs {
		h.byte(byte(len(m.name)))
		h.bytes([]byte(m.name))
	}
}
