package bitmsg

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/snapwire/snapwire/internal/bitlayout"
)

// randOps returns a random schema of 0..maxFields fields.
func randOps(rng *rand.Rand, maxFields int) []op {
	ops := make([]op, rng.IntN(maxFields+1))
	for i := range ops {
		ops[i] = op{kind: opKind(rng.IntN(int(numOps))), param: uint8(rng.Uint32())}
	}
	return ops
}

// randVal returns a valid value for o, read from random bits (a Reader re-checks ranges).
func randVal(rng *rand.Rand, o op) val {
	var buf [64]byte
	for {
		for i := range buf {
			buf[i] = byte(rng.Uint32())
		}
		if o.kind == opString && rng.IntN(2) == 0 {
			// Short strings too: a length prefix drawn small.
			buf[0] &= 3
		}
		r := NewReader(buf[:], len(buf)*8)
		v := readOp(r, o)
		if r.Err() == nil {
			return v
		}
	}
}

func randVals(rng *rand.Rand, ops []op) []val {
	vals := make([]val, len(ops))
	for i, o := range ops {
		vals[i] = randVal(rng, o)
	}
	return vals
}

// fullState writes vals through a DeltaWriter against an empty base, recording the layout,
// as snapshot.FrameCache does.
func fullState(t *testing.T, ops []op, vals []val, l *bitlayout.Layout) ([]byte, int) {
	t.Helper()
	d := new(DeltaWriter)
	d.reset(nil, 0, nil, make([]byte, 8192))
	d.recordLayout(l)
	writeAll(d, ops, vals)
	if d.Err() != nil {
		t.Fatal(d.Err())
	}
	st, n := d.state()
	return append([]byte(nil), st...), n
}

// TestWriteDeltaMatchesDeltaWriter: for random schemas, values and bases (empty, the same
// schema with some fields changed, prefixes, longer, another schema with strings of other
// lengths, garbage) the layout path writes exactly the DeltaWriter's bits, also when the
// output overflows.
func TestWriteDeltaMatchesDeltaWriter(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	var l bitlayout.Layout
	for iter := range 3000 {
		ops := randOps(rng, 24)
		vals := randVals(rng, ops)
		state, nbits := fullState(t, ops, vals, &l)
		if l.Len() != len(ops) || l.Bits() != nbits {
			t.Fatalf("layout %d fields %d bits, want %d, %d", l.Len(), l.Bits(), len(ops), nbits)
		}
		// The base.
		var base []byte
		var baseBits int
		switch k := rng.IntN(6); k {
		case 0: // spawn: empty
		case 1, 2: // the same schema, some fields changed
			bv := append([]val(nil), vals...)
			for i := range bv {
				if rng.IntN(3) == 0 {
					bv[i] = randVal(rng, ops[i])
				}
			}
			base, baseBits = plainState(t, ops, bv)
			if k == 2 && baseBits > 0 { // cut or extended
				if rng.IntN(2) == 0 {
					baseBits = rng.IntN(baseBits)
				} else {
					base = append(base, byte(rng.Uint32()), byte(rng.Uint32()))
					baseBits = len(base) * 8
				}
			}
		case 3: // another schema
			bops := randOps(rng, 24)
			base, baseBits = plainState(t, bops, randVals(rng, bops))
		case 4: // garbage
			base = make([]byte, rng.IntN(40))
			for i := range base {
				base[i] = byte(rng.Uint32())
			}
			baseBits = len(base) * 8
		case 5: // itself
			base, baseBits = state, nbits
		}
		if iter%2 == 1 {
			// Bytes past the bit lengths are ignored (and let the fast path run).
			pad := []byte{byte(rng.Uint32()), byte(rng.Uint32()), 0xFF, 0, 0x5A, 1, 2, 3, 4}
			state = append(append([]byte(nil), state...), pad...)
			base = append(append([]byte(nil), base...), pad...)
		}
		capBytes := 8192
		if rng.IntN(4) == 0 {
			capBytes = rng.IntN(nbits/8 + 2)
		}
		want := NewWriter(make([]byte, capBytes))
		want.WriteBits(uint32(iter), 1+iter%7) // not byte aligned
		got := NewWriter(make([]byte, capBytes))
		got.WriteBits(uint32(iter), 1+iter%7)
		d := new(DeltaWriter)
		d.reset(base, baseBits, want, make([]byte, 8192))
		writeAll(d, ops, vals)
		got.writeDelta(&l, state, nbits, base, baseBits)
		if got.Len() != want.Len() || got.Err() != want.Err() || !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Fatalf("iter %d: ops %v base %d bits: layout path %d bits %x err %v, DeltaWriter %d bits %x err %v",
				iter, ops, baseBits, got.Len(), got.Bytes(), got.Err(), want.Len(), want.Bytes(), want.Err())
		}
		if want.Err() == nil {
			// The DeltaWriter's Changed is the bit-string comparison the encoder uses.
			same := nbits == baseBits && bitsEqual(state, base, nbits)
			if same == d.stateChanged() {
				t.Fatalf("iter %d: Changed %v but state equal to base %v", iter, d.stateChanged(), same)
			}
		}
	}
}

