package bitmsg

import (
	"bytes"
	"encoding/hex"
	"testing"
)

// deltaEncode writes vals with schema ops against base and returns the message and the state.
func deltaEncode(t *testing.T, ops []op, vals []val, base []byte, baseBits int) (msg []byte, msgBits int, state []byte, stateBits int, changed bool) {
	t.Helper()
	out := NewWriter(make([]byte, 8192))
	d := new(DeltaWriter)
	d.reset(base, baseBits, out, make([]byte, 8192))
	writeAll(d, ops, vals)
	if d.Err() != nil {
		t.Fatalf("delta write: %v", d.Err())
	}
	state, stateBits = d.state()
	return out.Bytes(), out.Len(), state, stateBits, d.stateChanged()
}

// deltaDecode reads with schema ops against base; in == nil reads an omitted entity.
func deltaDecode(ops []op, base []byte, baseBits int, in *Reader) ([]val, []byte, int, bool, error) {
	d := new(DeltaReader)
	d.reset(base, baseBits, in, make([]byte, 8192))
	vals := readAll(d, ops)
	state, n := d.state()
	return vals, state, n, d.stateChanged(), d.Err()
}

// plainState is the state a plain Writer makes for vals: the state format is the plain format.
func plainState(t *testing.T, ops []op, vals []val) ([]byte, int) {
	w := NewWriter(make([]byte, 8192))
	writeAll(w, ops, vals)
	if w.Err() != nil {
		t.Fatal(w.Err())
	}
	return w.Bytes(), w.Len()
}

func TestDeltaExactBytes(t *testing.T) {
	base := NewWriter(make([]byte, 8))
	base.WriteBits(5, 3)
	base.WriteUint16(0xBEEF)
	out := NewWriter(make([]byte, 8))
	d := new(DeltaWriter)
	d.reset(base.Bytes(), base.Len(), out, make([]byte, 8))
	d.WriteBits(5, 3)     // unchanged: 0
	d.WriteUint16(0x1234) // changed: 1 + 16 bits
	st, stBits := d.state()
	if got := hex.EncodeToString(out.Bytes()); got != "d24800" || out.Len() != 18 {
		t.Errorf("message %s (%d bits), want d24800 (18 bits)", got, out.Len())
	}
	if got := hex.EncodeToString(st); got != "a59100" || stBits != 19 {
		t.Errorf("state %s (%d bits), want a59100 (19 bits)", got, stBits)
	}
	if !d.stateChanged() || d.Err() != nil {
		t.Errorf("Changed %v err %v", d.stateChanged(), d.Err())
	}
	r := new(DeltaReader)
	r.reset(base.Bytes(), base.Len(), NewReader(out.Bytes(), out.Len()), make([]byte, 8))
	if a, b := r.ReadBits(3), r.ReadUint16(); a != 5 || b != 0x1234 || r.Err() != nil {
		t.Errorf("read %d %x err %v", a, b, r.Err())
	}
	if rst, n := r.state(); !bytes.Equal(rst, st) || n != stBits {
		t.Errorf("reader state %x/%d", rst, n)
	}
}

// sampleWidths is the encoded width of each sample field.
func sampleWidths(t *testing.T) []int {
	var ws []int
	for i, o := range sampleOps {
		w := NewWriter(make([]byte, 128))
		writeOp(w, o, sampleVals[i])
		ws = append(ws, w.Len())
	}
	return ws
}

func TestDeltaUnchangedOneBitPerField(t *testing.T) {
	state, stateBits := plainState(t, sampleOps, sampleVals)
	// New entity: empty base, every field changed.
	msg, msgBits, st, stBits, changed := deltaEncode(t, sampleOps, sampleVals, nil, 0)
	if !changed || !bytes.Equal(st, state) || stBits != stateBits {
		t.Fatalf("new entity: changed %v state %x/%d want %x/%d", changed, st, stBits, state, stateBits)
	}
	if msgBits != stateBits+len(sampleOps) {
		t.Errorf("new entity: %d bits, want %d (state + one flag per field)", msgBits, stateBits+len(sampleOps))
	}
	vals, rst, rbits, rchanged, err := deltaDecode(sampleOps, nil, 0, NewReader(msg, msgBits))
	if err != nil || !rchanged || !equalVals(vals, sampleVals, t) || !bytes.Equal(rst, state) || rbits != stateBits {
		t.Fatalf("new entity decode: err %v changed %v state %x/%d", err, rchanged, rst, rbits)
	}
	// Against its own state: one 0 bit per field, nothing changed.
	msg, msgBits, st, stBits, changed = deltaEncode(t, sampleOps, sampleVals, state, stateBits)
	if changed || msgBits != len(sampleOps) || !bytes.Equal(msg, make([]byte, (len(sampleOps)+7)/8)) {
		t.Fatalf("unchanged: changed %v, %d bits %x, want %d zero bits", changed, msgBits, msg, len(sampleOps))
	}
	if !bytes.Equal(st, state) || stBits != stateBits {
		t.Fatal("unchanged: state differs")
	}
	vals, rst, rbits, rchanged, err = deltaDecode(sampleOps, state, stateBits, NewReader(msg, msgBits))
	if err != nil || rchanged || !equalVals(vals, sampleVals, t) || !bytes.Equal(rst, state) || rbits != stateBits {
		t.Fatalf("unchanged decode: err %v changed %v", err, rchanged)
	}
	// Omitted entity (in == nil): every field from the base.
	vals, rst, rbits, rchanged, err = deltaDecode(sampleOps, state, stateBits, nil)
	if err != nil || rchanged || !equalVals(vals, sampleVals, t) || !bytes.Equal(rst, state) || rbits != stateBits {
		t.Fatalf("omitted decode: err %v changed %v", err, rchanged)
	}
}

