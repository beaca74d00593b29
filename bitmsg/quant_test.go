package bitmsg

import (
	"math"
	"testing"
)

var (
	nan    = float32(math.NaN())
	inf    = float32(math.Inf(1))
	negZ   = float32(math.Copysign(0, -1))
	maxF32 = float32(math.MaxFloat32)
)

func sameBits(a, b float32) bool { return math.Float32bits(a) == math.Float32bits(b) }

// quantCase: a quantiser input and its exact expected output (bitwise, so -0 and +0 differ).
type quantCase struct {
	name string
	in   float32
	want float32
}

func checkQuant(t *testing.T, kind string, q func(float32) float32, cases []quantCase) {
	t.Helper()
	for _, c := range cases {
		got := q(c.in)
		if !sameBits(got, c.want) && !(c.want != c.want && got != got) {
			t.Errorf("%s %s: Q(%v) = %v (%08x), want %v (%08x)", kind, c.name, c.in, got,
				math.Float32bits(got), c.want, math.Float32bits(c.want))
		}
	}
}

func TestQuantizeFloat(t *testing.T) {
	// expBits 5, mantBits 10: bias 15, exponents -14..16, no infinities.
	maxE5M10 := float32((2 - 1.0/1024) * 65536) // 131008
	minE5M10 := float32(1.0 / 16384)            // 2^-14
	checkQuant(t, "e5m10", func(v float32) float32 { return QuantizeFloat(v, 5, 10) }, []quantCase{
		{"zero", 0, 0},
		{"negative zero", negZ, negZ},
		{"one", 1, 1},
		{"minus 2.5", -2.5, -2.5},
		{"max", maxE5M10, maxE5M10},
		{"just inside max", maxE5M10 - 64, maxE5M10 - 64},
		{"just outside max", maxE5M10 + 64, maxE5M10}, // would round up past max: clamped
		{"huge", 1e30, maxE5M10},
		{"negative huge", -1e30, -maxE5M10},
		{"+Inf", inf, maxE5M10},
		{"-Inf", -inf, -maxE5M10},
		{"NaN", nan, 0},
		{"min normal", minE5M10, minE5M10},
		{"just below min normal rounds up", minE5M10 * (1 - 1.0/4096), minE5M10},
		{"below min normal flushes", minE5M10 * 0.75, 0},
		{"negative underflow keeps sign", -minE5M10 / 2, negZ},
		{"float32 denormal", math.Float32frombits(1), 0},
		{"round to nearest", 1 + 3.0/4096, 1 + 1.0/1024},
		{"tie to even (down)", 1 + 1.0/2048, 1},
		{"tie to even (up)", 1 + 3.0/2048, 1 + 2.0/1024},
	})
	checkQuant(t, "e4m3", func(v float32) float32 { return QuantizeFloat(v, 4, 3) }, []quantCase{
		{"max", 15 * 16, 15 * 16}, // 1.875 * 2^8 (exp field 15, bias 7)
		{"true max", 480, 480},
		{"above max", 1000, 480},
		{"tie carries into exponent", 1.9375, 2},
		{"min normal", 1.0 / 64, 1.0 / 64},
		{"below min", 1.0 / 256, 0},
	})
	checkQuant(t, "e2m0", func(v float32) float32 { return QuantizeFloat(v, 2, 0) }, []quantCase{
		{"one", 1, 1}, {"two", 2, 2}, {"four", 4, 4}, {"max", 5, 4}, {"three ties to even mantissa", 3, 2}, {"3.01 rounds up", 3.01, 4}, {"half", 0.5, 0},
	})
	// expBits 8, mantBits 23: every normal float32 is exact, denormals flush, Inf clamps.
	checkQuant(t, "e8m23", func(v float32) float32 { return QuantizeFloat(v, 8, 23) }, []quantCase{
		{"max float32", maxF32, maxF32},
		{"Inf", inf, maxF32},
		{"-Inf", -inf, -maxF32},
		{"min normal", math.Float32frombits(0x00800000), math.Float32frombits(0x00800000)},
		{"max denormal", math.Float32frombits(0x007FFFFF), 0},
		{"pi", math.Pi, math.Pi},
	})
	// e8m4 near float32 max: rounding up must clamp, not overflow the float32.
	checkQuant(t, "e8m4", func(v float32) float32 { return QuantizeFloat(v, 8, 4) }, []quantCase{
		{"float32 max", maxF32, math.Float32frombits(0x7F780000)},
	})
	if QuantizeFloat(1, 9, 4) != 0 || QuantizeFloat(1, 4, -1) != 0 {
		t.Error("invalid widths should give 0")
	}
	// Relative error bound 2^-(m+1) over the normal range, and idempotence.
	rnd := newRand(4)
	for _, wd := range [][2]int{{5, 10}, {4, 3}, {6, 7}, {8, 15}, {8, 23}, {3, 0}} {
		e, m := wd[0], wd[1]
		bias := 1<<uint(e-1) - 1
		lo, hi := math.Ldexp(1, 1-bias), math.Ldexp(2-math.Ldexp(1, -m), min(bias+1, 127))
		for i := 0; i < 20000; i++ {
			v := float32(math.Exp(math.Log(lo) + rnd.Float64()*(math.Log(hi)-math.Log(lo))))
			if rnd.IntN(2) == 0 {
				v = -v
			}
			q := QuantizeFloat(v, e, m)
			if rel := math.Abs(float64(q-v)) / math.Abs(float64(v)); rel > math.Ldexp(1, -(m+1)) {
				t.Fatalf("e%dm%d: Q(%g) = %g, relative error %g", e, m, v, q, rel)
			}
			if q2 := QuantizeFloat(q, e, m); q2 != q {
				t.Fatalf("e%dm%d: not idempotent: %g -> %g -> %g", e, m, v, q, q2)
			}
		}
	}
}

