package session

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/netchan"
	"github.com/snapwire/snapwire/internal/snapshot"
	"github.com/snapwire/snapwire/internal/tokenwire"
)

// Version is the session protocol version the client sends in connect.
// Version 2: connect carries a connect token and is padded to ConnectLen.
// Version 3: a secure server's accept is sealed (KindSealedAccept) and
// carries the random value the session keys derive from, its refusals
// after the token opened are sealed (KindSealedRefuse), and path
// challenge and response messages validate a client's new address.
// Version 4: game messages both ways (RelGameMessage, gamemsg.go), and the
// disconnect reason ReasonMessageFlood; the registry hash covers declared
// field layouts (game.Registry.Hash), and a refusal for a wrong registry
// carries the server's registry digest (RegistryDigest) after its text, or
// in its sealed plaintext after the reason.
// Version 5: a connect with a token carries a resume proof after the token
// (Connect.Proof), with which a client whose token already opened a
// session resumes it (docs/PROTOCOL.md, "Reconnection"); the client number
// in accept and sealed accept is a u16 (game.MaxClients, 1,024 player
// slots), no longer a u8.
// Version 6: the connect names the match it joins on a server that hosts
// many (Connect.Match, after the name; docs/PROTOCOL.md, "Matches"), a
// connect token names its own (tokenwire.Params.Match), and the reason
// ReasonNoSuchMatch refuses a connect to a match the server does not host.
const Version uint16 = 6

// Errors returned by the parsers.
var (
	ErrMalformed = errors.New("session: malformed message")
	ErrKind      = errors.New("session: unknown message kind")
)

// Limits of variable-length fields.
const (
	MaxNameLen     = 32
	MaxPasswordLen = 64
	MaxSettingsLen = 1024
	MaxReasonLen   = 128
	CookieLen      = 16
	// GetChallengeLen is the padded size of a getchallenge payload: at
	// least the size of the challenge it asks for, so the server never
	// answers a spoofed request with more bytes than it received (no
	// amplification).
	GetChallengeLen = 40
	// ConnectLen is the padded size of a connect payload: larger than any
	// answer to it (an accept carries at most 1,047 bytes, a sealed accept
	// MaxSealedAcceptLen, 1,119), so a server
	// never sends more than it received even before the cookie proves the
	// address (the reason QUIC pads a client's first packet to 1,200
	// bytes, RFC 9000 §8.1).
	ConnectLen = 1200
	// MaxTokenLen bounds the private connect token a connect carries
	// (internal/tokenwire: tokenwire.MaxPrivateTokenLen is smaller): a
	// connect with every field at its bound is exactly ConnectLen.
	MaxTokenLen = 1016
	// MaxMatchLen bounds Connect.Match (tokenwire.CheckMatch).
	MaxMatchLen = tokenwire.MaxMatchLen
)

// Kind is the first byte of a connectionless payload: a handshake
// message. Reliable messages have their own kinds (RelKind): the two
// travel in different places and their values overlap.
type Kind uint8

// RelKind is the first byte of a reliable message (netchan's reliable
// section).
type RelKind uint8

// Connectionless kinds (after the 0xFFFFFFFF prefix, netchan.AppendConnectionless).
const (
	KindGetChallenge Kind = 1
	KindChallenge    Kind = 2
	KindConnect      Kind = 3
	KindAccept       Kind = 4
	KindRefuse       Kind = 5
)

// Reliable message kinds.
const (
	RelApply      RelKind = 1 // server → client: apply snapshot S to the common base
	RelEvents     RelKind = 2 // server → client: reliable entity events
	RelDisconnect RelKind = 3 // both ways: the sender leaves the session
	// RelApplyVerified is RelApply carrying the server's base hash.
	RelApplyVerified RelKind = 4
)

