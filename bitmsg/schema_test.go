package bitmsg

import (
	"math"
)

// A small field schema used by the fuzz targets and the truncation and delta tests: a
// sequence of ops, each a field kind and a parameter, that can be written through Writer or
// DeltaWriter and read through Reader or DeltaReader.

type fieldWriter interface {
	WriteBits(v uint32, n int)
	WriteUint64(v uint64)
	WriteInt(v int32, n int)
	WriteBool(b bool)
	WriteUint8(v uint8)
	WriteUint16(v uint16)
	WriteUint32(v uint32)
	WriteBytes(p []byte)
	WriteString(s string, maxLen int)
	WriteRangedInt(v, min, max int32)
	WriteRangedFloat(v, min, max float32, bits int)
	WriteFloat(v float32)
	WriteFloatBits(v float32, expBits, mantBits int)
	WriteHalf(v float32)
	WriteAngle16(deg float32)
	WriteAngle8(deg float32)
	WriteDir(d [3]float32, bitsPerAxis int)
	Err() error
}

type fieldReader interface {
	ReadBits(n int) uint32
	ReadUint64() uint64
	ReadInt(n int) int32
	ReadBool() bool
	ReadUint8() uint8
	ReadUint16() uint16
	ReadUint32() uint32
	ReadBytes(dst []byte)
	ReadString(maxLen int) string
	ReadRangedInt(min, max int32) int32
	ReadRangedFloat(min, max float32, bits int) float32
	ReadFloat() float32
	ReadFloatBits(expBits, mantBits int) float32
	ReadHalf() float32
	ReadAngle16() float32
	ReadAngle8() float32
	ReadDir(bitsPerAxis int) [3]float32
	Err() error
}

var (
	_ fieldWriter = (*Writer)(nil)
	_ fieldWriter = (*DeltaWriter)(nil)
	_ fieldReader = (*Reader)(nil)
	_ fieldReader = (*DeltaReader)(nil)
)

type opKind uint8

const (
	opBits opKind = iota
	opUint64
	opInt
	opBool
	opUint8
	opUint16
	opUint32
	opBytes
	opString
	opRangedInt
	opRangedFloat
	opFloat
	opFloatBits
	opHalf
	opAngle16
	opAngle8
	opDir
	numOps
)

type op struct {
	kind  opKind
	param uint8
}

var (
	stringMax    = []int{0, 1, 7, 15, 100}
	rangedInts   = [][2]int32{{0, 0}, {-10, 10}, {0, 100}, {math.MinInt32, math.MaxInt32}, {-1, 0}, {100, 1000}}
	rangedFloats = []struct {
		min, max float32
		bits     int
	}{{0, 1, 8}, {-1, 1, 4}, {-4096, 4096, 16}, {0, 360, 12}, {-1, 1, 1}, {10, 20, 10}}
)

// val is one decoded field; floats are kept as their bits so NaN compares equal to itself.
type val struct {
	a, b, c uint64
	s       string
}

func f32(v uint64) float32 { return math.Float32frombits(uint32(v)) }
func fb(v float32) uint64  { return uint64(math.Float32bits(v)) }

// parseOps turns fuzz bytes into a schema (two bytes an op).
func parseOps(p []byte) []op {
	var ops []op
	for i := 0; i+1 < len(p) && len(ops) < 64; i += 2 {
		ops = append(ops, op{opKind(p[i] % byte(numOps)), p[i+1]})
	}
	return ops
}

func (o op) bits() int      { return 1 + int(o.param)%32 }
func (o op) intBits() int   { return 2 + int(o.param)%31 }
func (o op) nbytes() int    { return int(o.param) % 9 }
func (o op) maxLen() int    { return stringMax[int(o.param)%len(stringMax)] }
func (o op) rint() [2]int32 { return rangedInts[int(o.param)%len(rangedInts)] }
func (o op) expBits() int   { return 2 + int(o.param)%7 }
func (o op) mantBits() int  { return (int(o.param) / 7) % 24 }
func (o op) dirBits() int   { return 2 + int(o.param)%9 }
func (o op) rfloat() (float32, float32, int) {
	r := rangedFloats[int(o.param)%len(rangedFloats)]
	return r.min, r.max, r.bits
}

