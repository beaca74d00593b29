package tokenwire

import (
	"crypto/hmac"
	"crypto/sha256"
	"testing"
)

// ResumeProof is HMAC-SHA256 over the label, the nonce (little-endian)
// and the cookie, cut to 16 bytes; it changes with each of key, nonce and
// cookie.
func TestResumeProof(t *testing.T) {
	key := [KeyLen]byte{1, 2, 3}
	cookie := [16]byte{9, 8, 7}
	got := ResumeProof(&key, 0x0102030405060708, cookie)
	m := hmac.New(sha256.New, key[:])
	m.Write([]byte("snapwire resume\x08\x07\x06\x05\x04\x03\x02\x01"))
	m.Write(cookie[:])
	if want := m.Sum(nil)[:ProofLen]; string(got[:]) != string(want) {
		t.Fatalf("% x, want % x", got, want)
	}
	other := key
	other[31] ^= 1
	otherCookie := cookie
	otherCookie[15] ^= 1
	for name, p := range map[string][ProofLen]byte{
		"key":    ResumeProof(&other, 0x0102030405060708, cookie),
		"nonce":  ResumeProof(&key, 0x0102030405060709, cookie),
		"cookie": ResumeProof(&key, 0x0102030405060708, otherCookie),
	} {
		if p == got {
			t.Errorf("another %s gives the same proof", name)
		}
	}
}
