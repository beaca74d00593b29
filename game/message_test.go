package game

import (
	"errors"
	"strings"
	"testing"

	"github.com/snapwire/snapwire/bitmsg"
)

type chatMessage struct{ text string }

func (m *chatMessage) WriteMessage(w *bitmsg.Writer) { w.WriteString(m.text, 100) }
func (m *chatMessage) ReadMessage(r *bitmsg.Reader)  { m.text = r.ReadString(100) }

type readyMessage struct{ chatMessage }

func newChatMessage() Message  { return new(chatMessage) }
func newReadyMessage() Message { return new(readyMessage) }

// Message ids follow registration order; names and Go types are unique;
// the message types are part of the hash, in order, and a registry
// without them hashes as before they existed.
func TestRegisterMessage(t *testing.T) {
	build := func(names ...string) *Registry {
		r := NewRegistry()
		r.MustRegister(EntityType{Name: "player", New: newDummy})
		news := []func() Message{newChatMessage, newReadyMessage}
		for i, n := range names {
			if err := r.RegisterMessage(n, news[i]); err != nil {
				t.Fatal(err)
			}
		}
		return r
	}
	a := build("chat", "ready")
	if name, _, ok := a.MessageType(1); !ok || name != "ready" {
		t.Fatalf("message 1 = %q %v, want ready (registration order from 0)", name, ok)
	}
	if _, newMessage, ok := a.MessageType(0); !ok {
		t.Fatal("message 0 missing")
	} else if _, isChat := newMessage().(*chatMessage); !isChat {
		t.Fatal("message 0's constructor is not chat's")
	}
	if _, _, ok := a.MessageType(2); ok {
		t.Fatal("message 2 exists")
	}
	if _, _, ok := a.MessageType(-1); ok {
		t.Fatal("message -1 exists")
	}
	if a.Hash() != build("chat", "ready").Hash() {
		t.Fatal("equal registries hash differently")
	}
	if a.Hash() == build("ready", "chat").Hash() || a.Hash() == build("chat").Hash() {
		t.Fatal("message order or count not in the hash")
	}
	// The hash of a registry without messages is the documented one, with
	// no trace of messages.
	none := build()
	h := newFNV()
	h.bytes([]byte("snapwire registry 1"))
	h.bytes([]byte{1, 0, byte(len("player"))})
	h.bytes([]byte("player"))
	h.byte(byte(Predict))
	h.byte(0xFF)
	if none.Hash() != uint64(h) {
		t.Fatal("messages changed the hash of a registry without them")
	}

	for _, tc := range []struct {
		name       string
		newMessage func() Message
		want       error
		text       string
	}{
		{"chat", newReadyMessage, ErrDuplicateType, `message "chat"`},
		{"other", newChatMessage, ErrDuplicateType, `Go type *game.chatMessage of message "chat"`},
		{"", newReadyMessage, ErrRange, "1..255 bytes"},
		{strings.Repeat("n", 256), newReadyMessage, ErrRange, "1..255 bytes"},
		{"nil", nil, nil, "no constructor"},
		{"returns nil", func() Message { return nil }, nil, "returned nil"},
	} {
		r := build("chat")
		err := r.RegisterMessage(tc.name, tc.newMessage)
		if err == nil || (tc.want != nil && !errors.Is(err, tc.want)) || !strings.Contains(err.Error(), tc.text) {
			t.Errorf("RegisterMessage(%.10q): %v, want %v saying %q", tc.name, err, tc.want, tc.text)
		}
	}
}

// At most 256 message types: the id is one byte on the wire.
func TestRegisterMessageBound(t *testing.T) {
	r := NewRegistry()
	for i := range maxMessageTypes {
		r.msgs = append(r.msgs, messageType{name: string(rune('a'+i%26)) + strings.Repeat("x", i/26)})
	}
	if err := r.RegisterMessage("one too many", newChatMessage); !errors.Is(err, ErrRange) {
		t.Fatalf("message type %d: %v", maxMessageTypes+1, err)
	}
}
