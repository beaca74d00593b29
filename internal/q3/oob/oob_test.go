package oob

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/snapwire/snapwire/internal/q3/internal/golden"
)

const userinfo68 = `\challenge\-642195320\qport\28363\protocol\68\name\fixture68\rate\25000\snaps\20`

// TestRoundTrip: every message kind has exact bytes (in the form ioq3
// sends them), parses back to itself, and every truncated prefix parses to
// something else or fails.
func TestRoundTrip(t *testing.T) {
	cases := []struct {
		fromClient bool
		m          Message
		text       string // the packet after the marker, "" for connect
	}{
		{true, &GetInfo{Challenge: "snapwire-getinfo"}, "getinfo snapwire-getinfo"},
		{true, &GetInfo{}, "getinfo"},
		{true, &GetStatus{Challenge: "xyz"}, "getstatus xyz"},
		{true, &GetChallenge{ClientChallenge: "1760966064", GameName: "Quake3Arena"}, "getchallenge 1760966064 Quake3Arena"},
		{true, &GetChallenge{}, "getchallenge"},
		{true, &Connect{Userinfo: userinfo68}, ""},
		{false, &ChallengeResponse{Challenge: -642195320, ClientChallenge: 1760966064, Protocol: 68, NArgs: 3}, "challengeResponse -642195320 1760966064 68"},
		{false, &ChallengeResponse{Challenge: 5, NArgs: 1}, "challengeResponse 5"},
		{false, &ConnectResponse{Challenge: -642195320, HasChallenge: true}, "connectResponse -642195320"},
		{false, &ConnectResponse{}, "connectResponse"},
		{false, &InfoResponse{Info: `\hostname\x\mapname\oa_dm2`}, "infoResponse\n\\hostname\\x\\mapname\\oa_dm2"},
		{false, &StatusResponse{Info: `\sv_hostname\x`, Players: []Player{{3, 0, "Liz"}, {-1, 50, "Dark Knight"}}}, "statusResponse\n\\sv_hostname\\x\n3 0 \"Liz\"\n-1 50 \"Dark Knight\"\n"},
		{false, &Print{Text: "Server is full.\n"}, "print\nServer is full.\n"},
		{false, &Disconnect{}, "disconnect"},
	}
	var gold strings.Builder
	for _, c := range cases {
		b, err := c.m.Append(nil)
		if err != nil {
			t.Fatal(err)
		}
		if c.text != "" && string(b) != "\xff\xff\xff\xff"+c.text {
			t.Errorf("%s: %q", c.m.Command(), b)
		}
		fmt.Fprintf(&gold, "%s\n% x\n", c.m.Command(), b)
		parse := ParseServerPacket
		if c.fromClient {
			parse = ParseClientPacket
		}
		got, err := parse(b)
		if err != nil || !reflect.DeepEqual(got, c.m) {
			t.Errorf("%s: parsed %#v %v", c.m.Command(), got, err)
		}
		for n := 0; n < len(b); n++ {
			got, err := parse(b[:n])
			if err == nil && reflect.DeepEqual(got, c.m) && strings.Trim(string(b[n:]), "\"\n") != "" {
				t.Errorf("%s: %d-byte prefix parses to the whole message", c.m.Command(), n)
			}
		}
	}
	golden.Check(t, "oob.golden", []byte(gold.String()))
}

func TestConnectFromEngine(t *testing.T) {
	// The connect packet the engine's client sent in session-68.pcap
	// (q3/huffman/testdata holds a copy).
	m, err := ParseClientPacket(connect68)
	if err != nil {
		t.Fatal(err)
	}
	c, ok := m.(*Connect)
	if !ok {
		t.Fatalf("%T", m)
	}
	info, err := ParseInfo(c.Userinfo, MaxInfoString)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{"name": "fixture68", "qport": "28363", "protocol": "68", "challenge": "-642195320", "rate": "25000", "snaps": "20"} {
		if got := info.Value(k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	again, err := c.Append(nil)
	if err != nil || !bytes.Equal(again, connect68) {
		t.Fatalf("re-encoded connect differs from the engine's: %v", err)
	}
}

func TestInfo(t *testing.T) {
	in, err := ParseInfo(`\a\1\B\2\empty\`, MaxInfoString)
	if err != nil || in.Value("b") != "2" || in.Value("empty") != "" || len(in) != 3 {
		t.Fatalf("%v %v", in, err)
	}
	if err := in.Set("c", "3"); err != nil || in.String() != `\a\1\B\2\empty\\c\3` {
		t.Fatalf("set: %v %q", err, in.String())
	}
	if err := in.Set("bad", `x"y`); !errors.Is(err, ErrInfo) {
		t.Fatal("quote accepted")
	}
	for _, bad := range []string{`\a`, `\a\1\b`, strings.Repeat("x", MaxInfoString)} {
		if _, err := ParseInfo(bad, MaxInfoString); !errors.Is(err, ErrInfo) {
			t.Errorf("%q accepted", bad[:min(len(bad), 20)])
		}
	}
	if _, err := ParseInfo(`\k\`+strings.Repeat("v", 5000), BigInfoString); !errors.Is(err, ErrInfo) {
		t.Error("oversized value accepted")
	}
}

func TestTokenize(t *testing.T) {
	cases := map[string][]string{
		`connect "\a\b c"`:  {"connect", `\a\b c`},
		"  getinfo   xxx\t": {"getinfo", "xxx"},
		`say "unterminated`: {"say", "unterminated"},
		"a // comment":      {"a"},
		"a /* x */ b":       {"a", "b"},
		"url http://x.y/z":  {"url", "http://x.y/z"},
		`a"b"`:              {"a", "b"},
		"":                  nil,
	}
	for in, want := range cases {
		if got := Tokenize(in); !reflect.DeepEqual(got, want) {
			t.Errorf("Tokenize(%q) = %q, want %q", in, got, want)
		}
	}
	if n := len(Tokenize(strings.Repeat("a ", 2000))); n != maxStringTokens {
		t.Errorf("%d tokens", n)
	}
}

func FuzzParse(f *testing.F) {
	f.Add(connect68)
	f.Add([]byte("\xff\xff\xff\xffstatusResponse\n\\a\\b\n1 2 \"x\"\n"))
	f.Add([]byte("\xff\xff\xff\xffchallengeResponse 1 2 3"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, parse := range []func([]byte) (Message, error){ParseClientPacket, ParseServerPacket} {
			m, err := parse(data)
			if err != nil {
				continue
			}
			b, err := m.Append(nil)
			if err != nil {
				continue
			}
			m2, err := parse(b)
			if err != nil {
				t.Fatalf("re-encoded %T fails: %v", m, err)
			}
			b2, err := m2.Append(nil)
			if err != nil || !bytes.Equal(b, b2) {
				t.Fatalf("%T: encode -> parse -> encode differs:\n%q\n%q", m, b, b2)
			}
		}
	})
}

func FuzzParseInfo(f *testing.F) {
	f.Add(userinfo68)
	f.Fuzz(func(t *testing.T, s string) {
		in, err := ParseInfo(s, BigInfoString)
		if err != nil {
			return
		}
		in2, err := ParseInfo(in.String(), BigInfoString+1)
		if err != nil || !reflect.DeepEqual(in, in2) {
			t.Fatalf("round trip: %v", err)
		}
	})
}
