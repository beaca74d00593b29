package declaredtest

import (
	"math"
	"reflect"
	"testing"

	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/bitlayout"
)

var bitops = bitlayout.Get[bitmsg.Writer, bitmsg.DeltaWriter, bitmsg.DeltaReader, bitmsg.Reader]()

var (
	_ game.Entity   = (*Everything)(nil)
	_ game.Declared = (*Everything)(nil)
	_ game.Message  = (*Chat)(nil)
	_ game.Declared = (*Chat)(nil)
)

// codec holds the buffers of one entity's encode and decode against an empty base, as the
// snapshot encoder and decoder start an entity new to a client.
type codec struct {
	msg, state [game.MaxStateBytes]byte
	out        bitmsg.Writer
	dw         bitmsg.DeltaWriter
	in         bitmsg.Reader
	dr         bitmsg.DeltaReader
}

func (c *codec) encode(e game.Snapshotter) ([]byte, error) {
	c.out.Reset(c.msg[:])
	bitops.ResetWriter(&c.dw, nil, 0, &c.out, c.state[:])
	e.WriteSnapshot(&c.dw)
	if err := c.dw.Err(); err != nil {
		return nil, err
	}
	return c.out.Bytes(), c.out.Err()
}

func (c *codec) decode(data []byte, e game.Snapshotter) error {
	c.in.Reset(data, len(data)*8)
	bitops.ResetReader(&c.dr, nil, 0, &c.in, c.state[:])
	e.ReadSnapshot(&c.dr)
	return c.dr.Err()
}

func sample() Everything {
	e := Everything{
		Alive: true, U8: 200, U16: 60000, U32: 4e9, U64: 1 << 60,
		I8: -100, I16: -30000, I32: -2e9, I64: -1 << 60,
		HP: -128, Flags: 5, Health: -10, Mode: ModeJump,
		X: 1.5e30, XC: -4096, V: 0.5, VC: 399.75, Q: -0.375,
		Yaw: 90, Pitch: 180, Name: "sixteen bytes...", Ammo: [4]uint8{0, 1, 62, 63},
		Count: 2, Pos: Vec{X: -100, Y: 99.5},
		Cache: 7,
	}
	e.Items[0] = Item{Kind: ModeRun, Amount: 999}
	e.Items[1] = Item{Kind: ModeIdle, Amount: 1}
	return e
}

// TestRoundTrip: values in their declared precision read back as written; the skipped field
// stays as the reader had it.
func TestRoundTrip(t *testing.T) {
	var c codec
	e := sample()
	data, err := c.encode(&e)
	if err != nil {
		t.Fatal(err)
	}
	var got Everything
	if err := c.decode(data, &got); err != nil {
		t.Fatal(err)
	}
	want := e
	want.Cache = 0
	if got != want {
		t.Fatalf("read back\n%+v\nwant\n%+v", got, want)
	}
	// Chat, a message, on a plain Writer and Reader.
	var buf [256]byte
	w := bitmsg.NewWriter(buf[:])
	(&Chat{Channel: 3, Text: "gg"}).WriteMessage(w)
	var chat Chat
	chat.ReadMessage(bitmsg.NewReader(w.Bytes(), w.Len()))
	if chat != (Chat{Channel: 3, Text: "gg"}) || w.Len() != 2+7+16 {
		t.Fatalf("chat %+v in %d bits", chat, w.Len())
	}
}