// Unreliable message types carried in the channel header (DOOM III §3.1).
const (
	// Server → client.
	TypeSnapshot netchan.MessageType = 1 // game id, then a snapshot
	TypeLoadGame netchan.MessageType = 2 // game id and settings: "load this game"
	// Client → server.
	TypeCommands netchan.MessageType = 1 // header, then a usercmd.Message
	TypeIdle     netchan.MessageType = 2 // header only (no command yet)
)

// Reason says why a server refused a connect or dropped a client.
type Reason uint8

// Refusal and disconnect reasons.
const (
	ReasonNone          Reason = 0
	ReasonServerFull    Reason = 1
	ReasonWrongVersion  Reason = 2
	ReasonWrongRegistry Reason = 3
	ReasonWrongPassword Reason = 4
	ReasonBadCookie     Reason = 5
	ReasonTimeout       Reason = 6
	ReasonShutdown      Reason = 7
	ReasonClientLeft    Reason = 8
	ReasonKicked        Reason = 9
	ReasonProtocolError Reason = 10
	// Connect tokens (package token) and handshake limits.
	ReasonTokenRequired     Reason = 11
	ReasonTokenExpired      Reason = 12
	ReasonTokenWrongProto   Reason = 13
	ReasonTokenWrongServer  Reason = 14
	ReasonTokenInvalid      Reason = 15
	ReasonTokenReused       Reason = 16
	ReasonTokenOtherAddress Reason = 17
	ReasonTokenUnsupported  Reason = 18
	ReasonTooManyAttempts   Reason = 19
	ReasonTooManyFromIP     Reason = 20
	ReasonTokenNotYetValid  Reason = 21
	// Game messages (gamemsg.go): a client that sent them faster or
	// larger than the server's limits.
	ReasonMessageFlood Reason = 22
	// Many matches per process (issue 25): the match the connect's token
	// names, or without a token the connect's Match, is not hosted here.
	ReasonNoSuchMatch Reason = 23
)

var reasonNames = [...]string{"none", "server full", "wrong protocol version", "wrong entity registry",
	"wrong password", "bad or expired cookie", "timed out", "server shut down", "client left", "kicked", "protocol error",
	"this server requires a connect token", "connect token expired", "connect token is for another protocol id",
	"connect token does not list this server", "connect token invalid (tampered or another key)",
	"connect token already used", "connect token already used from another address",
	"this server does not take connect tokens", "too many connect or password attempts; wait and retry",
	"too many clients from this IP address", "connect token created in the future (check the clocks)",
	"too many or too large game messages", "no such match"}

func (r Reason) String() string {
	if int(r) < len(reasonNames) {
		return reasonNames[r]
	}
	return fmt.Sprintf("reason %d", uint8(r))
}

// Cookie is the server's stateless proof that a client receives at its
// address (HMAC-SHA256 truncated, see package server).
type Cookie [CookieLen]byte

// GetChallenge asks the server for a cookie. Nonce is echoed in every
// answer so the client can ignore answers to other attempts.
type GetChallenge struct{ Nonce uint64 }

// Challenge carries the cookie for the requesting address.
type Challenge struct {
	Nonce  uint64
	Cookie Cookie
}

// Connect asks to join with the cookie from Challenge.
type Connect struct {
	Nonce        uint64
	Cookie       Cookie
	Version      uint16
	RegistryHash uint64
	Password     string
	Name         string
	// Match is the match the client asks to join on a server that hosts
	// many (version 6): 0..MaxMatchLen bytes of printable ASCII without
	// spaces (tokenwire.CheckMatch); empty: the default match. A server
	// routes a connect with a token by the token's match instead.
	Match string
	// Token is the private part of a connect token (tokenwire.Token's
	// AppendPrivate), empty on an insecure server.
	Token []byte
	// Proof is the resume proof (tokenwire.ResumeProof) of a connect with
	// a token, zero without one.
	Proof [ResumeProofLen]byte
}

// ResumeProofLen is the length of Connect.Proof.
const ResumeProofLen = 16

