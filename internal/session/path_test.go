package session

import (
	"bytes"
	"testing"
)

// Exact bytes of both messages; the body parsers take exactly 8 bytes.
func TestPathMessages(t *testing.T) {
	c := AppendPathChallenge(nil, 0x04030201, 0x0c0b0a0908070605)
	if want := []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}; !bytes.Equal(c, want) {
		t.Errorf("challenge % x, want % x", c, want)
	}
	id, body, err := ParseServerHeader(c)
	if v, err2 := ParsePathChallenge(body); err != nil || err2 != nil || id != 0x04030201 || v != 0x0c0b0a0908070605 {
		t.Errorf("challenge parsed %x %x %v %v", id, v, err, err2)
	}
	r := AppendPathResponse(nil, ClientHeader{GameID: 7, Ack: 9}, 0x0c0b0a0908070605)
	if want := []byte{7, 0, 0, 0, 9, 0, 0, 0, 5, 6, 7, 8, 9, 10, 11, 12}; !bytes.Equal(r, want) {
		t.Errorf("response % x, want % x", r, want)
	}
	h, body, err := ParseClientHeader(r)
	if v, err2 := ParsePathResponse(body); err != nil || err2 != nil || h != (ClientHeader{GameID: 7, Ack: 9}) || v != 0x0c0b0a0908070605 {
		t.Errorf("response parsed %+v %x %v %v", h, v, err, err2)
	}
	for _, n := range []int{0, 7, 9} {
		if _, err := ParsePathChallenge(make([]byte, n)); err == nil {
			t.Errorf("challenge body of %d bytes parsed", n)
		}
		if _, err := ParsePathResponse(make([]byte, n)); err == nil {
			t.Errorf("response body of %d bytes parsed", n)
		}
	}
}

// FuzzPathMessages: what parses encodes back to the same bytes.
func FuzzPathMessages(f *testing.F) {
	f.Add(AppendPathChallenge(nil, 1, 0xdeadbeef))
	f.Add(AppendPathResponse(nil, ClientHeader{GameID: 1, Ack: 2}, 0xdeadbeef))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		if id, body, err := ParseServerHeader(b); err == nil {
			if v, err := ParsePathChallenge(body); err == nil && !bytes.Equal(AppendPathChallenge(nil, id, v), b) {
				t.Fatalf("challenge % x re-encodes differently", b)
			}
		}
		if h, body, err := ParseClientHeader(b); err == nil {
			if v, err := ParsePathResponse(body); err == nil && !bytes.Equal(AppendPathResponse(nil, h, v), b) {
				t.Fatalf("response % x re-encodes differently", b)
			}
		}
	})
}
