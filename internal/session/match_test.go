package session

import (
	"bytes"
	"errors"
	"net/netip"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/snapwire/snapwire/internal/tokenwire"
)

// The connect's match (version 6) follows the name as a u8 length and its
// bytes, and round-trips; every prefix of it fails cleanly.
func TestConnectMatchBytes(t *testing.T) {
	m := Connect{Nonce: 1, Version: Version, Password: "pw", Name: "p", Match: "duel-17", Token: []byte{0xAA}}
	b := m.Append(nil)
	// kind 1 | nonce 8 | cookie 16 | version 2 | registry hash 8 |
	// password 1+2 | name 1+1 = 40 bytes, then the match.
	const at = 1 + 8 + CookieLen + 2 + 8 + 3 + 2
	want := append([]byte{7}, "duel-17"...)
	want = append(want, 1, 0, 0xAA)
	if !bytes.Equal(b[at:at+len(want)], want) {
		t.Fatalf("match and token at %d: % x, want % x", at, b[at:at+len(want)], want)
	}
	for _, c := range []Connect{m, {Nonce: 2, Version: Version, Match: strings.Repeat("~", MaxMatchLen)}, {Nonce: 3, Match: "!"}} {
		b := c.Append(nil)
		got, err := ParseConnect(b)
		if err != nil || !reflect.DeepEqual(got, c) {
			t.Fatalf("%+v: parsed %+v, %v", c, got, err)
		}
		for i := range len(b) {
			if _, err := ParseConnect(b[:i]); !errors.Is(err, ErrMalformed) {
				t.Fatalf("%q: prefix %d: %v", c.Match, i, err)
			}
		}
	}
}

// ParseConnect refuses, as malformed and saying why, a match longer than
// 32 bytes or with a byte outside 0x21..0x7e (tokenwire.CheckMatch).
func TestParseConnectRefusesMatch(t *testing.T) {
	long := Connect{Match: strings.Repeat("m", MaxMatchLen)}.Append(nil)
	const at = 1 + 8 + CookieLen + 2 + 8 + 1 + 1 // the match's length byte
	long[at] = MaxMatchLen + 1
	for _, c := range []struct {
		name string
		b    []byte
		says string
	}{
		{"33 bytes", long, "string of 33 bytes, max 32"},
		{"space", Connect{Match: "duel 17"}.Append(nil), "byte 0x20 at 4"},
		{"control byte", Connect{Match: "a\x00"}.Append(nil), "byte 0x00 at 1"},
		{"DEL", Connect{Match: "\x7f"}.Append(nil), "byte 0x7f at 0"},
		{"UTF-8", Connect{Match: "dü"}.Append(nil), "byte 0xc3 at 1"},
	} {
		_, err := ParseConnect(c.b)
		if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: %v, want ErrMalformed saying %q", c.name, err, c.says)
		}
	}
}

// The largest connect still fits ConnectLen with the match: every string
// at its bound and a token of MaxTokenLen fill it exactly, and the
// largest a client sends (the largest real token, tokenwire's) leaves
// room.
func TestLargestConnectFits(t *testing.T) {
	m := Connect{Nonce: 1, Version: Version, Password: strings.Repeat("p", MaxPasswordLen), Name: strings.Repeat("n", MaxNameLen),
		Match: strings.Repeat("m", MaxMatchLen), Token: bytes.Repeat([]byte{9}, MaxTokenLen), Proof: [ResumeProofLen]byte{15: 1}}
	b := m.Append(nil)
	if len(b) != ConnectLen || b[len(b)-1] != 1 {
		t.Fatalf("largest connect %d bytes (last % x), want exactly %d ending with the proof", len(b), b[len(b)-1], ConnectLen)
	}
	if got, err := ParseConnect(b); err != nil || !reflect.DeepEqual(got, m) {
		t.Fatalf("largest connect: %v", err)
	}
	sent := m
	sent.Token = sent.Token[:tokenwire.MaxPrivateTokenLen]
	unpadded := len(bytes.TrimRight(sent.Append(nil), "\x00")) // the proof ends in 1
	// docs/PROTOCOL.md's connect row quotes these.
	if tokenwire.MaxPrivateTokenLen != 586 || unpadded != 770 {
		t.Fatalf("largest private token %d bytes, largest connect a client sends %d before padding", tokenwire.MaxPrivateTokenLen, unpadded)
	}
}

// realConnect is a connect as a client with a token for match sends it:
// a token issued by tokenwire and its resume proof.
func realConnect(t testing.TB, match string) []byte {
	tok, err := tokenwire.Issue(tokenwire.Key{1}, tokenwire.Params{ProtocolID: 1, ClientID: 7,
		Servers: []netip.AddrPort{netip.MustParseAddrPort("127.0.0.1:27960")}, Match: match}, time.Unix(1_800_000_000, 0))
	if err != nil {
		t.Fatal(err)
	}
	m := Connect{Nonce: 99, Cookie: Cookie{1, 2, 3}, Version: Version, RegistryHash: 0x1234, Name: "player", Match: match,
		Token: tok.AppendPrivate(nil)}
	m.Proof = tokenwire.ResumeProof(&tok.ClientToServerKey, m.Nonce, m.Cookie)
	return m.Append(nil)
}

func TestReasonNoSuchMatch(t *testing.T) {
	if ReasonNoSuchMatch != ReasonMessageFlood+1 || ReasonNoSuchMatch.String() != "no such match" {
		t.Fatalf("reason %d %q", ReasonNoSuchMatch, ReasonNoSuchMatch)
	}
	if Reason(len(reasonNames)) != ReasonNoSuchMatch+1 {
		t.Fatalf("%d reason names; the last reason is %d", len(reasonNames), ReasonNoSuchMatch)
	}
}

// A version 5 connect without a token (zero after its name) still parses,
// so a server refuses it as the wrong version (2) and an old client says
// so; one with a token reads its token length as a match and is ignored.
func TestVersion5Connect(t *testing.T) {
	v5 := []byte{byte(KindConnect), 1, 0, 0, 0, 0, 0, 0, 0}
	v5 = append(v5, make([]byte, CookieLen)...)
	v5 = append(v5, 5, 0)                            // version 5
	v5 = append(v5, 1, 2, 3, 4, 5, 6, 7, 8)          // registry hash
	v5 = append(v5, 0, 1, 'x')                       // password, name
	withToken := append(bytes.Clone(v5), 0x29, 0x02) // a token of 553 bytes
	withToken = append(withToken, bytes.Repeat([]byte{7}, 553)...)
	v5 = append(v5, 0, 0) // no token; the proof and the padding are zero
	for _, b := range []*[]byte{&v5, &withToken} {
		*b = append(*b, make([]byte, ConnectLen-len(*b))...)
	}
	m, err := ParseConnect(v5)
	if err != nil || m.Version != 5 || m.Name != "x" || m.Match != "" {
		t.Fatalf("version 5 connect without a token: %+v %v", m, err)
	}
	if _, err := ParseConnect(withToken); !errors.Is(err, ErrMalformed) {
		t.Fatalf("version 5 connect with a token: %v", err)
	}
}
