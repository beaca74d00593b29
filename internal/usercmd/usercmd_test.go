package usercmd

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/game"
)

// TestUserCmdFieldTable fails when game.UserCmd and its wire table drift apart:
// every field but Frame must be in the table, in struct order, with its full
// width.
func TestUserCmdFieldTable(t *testing.T) {
	typ := reflect.TypeFor[game.UserCmd]()
	var names []string
	var bits []int
	for i := range typ.NumField() {
		f := typ.Field(i)
		if f.Name == "Frame" {
			continue
		}
		names = append(names, f.Name)
		bits = append(bits, int(f.Type.Size())*8)
	}
	if len(names) != len(userCmdFields) {
		t.Fatalf("UserCmd has %d wire fields, table %d", len(names), len(userCmdFields))
	}
	for i, f := range userCmdFields {
		if f.name != names[i] || f.bits != bits[i] {
			t.Errorf("table[%d] = %s/%d bits, struct field %s/%d bits", i, f.name, f.bits, names[i], bits[i])
		}
		// set/get must address the named field.
		var c game.UserCmd
		setField(&c, i, 0x7f)
		v := reflect.ValueOf(c).FieldByName(f.name)
		if v.IsZero() || field(&c, i) != 0x7f {
			t.Errorf("table[%d] %s: set/get do not address the field", i, f.name)
		}
	}
}

func TestUserCmdDeltaExactBits(t *testing.T) {
	zero := game.UserCmd{}
	cases := []struct {
		name      string
		base, cmd game.UserCmd
		bits      int
		want      []byte
	}{
		{"unchanged", zero, zero, 6, []byte{0x00}},
		// flag 1, Buttons=1 (16 bits), then five 0 flags.
		{"buttons", zero, game.UserCmd{Buttons: 1}, 22, []byte{0x03, 0x00, 0x00}},
		// flag 0 (Buttons), flag 1, Forward=-1 (0xff), four 0 flags.
		{"forward -1", zero, game.UserCmd{Forward: -1}, 14, []byte{0xfe, 0x03}},
		// all six flags 0 because cmd equals a non-zero base.
		{"equal to base", game.UserCmd{Yaw: 9, Up: 3}, game.UserCmd{Yaw: 9, Up: 3, Frame: 77}, 6, []byte{0x00}},
		// Buttons 0, Forward 0, Right 0, Up 0, Yaw 1+0x1234, Pitch 0.
		{"yaw", zero, game.UserCmd{Yaw: 0x1234}, 22, []byte{0x90, 0x46, 0x02}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			buf := make([]byte, 16)
			w := bitmsg.NewWriter(buf)
			if err := WriteDelta(w, &c.base, &c.cmd); err != nil {
				t.Fatal(err)
			}
			if w.Len() != c.bits || DeltaBits(&c.base, &c.cmd) != c.bits {
				t.Fatalf("bits = %d (predicted %d), want %d", w.Len(), DeltaBits(&c.base, &c.cmd), c.bits)
			}
			if !bytes.Equal(w.Bytes(), c.want) {
				t.Fatalf("bytes = %x, want %x", w.Bytes(), c.want)
			}
			var got game.UserCmd
			got.Frame = c.cmd.Frame
			if err := ReadDelta(bitmsg.NewReader(w.Bytes(), w.Len()), &c.base, &got); err != nil {
				t.Fatal(err)
			}
			if got != c.cmd {
				t.Fatalf("read %+v, want %+v", got, c.cmd)
			}
			for n := 0; n < c.bits; n++ {
				var x game.UserCmd
				if err := ReadDelta(bitmsg.NewReader(w.Bytes(), n), &c.base, &x); err == nil {
					t.Fatalf("prefix of %d bits parsed", n)
				}
			}
		})
	}
}

