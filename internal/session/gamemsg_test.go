package session

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/game"
)

// testChat and testReady are game messages with hand-written codecs.
type testChat struct {
	Seq  uint32
	Text string
}

func (m *testChat) WriteMessage(w *bitmsg.Writer) { w.WriteUint32(m.Seq); w.WriteString(m.Text, 900) }
func (m *testChat) ReadMessage(r *bitmsg.Reader)  { m.Seq = r.ReadUint32(); m.Text = r.ReadString(900) }

type testReady struct {
	Ready bool
	Team  uint8
}

func (m *testReady) WriteMessage(w *bitmsg.Writer) {
	w.WriteBool(m.Ready)
	w.WriteBits(uint32(m.Team), 3)
}
func (m *testReady) ReadMessage(r *bitmsg.Reader) {
	m.Ready = r.ReadBool()
	m.Team = uint8(r.ReadBits(3))
}

// testUnregistered is a message no registry has.
type testUnregistered struct{ testReady }

func testMessages(t testing.TB) *GameMessages {
	t.Helper()
	reg := game.NewRegistry()
	if err := reg.RegisterMessage("chat", func() game.Message { return new(testChat) }); err != nil {
		t.Fatal(err)
	}
	if err := reg.RegisterMessage("ready", func() game.Message { return new(testReady) }); err != nil {
		t.Fatal(err)
	}
	return NewGameMessages(reg)
}

// Exact bytes of named cases, the round trip, and every truncated prefix
// refused.
func TestGameMessageRoundTrip(t *testing.T) {
	g := testMessages(t)
	cases := []struct {
		name string
		m    game.Message
		want []byte
	}{
		// kind 5, id 1, then Ready=1 (bit 0) and Team=5 (bits 1..3): 0b1011.
		{"ready", &testReady{Ready: true, Team: 5}, []byte{5, 1, 0x0b}},
		// kind 5, id 0, Seq 0x01020304 LE, length 2 in 10 bits (BitsFor(900)), "hi" shifted by 2.
		{"chat", &testChat{Seq: 0x01020304, Text: "hi"}, []byte{5, 0, 0x04, 0x03, 0x02, 0x01, 0x02, 0xa0, 0xa5, 0x01}},
		{"chat empty", &testChat{}, []byte{5, 0, 0, 0, 0, 0, 0, 0}},
	}
	for _, tc := range cases {
		p, err := g.Encode(tc.m, MaxGameMessageLen)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !bytes.Equal(p, tc.want) {
			t.Errorf("%s: % x, want % x", tc.name, p, tc.want)
		}
		p = bytes.Clone(p)
		m, id, err := g.Decode(p, MaxGameMessageLen)
		if err != nil || g.Name(id) != strings.Fields(tc.name)[0] {
			t.Fatalf("%s: id %d (%q), %v", tc.name, id, g.Name(id), err)
		}
		switch want := tc.m.(type) {
		case *testChat:
			if *m.(*testChat) != *want {
				t.Errorf("%s: decoded %+v", tc.name, m)
			}
		case *testReady:
			if *m.(*testReady) != *want {
				t.Errorf("%s: decoded %+v", tc.name, m)
			}
		}
		for i := range len(p) {
			if _, _, err := g.Decode(p[:i], MaxGameMessageLen); !errors.Is(err, ErrMalformed) {
				t.Errorf("%s: prefix of %d bytes: %v", tc.name, i, err)
			}
		}
	}
}

