package session

import (
	"bytes"
	"encoding/binary"
	"reflect"
	"testing"
)

// The connect's resume proof (version 5) sits right after the token, and
// a connect without one is zero from there.
func TestConnectProofBytes(t *testing.T) {
	m := Connect{Nonce: 1, Version: Version, Name: "p", Match: "d", Token: []byte{0xAA, 0xBB}}
	for i := range m.Proof {
		m.Proof[i] = byte(0xC0 + i)
	}
	b := m.Append(nil)
	// kind 1 | nonce 8 | cookie 16 | version 2 | registry hash 8 |
	// password 1 | name 1+1 | match 1+1 | token 2+2 = 44 bytes, then the
	// proof.
	const at = 1 + 8 + CookieLen + 2 + 8 + 1 + 2 + 2 + 2 + 2
	if !bytes.Equal(b[at-2:at], []byte{0xAA, 0xBB}) || !bytes.Equal(b[at:at+ResumeProofLen], m.Proof[:]) {
		t.Fatalf("token and proof at %d: % x", at, b[at-2:at+ResumeProofLen])
	}
	if binary.LittleEndian.Uint16(b[1+8+CookieLen:]) != Version || Version < 5 {
		t.Fatalf("version %d", binary.LittleEndian.Uint16(b[1+8+CookieLen:]))
	}
	got, err := ParseConnect(b)
	if err != nil || !reflect.DeepEqual(got, m) {
		t.Fatalf("%+v %v", got, err)
	}
	for _, c := range b[at+ResumeProofLen:] {
		if c != 0 {
			t.Fatal("padding after the proof is not zero")
		}
	}
	noProof := m
	noProof.Proof = [ResumeProofLen]byte{}
	nb := noProof.Append(nil)
	if !bytes.Equal(nb[:at], b[:at]) || !bytes.Equal(nb[at:], make([]byte, len(nb)-at)) {
		t.Fatal("a connect without a proof is not zero after its token")
	}
}

func FuzzConnectProof(f *testing.F) {
	f.Add(Connect{Nonce: 7, Name: "x", Token: []byte("tok"), Proof: [ResumeProofLen]byte{1, 2, 3}}.Append(nil))
	f.Add(Connect{Nonce: 7, Token: bytes.Repeat([]byte{9}, MaxTokenLen), Proof: [ResumeProofLen]byte{15: 1}}.Append(nil))
	f.Add(Connect{Nonce: 7, Name: "x", Match: "duel-17", Token: []byte("tok"), Proof: [ResumeProofLen]byte{4}}.Append(nil))
	f.Add(realConnect(f, "duel-17"))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := ParseConnect(b)
		if err != nil {
			return
		}
		if !bytes.Equal(m.Append(nil), b) {
			t.Fatalf("connect %+v does not encode to its bytes", m)
		}
	})
}
