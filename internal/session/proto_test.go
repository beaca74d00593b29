package session

import (
	"bytes"
	"errors"
	"reflect"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	conn := Connect{Nonce: 7, Cookie: Cookie{1, 2}, Version: Version, RegistryHash: 99, Password: "pw", Name: "bob"}
	connTok := conn
	connTok.Token = bytes.Repeat([]byte{0xAB}, 600)
	acc := Accept{Nonce: 7, ConnID: 0x1234, Client: 3, GameID: 0xdeadbeef, FrameDur: 16666, Settings: "map=one"}
	ref := Refuse{Nonce: 7, Reason: ReasonServerFull, Text: "server full"}
	app := Apply{Seq: 9, BaseHash: 11}
	cases := []struct {
		name  string
		b     []byte
		want  []byte
		parse func([]byte) (any, error)
		v     any
	}{
		{"connect", conn.Append(nil), nil, func(b []byte) (any, error) { return ParseConnect(b) }, conn},
		{"connect with token", connTok.Append(nil), nil, func(b []byte) (any, error) { return ParseConnect(b) }, connTok},
		{"accept", acc.Append(nil), []byte{4, 7, 0, 0, 0, 0, 0, 0, 0, 0x34, 0x12, 3, 0, 0xef, 0xbe, 0xad, 0xde, 0x1a, 0x41, 0, 0, 7, 0, 'm', 'a', 'p', '=', 'o', 'n', 'e'},
			func(b []byte) (any, error) { return ParseAccept(b) }, acc},
		{"refuse", ref.Append(nil), nil, func(b []byte) (any, error) { return ParseRefuse(b) }, ref},
		{"apply verified", app.Append(nil, 7), []byte{4, 2, 11, 0, 0, 0}, func(b []byte) (any, error) { return ParseApply(b, 7) }, app},
		{"apply", Apply{Seq: 300}.Append(nil, 0), []byte{1, 0xac, 0x02}, func(b []byte) (any, error) { return ParseApply(b, 0) }, Apply{Seq: 300}},
		{"challenge", Challenge{Nonce: 1, Cookie: Cookie{9}}.Append(nil), nil, func(b []byte) (any, error) { return ParseChallenge(b) }, Challenge{Nonce: 1, Cookie: Cookie{9}}},
		{"disconnect", Disconnect{ReasonKicked}.Append(nil), []byte{3, 9}, func(b []byte) (any, error) { return ParseDisconnect(b) }, Disconnect{ReasonKicked}},
	}
	for _, tc := range cases {
		if tc.want != nil && !bytes.Equal(tc.b, tc.want) {
			t.Errorf("%s: % x, want % x", tc.name, tc.b, tc.want)
		}
		v, err := tc.parse(tc.b)
		if err != nil || !reflect.DeepEqual(v, tc.v) {
			t.Errorf("%s: %+v %v", tc.name, v, err)
		}
		for i := range len(tc.b) {
			if _, err := tc.parse(tc.b[:i]); !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrKind) {
				t.Errorf("%s: prefix %d: %v", tc.name, i, err)
			}
		}
	}
	g := GetChallenge{Nonce: 42}.Append(nil)
	if len(g) != GetChallengeLen {
		t.Fatalf("getchallenge %d bytes", len(g))
	}
	if m, err := ParseGetChallenge(g); err != nil || m.Nonce != 42 {
		t.Fatal(m, err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add(Connect{Nonce: 7, Name: "x"}.Append(nil))
	f.Add(Connect{Nonce: 7, Name: "x", Token: []byte("tok")}.Append(nil))
	f.Add(Connect{Nonce: 7, Name: "x", Match: "duel-17"}.Append(nil))
	f.Add(realConnect(f, ""))
	f.Add(realConnect(f, "duel-17"))
	f.Add(Connect{Nonce: 7, Version: Version, Name: "x", Match: "duel-17", Token: []byte("tok"), Proof: [ResumeProofLen]byte{1}}.Append(nil))
	f.Add(Accept{Nonce: 7, FrameDur: 1, Settings: "s"}.Append(nil))
	f.Add(Refuse{Reason: 1, Text: "t"}.Append(nil))
	f.Add(Apply{Seq: 1}.Append(nil, 0))
	f.Add(Apply{Seq: 70, BaseHash: 3}.Append(nil, 5))
	f.Fuzz(func(t *testing.T, b []byte) {
		if m, err := ParseConnect(b); err == nil {
			if m2, err := ParseConnect(m.Append(nil)); err != nil || !reflect.DeepEqual(m2, m) {
				t.Fatalf("connect round trip: %+v %+v %v", m, m2, err)
			}
		}
		if m, err := ParseAccept(b); err == nil {
			if m2, err := ParseAccept(m.Append(nil)); err != nil || m2 != m {
				t.Fatalf("accept round trip")
			}
		}
		if m, err := ParseRefuse(b); err == nil {
			if m2, err := ParseRefuse(m.Append(nil)); err != nil || m2 != m {
				t.Fatalf("refuse round trip")
			}
		}
		if m, err := ParseApply(b, 5); err == nil {
			if got, err := ParseApply(m.Append(nil, 5), 5); err != nil || got != m {
				t.Fatalf("apply round trip: %+v -> %+v, %v", m, got, err)
			}
		}
		ParseChallenge(b)
		ParseDisconnect(b)
		ParseGetChallenge(b)
		ParseEventsHeader(b)
		ParseClientHeader(b)
		ParseLoadGame(b)
	})
}

// Snapwire handshake payloads and Quake 3 text queries cannot be confused.
func TestIsHandshake(t *testing.T) {
	for _, p := range [][]byte{
		GetChallenge{Nonce: 1}.Append(nil), Challenge{}.Append(nil), Connect{}.Append(nil),
		Accept{FrameDur: 1}.Append(nil), Refuse{}.Append(nil), {0x1F},
	} {
		if !IsHandshake(p) {
			t.Errorf("%x is not a handshake payload", p)
		}
	}
	for _, q := range []string{"", "getinfo xxx", "getstatus xxx", "getchallenge 42", "connect \"\\name\\x\"", " ", "\xff"} {
		if IsHandshake([]byte(q)) {
			t.Errorf("%q taken for a handshake payload", q)
		}
	}
}

// Guards against: an unpadded connect, or an answer that can outgrow it
// (no handshake answer may be larger than the request it answers).
func TestConnectPaddedAboveAnswers(t *testing.T) {
	c := Connect{Name: "n"}.Append(nil)
	if len(c) != ConnectLen {
		t.Fatalf("connect %d bytes, want %d", len(c), ConnectLen)
	}
	if _, err := ParseConnect(c[:ConnectLen-1]); err == nil {
		t.Fatal("short connect accepted")
	}
	big := Accept{FrameDur: 1, Settings: string(bytes.Repeat([]byte("s"), MaxSettingsLen))}.Append(nil)
	ref := Refuse{Text: string(bytes.Repeat([]byte("r"), MaxReasonLen))}.Append(nil)
	if len(big) >= ConnectLen || len(ref) >= ConnectLen {
		t.Fatalf("largest accept %d, refuse %d bytes: not below the %d-byte connect", len(big), len(ref), ConnectLen)
	}
	if ch := (Challenge{}).Append(nil); len(ch) > GetChallengeLen {
		t.Fatalf("challenge %d bytes, getchallenge %d", len(ch), GetChallengeLen)
	}
	for r := ReasonNone; r <= ReasonTooManyFromIP; r++ {
		if len(r.String()) > MaxReasonLen || r.String() == "" {
			t.Fatalf("reason %d: %q", r, r.String())
		}
	}
}