// equalVals compares decoded values with the values written, through their quantised form.
func equalVals(got, wrote []val, t *testing.T) bool {
	want := readAll(NewReader(plainState(t, sampleOps, wrote)), sampleOps)
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("field %d: %+v want %+v", i, got[i], want[i])
			return false
		}
	}
	return true
}

func TestDeltaChangedFieldCost(t *testing.T) {
	state, stateBits := plainState(t, sampleOps, sampleVals)
	widths := sampleWidths(t)
	alt := []val{
		{a: 0x15}, {a: 1}, {a: uint64(0x1000000000000000 - 70)}, {a: 0}, {a: 0x5A}, {a: 0xBEEE},
		{a: 0xDEADBEEE}, {s: "hellO"}, {s: "snip"}, {a: 4}, {a: fb(100)},
		{a: fb(3.5)}, {a: fb(0.5)}, {a: fb(9)}, {a: fb(3)}, {a: fb(100)},
		{a: fb(-0.6), b: fb(0.8), c: fb(0)}, {a: 12345}, {s: "jumps"}, {a: 7},
	}
	for i := range sampleOps {
		vals := append([]val(nil), sampleVals...)
		vals[i] = alt[i]
		newState, newBits := plainState(t, sampleOps, vals)
		msg, msgBits, st, stBits, changed := deltaEncode(t, sampleOps, vals, state, stateBits)
		wantBits := len(sampleOps) + readWidth(t, sampleOps[i], vals[i])
		if msgBits != wantBits || !changed {
			t.Errorf("field %d (%v) changed: %d bits, want %d (1 per field + width %d), changed %v",
				i, sampleOps[i], msgBits, wantBits, widths[i], changed)
		}
		if !bytes.Equal(st, newState) || stBits != newBits {
			t.Errorf("field %d: state differs from the plain encoding", i)
		}
		got, rst, rbits, rchanged, err := deltaDecode(sampleOps, state, stateBits, NewReader(msg, msgBits))
		if err != nil || !rchanged || !equalVals(got, vals, t) || !bytes.Equal(rst, newState) || rbits != newBits {
			t.Errorf("field %d: decode err %v changed %v", i, err, rchanged)
		}
	}
}

func readWidth(t *testing.T, o op, v val) int {
	w := NewWriter(make([]byte, 128))
	writeOp(w, o, v)
	return w.Len()
}