func TestUserCmdRejectsMinus128(t *testing.T) {
	w := bitmsg.NewWriter(make([]byte, 16))
	if err := WriteDelta(w, &game.UserCmd{}, &game.UserCmd{Right: -128}); !errors.Is(err, game.ErrRange) || w.Len() != 0 {
		t.Fatalf("err = %v, len %d", err, w.Len())
	}
	// Hand-made: flags 0, 0, 1 + 0x80 (Right = -128), 0, 0, 0.
	w.WriteBits(0b100, 3)
	w.WriteBits(0x80, 8)
	w.WriteBits(0, 3)
	var c game.UserCmd
	if err := ReadDelta(bitmsg.NewReader(w.Bytes(), w.Len()), &game.UserCmd{}, &c); !errors.Is(err, game.ErrCorrupt) {
		t.Fatalf("read -128: err = %v", err)
	}
}

func TestMessageExact(t *testing.T) {
	m := Message{
		Lead: 25 * time.Millisecond,
		Cmds: []game.UserCmd{
			{Frame: 1000, Buttons: 1, Forward: 127},
			{Frame: 1001, Buttons: 1, Forward: 127},
			{Frame: 1002, Buttons: 0, Forward: 127, Yaw: 0x4000},
		},
	}
	buf := make([]byte, 64)
	w := bitmsg.NewWriter(buf)
	if err := m.Append(w, game.UserCmd{}); err != nil {
		t.Fatal(err)
	}
	// header 54 + cmd0 (6 flags + 16 + 8) + cmd1 (6 flags) + cmd2 (6 flags + 16 + 16)
	const wantBits = 54 + 30 + 6 + 38
	if w.Len() != wantBits || m.Bits(game.UserCmd{}) != wantBits {
		t.Fatalf("bits = %d (Bits() %d), want %d", w.Len(), m.Bits(game.UserCmd{}), wantBits)
	}
	// lead 25 | frame 1000 | count-1=2 (6 bits), then flag+Buttons=1 straddling
	// byte 6 (0xc2), flag+Forward=127 (0x80, 0x7f), ...
	want := []byte{0x19, 0x00, 0xe8, 0x03, 0x00, 0x00, 0xc2, 0x00, 0x80, 0x7f, 0x00, 0x04, 0x00, 0x40, 0x00, 0x20}
	if !bytes.Equal(w.Bytes(), want) {
		t.Fatalf("bytes = %#v\nwant    %#v", w.Bytes(), want)
	}
	var got Message
	if err := got.Parse(bitmsg.NewReader(w.Bytes(), w.Len()), game.UserCmd{}); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, m) {
		t.Fatalf("parsed %+v, want %+v", got, m)
	}
	for n := 0; n < w.Len(); n++ {
		if err := got.Parse(bitmsg.NewReader(w.Bytes(), n), game.UserCmd{}); err == nil {
			t.Fatalf("prefix of %d bits parsed", n)
		}
	}
}

func TestMessageErrors(t *testing.T) {
	w := bitmsg.NewWriter(make([]byte, 1024))
	cmds := func(first game.Frame, n int) []game.UserCmd {
		c := make([]game.UserCmd, n)
		for i := range c {
			c[i].Frame = first + game.Frame(i)
		}
		return c
	}
	bad := map[string]Message{
		"empty":          {},
		"too many":       {Cmds: cmds(0, MaxCmds+1)},
		"negative frame": {Cmds: cmds(-1, 1)},
		"gap":            {Cmds: []game.UserCmd{{Frame: 5}, {Frame: 7}}},
		"frame overflow": {Cmds: cmds(1<<31-2, 3)},
		"-128":           {Cmds: []game.UserCmd{{Frame: 1, Up: -128}}},
	}
	for name, m := range bad {
		if err := m.Append(w, game.UserCmd{}); !errors.Is(err, game.ErrRange) || w.Len() != 0 {
			t.Errorf("%s: err %v, wrote %d bits", name, err, w.Len())
		}
	}
	ok := Message{Lead: time.Hour, Cmds: cmds(1<<31-MaxCmds, MaxCmds)}
	if err := ok.Append(w, game.UserCmd{}); err != nil || w.Err() != nil {
		t.Fatal(err, w.Err())
	}
	var got Message
	if err := got.Parse(bitmsg.NewReader(w.Bytes(), w.Len()), game.UserCmd{}); err != nil {
		t.Fatal(err)
	}
	if got.Lead != 32767*time.Millisecond || len(got.Cmds) != MaxCmds || got.Cmds[MaxCmds-1].Frame != 1<<31-1 {
		t.Fatalf("clamped lead %v, %d cmds, last frame %d", got.Lead, len(got.Cmds), got.Cmds[len(got.Cmds)-1].Frame)
	}
}

