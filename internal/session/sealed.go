package session

// The sealed accept: a secure server's accept, authenticated and encrypted
// with the connect token's server→client key (issue 22, items 3 and 8).

import (
	"encoding/binary"
	"errors"
	"fmt"

	"golang.org/x/crypto/chacha20poly1305"

	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/netchan"
)

// KindSealedAccept is a secure server's accept (SealedAccept). A client
// with a connect token takes only this kind, a client without one only
// KindAccept.
const KindSealedAccept Kind = 6

// Sizes of the sealed accept.
const (
	// SessionRandomLen is the size of the server's per-session random
	// value, from which both ends derive the session keys
	// (tokenwire.SessionKeys).
	SessionRandomLen = 32
	// XNonceLen is the size of the XChaCha20-Poly1305 nonce the sealed
	// accept carries.
	XNonceLen = chacha20poly1305.NonceSizeX
	// sealedAcceptHead is the clear part: kind, nonce, XChaCha20 nonce.
	sealedAcceptHead = 1 + 8 + XNonceLen
	// MaxSealedAcceptLen is the largest sealed accept payload (1,119
	// bytes), less than ConnectLen: answering never amplifies.
	MaxSealedAcceptLen = sealedAcceptHead + 2 + 2 + 4 + 4 + SessionRandomLen + 2 + MaxSettingsLen + chacha20poly1305.Overhead
)

// ErrAuth is returned for a sealed message that does not open with the
// key: forged, corrupted, or for another token.
var ErrAuth = errors.New("session: message does not authenticate")

// SealedAccept is the accept of a secure server: the Accept's fields and
// the server's random value for this session, sealed so that only the
// holder of the token's server→client key reads it and nobody else can
// forge it.
type SealedAccept struct {
	Accept
	Random [SessionRandomLen]byte
}

// AppendSealed appends the sealed accept, sealed with key (the token's
// server→client key) and the random 24-byte xnonce (never used twice with
// one key: crypto/rand):
//
//	kind 6 | nonce u64 | xnonce [24] |
//	XChaCha20-Poly1305(key, xnonce, associated data = kind and nonce, the
//	first 9 bytes) of:
//	  conn id u16 | client u16 | game id u32 | frame duration µs u32 |
//	  server random [32] | settings (len u16, bytes)
//	followed by the 16-byte tag.
func (m SealedAccept) AppendSealed(b []byte, key *[32]byte, xnonce *[XNonceLen]byte) []byte {
	plain := binary.LittleEndian.AppendUint16(nil, uint16(m.ConnID))
	plain = binary.LittleEndian.AppendUint16(plain, uint16(m.Client))
	plain = binary.LittleEndian.AppendUint32(plain, uint32(m.GameID))
	plain = binary.LittleEndian.AppendUint32(plain, m.FrameDur)
	plain = append(plain, m.Random[:]...)
	plain = appendStr16(plain, m.Settings, MaxSettingsLen)
	return appendSealed(b, KindSealedAccept, m.Nonce, plain, key, xnonce)
}

// appendSealed appends kind | nonce u64 | xnonce | plain sealed with
// XChaCha20-Poly1305 under key, the kind and nonce as associated data.
func appendSealed(b []byte, kind Kind, nonce uint64, plain []byte, key *[32]byte, xnonce *[XNonceLen]byte) []byte {
	var ad [9]byte // a copy: dst and the associated data must not overlap
	ad[0] = byte(kind)
	binary.LittleEndian.PutUint64(ad[1:], nonce)
	b = append(b, ad[:]...)
	b = append(b, xnonce[:]...)
	aead, _ := chacha20poly1305.NewX(key[:]) // a 32-byte key: cannot fail
	return aead.Seal(b, xnonce[:], plain, ad[:])
}