func TestQuantizeHalf(t *testing.T) {
	checkQuant(t, "half", QuantizeHalf, []quantCase{
		{"zero", 0, 0},
		{"negative zero", negZ, negZ},
		{"one", 1, 1},
		{"max", 65504, 65504},
		{"just inside max", 65519, 65504},
		{"tie to infinity", 65520, inf},
		{"huge", 1e10, inf},
		{"negative huge", -1e10, -inf},
		{"Inf", inf, inf},
		{"NaN", nan, nan},
		{"min normal", 1.0 / 16384, 1.0 / 16384},
		{"min denormal", 1.0 / (1 << 24), 1.0 / (1 << 24)},
		{"half min denormal ties to zero", 1.0 / (1 << 25), 0},
		{"above half min denormal", 1.0 / (1 << 25) * 1.001, 1.0 / (1 << 24)},
		{"far below", 1e-10, 0},
		{"negative far below", -1e-10, negZ},
		{"velocity", 320.17, 320.25},
	})
	// Exhaustive: every finite half round-trips, the midpoint to the next half rounds to the
	// even one, and a hair either side of it rounds to the nearer one.
	for h := uint32(0); h < 0x7C00; h++ {
		for _, sign := range []uint16{0, 0x8000} {
			v := decHalf(uint16(h) | sign)
			if got := encHalf(v); got != uint16(h)|sign {
				t.Fatalf("half %04x -> %g -> %04x", uint16(h)|sign, v, got)
			}
			if h == 0x7BFF {
				continue
			}
			next := decHalf(uint16(h+1) | sign)
			mid := float32((float64(v) + float64(next)) / 2) // exact: 12 significant bits
			even := uint16(h)
			if h&1 == 1 {
				even = uint16(h + 1)
			}
			if got := encHalf(mid); got != even|sign {
				t.Fatalf("midpoint %g of %04x: got %04x want %04x", mid, h, got, even|sign)
			}
			below := math.Nextafter32(mid, v)
			above := math.Nextafter32(mid, next)
			if encHalf(below) != uint16(h)|sign || encHalf(above) != uint16(h+1)|sign {
				t.Fatalf("around midpoint of %04x: %04x %04x", h, encHalf(below), encHalf(above))
			}
		}
	}
	// NaN payloads survive a round trip through float32.
	for _, h := range []uint16{0x7C01, 0x7E00, 0xFE00, 0x7FFF} {
		if got := encHalf(decHalf(h)); got != h {
			t.Errorf("NaN %04x -> %04x", h, got)
		}
	}
}

