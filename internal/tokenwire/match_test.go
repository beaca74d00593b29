package tokenwire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"net/netip"
	"reflect"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/chacha20poly1305"
)

// A token's match (issue 25, many matches per process) travels sealed and
// comes out of Open as issued; the empty name is the default match.
func TestMatchRoundTrip(t *testing.T) {
	o := NewOpener(testKey, 0x5357, []netip.AddrPort{testServer})
	for _, match := range []string{"", "duel-17", "!", strings.Repeat("~", MaxMatchLen)} {
		tok := issue(t, Params{ClientID: 5, UserData: []byte("ud"), Match: match})
		back, err := Parse(tok.String())
		if err != nil {
			t.Fatalf("%q: %v", match, err)
		}
		p, err := o.Open(back.AppendPrivate(nil), testNow)
		if err != nil {
			t.Fatalf("%q: %v", match, err)
		}
		if p.Match != match || p.ClientID != 5 || string(p.UserData) != "ud" {
			t.Fatalf("%q: opened %+v", match, p)
		}
	}
}

// Issue refuses a name too long or with a byte outside 0x21..0x7e, and
// says which.
func TestIssueRefusesMatch(t *testing.T) {
	for _, c := range []struct{ match, says string }{
		{strings.Repeat("m", MaxMatchLen+1), "33 bytes; at most 32"},
		{"duel 17", "byte 0x20 at 4"},
		{"duel\x0017", "byte 0x00 at 4"},
		{"dü", "byte 0xc3 at 1"},
		{"x\x7f", "byte 0x7f at 1"},
	} {
		_, err := Issue(testKey, Params{Servers: []netip.AddrPort{testServer}, Match: c.match}, testNow)
		if err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%q: %v, want an error saying %q", c.match, err, c.says)
		}
	}
}

// sealPrivate seals a hand-made private part the way Issue does: what a
// holder of the key could send, however malformed.
func sealPrivate(t *testing.T, plain []byte) []byte {
	t.Helper()
	tok := &Token{Header: Header{ProtocolID: 0x5357, Created: testNow, Expires: testNow.Add(time.Minute), Nonce: [NonceLen]byte{7}}}
	aead, err := chacha20poly1305.NewX(testKey[:])
	if err != nil {
		t.Fatal(err)
	}
	tok.Sealed = aead.Seal(nil, tok.Nonce[:], plain, tok.Header.appendTo(nil))
	return tok.AppendPrivate(nil)
}

// plainPrivate is a private part up to and including the user data (the
// layout of "SNAPWIRE TOKEN 1").
func plainPrivate() []byte {
	b := binary.LittleEndian.AppendUint64(nil, 9)
	b = binary.LittleEndian.AppendUint32(b, 10_000)
	b = append(b, make([]byte, 2*KeyLen)...)
	b = appendAddrs(b, []netip.AddrPort{testServer})
	return binary.LittleEndian.AppendUint16(b, 0)
}

// Open refuses, as malformed, a sealed private part whose match is too
// long or not printable, or missing (a token of layout 1), and the whole
// token of layout 1 does not unmarshal.
func TestOpenRefusesMatch(t *testing.T) {
	o := NewOpener(testKey, 0x5357, []netip.AddrPort{testServer})
	good := append(plainPrivate(), 7)
	good = append(good, "duel-17"...)
	if p, err := o.Open(sealPrivate(t, good), testNow); err != nil || p.Match != "duel-17" {
		t.Fatalf("hand-sealed token: %+v %v", p, err)
	}
	long := append(plainPrivate(), MaxMatchLen+1)
	long = append(long, strings.Repeat("m", MaxMatchLen+1)...)
	for name, plain := range map[string][]byte{
		"layout 1 (no match)": plainPrivate(),
		"match of 33 bytes":   long,
		"space":               append(append(plainPrivate(), 3), "a b"...),
		"control byte":        append(append(plainPrivate(), 2), "a\n"...),
		"high byte":           append(append(plainPrivate(), 2), "a\xff"...),
		"length past the end": append(append(plainPrivate(), 5), "abc"...),
		"trailing byte":       append(append(plainPrivate(), 1), "ab"...),
	} {
		if _, err := o.Open(sealPrivate(t, plain), testNow); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: %v, want ErrMalformed", name, err)
		}
	}
	whole := issue(t, Params{Match: "duel-17"}).Marshal()
	if !bytes.HasPrefix(whole, []byte("SNAPWIRE TOKEN 2")) {
		t.Fatalf("magic %q", whole[:16])
	}
	old := append([]byte("SNAPWIRE TOKEN 1"), whole[16:]...)
	if _, err := Unmarshal(old); !errors.Is(err, ErrMalformed) {
		t.Fatalf("a token with layout 1's magic: %v", err)
	}
}

func TestCheckMatch(t *testing.T) {
	for _, ok := range []string{"", "duel-17", "a", "!\"#~", strings.Repeat("Z", MaxMatchLen)} {
		if err := CheckMatch(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{" ", "a b", "\t", "é", strings.Repeat("Z", MaxMatchLen+1), "x\x7f"} {
		if CheckMatch(bad) == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// plainOf encodes an opened private part again, the way Issue lays it out.
func plainOf(p *Private) []byte {
	b := binary.LittleEndian.AppendUint64(nil, p.ClientID)
	b = binary.LittleEndian.AppendUint32(b, uint32(p.Timeout/time.Millisecond))
	b = append(b, p.ClientToServerKey[:]...)
	b = append(b, p.ServerToClientKey[:]...)
	b = appendAddrs(b, p.Servers)
	b = binary.LittleEndian.AppendUint16(b, uint16(len(p.UserData)))
	b = append(b, p.UserData...)
	b = append(b, byte(len(p.Match)))
	return append(b, p.Match...)
}

// FuzzOpenPrivate fuzzes the private part behind the seal (FuzzOpen's
// inputs almost never open): a plaintext sealed with the key opens only if
// its fields, the match among them, are within their limits, and then
// decode → encode → decode gives it back.
func FuzzOpenPrivate(f *testing.F) {
	f.Add(append(plainPrivate(), 0))
	f.Add(append(append(plainPrivate(), 7), "duel-17"...))
	f.Add(append(append(plainPrivate(), MaxMatchLen), strings.Repeat("~", MaxMatchLen)...))
	f.Add(append(append(plainPrivate(), 3), "a b"...))
	o := NewOpener(testKey, 0x5357, []netip.AddrPort{testServer})
	f.Fuzz(func(t *testing.T, plain []byte) {
		if len(plain) > maxPrivateLen {
			return // Open refuses the length before the seal
		}
		p, err := o.Open(sealPrivate(t, plain), testNow)
		if err != nil {
			return
		}
		if CheckMatch(p.Match) != nil || len(p.UserData) > MaxUserData {
			t.Fatalf("opened %+v beyond the limits", p)
		}
		again, err := o.Open(sealPrivate(t, plainOf(p)), testNow)
		if err != nil {
			t.Fatalf("re-encoded %+v does not open: %v", p, err)
		}
		again.MAC, p.MAC = [16]byte{}, [16]byte{}
		if !reflect.DeepEqual(again, p) {
			t.Fatalf("decode-encode-decode differs: %+v, then %+v", p, again)
		}
	})
}