// openSealed authenticates and decrypts a payload of appendSealed of the
// given kind, at most max bytes long, and returns its nonce and plaintext.
func openSealed(p []byte, kind Kind, max int, key *[32]byte) (uint64, []byte, error) {
	if len(p) < 1 || Kind(p[0]) != kind {
		return 0, nil, ErrKind
	}
	if len(p) < sealedAcceptHead+chacha20poly1305.Overhead || len(p) > max {
		return 0, nil, fmt.Errorf("%w: sealed message of %d bytes", ErrMalformed, len(p))
	}
	aead, _ := chacha20poly1305.NewX(key[:])
	plain, err := aead.Open(nil, p[9:sealedAcceptHead], p[sealedAcceptHead:], p[:9])
	if err != nil {
		return 0, nil, ErrAuth
	}
	return binary.LittleEndian.Uint64(p[1:]), plain, nil
}

// SealedAcceptNonce returns the handshake nonce of a sealed accept
// without opening it, so a client can ignore answers to other attempts
// before it spends an AEAD on them.
func SealedAcceptNonce(p []byte) (uint64, bool) {
	if len(p) < sealedAcceptHead || Kind(p[0]) != KindSealedAccept {
		return 0, false
	}
	return binary.LittleEndian.Uint64(p[1:]), true
}

// OpenSealedAccept authenticates, decrypts and parses a sealed accept with
// key (the token's server→client key). Nothing of a message that fails
// to authenticate is returned.
func OpenSealedAccept(p []byte, key *[32]byte) (SealedAccept, error) {
	var m SealedAccept
	nonce, plain, err := openSealed(p, KindSealedAccept, MaxSealedAcceptLen, key)
	if err != nil {
		return m, err
	}
	m.Nonce = nonce
	d := dec{b: plain}
	m.ConnID = netchan.ConnID(d.u16())
	m.Client = d.client()
	m.GameID = game.GameID(d.u32())
	m.FrameDur = d.u32()
	copy(m.Random[:], d.need(SessionRandomLen))
	m.Settings = d.str16(MaxSettingsLen)
	if d.err == nil && m.FrameDur == 0 {
		d.err = fmt.Errorf("%w: zero frame duration", ErrMalformed)
	}
	if err := d.done(); err != nil {
		return SealedAccept{}, err
	}
	return m, nil
}

// KindSealedRefuse is a secure server's refusal of a connect whose token
// opened (SealedRefuseLen bytes): a client with that token believes it at
// once, where it waits before it believes a plain refuse.
const KindSealedRefuse Kind = 7

// SealedRefuseLen is the size of a sealed refuse payload without a
// registry digest; MaxSealedRefuseLen with the largest.
const (
	SealedRefuseLen    = sealedAcceptHead + 1 + chacha20poly1305.Overhead
	MaxSealedRefuseLen = SealedRefuseLen + MaxRegistryDigestLen
)

// AppendSealed appends the refusal sealed as a sealed accept is (same key,
// a fresh random xnonce), without its text:
//
//	kind 7 | nonce u64 | xnonce [24] | sealed: reason u8 | registry digest
//	(reason 3 only, to the end) | tag [16]
func (m Refuse) AppendSealed(b []byte, key *[32]byte, xnonce *[XNonceLen]byte) []byte {
	plain := append([]byte{byte(m.Reason)}, m.digest()...)
	return appendSealed(b, KindSealedRefuse, m.Nonce, plain, key, xnonce)
}

// OpenSealedRefuse authenticates and parses a sealed refuse with key (the
// token's server→client key).
func OpenSealedRefuse(p []byte, key *[32]byte) (Refuse, error) {
	nonce, plain, err := openSealed(p, KindSealedRefuse, MaxSealedRefuseLen, key)
	if err != nil {
		return Refuse{}, err
	}
	if len(plain) < 1 {
		return Refuse{}, fmt.Errorf("%w: sealed refuse of %d bytes", ErrMalformed, len(p))
	}
	m := Refuse{Nonce: nonce, Reason: Reason(plain[0]), Digest: string(plain[1:])}
	if err := m.checkDigest(); err != nil {
		return Refuse{}, err
	}
	return m, nil
}