func randCmd(r *rand.Rand, prev game.UserCmd) game.UserCmd {
	c := prev
	c.Frame++
	if r.IntN(4) == 0 {
		c.Buttons = game.Buttons(r.IntN(4))
	}
	if r.IntN(3) == 0 {
		c.Forward = int8(r.IntN(255) - 127)
	}
	if r.IntN(5) == 0 {
		c.Right = int8(r.IntN(255) - 127)
	}
	if r.IntN(2) == 0 {
		c.Yaw = uint16(r.Uint32())
		c.Pitch = uint16(r.Uint32())
	}
	return c
}

func TestMessageRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	buf := make([]byte, 2048)
	var got Message
	for i := 0; i < 500; i++ {
		base := randCmd(r, game.UserCmd{})
		m := Message{Lead: time.Duration(r.IntN(400)-100) * time.Millisecond}
		prev := game.UserCmd{Frame: game.Frame(r.IntN(1 << 20))}
		for range 1 + r.IntN(MaxCmds) {
			prev = randCmd(r, prev)
			m.Cmds = append(m.Cmds, prev)
		}
		w := bitmsg.NewWriter(buf)
		if err := m.Append(w, base); err != nil || w.Err() != nil {
			t.Fatal(err, w.Err())
		}
		if w.Len() != m.Bits(base) {
			t.Fatalf("Len %d != Bits %d", w.Len(), m.Bits(base))
		}
		if err := got.Parse(bitmsg.NewReader(w.Bytes(), w.Len()), base); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, m) {
			t.Fatalf("round trip %d differs", i)
		}
	}
}

func TestUserCmdParseAllocs(t *testing.T) {
	m := Message{Cmds: []game.UserCmd{{Frame: 1, Buttons: 3}, {Frame: 2, Yaw: 77}}}
	buf := make([]byte, 64)
	w := bitmsg.NewWriter(buf)
	if err := m.Append(w, game.UserCmd{}); err != nil {
		t.Fatal(err)
	}
	var got Message
	r := bitmsg.NewReader(nil, 0)
	allocs := testing.AllocsPerRun(100, func() {
		w.Reset(buf)
		_ = m.Append(w, game.UserCmd{})
		r.Reset(w.Bytes(), w.Len())
		if err := got.Parse(r, game.UserCmd{}); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Fatalf("%v allocs per append+parse", allocs)
	}
}

func FuzzMessage(f *testing.F) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 8; i++ {
		m := Message{Lead: time.Duration(i*7) * time.Millisecond}
		prev := game.UserCmd{Frame: game.Frame(i * 100)}
		for range 1 + i*3 {
			prev = randCmd(r, prev)
			m.Cmds = append(m.Cmds, prev)
		}
		w := bitmsg.NewWriter(make([]byte, 1024))
		if err := m.Append(w, game.UserCmd{}); err != nil {
			f.Fatal(err)
		}
		f.Add(w.Bytes())
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var m Message
		if err := m.Parse(bitmsg.NewReader(data, len(data)*8), game.UserCmd{}); err != nil {
			if !errors.Is(err, game.ErrCorrupt) {
				t.Fatalf("error %v does not wrap game.ErrCorrupt", err)
			}
			return
		}
		w := bitmsg.NewWriter(make([]byte, 1024))
		if err := m.Append(w, game.UserCmd{}); err != nil || w.Err() != nil {
			t.Fatalf("re-encode: %v %v", err, w.Err())
		}
		var m2 Message
		if err := m2.Parse(bitmsg.NewReader(w.Bytes(), w.Len()), game.UserCmd{}); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(m, m2) {
			t.Fatalf("decode/encode/decode differs: %+v vs %+v", m, m2)
		}
		if w.Len() > len(data)*8 {
			t.Fatalf("canonical encoding %d bits longer than input %d", w.Len(), len(data)*8)
		}
	})
}