func TestQuantizeAngles(t *testing.T) {
	step16 := float32(360.0 / 65536)
	checkQuant(t, "angle16", QuantizeAngle16, []quantCase{
		{"zero", 0, 0},
		{"negative zero", negZ, 0},
		{"90", 90, 90},
		{"360 wraps", 360, 0},
		{"720.5", 720.5, QuantizeAngle16(0.5)},
		{"-90", -90, 270},
		{"-360", -360, 0},
		{"-450", -450, 270},
		{"just below 360 rounds to 0", 360 - step16/4, 0},
		{"last step", 360 - step16, 360 - step16},
		{"tiny negative", -step16 / 4, 0},
		{"negative last step", -step16, 360 - step16},
		{"half step rounds up", step16 / 2, step16},
		{"NaN", nan, 0},
		{"Inf", inf, 0},
		{"-Inf", -inf, 0},
		{"huge", 1e20, QuantizeAngle16(float32(math.Mod(float64(float32(1e20)), 360)))},
	})
	checkQuant(t, "angle8", QuantizeAngle8, []quantCase{
		{"180", 180, 180},
		{"-1", -1, 358.59375},
		{"0.7 rounds down", 0.7, 0},
		{"0.71 rounds up", 0.71, 1.40625},
		{"359.5 wraps", 359.5, 0},
	})
	// Error bound: within half a step of the normalised input, on the circle; result in [0,360).
	rnd := newRand(5)
	for _, c := range []struct {
		q    func(float32) float32
		step float64
	}{{QuantizeAngle16, 360.0 / 65536}, {QuantizeAngle8, 360.0 / 256}} {
		for i := 0; i < 100000; i++ {
			v := float32((rnd.Float64() - 0.5) * 4000)
			q := c.q(v)
			if q < 0 || q >= 360 {
				t.Fatalf("Q(%g) = %g outside [0,360)", v, q)
			}
			d := math.Mod(float64(q)-float64(v), 360)
			d = math.Abs(d - 360*math.Round(d/360))
			if d > c.step/2+1e-9 {
				t.Fatalf("Q(%g) = %g, error %g > %g", v, q, d, c.step/2)
			}
			if c.q(q) != q {
				t.Fatalf("not idempotent at %g", q)
			}
		}
	}
}

func TestQuantizeRanged(t *testing.T) {
	step := float32(200.0 / 255)
	q := func(v float32) float32 { return QuantizeRanged(v, -100, 100, 8) }
	checkQuant(t, "ranged", q, []quantCase{
		{"min", -100, -100},
		{"max", 100, 100},
		{"below min", -100.5, -100},
		{"above max", 100.5, 100},
		{"just inside min", -100 + step*0.49, -100},
		{"just inside max", 100 - step*0.49, 100},
		{"one step", -100 + step, QuantizeRanged(-100+step, -100, 100, 8)},
		{"huge", 1e30, 100},
		{"negative huge", -1e30, -100},
		{"Inf", inf, 100},
		{"NaN", nan, -100},
	})
	if q(0) != q(negZ) {
		t.Error("0 and -0 differ")
	}
	// 0 is not a level with an odd step count: it lands within half a step.
	if math.Abs(float64(q(0))) > float64(step)/2 {
		t.Errorf("Q(0) = %g", q(0))
	}
	checkQuant(t, "ranged 1 bit", func(v float32) float32 { return QuantizeRanged(v, 0, 1, 1) },
		[]quantCase{{"0.49", 0.49, 0}, {"0.5", 0.5, 1}, {"1", 1, 1}})
	checkQuant(t, "ranged 32 bits", func(v float32) float32 { return QuantizeRanged(v, -1, 1, 32) },
		[]quantCase{{"min", -1, -1}, {"max", 1, 1}, {"0.25", 0.25, 0.25}})
	if QuantizeRanged(0, 1, 0, 8) != 0 || QuantizeRanged(0, 0, 1, 0) != 0 {
		t.Error("invalid arguments should give 0")
	}
	rnd := newRand(6)
	for _, bits := range []int{1, 4, 8, 12, 16} {
		lo, hi := float32(-4096), float32(4096)
		bound := float64(hi-lo) / float64(2*(uint64(1)<<uint(bits)-1))
		for i := 0; i < 20000; i++ {
			v := lo + float32(rnd.Float64())*(hi-lo)
			qv := QuantizeRanged(v, lo, hi, bits)
			if math.Abs(float64(qv-v)) > bound*(1+1e-6) {
				t.Fatalf("bits %d: Q(%g) = %g, error > %g", bits, v, qv, bound)
			}
			if QuantizeRanged(qv, lo, hi, bits) != qv {
				t.Fatalf("bits %d: not idempotent at %g", bits, qv)
			}
		}
	}
}

