// Package token issues connect tokens: the proof a game backend gives a
// client that it may join one of a list of snapwire servers, and the
// session keys that client and server then encrypt every channel packet
// with.
//
// The model is netcode.io's (its public STANDARD.md, "Connect Token"): a
// backend that holds a private key, shared with the game servers and never
// with clients, authenticates a player by its own means (a web login, a
// matchmaker), issues it a token with Issue and hands it over a secure
// channel such as HTTPS (String, Parse). The token has a public part the
// client reads (the server addresses, the session keys, the expiry) and a
// private part sealed with XChaCha20-Poly1305 under the private key, which
// only a server can open. The client sends the private part in its connect
// request; a server configured with the key (server.Config.TokenKey)
// opens it, checks the expiry, the create time, the protocol id and that
// its own address is listed, and derives the session's channel keys from
// the token's keys and a random value of its own that it sends in its
// sealed accept. An attacker who sees the connect request learns neither
// key: they are inside the sealed part. The wire layout is in
// docs/PROTOCOL.md and internal/tokenwire.
package token

import (
	"net/netip"
	"time"

	"github.com/snapwire/snapwire/internal/tokenwire"
)

// Limits of Params.
const (
	MaxServers  = tokenwire.MaxServers  // addresses one token is good for
	MaxUserData = tokenwire.MaxUserData // opaque bytes the backend passes to the server
)

// Errors of ParseKey and Parse.
var (
	ErrMalformed = tokenwire.ErrMalformed
	ErrBadKey    = tokenwire.ErrBadKey
)

// Key is the backend's private key, shared with every game server.
type Key [32]byte

// NewKey returns a key from crypto/rand.
func NewKey() (Key, error) {
	k, err := tokenwire.NewKey()
	return Key(k), err
}

// String is the key as 64 hex digits, the key file format.
func (k Key) String() string { return tokenwire.Key(k).String() }

// ParseKey reads a key file's content: 64 hex digits, surrounding white
// space ignored.
func ParseKey(s string) (Key, error) {
	k, err := tokenwire.ParseKey(s)
	return Key(k), err
}

// Params are what the backend decides for one client.
type Params struct {
	ProtocolID uint64           // the game's protocol id; servers refuse others
	ClientID   uint64           // the backend's id for the player
	Servers    []netip.AddrPort // 1..MaxServers addresses the token is good for
	// Lifetime is how long the token can be used to connect [30s].
	Lifetime time.Duration
	// Timeout is the session timeout both ends apply: the server drops a
	// client silent for this long, and a client whose Config.Timeout is
	// unset gives up on a silent server after it [10s].
	Timeout  time.Duration
	UserData []byte // at most MaxUserData bytes, given to the server
	// Match is the match the token admits to on a server that hosts many
	// (server.Host): 1..32 bytes of printable ASCII without spaces, such
	// as "duel-17"; empty: the server's default match.
	Match string
}

// Token is a whole connect token as the client holds it.
type Token struct {
	w tokenwire.Token
}

func init() {
	tokenwire.RegisterPublic(func(t any) *tokenwire.Token { return &t.(*Token).w })
}

// Issue makes a token for one client at time now, with fresh session keys
// and nonce from crypto/rand.
func Issue(key Key, p Params, now time.Time) (*Token, error) {
	w, err := tokenwire.Issue(tokenwire.Key(key), tokenwire.Params(p), now)
	if err != nil {
		return nil, err
	}
	return &Token{w: *w}, nil
}

// Marshal encodes the whole token (what the backend gives the client).
func (t *Token) Marshal() []byte { return t.w.Marshal() }

// String is the token as unpadded URL-safe base64, for scripts and flags.
func (t *Token) String() string { return t.w.String() }

// Parse decodes a token made by String (or the bytes of Marshal, if the
// text is not base64).
func Parse(s string) (*Token, error) {
	w, err := tokenwire.Parse(s)
	if err != nil {
		return nil, err
	}
	return &Token{w: *w}, nil
}
