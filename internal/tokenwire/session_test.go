package tokenwire

import (
	"crypto/sha256"
	"encoding/binary"
	"io"
	"testing"

	"golang.org/x/crypto/hkdf"
)

// SessionKeys is HKDF-Expand (RFC 5869) as documented, checked against
// x/crypto's implementation, and every input changes both keys.
func TestSessionKeys(t *testing.T) {
	c2s, s2c := [KeyLen]byte{1: 1}, [KeyLen]byte{2: 2}
	random := [32]byte{3: 3}
	const nonce = 0x1122334455667788
	gotC, gotS := SessionKeys(&c2s, &s2c, &random, nonce)
	want := func(prk []byte, label string) [KeyLen]byte {
		info := append([]byte(label), random[:]...)
		info = binary.LittleEndian.AppendUint64(info, nonce)
		var k [KeyLen]byte
		if _, err := io.ReadFull(hkdf.Expand(sha256.New, prk, info), k[:]); err != nil {
			t.Fatal(err)
		}
		return k
	}
	if gotC != want(c2s[:], "snapwire session c2s") || gotS != want(s2c[:], "snapwire session s2c") {
		t.Fatal("SessionKeys is not HKDF-Expand-SHA256 of the documented info")
	}
	if gotC == c2s || gotS == s2c || gotC == gotS {
		t.Fatal("a session key equals a token key or the other direction's")
	}
	r2 := random
	r2[0] ^= 1
	if c, s := SessionKeys(&c2s, &s2c, &r2, nonce); c == gotC || s == gotS {
		t.Error("another server random gives the same keys")
	}
	if c, s := SessionKeys(&c2s, &s2c, &random, nonce+1); c == gotC || s == gotS {
		t.Error("another client nonce gives the same keys")
	}
}