// Accept admits a client: the connection id for the channel, its slot,
// the current game and its settings, and the frame duration.
type Accept struct {
	Nonce    uint64
	ConnID   netchan.ConnID
	Client   game.ClientNum
	GameID   game.GameID
	FrameDur uint32 // microseconds per game frame
	Settings string
}

// Refuse rejects a connect.
type Refuse struct {
	Nonce  uint64
	Reason Reason
	Text   string
	// Digest is the server's registry digest (RegistryDigest), carried
	// only with ReasonWrongRegistry so the client can name the type and
	// field that differ (ExplainRegistry).
	Digest string
}

func appendStr8(b []byte, s string, max int) []byte {
	if len(s) > max {
		s = s[:max]
	}
	b = append(b, byte(len(s)))
	return append(b, s...)
}

func appendStr16(b []byte, s string, max int) []byte {
	if len(s) > max {
		s = s[:max]
	}
	b = binary.LittleEndian.AppendUint16(b, uint16(len(s)))
	return append(b, s...)
}

// dec is a byte cursor with a sticky error.
type dec struct {
	b   []byte
	err error
}

func (d *dec) need(n int) []byte {
	if d.err != nil {
		return nil
	}
	if len(d.b) < n {
		d.err = fmt.Errorf("%w: truncated", ErrMalformed)
		return nil
	}
	p := d.b[:n]
	d.b = d.b[n:]
	return p
}

func (d *dec) u8() uint8 {
	if p := d.need(1); p != nil {
		return p[0]
	}
	return 0
}
func (d *dec) u16() uint16 {
	if p := d.need(2); p != nil {
		return binary.LittleEndian.Uint16(p)
	}
	return 0
}
func (d *dec) u32() uint32 {
	if p := d.need(4); p != nil {
		return binary.LittleEndian.Uint32(p)
	}
	return 0
}
func (d *dec) u64() uint64 {
	if p := d.need(8); p != nil {
		return binary.LittleEndian.Uint64(p)
	}
	return 0
}

// client reads a client number (u16), which must be below game.MaxClients.
func (d *dec) client() game.ClientNum {
	n := d.u16()
	if d.err == nil && int(n) >= game.MaxClients {
		d.err = fmt.Errorf("%w: client number %d, max %d", ErrMalformed, n, game.MaxClients-1)
	}
	return game.ClientNum(n)
}
func (d *dec) str(n, max int) string {
	if d.err == nil && n > max {
		d.err = fmt.Errorf("%w: string of %d bytes, max %d", ErrMalformed, n, max)
	}
	return string(d.need(n))
}
func (d *dec) str8(max int) string  { return d.str(int(d.u8()), max) }
func (d *dec) str16(max int) string { return d.str(int(d.u16()), max) }

// done reports the error, or ErrMalformed if bytes are left over.
func (d *dec) done() error {
	if d.err == nil && len(d.b) != 0 {
		d.err = fmt.Errorf("%w: %d trailing bytes", ErrMalformed, len(d.b))
	}
	return d.err
}

// MaxHandshakeKind bounds the first byte of a snapwire handshake payload:
// snapwire's connectionless kinds are below 0x20 (ASCII control
// characters; 0 and 6..0x1F are reserved), so they cannot be confused with text commands such as
// Quake 3's "getinfo", "getstatus" or "getchallenge", which start with a
// printable letter.
const MaxHandshakeKind Kind = 0x1F

// IsHandshake reports whether a connectionless payload (the bytes after
// the 0xFFFFFFFF prefix) is a snapwire handshake message: not empty and
// its first byte at most MaxHandshakeKind. A server passes the others to
// its text-query handler.
func IsHandshake(payload []byte) bool {
	return len(payload) > 0 && Kind(payload[0]) <= MaxHandshakeKind
}

