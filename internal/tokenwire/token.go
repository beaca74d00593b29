// Package tokenwire is the wire format of snapwire's connect tokens,
// whose public face is package token (keys, Issue, Parse): the layout
// below, the Opener a server checks connect requests with and the
// derivation of a session's channel keys (SessionKeys). The server and
// the client use it; a game developer never does. A connect token is the
// proof a game backend gives a client that it may join one of a list of
// snapwire servers, and carries the session keys that client and server
// then encrypt every channel packet with.
//
// The model is netcode.io's (its public STANDARD.md, "Connect Token"): a
// backend that holds a private key, shared with the game servers and never
// with clients, authenticates a player by its own means (a web login, a
// matchmaker) and hands it a token over a secure channel such as HTTPS.
// The token has a public part the client reads (the server addresses, the
// session keys, the expiry) and a private part sealed with
// XChaCha20-Poly1305 under the private key, which only a server can open.
// The client sends the private part in its connect request; the server
// opens it, checks the expiry, the create time, the protocol id and that
// its own address is listed, and derives the session's channel keys from
// the token's keys and a random value of its own that it sends in its
// sealed accept (SessionKeys). An attacker who sees the connect request
// learns neither key: they are inside the sealed part.
//
// Wire layout of a token (all integers little-endian):
//
//	+-------------------------------+
//	| "SNAPWIRE TOKEN 2" (16 bytes) |  Magic
//	+-------------------------------+
//	| protocol id          u64      |  ┐
//	| create time (Unix s) u64      |  │ Header: also the associated data
//	| expire time (Unix s) u64      |  │ of the sealed part
//	| nonce                24 bytes |  ┘
//	| sealed length        u16      |
//	| sealed private part ...       |  XChaCha20-Poly1305(private) + 16-byte tag
//	+-------------------------------+
//	| timeout (ms)         u32      |  ┐
//	| client→server key    32 bytes |  │ Public part, for the client only;
//	| server→client key    32 bytes |  │ never sent to a server
//	| server count u8, addresses... |  ┘
//	+-------------------------------+
//
// The private part, before sealing:
//
//	client id u64 | timeout ms u32 | client→server key 32 | server→client key 32 |
//	server count u8 | count × address | user data length u16 | user data |
//	match length u8 | match
//
// and an address is family u8 (4 or 6) | 4 or 16 address bytes | port u16.
// The match is the name of the match the token admits to on a server
// that hosts many (0..MaxMatchLen bytes of printable ASCII without spaces,
// CheckMatch; empty: the server's default match).
//
// Magic "SNAPWIRE TOKEN 2" is the layout with the match (issue 25); a
// token of layout 1 is malformed. Tokens live for seconds (Params.Lifetime,
// 30 s by default), so none outlives the change.
package tokenwire

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"time"

	"golang.org/x/crypto/chacha20poly1305"
)

// Limits.
const (
	KeyLen        = 32 // private key and session key size
	NonceLen      = chacha20poly1305.NonceSizeX
	MaxServers    = 8   // addresses one token is good for
	MaxUserData   = 256 // opaque bytes the backend passes to the server
	tagLen        = chacha20poly1305.Overhead
	MaxMatchLen   = 32 // the longest match name (Params.Match, CheckMatch)
	magic         = "SNAPWIRE TOKEN 2"
	headerLen     = 8 + 8 + 8 + NonceLen
	maxAddrLen    = 1 + 16 + 2
	maxPrivateLen = 8 + 4 + 2*KeyLen + 1 + MaxServers*maxAddrLen + 2 + MaxUserData + 1 + MaxMatchLen
	// MaxSealedLen is the largest sealed private part.
	MaxSealedLen = maxPrivateLen + tagLen
	// MaxPrivateTokenLen is the largest private token: the header, the
	// sealed part and its length.
	MaxPrivateTokenLen = headerLen + 2 + MaxSealedLen
)

// Errors (package token exports ErrMalformed and ErrBadKey). A server
// refuses a connect with the reason matching the error (package session).
var (
	ErrMalformed     = errors.New("token: malformed token")
	ErrExpired       = errors.New("token: expired")
	ErrNotYetValid   = errors.New("token: created in the future (check the clocks)")
	ErrWrongProtocol = errors.New("token: issued for another protocol id")
	ErrWrongServer   = errors.New("token: this server's address is not listed in the token")
	ErrTampered      = errors.New("token: sealed part does not open with this key (tampered or another key)")
	ErrBadKey        = errors.New("token: key must be 32 bytes")
)

// Key is the backend's private key, shared with every game server.
type Key [KeyLen]byte

