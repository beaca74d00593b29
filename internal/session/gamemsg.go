package session

// Game messages (game.Message): the game's own reliable messages, both
// ways, riding the channel's reliable stream like the session's (DOOM III
// §3: "reliable messages ... are sent with every unreliable message until
// acknowledged"). One game message is one reliable message:
//
//	 0       1       2
//	+-------+-------+----------------------------------------+
//	| kind 5|  id   | payload: the message's fields, a bit   |
//	|       |       | stream LSB first, zero-padded to a byte|
//	+-------+-------+----------------------------------------+
//
// id is the message type's registration index (game.Registry
// RegisterMessage); the payload is 0..MaxGameMessageLen bytes, and its
// reader must consume it to within the padding, whose bits are zero.

import (
	"fmt"
	"reflect"

	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/game"
)

// RelGameMessage is the reliable kind of a game message (both ways).
const RelGameMessage RelKind = 5

// Sizes of a game message.
const (
	// GameMessageHeaderLen is the kind and the id.
	GameMessageHeaderLen = 2
	// MaxGameMessageLen bounds a game message's payload on both ends: a
	// sender refuses a larger one, a receiver ends the session that
	// carries one. Reliable messages ride in every packet until
	// acknowledged, so they are kept small (DOOM III §3: "reliable
	// messages that are very small compared to unreliable messages").
	MaxGameMessageLen = 1024
	// MaxGameMessageQueue is how many outstanding reliable bytes a
	// channel may hold for a game message to be queued: game messages
	// take at most this share of the channel's reliable queue
	// (netchan.Config.MaxReliableBytes, 16 KiB), and the rest stays free
	// for the session's own messages (applies, events, disconnect). A
	// sender whose peer has not acknowledged this many bytes refuses
	// further game messages until it does.
	MaxGameMessageQueue = 8192
)

// GameMessages encodes and decodes the game messages of one registry. It
// holds one scratch message of each type, which Decode fills and returns:
// decoding allocates nothing beyond what a message's ReadMessage does. It
// is not safe for concurrent use; each server and client core owns one.
type GameMessages struct {
	names   []string
	scratch []game.Message
	ids     map[reflect.Type]uint8
	buf     [GameMessageHeaderLen + MaxGameMessageLen]byte
	w       bitmsg.Writer
	r       bitmsg.Reader
}

// NewGameMessages returns the codec of reg's message types.
func NewGameMessages(reg *game.Registry) *GameMessages {
	g := &GameMessages{ids: map[reflect.Type]uint8{}}
	for id := 0; ; id++ {
		name, newMessage, ok := reg.MessageType(id)
		if !ok {
			break
		}
		m := newMessage()
		g.names = append(g.names, name)
		g.scratch = append(g.scratch, m)
		g.ids[reflect.TypeOf(m)] = uint8(id)
	}
	return g
}

// Name returns the name of message type id ("" if none).
func (g *GameMessages) Name(id int) string {
	if id < 0 || id >= len(g.names) {
		return ""
	}
	return g.names[id]
}

// Encode returns m's reliable message (kind, id, payload of at most
// maxPayload bytes, itself at most MaxGameMessageLen). The bytes are the
// codec's, valid until the next Encode. A message of a type not
// registered, or whose payload does not fit, is an error.
func (g *GameMessages) Encode(m game.Message, maxPayload int) ([]byte, error) {
	if m == nil {
		return nil, fmt.Errorf("%w: nil game message", game.ErrRange)
	}
	id, ok := g.ids[reflect.TypeOf(m)]
	if !ok {
		return nil, fmt.Errorf("%w: game message of type %T not registered (game.Registry.RegisterMessage)", game.ErrRange, m)
	}
	maxPayload = min(max(maxPayload, 0), MaxGameMessageLen)
	g.buf[0], g.buf[1] = byte(RelGameMessage), id
	g.w.Reset(g.buf[GameMessageHeaderLen : GameMessageHeaderLen+maxPayload])
	m.WriteMessage(&g.w)
	if err := g.w.Err(); err != nil {
		return nil, fmt.Errorf("%w: game message %q (limit %d bytes): %w", game.ErrRange, g.names[id], maxPayload, err)
	}
	n := len(g.w.Bytes())
	return g.buf[:GameMessageHeaderLen+n], nil
}

// Decode parses a game message whose payload is at most maxPayload bytes
// (itself at most MaxGameMessageLen) into the codec's scratch message of
// its type, valid until the next Decode of that type. It returns the
// message and its id; a message of an unknown id, too long, that its
// reader does not consume to within the padding or whose padding is not
// zero is ErrMalformed with the message type named.
func (g *GameMessages) Decode(p []byte, maxPayload int) (game.Message, int, error) {
	if len(p) < GameMessageHeaderLen {
		return nil, 0, fmt.Errorf("%w: game message of %d bytes", ErrMalformed, len(p))
	}
	if RelKind(p[0]) != RelGameMessage {
		return nil, 0, ErrKind
	}
	id := int(p[1])
	if id >= len(g.scratch) {
		return nil, 0, fmt.Errorf("%w: game message id %d, %d registered", ErrMalformed, id, len(g.scratch))
	}
	body := p[GameMessageHeaderLen:]
	if maxPayload = min(max(maxPayload, 0), MaxGameMessageLen); len(body) > maxPayload {
		return nil, id, fmt.Errorf("%w: game message %q of %d bytes, limit %d", ErrMalformed, g.names[id], len(body), maxPayload)
	}
	m := g.scratch[id]
	g.r.Reset(body, len(body)*8)
	m.ReadMessage(&g.r)
	if err := g.r.Err(); err != nil {
		return nil, id, fmt.Errorf("%w: game message %q: %w", ErrMalformed, g.names[id], err)
	}
	left := g.r.BitsLeft()
	if left >= 8 {
		return nil, id, fmt.Errorf("%w: game message %q: %d bits left unread (its reader reads less than its writer writes)", ErrMalformed, g.names[id], left)
	}
	if left > 0 && g.r.ReadBits(left) != 0 {
		return nil, id, fmt.Errorf("%w: game message %q: non-zero padding (its reader reads less than its writer writes)", ErrMalformed, g.names[id])
	}
	return m, id, nil
}