// ReliableKind returns the kind of a reliable message (its first byte).
func ReliableKind(msg []byte) (RelKind, bool) {
	if len(msg) == 0 {
		return 0, false
	}
	return RelKind(msg[0]), true
}

// ConnectionlessKind returns the kind of a connectionless payload (the
// bytes after the 0xFFFFFFFF prefix).
func ConnectionlessKind(payload []byte) (Kind, bool) {
	if len(payload) == 0 {
		return 0, false
	}
	return Kind(payload[0]), true
}

// Append appends the padded getchallenge payload:
//
//	kind 1 | version u16 | nonce u64 | zero padding to GetChallengeLen
func (m GetChallenge) Append(b []byte) []byte {
	start := len(b)
	b = append(b, byte(KindGetChallenge))
	b = binary.LittleEndian.AppendUint16(b, Version)
	b = binary.LittleEndian.AppendUint64(b, m.Nonce)
	for len(b)-start < GetChallengeLen {
		b = append(b, 0)
	}
	return b
}

// ParseGetChallenge parses a getchallenge payload; a short (unpadded) one
// is refused so that answering never amplifies.
func ParseGetChallenge(p []byte) (GetChallenge, error) {
	if len(p) != GetChallengeLen {
		return GetChallenge{}, fmt.Errorf("%w: getchallenge of %d bytes, want %d", ErrMalformed, len(p), GetChallengeLen)
	}
	d := dec{b: p}
	if Kind(d.u8()) != KindGetChallenge {
		return GetChallenge{}, ErrKind
	}
	d.u16() // version: checked at connect
	m := GetChallenge{Nonce: d.u64()}
	return m, d.err
}

// Append: kind 2 | nonce u64 | cookie 16.
func (m Challenge) Append(b []byte) []byte {
	b = append(b, byte(KindChallenge))
	b = binary.LittleEndian.AppendUint64(b, m.Nonce)
	return append(b, m.Cookie[:]...)
}

// ParseChallenge parses a challenge payload.
func ParseChallenge(p []byte) (Challenge, error) {
	d := dec{b: p}
	var m Challenge
	if Kind(d.u8()) != KindChallenge && d.err == nil {
		return m, ErrKind
	}
	m.Nonce = d.u64()
	copy(m.Cookie[:], d.need(CookieLen))
	return m, d.done()
}

// Append: kind 3 | nonce u64 | cookie 16 | version u16 | registry hash u64 |
// password (len u8, bytes) | name (len u8, bytes) | match (len u8, bytes) |
// token (len u16, bytes) | resume proof 16 | zero padding to ConnectLen. A
// string or token longer than its bound is cut (a token so cut will not
// open); a match with a byte outside 0x21..0x7e is sent as it is and
// refused by ParseConnect (the client checks it first).
func (m Connect) Append(b []byte) []byte {
	start := len(b)
	b = append(b, byte(KindConnect))
	b = binary.LittleEndian.AppendUint64(b, m.Nonce)
	b = append(b, m.Cookie[:]...)
	b = binary.LittleEndian.AppendUint16(b, m.Version)
	b = binary.LittleEndian.AppendUint64(b, m.RegistryHash)
	b = appendStr8(b, m.Password, MaxPasswordLen)
	b = appendStr8(b, m.Name, MaxNameLen)
	b = appendStr8(b, m.Match, MaxMatchLen)
	tok := m.Token[:min(len(m.Token), MaxTokenLen)]
	b = binary.LittleEndian.AppendUint16(b, uint16(len(tok)))
	b = append(b, tok...)
	b = append(b, m.Proof[:]...)
	for len(b)-start < ConnectLen {
		b = append(b, 0)
	}
	return b
}