// NewKey returns a key from crypto/rand.
func NewKey() (Key, error) {
	var k Key
	_, err := rand.Read(k[:])
	return k, err
}

// String is the key as 64 hex digits, the key file format.
func (k Key) String() string { return hex.EncodeToString(k[:]) }

// ParseKey reads a key file's content: 64 hex digits, surrounding white
// space ignored.
func ParseKey(s string) (Key, error) {
	var k Key
	b, err := hex.DecodeString(strings.TrimSpace(s))
	if err != nil || len(b) != KeyLen {
		return k, ErrBadKey
	}
	copy(k[:], b)
	return k, nil
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

// Header is a token's public header: sent in the connect request in the
// clear and authenticated as the sealed part's associated data.
type Header struct {
	ProtocolID uint64
	Created    time.Time
	Expires    time.Time
	Nonce      [NonceLen]byte
}

// Token is a whole connect token as the client holds it.
type Token struct {
	Header
	Sealed            []byte // the private part, sealed
	Timeout           time.Duration
	ClientToServerKey [KeyLen]byte
	ServerToClientKey [KeyLen]byte
	Servers           []netip.AddrPort
}

// Private is the opened private part, as the server sees it.
type Private struct {
	Header
	ClientID          uint64
	Timeout           time.Duration
	ClientToServerKey [KeyLen]byte
	ServerToClientKey [KeyLen]byte
	Servers           []netip.AddrPort
	UserData          []byte
	Match             string // the match the token admits to; empty: the default
	// MAC is the sealed part's Poly1305 tag: unique per token, the key of
	// a server's table of tokens already used.
	MAC [16]byte
}

// Issue makes a token for one client at time now, with fresh session keys
// and nonce from crypto/rand.
func Issue(key Key, p Params, now time.Time) (*Token, error) {
	if len(p.Servers) == 0 || len(p.Servers) > MaxServers {
		return nil, fmt.Errorf("token: %d server addresses; want 1..%d", len(p.Servers), MaxServers)
	}
	if len(p.UserData) > MaxUserData {
		return nil, fmt.Errorf("token: %d bytes of user data; at most %d", len(p.UserData), MaxUserData)
	}
	for _, a := range p.Servers {
		if !a.IsValid() {
			return nil, fmt.Errorf("token: invalid server address %v", a)
		}
	}
	if err := CheckMatch(p.Match); err != nil {
		return nil, fmt.Errorf("token: %w", err)
	}
	if p.Lifetime <= 0 {
		p.Lifetime = 30 * time.Second
	}
	if p.Timeout <= 0 {
		p.Timeout = 10 * time.Second
	}
	t := &Token{Timeout: p.Timeout, Servers: append([]netip.AddrPort(nil), p.Servers...)}
	t.ProtocolID = p.ProtocolID
	t.Created = now.Truncate(time.Second)
	t.Expires = now.Add(p.Lifetime).Truncate(time.Second)
	for _, b := range [][]byte{t.Nonce[:], t.ClientToServerKey[:], t.ServerToClientKey[:]} {
		if _, err := rand.Read(b); err != nil {
			return nil, err
		}
	}
	priv := binary.LittleEndian.AppendUint64(nil, p.ClientID)
	priv = binary.LittleEndian.AppendUint32(priv, uint32(p.Timeout/time.Millisecond))
	priv = append(priv, t.ClientToServerKey[:]...)
	priv = append(priv, t.ServerToClientKey[:]...)
	priv = appendAddrs(priv, t.Servers)
	priv = binary.LittleEndian.AppendUint16(priv, uint16(len(p.UserData)))
	priv = append(priv, p.UserData...)
	priv = append(priv, byte(len(p.Match)))
	priv = append(priv, p.Match...)
	aead, err := chacha20poly1305.NewX(key[:])
	if err != nil {
		return nil, err
	}
	t.Sealed = aead.Seal(nil, t.Nonce[:], priv, t.Header.appendTo(nil))
	return t, nil
}

// CheckMatch checks a match name: at most MaxMatchLen bytes, each
// printable ASCII other than a space (0x21..0x7e), so that a name is one
// word in logs, metrics labels and command lines. The empty name, the
// default match, passes.
func CheckMatch(name string) error {
	if len(name) > MaxMatchLen {
		return fmt.Errorf("match name of %d bytes; at most %d", len(name), MaxMatchLen)
	}
	if i := checkMatchBytes(name); i >= 0 {
		return fmt.Errorf("match name %q: byte %#02x at %d; want printable ASCII without spaces", name, name[i], i)
	}
	return nil
}

// checkMatchBytes returns the index of the first byte of name outside
// 0x21..0x7e, or -1.
func checkMatchBytes[T string | []byte](name T) int {
	for i := range len(name) {
		if c := name[i]; c < 0x21 || c > 0x7e {
			return i
		}
	}
	return -1
}

func (h *Header) appendTo(b []byte) []byte {
	b = binary.LittleEndian.AppendUint64(b, h.ProtocolID)
	b = binary.LittleEndian.AppendUint64(b, uint64(h.Created.Unix()))
	b = binary.LittleEndian.AppendUint64(b, uint64(h.Expires.Unix()))
	return append(b, h.Nonce[:]...)
}

func appendAddrs(b []byte, addrs []netip.AddrPort) []byte {
	b = append(b, byte(len(addrs)))
	for _, a := range addrs {
		ip := a.Addr().Unmap()
		if ip.Is4() {
			b = append(b, 4)
			s := ip.As4()
			b = append(b, s[:]...)
		} else {
			b = append(b, 6)
			s := ip.As16()
			b = append(b, s[:]...)
		}
		b = binary.LittleEndian.AppendUint16(b, a.Port())
	}
	return b
}

// reader reads fields with a sticky error: a read past the end or a value
// out of range makes every later read return zero and err ErrMalformed.
type reader struct {
	b   []byte
	err error
}

func (r *reader) need(n int) []byte {
	if r.err != nil || n > len(r.b) {
		r.err = ErrMalformed
		return nil
	}
	v := r.b[:n]
	r.b = r.b[n:]
	return v
}

func (r *reader) u8() uint8 {
	if v := r.need(1); v != nil {
		return v[0]
	}
	return 0
}

func (r *reader) u16() uint16 {
	if v := r.need(2); v != nil {
		return binary.LittleEndian.Uint16(v)
	}
	return 0
}

func (r *reader) u32() uint32 {
	if v := r.need(4); v != nil {
		return binary.LittleEndian.Uint32(v)
	}
	return 0
}

func (r *reader) u64() uint64 {
	if v := r.need(8); v != nil {
		return binary.LittleEndian.Uint64(v)
	}
	return 0
}

func (r *reader) header(h *Header) {
	h.ProtocolID = r.u64()
	h.Created = unix(r.u64())
	h.Expires = unix(r.u64())
	copy(h.Nonce[:], r.need(NonceLen))
}

func unix(s uint64) time.Time {
	if s > 1<<40 { // past year 36000: a hostile value; keep time.Unix in range
		s = 1 << 40
	}
	return time.Unix(int64(s), 0)
}

func (r *reader) addrs() []netip.AddrPort {
	n := int(r.u8())
	if n == 0 || n > MaxServers {
		r.err = ErrMalformed
		return nil
	}
	out := make([]netip.AddrPort, 0, n)
	for range n {
		var ip netip.Addr
		switch r.u8() {
		case 4:
			var a [4]byte
			copy(a[:], r.need(4)) // need returns nil past the end: a stays zero
			ip = netip.AddrFrom4(a)
		case 6:
			var a [16]byte
			copy(a[:], r.need(16))
			ip = netip.AddrFrom16(a)
		default:
			r.err = ErrMalformed
		}
		port := r.u16()
		if r.err != nil {
			return nil
		}
		out = append(out, netip.AddrPortFrom(ip, port))
	}
	return out
}

// AppendPrivate appends what the client sends a server: the header and the
// sealed private part (the public keys stay with the client).
func (t *Token) AppendPrivate(b []byte) []byte {
	b = t.Header.appendTo(b)
	b = binary.LittleEndian.AppendUint16(b, uint16(len(t.Sealed)))
	return append(b, t.Sealed...)
}

// Marshal encodes the whole token (what the backend gives the client).
func (t *Token) Marshal() []byte {
	b := append([]byte(magic), t.AppendPrivate(nil)...)
	b = binary.LittleEndian.AppendUint32(b, uint32(t.Timeout/time.Millisecond))
	b = append(b, t.ClientToServerKey[:]...)
	b = append(b, t.ServerToClientKey[:]...)
	return appendAddrs(b, t.Servers)
}

// String is the token as unpadded URL-safe base64, for scripts and flags.
func (t *Token) String() string { return base64.RawURLEncoding.EncodeToString(t.Marshal()) }

// Parse decodes a token made by String (or the bytes of Marshal, if the
// text is not base64).
func Parse(s string) (*Token, error) {
	s = strings.TrimSpace(s)
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		b = []byte(s)
	}
	return Unmarshal(b)
}

