package tokenwire

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
)

// SessionKeys derives one session's two channel keys from a token's keys,
// the server's random value for the session (sent in the sealed accept)
// and the client's handshake nonce:
//
//	client→server session key = HKDF-Expand(PRK = client→server key,
//	    info = "snapwire session c2s" | random [32] | nonce u64, L = 32)
//	server→client session key = HKDF-Expand(PRK = server→client key,
//	    info = "snapwire session s2c" | random [32] | nonce u64, L = 32)
//
// with SHA-256 (RFC 5869 §2.3; one block: HMAC-SHA256(PRK, info | 0x01)).
// The token's keys are uniformly random, so they serve as PRKs without
// the Extract step (RFC 5869 §3.3). A new random value per session gives
// every session its own keys, so a token accepted twice (by two servers
// it lists, or after a server forgot it) never makes two sessions
// encrypt with one key and one nonce.
func SessionKeys(c2s, s2c *[KeyLen]byte, random *[32]byte, nonce uint64) (sessC2S, sessS2C [KeyLen]byte) {
	return expand(c2s, "snapwire session c2s", random, nonce), expand(s2c, "snapwire session s2c", random, nonce)
}

func expand(prk *[KeyLen]byte, label string, random *[32]byte, nonce uint64) [KeyLen]byte {
	m := hmac.New(sha256.New, prk[:])
	m.Write([]byte(label))
	m.Write(random[:])
	var n [9]byte
	binary.LittleEndian.PutUint64(n[:], nonce)
	n[8] = 1 // HKDF-Expand's block counter
	m.Write(n[:])
	var k [KeyLen]byte
	copy(k[:], m.Sum(nil))
	return k
}