// Hostile and mistaken encodings are refused with an error that says what
// and names the message type; a sender refuses what it must not send.
func TestGameMessageRefused(t *testing.T) {
	g := testMessages(t)
	long := strings.Repeat("x", 900)
	for _, tc := range []struct {
		name, want string
		p          []byte
		max        int
	}{
		{"empty", "of 0 bytes", nil, MaxGameMessageLen},
		{"unknown id", "id 2, 2 registered", []byte{5, 2}, MaxGameMessageLen},
		{"unread byte", `"ready": 12 bits left unread`, []byte{5, 1, 0x0b, 0}, MaxGameMessageLen},
		{"non-zero padding", `"ready": non-zero padding`, []byte{5, 1, 0x1b}, MaxGameMessageLen},
		{"read past the end", `"chat": bitmsg: read past the end`, []byte{5, 0, 1, 2, 3}, MaxGameMessageLen},
		{"string past the end", `"chat": bitmsg: read past the end`, []byte{5, 0, 0, 0, 0, 0, 0xff, 0x00}, MaxGameMessageLen},
		{"string over its maximum", `"chat": bitmsg: value out of range`, []byte{5, 0, 0, 0, 0, 0, 0xff, 0x0f}, MaxGameMessageLen},
		{"over the receiver's limit", `"chat" of 4 bytes, limit 3`, []byte{5, 0, 0, 0, 0, 0}, 3},
		{"over the wire limit", "limit 1024", append([]byte{5, 0}, make([]byte, MaxGameMessageLen+1)...), 1 << 20},
	} {
		_, _, err := g.Decode(tc.p, tc.max)
		if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want ErrMalformed saying %q", tc.name, err, tc.want)
		}
	}
	if _, _, err := g.Decode([]byte{byte(RelApply), 0}, MaxGameMessageLen); !errors.Is(err, ErrKind) {
		t.Errorf("another kind: %v", err)
	}
	for _, tc := range []struct {
		name string
		m    game.Message
		max  int
		want string
	}{
		{"unregistered", &testUnregistered{}, MaxGameMessageLen, "not registered"},
		{"nil", nil, MaxGameMessageLen, "nil game message"},
		{"too long", &testChat{Text: long}, 100, `"chat" (limit 100 bytes)`},
		{"field out of range", &testChat{Text: long + "!"}, MaxGameMessageLen, "out of range"},
	} {
		if _, err := g.Encode(tc.m, tc.max); !errors.Is(err, game.ErrRange) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("encode %s: %v, want game.ErrRange saying %q", tc.name, err, tc.want)
		}
	}
}

// Encoding and decoding a message without strings allocate nothing.
func TestGameMessageAllocs(t *testing.T) {
	g := testMessages(t)
	m := &testReady{Ready: true, Team: 3}
	p, _ := g.Encode(m, MaxGameMessageLen)
	p = bytes.Clone(p)
	if a := testing.AllocsPerRun(100, func() {
		if _, err := g.Encode(m, MaxGameMessageLen); err != nil {
			t.Fatal(err)
		}
		if _, _, err := g.Decode(p, MaxGameMessageLen); err != nil {
			t.Fatal(err)
		}
	}); a != 0 {
		t.Errorf("%v allocations per encode and decode", a)
	}
}

// FuzzGameMessage: decode, re-encode, compare. Whatever decodes must
// encode to the same bytes (a message has one encoding), and nothing
// panics. Seeded with real encodings (and the refused cases of
// TestGameMessageRefused).
func FuzzGameMessage(f *testing.F) {
	g := testMessages(f)
	for _, m := range []game.Message{
		&testReady{Ready: true, Team: 5}, &testReady{}, &testChat{Seq: 7, Text: "hello"}, &testChat{},
		&testChat{Seq: 1 << 31, Text: strings.Repeat("z", 300)},
	} {
		p, err := g.Encode(m, MaxGameMessageLen)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(bytes.Clone(p))
	}
	f.Add([]byte{5, 1, 0x0b, 0})
	f.Add([]byte{5, 0, 0, 0, 0, 0, 0xff, 0x0f})
	f.Add([]byte{5, 2})
	f.Fuzz(func(t *testing.T, p []byte) {
		m, id, err := g.Decode(p, MaxGameMessageLen)
		if err != nil {
			return
		}
		q, err := g.Encode(m, MaxGameMessageLen)
		if err != nil {
			t.Fatalf("message %q decoded from % x does not encode: %v", g.Name(id), p, err)
		}
		if !bytes.Equal(p, q) {
			t.Fatalf("message %q: decoded from % x, encodes to % x", g.Name(id), p, q)
		}
	})
}