// Unmarshal decodes the bytes of Marshal.
func Unmarshal(b []byte) (*Token, error) {
	if !bytes.HasPrefix(b, []byte(magic)) {
		return nil, ErrMalformed
	}
	r := reader{b: b[len(magic):]}
	t := &Token{}
	r.header(&t.Header)
	n := int(r.u16())
	if n < tagLen || n > MaxSealedLen {
		return nil, ErrMalformed
	}
	t.Sealed = append([]byte(nil), r.need(n)...)
	t.Timeout = time.Duration(r.u32()) * time.Millisecond
	copy(t.ClientToServerKey[:], r.need(KeyLen))
	copy(t.ServerToClientKey[:], r.need(KeyLen))
	t.Servers = r.addrs()
	if r.err != nil || len(r.b) != 0 {
		return nil, ErrMalformed
	}
	return t, nil
}

// Opener opens the private tokens connect requests carry, on a server.
// It holds the cipher, so opening allocates only the returned Private.
type Opener struct {
	protocol uint64
	addrs    []netip.AddrPort
	key      Key
	buf      []byte
}

// NewOpener returns an Opener for a server with the given protocol id and
// the addresses tokens name it by.
func NewOpener(key Key, protocolID uint64, addrs []netip.AddrPort) *Opener {
	return &Opener{protocol: protocolID, addrs: append([]netip.AddrPort(nil), addrs...), key: key,
		buf: make([]byte, 0, maxPrivateLen)}
}