// TestQuantiseAndClamp: bounded floats land in their range, NaN as 0 clamped; quantised floats
// on their steps; a count above the array's length is bounded by it.
func TestQuantiseAndClamp(t *testing.T) {
	nan := float32(math.NaN())
	inf := float32(math.Inf(1))
	for _, tc := range []struct {
		name     string
		set      func(e *Everything)
		check    func(e *Everything) bool
		describe string
	}{
		{"XC above", func(e *Everything) { e.XC = 5000 }, func(e *Everything) bool { return e.XC == 4096 }, "4096"},
		{"XC -Inf", func(e *Everything) { e.XC = -inf }, func(e *Everything) bool { return e.XC == -4096 }, "-4096"},
		{"XC NaN", func(e *Everything) { e.XC = nan }, func(e *Everything) bool { return e.XC == 0 }, "0"},
		{"VC Inf", func(e *Everything) { e.VC = inf }, func(e *Everything) bool { return e.VC == 400 }, "400"},
		{"VC NaN", func(e *Everything) { e.VC = nan }, func(e *Everything) bool { return e.VC == 0 }, "0"},
		{"Q rounds", func(e *Everything) { e.Q = 1.3 }, func(e *Everything) bool { return e.Q == 1.25 }, "1.25"},
		{"Q top", func(e *Everything) { e.Q = 4095.95 }, func(e *Everything) bool { return e.Q == 4096 }, "4096"},
		{"Q NaN", func(e *Everything) { e.Q = nan }, func(e *Everything) bool { return e.Q == 0 }, "0"},
		{"Q below", func(e *Everything) { e.Q = -1e9 }, func(e *Everything) bool { return e.Q == -4096 }, "-4096"},
		{"Pos.Y NaN", func(e *Everything) { e.Pos.Y = nan }, func(e *Everything) bool { return e.Pos.Y == 0 }, "0"},
		{"Yaw wraps", func(e *Everything) { e.Yaw = -90 }, func(e *Everything) bool { return e.Yaw == 270 }, "270"},
		{"Count 10 of 8", func(e *Everything) {
			e.Count = 10
			for i := range e.Items {
				e.Items[i] = Item{Kind: ModeRun, Amount: int32(i)}
			}
		}, func(e *Everything) bool { return e.Count == 10 && e.Items[7] == Item{Kind: ModeRun, Amount: 7} }, "10, all 8 items"},
		{"Count 1", func(e *Everything) { e.Count = 1 }, func(e *Everything) bool { return e.Items[1] == Item{} }, "the second item zero"},
	} {
		var c codec
		e := sample()
		tc.set(&e)
		data, err := c.encode(&e)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		got := sample() // the reader's old state must not leak through
		if err := c.decode(data, &got); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !tc.check(&got) {
			t.Errorf("%s: read %+v, want %s", tc.name, got, tc.describe)
		}
	}
}

// TestOutOfRangeWrite: a ranged integer outside its range is the writer's error, not a silent
// wrap.
func TestOutOfRangeWrite(t *testing.T) {
	var c codec
	e := sample()
	e.Health = 201
	if _, err := c.encode(&e); err != bitmsg.ErrRange {
		t.Fatalf("Health 201 of [-10,200]: %v, want ErrRange", err)
	}
}

// inRange reports the first field of e outside its declaration.
func inRange(e *Everything) string {
	switch {
	case e.HP < -128 || e.HP > 127:
		return "HP"
	case e.Flags > 7:
		return "Flags"
	case e.Health < -10 || e.Health > MaxHealth:
		return "Health"
	case e.Mode > ModeJump:
		return "Mode"
	case !(e.XC >= -4096 && e.XC <= 4096):
		return "XC"
	case !(e.VC >= -400 && e.VC <= 400):
		return "VC"
	case !(e.Q >= -4096 && e.Q <= 4096) || e.Q*8 != float32(math.Round(float64(e.Q*8))):
		return "Q"
	case !(e.Yaw >= 0 && e.Yaw < 360), !(e.Pitch >= 0 && e.Pitch < 360):
		return "angles"
	case len(e.Name) > MaxName:
		return "Name"
	case e.Count > MaxItems+2:
		return "Count"
	case !(e.Pos.X >= -100 && e.Pos.X <= 100 && e.Pos.Y >= -100 && e.Pos.Y <= 100):
		return "Pos"
	}
	for _, a := range e.Ammo {
		if a > 63 {
			return "Ammo"
		}
	}
	for i, it := range e.Items {
		if it.Kind > ModeJump || it.Amount < 0 || it.Amount > 999 || (i >= int(e.Count) && it != Item{}) {
			return "Items"
		}
	}
	return ""
}