func TestWriteDeltaAllocs(t *testing.T) {
	var l bitlayout.Layout
	state, nbits := fullState(t, sampleOps, sampleVals, &l)
	base, baseBits := plainState(t, sampleOps[:10], sampleVals[:10])
	w := NewWriter(make([]byte, 1024))
	if a := testing.AllocsPerRun(100, func() {
		w.Reset(w.buf)
		w.writeDelta(&l, state, nbits, base, baseBits)
	}); a != 0 {
		t.Fatalf("%v allocs", a)
	}
}

func BenchmarkWriteDelta(b *testing.B) {
	e := sampleEntity()
	bw := NewWriter(make([]byte, 256))
	writeEntity(bw, &e)
	base, baseBits := bw.Bytes(), bw.Len()
	e.health, e.origin[0], e.vel[1], e.yaw = 3, 1030, 7, 12
	var l bitlayout.Layout
	d := new(DeltaWriter)
	d.reset(nil, 0, nil, make([]byte, 256))
	d.recordLayout(&l)
	writeEntity(d, &e)
	state, nbits := d.state()
	outBuf := make([]byte, 256)
	out := NewWriter(outBuf)
	b.ReportAllocs()
	for b.Loop() {
		out.Reset(outBuf)
		out.writeDelta(&l, state, nbits, base, baseBits)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*entityFields), "ns/field")
	b.ReportMetric(float64(out.Len()), "bits/entity")
}

// TestRecordFastPath: recording a full state with no base and no out (DeltaWriter.recordField)
// gives the state bits, layout, Changed and error of the general field path (the same fields
// written against an empty base with an out, whose delta is also checked to be a 1 bit and the
// encoding per field), for random schemas, also when the state buffer overflows.
func TestRecordFastPath(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	var lf, lg bitlayout.Layout
	for iter := range 3000 {
		ops := randOps(rng, 24)
		vals := randVals(rng, ops)
		size := 8192
		if iter%3 == 0 {
			size = rng.IntN(40)
		}
		fast := new(DeltaWriter)
		fast.reset(nil, 0, nil, make([]byte, size))
		fast.recordLayout(&lf)
		if !fast.rec {
			t.Fatal("recording without base and out did not take the fast path")
		}
		writeAll(fast, ops, vals)
		gen := new(DeltaWriter)
		out := NewWriter(make([]byte, 1<<14))
		gen.reset(nil, 0, out, make([]byte, size))
		gen.recordLayout(&lg)
		if gen.rec {
			t.Fatal("recording with an out took the fast path")
		}
		writeAll(gen, ops, vals)
		fs, fn := fast.state()
		gs, gn := gen.state()
		if fn != gn || !bytes.Equal(fs, gs) || fast.stateChanged() != gen.stateChanged() || fast.Err() != gen.Err() {
			t.Fatalf("iter %d ops %v: fast %d bits %x changed %v err %v; general %d bits %x changed %v err %v",
				iter, ops, fn, fs, fast.stateChanged(), fast.Err(), gn, gs, gen.stateChanged(), gen.Err())
		}
		if fast.Err() == nil && (lf.Len() != lg.Len() || lf.Bits() != lg.Bits() || !slicesEqual(lf.Fields, lg.Fields)) {
			t.Fatalf("iter %d: layouts differ: %v / %v", iter, lf.Fields, lg.Fields)
		}
	}
	// Reset ends the fast path: a later entity with a base takes the general one.
	d := new(DeltaWriter)
	d.reset(nil, 0, nil, make([]byte, 64))
	d.recordLayout(&lf)
	d.reset([]byte{1}, 8, nil, make([]byte, 64))
	if d.rec {
		t.Fatal("fast path kept after Reset")
	}
}