// ParseConnect parses a connect payload.
func ParseConnect(p []byte) (Connect, error) {
	d := dec{b: p}
	var m Connect
	if Kind(d.u8()) != KindConnect && d.err == nil {
		return m, ErrKind
	}
	m.Nonce = d.u64()
	copy(m.Cookie[:], d.need(CookieLen))
	m.Version = d.u16()
	m.RegistryHash = d.u64()
	m.Password = d.str8(MaxPasswordLen)
	m.Name = d.str8(MaxNameLen)
	m.Match = d.str8(MaxMatchLen)
	if d.err == nil {
		if err := tokenwire.CheckMatch(m.Match); err != nil {
			d.err = fmt.Errorf("%w: %v", ErrMalformed, err)
		}
	}
	if n := int(d.u16()); d.err == nil && n > MaxTokenLen {
		d.err = fmt.Errorf("%w: token of %d bytes, max %d", ErrMalformed, n, MaxTokenLen)
	} else if n > 0 {
		m.Token = d.need(n)
	}
	copy(m.Proof[:], d.need(ResumeProofLen))
	if d.err == nil && len(p) != ConnectLen {
		return m, fmt.Errorf("%w: connect of %d bytes, want %d", ErrMalformed, len(p), ConnectLen)
	}
	for _, c := range d.need(len(d.b)) {
		if c != 0 {
			d.err = fmt.Errorf("%w: non-zero padding", ErrMalformed)
			break
		}
	}
	return m, d.done()
}

// Append: kind 4 | nonce u64 | conn id u16 | client u16 | game id u32 |
// frame duration µs u32 | settings (len u16, bytes).
func (m Accept) Append(b []byte) []byte {
	b = append(b, byte(KindAccept))
	b = binary.LittleEndian.AppendUint64(b, m.Nonce)
	b = binary.LittleEndian.AppendUint16(b, uint16(m.ConnID))
	b = binary.LittleEndian.AppendUint16(b, uint16(m.Client))
	b = binary.LittleEndian.AppendUint32(b, uint32(m.GameID))
	b = binary.LittleEndian.AppendUint32(b, m.FrameDur)
	return appendStr16(b, m.Settings, MaxSettingsLen)
}

// ParseAccept parses an accept payload.
func ParseAccept(p []byte) (Accept, error) {
	d := dec{b: p}
	var m Accept
	if Kind(d.u8()) != KindAccept && d.err == nil {
		return m, ErrKind
	}
	m.Nonce = d.u64()
	m.ConnID = netchan.ConnID(d.u16())
	m.Client = d.client()
	m.GameID = game.GameID(d.u32())
	m.FrameDur = d.u32()
	m.Settings = d.str16(MaxSettingsLen)
	if d.err == nil && m.FrameDur == 0 {
		d.err = fmt.Errorf("%w: zero frame duration", ErrMalformed)
	}
	return m, d.done()
}

// Append: kind 5 | nonce u64 | reason u8 | text (len u8, bytes) | the
// registry digest to the end (reason 3 only; none if longer than
// MaxRegistryDigestLen). Without a digest the layout is version 3's, so a
// client of an older version still reads "wrong protocol version".
func (m Refuse) Append(b []byte) []byte {
	b = append(b, byte(KindRefuse))
	b = binary.LittleEndian.AppendUint64(b, m.Nonce)
	b = append(b, byte(m.Reason))
	b = appendStr8(b, m.Text, MaxReasonLen)
	return append(b, m.digest()...)
}

// digest returns the digest the refusal may carry.
func (m Refuse) digest() string {
	if m.Reason != ReasonWrongRegistry || len(m.Digest) > MaxRegistryDigestLen {
		return ""
	}
	return m.Digest
}

// checkDigest checks a parsed refusal's digest: reason 3 only, and one
// that parses (parseDigest).
func (m Refuse) checkDigest() error {
	switch {
	case m.Digest == "":
		return nil
	case m.Reason != ReasonWrongRegistry:
		return fmt.Errorf("%w: registry digest with reason %d", ErrMalformed, m.Reason)
	}
	_, _, err := parseDigest([]byte(m.Digest))
	return err
}