// FuzzEverything decodes hostile input: no panic; a read without error leaves every field in its
// declared range; decode -> encode -> decode agrees.
func FuzzEverything(f *testing.F) {
	var c codec
	for _, e := range []Everything{{}, sample(), {Count: 10, Name: "x", Q: 4096, XC: 4096}} {
		data, err := c.encode(&e)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(append([]byte(nil), data...))
	}
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, data []byte) {
		var c codec
		got := sample()
		if err := c.decode(data, &got); err != nil {
			return
		}
		if field := inRange(&got); field != "" {
			t.Fatalf("%s out of its declared range: %+v", field, got)
		}
		again, err := c.encode(&got)
		if err != nil {
			t.Fatalf("re-encoding what was read: %v (%+v)", err, got)
		}
		var got2 Everything
		if err := c.decode(append([]byte(nil), again...), &got2); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(normalise(got), normalise(got2)) {
			t.Fatalf("decode-encode-decode differs:\n%+v\n%+v", got, got2)
		}
	})
}

// normalise makes NaN fields comparable (full floats and halves carry any NaN through).
func normalise(e Everything) Everything {
	for _, p := range []*float32{&e.X, &e.V} {
		if *p != *p {
			*p = 0
		}
	}
	e.Cache = 0
	return e
}

// FuzzChat decodes hostile messages: no panic, the text within its bound, and a re-encoding
// reads back the same.
func FuzzChat(f *testing.F) {
	var buf [256]byte
	w := bitmsg.NewWriter(buf[:])
	(&Chat{Channel: 2, Text: "hello"}).WriteMessage(w)
	f.Add(append([]byte(nil), w.Bytes()...))
	f.Add([]byte{0xff, 0xff})
	f.Fuzz(func(t *testing.T, data []byte) {
		var m Chat
		r := bitmsg.NewReader(data, len(data)*8)
		m.ReadMessage(r)
		if r.Err() != nil {
			return
		}
		if len(m.Text) > 120 || m.Channel > 3 {
			t.Fatalf("out of range: %+v", m)
		}
		var buf [256]byte
		w := bitmsg.NewWriter(buf[:])
		m.WriteMessage(w)
		var m2 Chat
		m2.ReadMessage(bitmsg.NewReader(w.Bytes(), w.Len()))
		if m2 != m {
			t.Fatalf("%+v read back as %+v", m, m2)
		}
	})
}

// TestAllocs: the generated Write and Read allocate nothing (a string's read allocates its
// bytes, so the measured entity's Name is empty).
func TestAllocs(t *testing.T) {
	var c codec
	e := sample()
	e.Name = ""
	data, err := c.encode(&e)
	if err != nil {
		t.Fatal(err)
	}
	data = append([]byte(nil), data...)
	var got Everything
	if n := testing.AllocsPerRun(100, func() { _, _ = c.encode(&e) }); n != 0 {
		t.Errorf("WriteSnapshot: %v allocations", n)
	}
	if n := testing.AllocsPerRun(100, func() { _ = c.decode(data, &got) }); n != 0 {
		t.Errorf("ReadSnapshot: %v allocations", n)
	}
	var buf [256]byte
	w := bitmsg.NewWriter(buf[:])
	m := Chat{Channel: 1}
	var r bitmsg.Reader
	if n := testing.AllocsPerRun(100, func() {
		w.Reset(buf[:])
		m.WriteMessage(w)
		r.Reset(w.Bytes(), w.Len())
		m.ReadMessage(&r)
	}); n != 0 {
		t.Errorf("WriteMessage and ReadMessage: %v allocations", n)
	}
}
