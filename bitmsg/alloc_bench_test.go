package bitmsg

import (
	"testing"
)

// entity is a typical snapshot entity: mixed widths, quantisers, a name.
type entity struct {
	health int32
	armor  uint8
	flags  uint32
	origin [3]float32
	vel    [3]float32
	yaw    float32
	pitch  float32
	dir    [3]float32
	scale  float32
	frame  uint64
	id     [4]byte
	name   string
	nameRd []byte // read with AppendString into a reused buffer
}

// entityFields is the number of fields writeEntity writes.
const entityFields = 17

func writeEntity[W interface {
	fieldWriter
}](w W, e *entity) {
	w.WriteRangedInt(e.health, -100, 200)
	w.WriteUint8(e.armor)
	w.WriteBits(e.flags, 5)
	for _, v := range e.origin {
		w.WriteFloat(v)
	}
	for _, v := range e.vel {
		w.WriteHalf(v)
	}
	w.WriteAngle16(e.yaw)
	w.WriteAngle8(e.pitch)
	w.WriteDir(e.dir, 3)
	w.WriteFloatBits(e.scale, 5, 6)
	w.WriteUint64(e.frame)
	w.WriteBytes(e.id[:])
	w.WriteString(e.name, 15)
	w.WriteBool(e.flags&1 == 1)
}

type appendStringer interface {
	fieldReader
	AppendString(dst []byte, maxLen int) []byte
}

func readEntity[R appendStringer](r R, e *entity) {
	e.health = r.ReadRangedInt(-100, 200)
	e.armor = r.ReadUint8()
	e.flags = r.ReadBits(5)
	for i := range e.origin {
		e.origin[i] = r.ReadFloat()
	}
	for i := range e.vel {
		e.vel[i] = r.ReadHalf()
	}
	e.yaw = r.ReadAngle16()
	e.pitch = r.ReadAngle8()
	e.dir = r.ReadDir(3)
	e.scale = r.ReadFloatBits(5, 6)
	e.frame = r.ReadUint64()
	r.ReadBytes(e.id[:])
	e.nameRd = r.AppendString(e.nameRd[:0], 15)
	r.ReadBool()
}

func sampleEntity() entity {
	return entity{health: 87, armor: 50, flags: 0x13, origin: [3]float32{1024.5, -300.25, 64},
		vel: [3]float32{320, -12.5, 0}, yaw: 271.3, pitch: -10, dir: [3]float32{0, 0.6, 0.8},
		scale: 1.5, frame: 123456, id: [4]byte{'p', 'l', 'y', '1'}, name: "Grunt"}
}

func TestEntityRoundTrip(t *testing.T) {
	e := sampleEntity()
	w := NewWriter(make([]byte, 128))
	writeEntity(w, &e)
	var got entity
	r := NewReader(w.Bytes(), w.Len())
	readEntity(r, &got)
	if r.Err() != nil || r.BitsLeft() != 0 || got.health != 87 || string(got.nameRd) != "Grunt" ||
		got.origin != e.origin || got.id != e.id || got.frame != e.frame || got.dir != QuantizeDir(e.dir, 3) {
		t.Fatalf("round trip: err %v, got %+v", r.Err(), got)
	}
}

func TestAllocs(t *testing.T) {
	e := sampleEntity()
	buf := make([]byte, 256)
	w := NewWriter(buf)
	writeEntity(w, &e)
	msg, msgBits := append([]byte(nil), w.Bytes()...), w.Len()
	r := NewReader(msg, msgBits)
	var got entity
	got.nameRd = make([]byte, 0, 16)

	base, baseBits := msg, msgBits
	e2 := e
	e2.health, e2.vel[0] = 12, 100
	out := NewWriter(make([]byte, 256))
	state := make([]byte, 256)
	dw, dr := new(DeltaWriter), new(DeltaReader)
	dw.reset(base, baseBits, out, state)
	writeEntity(dw, &e2)
	delta, deltaBits := append([]byte(nil), out.Bytes()...), out.Len()
	in := NewReader(delta, deltaBits)

	cases := []struct {
		name string
		run  func()
	}{
		{"Writer", func() { w.Reset(buf); writeEntity(w, &e); w.Bytes() }},
		{"Writer.WriteBitsFrom+Truncate", func() { w.Reset(buf); w.WriteBits(1, 3); w.writeBitsFrom(msg, msgBits); w.truncate(7) }},
		{"Reader", func() { r.Reset(msg, msgBits); readEntity(r, &got) }},
		{"DeltaWriter", func() { out.Reset(buf); dw.reset(base, baseBits, out, state); writeEntity(dw, &e2); dw.state() }},
		{"DeltaReader", func() { in.Reset(delta, deltaBits); dr.reset(base, baseBits, in, state); readEntity(dr, &got) }},
		{"DeltaReader omitted", func() { dr.reset(base, baseBits, nil, state); readEntity(dr, &got) }},
	}
	for _, c := range cases {
		if n := testing.AllocsPerRun(100, c.run); n != 0 {
			t.Errorf("%s: %v allocs per run, want 0", c.name, n)
		}
	}
	if r.Err() != nil || dr.Err() != nil || dw.Err() != nil || w.Err() != nil {
		t.Fatal(r.Err(), dr.Err(), dw.Err(), w.Err())
	}
	cases[4].run() // the delta read, last
	if got.health != 12 || got.vel[0] != 100 || string(got.nameRd) != "Grunt" {
		t.Fatalf("delta read: %+v", got)
	}
}