func slicesEqual(a, b []bitlayout.Field) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestWriteDeltaNarrowLong: long layouts of narrow fixed fields only (up to 200 fields, so
// several 64-field chunks and runs of more than 32 unchanged fields), against bases of the same
// schema with few, some or all fields changed, padded so that writeDeltaNarrow runs: the bits
// are the DeltaWriter's.
func TestWriteDeltaNarrowLong(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	narrow := []opKind{opBits, opInt, opBool, opUint8, opUint16, opUint32, opRangedInt, opRangedFloat, opFloat, opHalf, opAngle16, opAngle8}
	var l bitlayout.Layout
	ran := 0
	for iter := range 600 {
		ops := make([]op, rng.IntN(201))
		for i := range ops {
			ops[i] = op{kind: narrow[rng.IntN(len(narrow))], param: uint8(rng.Uint32())}
		}
		vals := randVals(rng, ops)
		state, nbits := fullState(t, ops, vals, &l)
		bv := append([]val(nil), vals...)
		p := []int{0, 2, 30, 100}[iter%4]
		for i := range bv {
			if rng.IntN(100) < p {
				bv[i] = randVal(rng, ops[i])
			}
		}
		base, baseBits := plainState(t, ops, bv)
		pad := []byte{0xFF, 0, 0x5A, 1, 2, 3, 4, 5, 6}
		state = append(append([]byte(nil), state...), pad...)
		base = append(append([]byte(nil), base...), pad...)
		if l.Wide == 0 && l.NarrowBits == nbits && nbits <= baseBits {
			ran++
		}
		want := NewWriter(make([]byte, 8192))
		want.WriteBits(uint32(iter), 1+iter%7)
		got := NewWriter(make([]byte, 8192))
		got.WriteBits(uint32(iter), 1+iter%7)
		d := new(DeltaWriter)
		d.reset(base, baseBits, want, make([]byte, 8192))
		writeAll(d, ops, vals)
		got.writeDelta(&l, state, nbits, base, baseBits)
		if got.Len() != want.Len() || got.Err() != want.Err() || !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Fatalf("iter %d: %d fields, %d%% changed: layout path %d bits, DeltaWriter %d bits", iter, len(ops), p, got.Len(), want.Len())
		}
	}
	if ran < 500 {
		t.Fatalf("weak test: the narrow path ran %d times of 600", ran)
	}
}

// TestAppendSince keeps the bits of writes at every alignment and replays them with
// WriteBitsFrom: the replayed message equals the original.
func TestAppendSince(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := range 300 {
		w := NewWriter(make([]byte, 256))
		pre := rng.IntN(70)
		for range pre {
			w.WriteBool(rng.IntN(2) == 0)
		}
		start := w.Len()
		for range rng.IntN(20) {
			n := 1 + rng.IntN(32)
			w.WriteBits(rng.Uint32(), n)
		}
		kept, n := w.appendSince(make([]byte, 3, 64), start)
		if n != w.Len()-start || len(kept) != 3+(n+7)/8 {
			t.Fatalf("trial %d: %d bits in %d bytes, want %d bits", trial, n, len(kept), w.Len()-start)
		}
		if r := n & 7; r != 0 && kept[len(kept)-1]>>r != 0 {
			t.Fatalf("trial %d: unused bits of the last byte set", trial)
		}
		re := NewWriter(make([]byte, 256))
		re.writeBitsFrom(w.Bytes(), start)
		re.writeBitsFrom(kept[3:], n)
		if re.Err() != nil || re.Len() != w.Len() || !bytes.Equal(re.Bytes(), w.Bytes()) {
			t.Fatalf("trial %d: replay %x, want %x", trial, re.Bytes(), w.Bytes())
		}
	}
	w := NewWriter(make([]byte, 8))
	w.WriteBits(5, 3)
	if got, n := w.appendSince(nil, 4); got != nil || n != 0 {
		t.Fatalf("start past Len: %v %d", got, n)
	}
	buf := make([]byte, 0, 8)
	if a := testing.AllocsPerRun(100, func() { buf, _ = w.appendSince(buf[:0], 1) }); a != 0 {
		t.Fatalf("%v allocations", a)
	}
}