// ParseRefuse parses a refuse payload.
func ParseRefuse(p []byte) (Refuse, error) {
	d := dec{b: p}
	var m Refuse
	if Kind(d.u8()) != KindRefuse && d.err == nil {
		return m, ErrKind
	}
	m.Nonce = d.u64()
	m.Reason = Reason(d.u8())
	m.Text = d.str8(MaxReasonLen)
	if d.err == nil {
		m.Digest = string(d.need(len(d.b)))
		d.err = m.checkDigest()
	}
	return m, d.done()
}

// ServerHeaderLen is the size of the header of every unreliable server
// message: the game id (DOOM III §3.1, fig. 7; the message type is in the
// channel header).
const ServerHeaderLen = 4

// AppendServerHeader appends the game id.
func AppendServerHeader(b []byte, id game.GameID) []byte {
	return binary.LittleEndian.AppendUint32(b, uint32(id))
}

// ParseServerHeader returns the game id and the rest of the message.
func ParseServerHeader(p []byte) (game.GameID, []byte, error) {
	if len(p) < ServerHeaderLen {
		return 0, nil, fmt.Errorf("%w: server message of %d bytes", ErrMalformed, len(p))
	}
	return game.GameID(binary.LittleEndian.Uint32(p)), p[ServerHeaderLen:], nil
}

// ClientHeader starts every unreliable client message (DOOM III §3.1,
// fig. 8). The sequence of the last received server message is the
// channel header's ack, so it is not repeated here.
type ClientHeader struct {
	GameID game.GameID
	// Ack is the last snapshot received (0: none), used for the common
	// base (DOOM III §4.2).
	Ack snapshot.Seq
}

// ClientHeaderLen is the encoded size of a ClientHeader.
const ClientHeaderLen = 8

// Append appends game id u32 | snapshot ack u32.
func (h ClientHeader) Append(b []byte) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(h.GameID))
	return binary.LittleEndian.AppendUint32(b, uint32(h.Ack))
}

// ParseClientHeader returns the header and the rest of the message.
func ParseClientHeader(p []byte) (ClientHeader, []byte, error) {
	if len(p) < ClientHeaderLen {
		return ClientHeader{}, nil, fmt.Errorf("%w: client message of %d bytes", ErrMalformed, len(p))
	}
	return ClientHeader{
		GameID: game.GameID(binary.LittleEndian.Uint32(p)),
		Ack:    snapshot.Seq(binary.LittleEndian.Uint32(p[4:])),
	}, p[ClientHeaderLen:], nil
}

// LoadGame is the body of a TypeLoadGame message (after the header's game
// id): the settings to load (DOOM III §3.1: "instructions on which map to
// load and additional settings").
func AppendLoadGame(b []byte, id game.GameID, settings string) []byte {
	b = AppendServerHeader(b, id)
	return appendStr16(b, settings, MaxSettingsLen)
}

// ParseLoadGame parses the body after the server header.
func ParseLoadGame(body []byte) (string, error) {
	d := dec{b: body}
	s := d.str16(MaxSettingsLen)
	return s, d.done()
}

// Apply is the reliable "apply snapshot Seq" (DOOM III §4.2), optionally
// with the low 32 bits of the server's base hash after applying it, which
// the client compares with its own (a live check of the common-base
// invariant, server Config.VerifyBase).
//
// About two applies are outstanding at any time (one round trip of
// snapshots) and each rides in every packet until acknowledged, so the
// message is kept small: the sequence is sent as its distance from the
// previous apply of the same game on this connection (prev; 0 right after
// the game is entered, on both ends). Reliable messages arrive exactly once
// and in order, so both ends step prev identically. No game id is needed:
// the server stops applying acknowledgements the moment the game changes,
// and every apply queued before that is delivered ahead of the unreliable
// "load game" that moves the client on, so no apply crosses a game change.
type Apply struct {
	Seq      snapshot.Seq
	BaseHash uint32 // 0: not sent
}