func TestQuantizeDir(t *testing.T) {
	cases := []struct {
		name string
		in   [3]float32
		bits int
		want [3]float32
	}{
		{"up", [3]float32{0, 0, 1}, 3, [3]float32{0, 0, 1}},
		{"-x", [3]float32{-1, 0, 0}, 3, [3]float32{-1, 0, 0}},
		{"negative zero", [3]float32{negZ, 1, negZ}, 3, [3]float32{0, 1, 0}},
		{"diagonal 3 bits", [3]float32{0.57735, 0.57735, 0.57735}, 3, [3]float32{2.0 / 3, 2.0 / 3, 2.0 / 3}},
		{"clamped", [3]float32{5, -5, 0}, 3, [3]float32{1, -1, 0}},
		{"NaN and Inf", [3]float32{nan, inf, -inf}, 4, [3]float32{0, 1, -1}},
		{"tie away from zero", [3]float32{1.0 / 6, -1.0 / 6, 0}, 3, [3]float32{1.0 / 3, -1.0 / 3, 0}},
		{"2 bits", [3]float32{0.6, -0.4, 0.2}, 2, [3]float32{1, 0, 0}},
		{"bad width", [3]float32{1, 1, 1}, 1, [3]float32{}},
	}
	for _, c := range cases {
		if got := QuantizeDir(c.in, c.bits); got != c.want {
			t.Errorf("%s: QuantizeDir(%v, %d) = %v, want %v", c.name, c.in, c.bits, got, c.want)
		}
	}
	rnd := newRand(7)
	for bits := 2; bits <= 10; bits++ {
		h := float64(int(1)<<uint(bits-1) - 1)
		for i := 0; i < 5000; i++ {
			var d [3]float32
			var n float64
			for j := range d {
				x := rnd.NormFloat64()
				d[j] = float32(x)
				n += x * x
			}
			for j := range d {
				d[j] = float32(float64(d[j]) / math.Sqrt(n))
			}
			q := QuantizeDir(d, bits)
			neg := QuantizeDir([3]float32{-d[0], -d[1], -d[2]}, bits)
			for j := range d {
				if e := math.Abs(float64(q[j] - d[j])); e > 1/(2*h)+1e-6 {
					t.Fatalf("bits %d: axis error %g > %g", bits, e, 1/(2*h))
				}
				if neg[j] != -q[j] {
					t.Fatalf("bits %d: not symmetric: %v vs %v", bits, q, neg)
				}
			}
			if QuantizeDir(q, bits) != q {
				t.Fatalf("bits %d: not idempotent at %v", bits, q)
			}
		}
	}
}

// The writer and reader agree with the Quantize functions (game code relies on that).
func TestQuantizeMatchesWire(t *testing.T) {
	rnd := newRand(8)
	buf := make([]byte, 64)
	for i := 0; i < 2000; i++ {
		v := float32((rnd.Float64() - 0.5) * 2000)
		d := [3]float32{float32(rnd.NormFloat64()), float32(rnd.NormFloat64()), float32(rnd.NormFloat64())}
		w := NewWriter(buf)
		w.WriteFloatBits(v, 6, 9)
		w.WriteHalf(v)
		w.WriteAngle16(v)
		w.WriteAngle8(v)
		w.WriteRangedFloat(v, -500, 500, 11)
		w.WriteDir(d, 5)
		r := NewReader(w.Bytes(), w.Len())
		got := []float32{r.ReadFloatBits(6, 9), r.ReadHalf(), r.ReadAngle16(), r.ReadAngle8(), r.ReadRangedFloat(-500, 500, 11)}
		want := []float32{QuantizeFloat(v, 6, 9), QuantizeHalf(v), QuantizeAngle16(v), QuantizeAngle8(v), QuantizeRanged(v, -500, 500, 11)}
		for j := range got {
			if !sameBits(got[j], want[j]) {
				t.Fatalf("v=%g field %d: wire %g, Quantize %g", v, j, got[j], want[j])
			}
		}
		if r.ReadDir(5) != QuantizeDir(d, 5) || r.Err() != nil {
			t.Fatalf("dir mismatch or %v", r.Err())
		}
	}
}
