package tokenwire

import (
	"bytes"
	"errors"
	"net/netip"
	"strings"
	"testing"
	"time"
)

var (
	testNow    = time.Unix(1_800_000_000, 0)
	testServer = netip.MustParseAddrPort("127.0.0.1:27960")
	testKey    = Key{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32}
)

func issue(t testing.TB, p Params) *Token {
	t.Helper()
	if p.Servers == nil {
		p.Servers = []netip.AddrPort{netip.MustParseAddrPort("[::1]:5"), testServer}
	}
	if p.ProtocolID == 0 {
		p.ProtocolID = 0x5357
	}
	tok, err := Issue(testKey, p, testNow)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func TestRoundTrip(t *testing.T) {
	tok := issue(t, Params{ClientID: 42, UserData: []byte("map=arena3x3"), Timeout: 7 * time.Second})
	back, err := Parse(tok.String())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(back.Marshal(), tok.Marshal()) {
		t.Fatal("Marshal(Parse(String())) differs")
	}
	if back.Timeout != 7*time.Second || back.Servers[1] != testServer || back.ClientToServerKey != tok.ClientToServerKey {
		t.Fatalf("public part: %+v", back)
	}
	o := NewOpener(testKey, 0x5357, []netip.AddrPort{testServer})
	p, err := o.Open(back.AppendPrivate(nil), testNow.Add(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if p.ClientID != 42 || string(p.UserData) != "map=arena3x3" || p.Timeout != 7*time.Second ||
		p.ClientToServerKey != tok.ClientToServerKey || p.ServerToClientKey != tok.ServerToClientKey {
		t.Fatalf("private part: %+v", p)
	}
	if !bytes.Equal(p.MAC[:], tok.Sealed[len(tok.Sealed)-16:]) {
		t.Fatal("MAC is not the sealed part's tag")
	}
	if tok.ClientToServerKey == tok.ServerToClientKey {
		t.Fatal("the two session keys are equal")
	}
}

// Guards against: any of the server-side checks removed from Open.
func TestOpenRefusals(t *testing.T) {
	o := NewOpener(testKey, 0x5357, []netip.AddrPort{testServer})
	good := issue(t, Params{}).AppendPrivate(nil)
	tampered := bytes.Clone(good)
	tampered[len(tampered)-20] ^= 1
	headerTampered := bytes.Clone(good)
	headerTampered[10] ^= 1 // create time: associated data
	other := issue(t, Params{Servers: []netip.AddrPort{netip.MustParseAddrPort("127.0.0.1:27961")}}).AppendPrivate(nil)
	otherKey, err := Issue(Key{9}, Params{ProtocolID: 0x5357, Servers: []netip.AddrPort{testServer}}, testNow)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		b    []byte
		now  time.Time
		want error
	}{
		{"expired", good, testNow.Add(30 * time.Second), ErrExpired},
		{"wrong protocol", issue(t, Params{ProtocolID: 7}).AppendPrivate(nil), testNow, ErrWrongProtocol},
		{"wrong server", other, testNow, ErrWrongServer},
		{"tampered sealed part", tampered, testNow, ErrTampered},
		{"tampered header", headerTampered, testNow, ErrTampered},
		{"another key", otherKey.AppendPrivate(nil), testNow, ErrTampered},
		{"empty", nil, testNow, ErrMalformed},
		{"trailing byte", append(bytes.Clone(good), 0), testNow, ErrMalformed},
	}
	for _, c := range cases {
		if _, err := o.Open(c.b, c.now); !errors.Is(err, c.want) {
			t.Errorf("%s: err %v, want %v", c.name, err, c.want)
		}
	}
	if _, err := o.Open(good, testNow.Add(29*time.Second)); err != nil {
		t.Fatalf("valid token refused: %v", err)
	}
	for n := range len(good) {
		if _, err := o.Open(good[:n], testNow); err == nil {
			t.Fatalf("prefix of %d bytes opened", n)
		}
	}
}

func TestIssueLimits(t *testing.T) {
	if _, err := Issue(testKey, Params{}, testNow); err == nil {
		t.Fatal("no servers accepted")
	}
	if _, err := Issue(testKey, Params{Servers: []netip.AddrPort{testServer}, UserData: make([]byte, MaxUserData+1)}, testNow); err == nil {
		t.Fatal("oversized user data accepted")
	}
	many := make([]netip.AddrPort, MaxServers)
	for i := range many {
		many[i] = netip.MustParseAddrPort("[2001:db8::1]:1")
	}
	tok, err := Issue(testKey, Params{Servers: many, UserData: make([]byte, MaxUserData), Match: strings.Repeat("m", MaxMatchLen)}, testNow)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(tok.AppendPrivate(nil)); n != MaxPrivateTokenLen {
		t.Fatalf("largest private token %d bytes, MaxPrivateTokenLen %d", n, MaxPrivateTokenLen)
	}
}

func TestKeyText(t *testing.T) {
	k, err := NewKey()
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseKey(k.String() + "\n")
	if err != nil || back != k {
		t.Fatalf("ParseKey(String()) = %v, %v", back, err)
	}
	if _, err := ParseKey("abcd"); err == nil {
		t.Fatal("short key accepted")
	}
}

func FuzzUnmarshal(f *testing.F) {
	f.Add(issue(f, Params{ClientID: 1, UserData: []byte("x")}).Marshal())
	f.Add(issue(f, Params{}).Marshal())
	f.Add(issue(f, Params{ClientID: 2, Match: "duel-17"}).Marshal())
	f.Fuzz(func(t *testing.T, b []byte) {
		tok, err := Unmarshal(b)
		if err != nil {
			return
		}
		again, err := Unmarshal(tok.Marshal())
		if err != nil || !bytes.Equal(again.Marshal(), tok.Marshal()) {
			t.Fatalf("decode-encode-decode differs: %v", err)
		}
	})
}

func FuzzOpen(f *testing.F) {
	f.Add(issue(f, Params{ClientID: 1, UserData: []byte("x")}).AppendPrivate(nil))
	f.Add(issue(f, Params{ClientID: 2, Match: "duel-17"}).AppendPrivate(nil))
	f.Add(issue(f, Params{ClientID: 3, UserData: []byte("y"), Match: strings.Repeat("~", MaxMatchLen)}).AppendPrivate(nil))
	o := NewOpener(testKey, 0x5357, []netip.AddrPort{testServer})
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := o.Open(b, testNow)
		if err == nil && (len(p.UserData) > MaxUserData || len(p.Servers) > MaxServers || CheckMatch(p.Match) != nil) {
			t.Fatal("limits not enforced")
		}
	})
}