// MaxApplyLen bounds the encoded size of an Apply (kind, a uvarint of at
// most 5 bytes, the hash).
const MaxApplyLen = 1 + binary.MaxVarintLen32 + 4

// Append writes the message given the previous apply's sequence prev
// (prev < m.Seq): kind 1 | uvarint(Seq-prev), or kind 4 | uvarint(Seq-prev)
// | base hash u32 when BaseHash != 0. Usually 2 bytes.
func (m Apply) Append(b []byte, prev snapshot.Seq) []byte {
	kind := RelApply
	if m.BaseHash != 0 {
		kind = RelApplyVerified
	}
	b = append(b, byte(kind))
	b = binary.AppendUvarint(b, uint64(uint32(m.Seq-prev)))
	if m.BaseHash != 0 {
		b = binary.LittleEndian.AppendUint32(b, m.BaseHash)
	}
	return b
}

// ParseApply parses an Apply written against the same prev. A distance of
// 0 or one that does not fit 32 bits is ErrMalformed.
func ParseApply(p []byte, prev snapshot.Seq) (Apply, error) {
	var m Apply
	if len(p) == 0 {
		return m, fmt.Errorf("%w: empty apply", ErrMalformed)
	}
	kind := RelKind(p[0])
	if kind != RelApply && kind != RelApplyVerified {
		return m, ErrKind
	}
	dist, n := binary.Uvarint(p[1:])
	if n <= 0 || n > binary.MaxVarintLen32 || dist == 0 || dist > 1<<32-1 {
		return m, fmt.Errorf("%w: apply distance", ErrMalformed)
	}
	m.Seq = prev + snapshot.Seq(dist)
	d := dec{b: p[1+n:]}
	if kind == RelApplyVerified {
		m.BaseHash = d.u32()
		if m.BaseHash == 0 && d.err == nil {
			return m, fmt.Errorf("%w: apply hash 0", ErrMalformed)
		}
	}
	return m, d.done()
}

// Disconnect is the reliable "I am leaving" / "you are dropped".
type Disconnect struct{ Reason Reason }

// Append: kind 3 | reason u8.
func (m Disconnect) Append(b []byte) []byte { return append(b, byte(RelDisconnect), byte(m.Reason)) }

// ParseDisconnect parses a Disconnect.
func ParseDisconnect(p []byte) (Disconnect, error) {
	d := dec{b: p}
	var m Disconnect
	if RelKind(d.u8()) != RelDisconnect && d.err == nil {
		return m, ErrKind
	}
	m.Reason = Reason(d.u8())
	return m, d.done()
}

// MaxEventsMessageBytes bounds a reliable events message; the server
// starts a new message when the next event would not fit.
const MaxEventsMessageBytes = 1024

// EventsHeaderLen is the size of an events message before its events.
const EventsHeaderLen = 6

// AppendEventsHeader starts a reliable events message:
// kind 2 | game id u32 | count u8, followed by count events written with
// events.Write (internal/events) into one bit stream (LSB first), padded to a byte.
func AppendEventsHeader(b []byte, id game.GameID, count int) []byte {
	b = append(b, byte(RelEvents))
	b = binary.LittleEndian.AppendUint32(b, uint32(id))
	return append(b, byte(count))
}

// ParseEventsHeader returns the game id, the event count and the bit
// stream holding the events.
func ParseEventsHeader(p []byte) (game.GameID, int, []byte, error) {
	if len(p) < EventsHeaderLen {
		return 0, 0, nil, fmt.Errorf("%w: events message of %d bytes", ErrMalformed, len(p))
	}
	if RelKind(p[0]) != RelEvents {
		return 0, 0, nil, ErrKind
	}
	return game.GameID(binary.LittleEndian.Uint32(p[1:])), int(p[5]), p[EventsHeaderLen:], nil
}