// mixedWidths is a field mix for the per-field benchmarks.
var mixedWidths = [16]int{1, 3, 7, 16, 5, 32, 11, 2, 8, 24, 1, 13, 4, 30, 6, 9}

func BenchmarkWriteBits(b *testing.B) {
	buf := make([]byte, 4096)
	w := NewWriter(buf)
	const fields = 128
	b.ReportAllocs()
	for b.Loop() {
		w.Reset(buf)
		for i := 0; i < fields; i++ {
			w.WriteBits(uint32(i)*0x9E3779B9, mixedWidths[i&15])
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*fields), "ns/field")
}

func BenchmarkReadBits(b *testing.B) {
	buf := make([]byte, 4096)
	w := NewWriter(buf)
	const fields = 128
	for i := 0; i < fields; i++ {
		w.WriteBits(uint32(i)*0x9E3779B9, mixedWidths[i&15])
	}
	msg, n := w.Bytes(), w.Len()
	r := NewReader(msg, n)
	var sum uint32
	b.ReportAllocs()
	for b.Loop() {
		r.Reset(msg, n)
		for i := 0; i < fields; i++ {
			sum += r.ReadBits(mixedWidths[i&15])
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*fields), "ns/field")
	_ = sum
}

func BenchmarkWriteEntity(b *testing.B) {
	e := sampleEntity()
	buf := make([]byte, 256)
	w := NewWriter(buf)
	b.ReportAllocs()
	for b.Loop() {
		w.Reset(buf)
		writeEntity(w, &e)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*entityFields), "ns/field")
	b.ReportMetric(float64(w.Len()), "bits/entity")
}

func BenchmarkReadEntity(b *testing.B) {
	e := sampleEntity()
	w := NewWriter(make([]byte, 256))
	writeEntity(w, &e)
	r := NewReader(w.Bytes(), w.Len())
	var got entity
	got.nameRd = make([]byte, 0, 16)
	b.ReportAllocs()
	for b.Loop() {
		r.Reset(w.Bytes(), w.Len())
		readEntity(r, &got)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*entityFields), "ns/field")
}

func benchDelta(b *testing.B, change func(e *entity)) {
	e := sampleEntity()
	bw := NewWriter(make([]byte, 256))
	writeEntity(bw, &e)
	base, baseBits := bw.Bytes(), bw.Len()
	change(&e)
	outBuf, state := make([]byte, 256), make([]byte, 256)
	out := NewWriter(outBuf)
	d := new(DeltaWriter)
	b.ReportAllocs()
	for b.Loop() {
		out.Reset(outBuf)
		d.reset(base, baseBits, out, state)
		writeEntity(d, &e)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*entityFields), "ns/field")
	b.ReportMetric(float64(out.Len()), "bits/entity")
}

func BenchmarkDeltaWriteUnchanged(b *testing.B) { benchDelta(b, func(*entity) {}) }

func BenchmarkDeltaWriteChanged(b *testing.B) {
	benchDelta(b, func(e *entity) { e.health, e.origin[0], e.vel[1], e.yaw = 3, 1030, 7, 12 })
}

func BenchmarkDeltaRead(b *testing.B) {
	e := sampleEntity()
	bw := NewWriter(make([]byte, 256))
	writeEntity(bw, &e)
	base, baseBits := bw.Bytes(), bw.Len()
	e.health, e.origin[0], e.vel[1], e.yaw = 3, 1030, 7, 12
	out := NewWriter(make([]byte, 256))
	dw := new(DeltaWriter)
	dw.reset(base, baseBits, out, make([]byte, 256))
	writeEntity(dw, &e)
	in := NewReader(out.Bytes(), out.Len())
	state := make([]byte, 256)
	d := new(DeltaReader)
	var got entity
	got.nameRd = make([]byte, 0, 16)
	b.ReportAllocs()
	for b.Loop() {
		in.Reset(out.Bytes(), out.Len())
		d.reset(base, baseBits, in, state)
		readEntity(d, &got)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*entityFields), "ns/field")
}

func BenchmarkWriteBitsFrom(b *testing.B) {
	src := make([]byte, 1024)
	for i := range src {
		src[i] = byte(i * 7)
	}
	buf := make([]byte, 1100)
	w := NewWriter(buf)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		w.Reset(buf)
		w.WriteBits(1, 3) // unaligned
		w.writeBitsFrom(src, len(src)*8)
	}
}
