package tokenwire

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
)

// ProofLen is the length of a resume proof.
const ProofLen = 16

// ResumeProof is what a connect carries to show that its sender holds the
// token's client→server key, which never crosses the network (the key is
// in the token's public part, given to the client alone):
//
//	proof = HMAC-SHA256(client→server key, "snapwire resume" | nonce u64 | cookie [16])[:16]
//
// The private token a connect carries is sealed but not secret from an
// on-path observer, who could copy it into a connect of its own; the proof
// it cannot make for a nonce of its own. A server asks for it only when the
// token has already opened a session (a resume, docs/PROTOCOL.md
// "Reconnection"); the nonce and cookie bind it to one handshake from one
// address in one cookie lifetime.
func ResumeProof(c2s *[KeyLen]byte, nonce uint64, cookie [16]byte) [ProofLen]byte {
	m := hmac.New(sha256.New, c2s[:])
	m.Write([]byte("snapwire resume"))
	var b [8 + 16]byte
	binary.LittleEndian.PutUint64(b[:], nonce)
	copy(b[8:], cookie[:])
	m.Write(b[:])
	var p [ProofLen]byte
	copy(p[:], m.Sum(nil))
	return p
}