// ClockSkew is how far ahead of a server's clock a token's create time
// may be: a token dated later is refused (ErrNotYetValid), so a token
// cannot be made to outlive its lifetime by dating it ahead (issue 22).
const ClockSkew = 10 * time.Second

// Open checks and opens a private token (AppendPrivate's bytes) at time
// now. The checks run cheapest first: length, protocol id, expiry and
// create time (at most ClockSkew ahead of now), then the AEAD, then the
// address list.
func (o *Opener) Open(b []byte, now time.Time) (*Private, error) {
	r := reader{b: b}
	p := &Private{}
	r.header(&p.Header)
	n := int(r.u16())
	if r.err != nil || n < tagLen || n > MaxSealedLen || n != len(r.b) {
		return nil, ErrMalformed
	}
	if p.ProtocolID != o.protocol {
		return nil, ErrWrongProtocol
	}
	if !now.Before(p.Expires) {
		return nil, ErrExpired
	}
	if p.Created.After(now.Add(ClockSkew)) {
		return nil, ErrNotYetValid
	}
	sealed := r.b
	aead, err := chacha20poly1305.NewX(o.key[:])
	if err != nil {
		return nil, err
	}
	var ad [headerLen]byte
	plain, err := aead.Open(o.buf[:0], p.Nonce[:], sealed, p.Header.appendTo(ad[:0]))
	if err != nil {
		return nil, ErrTampered
	}
	copy(p.MAC[:], sealed[len(sealed)-tagLen:])
	pr := reader{b: plain}
	p.ClientID = pr.u64()
	p.Timeout = time.Duration(pr.u32()) * time.Millisecond
	copy(p.ClientToServerKey[:], pr.need(KeyLen))
	copy(p.ServerToClientKey[:], pr.need(KeyLen))
	p.Servers = pr.addrs()
	ud := int(pr.u16())
	if ud > MaxUserData {
		return nil, ErrMalformed
	}
	p.UserData = append([]byte(nil), pr.need(ud)...)
	if n := int(pr.u8()); n > MaxMatchLen {
		return nil, ErrMalformed
	} else if m := pr.need(n); len(m) > 0 {
		if checkMatchBytes(m) >= 0 {
			return nil, ErrMalformed
		}
		p.Match = string(m)
	}
	if pr.err != nil || len(pr.b) != 0 {
		// Sealed by a holder of the key, yet malformed: a bug or a
		// compromised backend; refuse it all the same.
		return nil, ErrMalformed
	}
	for _, a := range p.Servers {
		for _, mine := range o.addrs {
			if a.Port() == mine.Port() && a.Addr().Unmap() == mine.Addr().Unmap() {
				return p, nil
			}
		}
	}
	return nil, ErrWrongServer
}

// of returns the wire form of a *token.Token; package token registers it
// (tokenwire cannot import token).
var of func(t any) *Token

// RegisterPublic is called by package token's init.
func RegisterPublic(f func(t any) *Token) { of = f }

// Of returns the wire form of t, a *token.Token: what a client sends and
// the keys it derives its session's from.
func Of(t any) *Token { return of(t) }