// A base that is shorter, longer or shaped differently (another schema, a string of another
// length) still decodes to the right values and state; fields past its end count as changed.
func TestDeltaBaseShapes(t *testing.T) {
	state, stateBits := plainState(t, sampleOps, sampleVals)
	other := []op{{opString, 4}, {opUint8, 0}, {opDir, 8}, {opBool, 0}}
	otherState, otherBits := plainState(t, other, []val{{s: "a different string"}, {a: 1}, {a: fb(1), b: 0, c: 0}, {a: 1}})
	stringsFirst := append([]op{{opString, 4}}, sampleOps...)
	longer := append(append([]byte(nil), state...), 0xFF, 0xFF)
	bases := []struct {
		name string
		base []byte
		bits int
	}{
		{"empty", nil, 0},
		{"prefix 1 bit", state, 1},
		{"prefix 100 bits", state, 100},
		{"all but 1 bit", state, stateBits - 1},
		{"longer", longer, stateBits + 16},
		{"other schema", otherState, otherBits},
		{"garbage", bytes.Repeat([]byte{0x5A}, 40), 320},
	}
	for _, b := range bases {
		msg, msgBits, st, stBits, changed := deltaEncode(t, sampleOps, sampleVals, b.base, b.bits)
		if !changed {
			t.Errorf("%s: Changed false", b.name)
		}
		if !bytes.Equal(st, state) || stBits != stateBits {
			t.Errorf("%s: state differs", b.name)
		}
		got, rst, rbits, _, err := deltaDecode(sampleOps, b.base, b.bits, NewReader(msg, msgBits))
		if err != nil || !equalVals(got, sampleVals, t) || !bytes.Equal(rst, state) || rbits != stateBits {
			t.Errorf("%s: decode err %v", b.name, err)
		}
		// Truncated: every prefix of the message fails cleanly.
		for n := 0; n < msgBits; n++ {
			if _, _, _, _, err := deltaDecode(sampleOps, b.base, b.bits, NewReader(msg, n)); err == nil {
				t.Fatalf("%s: prefix %d/%d decoded without error", b.name, n, msgBits)
			}
		}
	}
	// A string field against a base string of another length.
	msg, msgBits, _, _, _ := deltaEncode(t, stringsFirst, append([]val{{s: "xy"}}, sampleVals...), state, stateBits)
	got, _, _, _, err := deltaDecode(stringsFirst, state, stateBits, NewReader(msg, msgBits))
	if err != nil || got[0].s != "xy" {
		t.Errorf("strings-first: %v %q", err, got[0].s)
	}
	// Same fields but a longer base: no field differs, yet Changed because the length does.
	_, msgBits, _, _, changed := deltaEncode(t, sampleOps, sampleVals, longer, stateBits+16)
	if !changed || msgBits != len(sampleOps) {
		t.Errorf("longer base: changed %v bits %d", changed, msgBits)
	}
}

func TestDeltaReaderErrors(t *testing.T) {
	state, stateBits := plainState(t, sampleOps, sampleVals)
	// Flag 0 with the base exhausted.
	zeros := make([]byte, 8)
	_, _, _, _, err := deltaDecode(sampleOps, state, 40, NewReader(zeros, 64))
	if err != ErrUnderflow {
		t.Errorf("flag 0 past base end: %v", err)
	}
	// Omitted entity with a short base.
	if _, _, _, _, err := deltaDecode(sampleOps, state, stateBits-1, nil); err != ErrUnderflow {
		t.Errorf("omitted, short base: %v", err)
	}
	// State buffer too small.
	d := new(DeltaReader)
	d.reset(state, stateBits, nil, make([]byte, 4))
	readAll(d, sampleOps)
	if d.Err() != ErrOverflow {
		t.Errorf("small state buffer: %v", d.Err())
	}
	dw := new(DeltaWriter)
	dw.reset(nil, 0, nil, make([]byte, 4))
	writeAll(dw, sampleOps, sampleVals)
	if dw.Err() != ErrOverflow {
		t.Errorf("writer small state buffer: %v", dw.Err())
	}
	// Range errors are re-checked on fields sent in full and on fields from the base.
	msg := NewWriter(make([]byte, 8))
	msg.WriteBool(true)
	msg.WriteBits(21, 5)
	d.reset(nil, 0, NewReader(msg.Bytes(), msg.Len()), make([]byte, 8))
	if d.ReadRangedInt(-10, 10) != 0 || d.Err() != ErrRange {
		t.Errorf("ranged from input: %v", d.Err())
	}
	d.reset([]byte{21}, 5, nil, make([]byte, 8))
	if d.ReadRangedInt(-10, 10) != 0 || d.Err() != ErrRange {
		t.Errorf("ranged from base: %v", d.Err())
	}
	d.reset(nil, 0, nil, make([]byte, 8))
	if d.ReadBits(0); d.Err() != ErrWidth {
		t.Errorf("width: %v", d.Err())
	}
	// Writer range errors.
	dw.reset(nil, 0, NewWriter(make([]byte, 8)), make([]byte, 8))
	dw.WriteString("abc", 2)
	if dw.Err() != ErrRange {
		t.Errorf("writer string: %v", dw.Err())
	}
}

// A nil out only builds the new state.
func TestDeltaWriterNilOut(t *testing.T) {
	state, stateBits := plainState(t, sampleOps, sampleVals)
	d := new(DeltaWriter)
	d.reset(state, stateBits, nil, make([]byte, 8192))
	writeAll(d, sampleOps, sampleVals)
	st, n := d.state()
	if d.Err() != nil || d.stateChanged() || !bytes.Equal(st, state) || n != stateBits {
		t.Errorf("nil out: err %v changed %v", d.Err(), d.stateChanged())
	}
}