func readOp(r fieldReader, o op) val {
	switch o.kind {
	case opBits:
		return val{a: uint64(r.ReadBits(o.bits()))}
	case opUint64:
		return val{a: r.ReadUint64()}
	case opInt:
		return val{a: uint64(r.ReadInt(o.intBits()))}
	case opBool:
		if r.ReadBool() {
			return val{a: 1}
		}
		return val{}
	case opUint8:
		return val{a: uint64(r.ReadUint8())}
	case opUint16:
		return val{a: uint64(r.ReadUint16())}
	case opUint32:
		return val{a: uint64(r.ReadUint32())}
	case opBytes:
		p := make([]byte, o.nbytes())
		r.ReadBytes(p)
		return val{s: string(p)}
	case opString:
		return val{s: r.ReadString(o.maxLen())}
	case opRangedInt:
		m := o.rint()
		return val{a: uint64(r.ReadRangedInt(m[0], m[1]))}
	case opRangedFloat:
		return val{a: fb(r.ReadRangedFloat(o.rfloat()))}
	case opFloat:
		return val{a: fb(r.ReadFloat())}
	case opFloatBits:
		return val{a: fb(r.ReadFloatBits(o.expBits(), o.mantBits()))}
	case opHalf:
		return val{a: fb(r.ReadHalf())}
	case opAngle16:
		return val{a: fb(r.ReadAngle16())}
	case opAngle8:
		return val{a: fb(r.ReadAngle8())}
	case opDir:
		d := r.ReadDir(o.dirBits())
		return val{a: fb(d[0]), b: fb(d[1]), c: fb(d[2])}
	}
	panic("bad op")
}

func writeOp(w fieldWriter, o op, v val) {
	switch o.kind {
	case opBits:
		w.WriteBits(uint32(v.a), o.bits())
	case opUint64:
		w.WriteUint64(v.a)
	case opInt:
		w.WriteInt(int32(v.a), o.intBits())
	case opBool:
		w.WriteBool(v.a == 1)
	case opUint8:
		w.WriteUint8(uint8(v.a))
	case opUint16:
		w.WriteUint16(uint16(v.a))
	case opUint32:
		w.WriteUint32(uint32(v.a))
	case opBytes:
		w.WriteBytes([]byte(v.s))
	case opString:
		w.WriteString(v.s, o.maxLen())
	case opRangedInt:
		m := o.rint()
		w.WriteRangedInt(int32(v.a), m[0], m[1])
	case opRangedFloat:
		lo, hi, bits := o.rfloat()
		w.WriteRangedFloat(f32(v.a), lo, hi, bits)
	case opFloat:
		w.WriteFloat(f32(v.a))
	case opFloatBits:
		w.WriteFloatBits(f32(v.a), o.expBits(), o.mantBits())
	case opHalf:
		w.WriteHalf(f32(v.a))
	case opAngle16:
		w.WriteAngle16(f32(v.a))
	case opAngle8:
		w.WriteAngle8(f32(v.a))
	case opDir:
		w.WriteDir([3]float32{f32(v.a), f32(v.b), f32(v.c)}, o.dirBits())
	default:
		panic("bad op")
	}
}

func readAll(r fieldReader, ops []op) []val {
	vals := make([]val, len(ops))
	for i, o := range ops {
		vals[i] = readOp(r, o)
	}
	return vals
}

func writeAll(w fieldWriter, ops []op, vals []val) {
	for i, o := range ops {
		writeOp(w, o, vals[i])
	}
}

// sampleOps is a schema touching every op kind, with sampleVals a valid value for each.
var sampleOps = []op{
	{opBits, 6}, {opUint64, 0}, {opInt, 9}, {opBool, 0}, {opUint8, 0}, {opUint16, 0},
	{opUint32, 0}, {opBytes, 5}, {opString, 3}, {opRangedInt, 1}, {opRangedFloat, 2},
	{opFloat, 0}, {opFloatBits, 3 + 7*10}, {opHalf, 0}, {opAngle16, 0}, {opAngle8, 0},
	{opDir, 1}, {opRangedInt, 3}, {opString, 4}, {opBits, 31},
}

var sampleVals = []val{
	{a: 0x55}, {a: 0x0123456789ABCDEF}, {a: uint64(0x1000000000000000 - 77)}, {a: 1}, {a: 0xA5}, {a: 0xBEEF},
	{a: 0xDEADBEEF}, {s: "hello"}, {s: "snap"}, {a: uint64(0xFFFFFFFFFFFFFFFD)}, {a: fb(-123.5)},
	{a: fb(3.25)}, {a: fb(-0.15625)}, {a: fb(0.333)}, {a: fb(123.4)}, {a: fb(-45)},
	{a: fb(0.6), b: fb(-0.8), c: fb(0)}, {a: uint64(0xFFFFFFFF80000000)}, {s: "the quick brown fox"}, {a: 0xFFFFFFFF},
}

// zeroVal is what readOp returns after an error: the zero value (ReadBytes zeroes its dst).
func zeroVal(o op) val {
	if o.kind == opBytes {
		return val{s: string(make([]byte, o.nbytes()))}
	}
	return val{}
}
