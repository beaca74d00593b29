package bitmsg

import (
	"math"
)

// This file holds every field encoding once, as pure functions: an encoder turns a value into
// its raw bits (and width), a decoder turns raw bits back into the value and re-checks the
// declared range. Writer, Reader, DeltaWriter and DeltaReader all use them, and the Quantize
// functions are decode(encode(v)), so game code can predict exactly what the peer will see.

func encBool(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

func bitsWidth(n int) (int, error) {
	if n < 1 || n > 32 {
		return 0, ErrWidth
	}
	return n, nil
}

func encBits(v uint32, n int) (uint64, int, error) {
	if _, err := bitsWidth(n); err != nil {
		return 0, 0, err
	}
	return uint64(v) & mask(n), n, nil
}

func intWidth(n int) (int, error) {
	if n < 2 || n > 32 {
		return 0, ErrWidth
	}
	return n, nil
}

func encInt(v int32, n int) (uint64, int, error) {
	if _, err := intWidth(n); err != nil {
		return 0, 0, err
	}
	lim := int64(1) << uint(n-1)
	if int64(v) < -lim || int64(v) >= lim {
		return 0, 0, ErrRange
	}
	return uint64(uint32(v)) & mask(n), n, nil
}

func decInt(raw uint64, n int) int32 {
	s := uint(32 - n)
	return int32(uint32(raw)<<s) >> s
}

func stringWidth(maxLen int) (int, error) {
	if maxLen < 0 || maxLen > math.MaxInt32 {
		return 0, ErrWidth
	}
	return BitsFor(uint32(maxLen)), nil
}

// rangedIntWidth returns the span max-min (as an unsigned count) and its width.
func rangedIntWidth(min, max int32) (span uint32, n int, err error) {
	if min > max {
		return 0, 0, ErrRange
	}
	span = uint32(max) - uint32(min)
	return span, BitsFor(span), nil
}

func encRangedInt(v, min, max int32) (uint64, int, error) {
	_, n, err := rangedIntWidth(min, max)
	if err != nil {
		return 0, 0, err
	}
	if v < min || v > max {
		return 0, 0, ErrRange
	}
	return uint64(uint32(v) - uint32(min)), n, nil
}

func decRangedInt(raw uint64, min int32, span uint32) (int32, error) {
	if raw > uint64(span) {
		return 0, ErrRange
	}
	return int32(uint32(min) + uint32(raw)), nil
}

// Ranged floats: DOOM III §4.1 quantisation.

func rangedFloatWidth(min, max float32, bits int) (int, error) {
	if bits < 1 || bits > 32 {
		return 0, ErrWidth
	}
	if !(min < max) || math.IsInf(float64(min), 0) || math.IsInf(float64(max), 0) {
		return 0, ErrRange
	}
	return bits, nil
}

func encRangedFloat(v, min, max float32, bits int) (uint64, int, error) {
	if _, err := rangedFloatWidth(min, max, bits); err != nil {
		return 0, 0, err
	}
	steps := float64(mask(bits))
	t := (float64(v) - float64(min)) / (float64(max) - float64(min))
	switch {
	case t != t || t <= 0: // NaN encodes as min
		return 0, bits, nil
	case t >= 1:
		return mask(bits), bits, nil
	}
	// float64(...) keeps Go from fusing the multiply-add, so every platform rounds alike.
	return uint64(math.Floor(float64(t*steps) + 0.5)), bits, nil
}

func decRangedFloat(raw uint64, min, max float32, bits int) float32 {
	steps := mask(bits)
	if raw >= steps {
		return max
	}
	return float32(float64(min) + (float64(max)-float64(min))*float64(raw)/float64(steps))
}

// QuantizeRanged returns v as it reads back after WriteRangedFloat(v, min, max, bits): v is
// clamped to [min,max] (NaN counts as min) and rounded to the nearest of the 2^bits levels
// min + k*(max-min)/(2^bits-1), k = 0..2^bits-1, so min and max are exact and the error is at
// most (max-min)/(2*(2^bits-1)) (plus float32 rounding). bits must be 1..32 and min < max both
// finite; otherwise the write fails and QuantizeRanged returns 0.
func QuantizeRanged(v, min, max float32, bits int) float32 {
	raw, _, err := encRangedFloat(v, min, max, bits)
	if err != nil {
		return 0
	}
	return decRangedFloat(raw, min, max, bits)
}

// Reduced floats: DOOM III §4.1 "specifying the number of bits used for the mantissa and
// exponent".

func floatBitsWidth(expBits, mantBits int) (int, error) {
	if expBits < 2 || expBits > 8 || mantBits < 0 || mantBits > 23 {
		return 0, ErrWidth
	}
	return 1 + expBits + mantBits, nil
}

// floatBitsLimits returns the exponent bias and the largest exponent field in use.
func floatBitsLimits(expBits int) (bias, maxField int) {
	bias = 1<<uint(expBits-1) - 1
	maxField = 1<<uint(expBits) - 1
	if maxField-bias > 127 { // expBits 8: keep every value a finite float32
		maxField = 127 + bias
	}
	return bias, maxField
}

func encFloatBits(v float32, expBits, mantBits int) (uint64, int, error) {
	n, err := floatBitsWidth(expBits, mantBits)
	if err != nil {
		return 0, 0, err
	}
	b := math.Float32bits(v)
	sign := uint64(b>>31) << uint(expBits+mantBits)
	ax := b & 0x7FFFFFFF
	if ax > 0x7F800000 { // NaN is written as +0
		return 0, n, nil
	}
	bias, maxField := floatBitsLimits(expBits)
	maxFinite := sign | uint64(maxField)<<uint(mantBits) | mask(mantBits)
	if ax == 0x7F800000 {
		return maxFinite, n, nil
	}
	f32exp := int(ax >> 23)
	if f32exp == 0 { // float32 denormals and zero lie below every format's range
		return sign, n, nil
	}
	e := f32exp - 127 + bias // biased exponent in the reduced format
	m := uint64(ax & 0x7FFFFF)
	if shift := uint(23 - mantBits); shift > 0 {
		half := uint64(1) << (shift - 1)
		rem := m & (1<<shift - 1)
		m >>= shift
		if rem > half || (rem == half && m&1 == 1) { // round to nearest even
			m++
			if m == 1<<uint(mantBits) {
				m = 0
				e++
			}
		}
	}
	if e > maxField {
		return maxFinite, n, nil
	}
	if e < 1 {
		return sign, n, nil // underflow: flush to signed zero
	}
	return sign | uint64(e)<<uint(mantBits) | m, n, nil
}

func decFloatBits(raw uint64, expBits, mantBits int) (float32, error) {
	bias, maxField := floatBitsLimits(expBits)
	m := uint32(raw & mask(mantBits))
	e := int(raw>>uint(mantBits)) & int(mask(expBits))
	sign := uint32(raw>>uint(expBits+mantBits)) & 1 << 31
	if e == 0 {
		if m != 0 {
			return 0, ErrRange // the writer never makes denormals
		}
		return math.Float32frombits(sign), nil
	}
	if e > maxField {
		return 0, ErrRange
	}
	return math.Float32frombits(sign | uint32(e-bias+127)<<23 | m<<uint(23-mantBits)), nil
}

// QuantizeFloat returns v as it reads back after WriteFloatBits(v, expBits, mantBits).
//
// The format (DOOM III §4.1), 1+expBits+mantBits bits, LSB first:
//
//	bits 0 .. mantBits-1                mantissa (the fraction of 1.m)
//	bits mantBits .. mantBits+expBits-1 biased exponent E, bias 2^(expBits-1)-1
//	bit  mantBits+expBits               sign
//
// E = 0 with mantissa 0 is ±0; E >= 1 is ±1.m × 2^(E-bias). There are no denormals, infinities
// or NaNs: every exponent field is a normal number, except that for expBits = 8 the fields
// whose value would not fit a float32 (E > 254) are unused and rejected by the reader, as are
// E = 0 with a non-zero mantissa. expBits is 2..8 and mantBits 0..23 (else ErrWidth, and
// QuantizeFloat returns 0); expBits 8 with mantBits 23 is float32 without its specials.
//
// Encoding rounds the mantissa to nearest, ties to even. Magnitudes that round below
// 2^(1-bias) (including float32 denormals) flush to zero keeping the sign; magnitudes above
// the largest finite value, and ±Inf, clamp to ±max finite; NaN is written as +0. The relative
// error of a value in range is at most 2^-(mantBits+1).
func QuantizeFloat(v float32, expBits, mantBits int) float32 {
	raw, _, err := encFloatBits(v, expBits, mantBits)
	if err != nil {
		return 0
	}
	f, _ := decFloatBits(raw, expBits, mantBits)
	return f
}

// Half floats: IEEE 754 binary16.

func encHalf(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int(b>>23) & 0xFF
	mant := b & 0x7FFFFF
	if exp == 0xFF {
		if mant == 0 {
			return sign | 0x7C00
		}
		m := uint16(mant >> 13)
		if m == 0 {
			m = 0x200 // keep it a NaN
		}
		return sign | 0x7C00 | m
	}
	e := exp - 127 + 15
	if e >= 31 {
		return sign | 0x7C00 // overflow rounds to infinity, as IEEE round-to-nearest does
	}
	if e <= 0 {
		if e < -10 {
			return sign // below half the smallest denormal
		}
		m := mant | 0x800000
		shift := uint(14 - e)
		half := uint32(1) << (shift - 1)
		rem := m & (1<<shift - 1)
		r := m >> shift
		if rem > half || (rem == half && r&1 == 1) {
			r++ // may carry into the smallest normal, which the bits express correctly
		}
		return sign | uint16(r)
	}
	out := uint32(e)<<10 | mant>>13
	rem := mant & 0x1FFF
	if rem > 0x1000 || (rem == 0x1000 && out&1 == 1) {
		out++ // a carry into the exponent is right, up to infinity
	}
	return sign | uint16(out)
}

func decHalf(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	e := uint32(h>>10) & 0x1F
	m := uint32(h & 0x3FF)
	switch {
	case e == 0x1F:
		return math.Float32frombits(sign | 0x7F800000 | m<<13)
	case e == 0:
		if m == 0 {
			return math.Float32frombits(sign)
		}
		// denormal: m × 2^-24, exact in float32
		f := float32(m) * (1.0 / (1 << 24))
		return math.Float32frombits(sign | math.Float32bits(f))
	}
	return math.Float32frombits(sign | (e+127-15)<<23 | m<<13)
}

// QuantizeHalf returns v as it reads back after WriteHalf(v): the nearest IEEE 754 binary16
// value, ties to even, with denormals; magnitudes of 65520 and above become ±Inf, infinities
// stay, NaN stays NaN (its top payload bits are kept). The relative error of a normal value
// (6.1e-5 .. 65504) is at most 2^-11.
func QuantizeHalf(v float32) float32 { return decHalf(encHalf(v)) }

// Angles: DOOM III §4.1 "an angle can be scaled to the range 0 to 65535".

func encAngle(deg float32, bits int) uint64 {
	d := float64(deg)
	if math.IsNaN(d) || math.IsInf(d, 0) {
		return 0
	}
	d = math.Mod(d, 360)
	if d < 0 {
		d += 360
	}
	levels := float64(uint64(1) << uint(bits))
	return uint64(math.Floor(d*levels/360+0.5)) & mask(bits) // 360 wraps to 0
}

func decAngle(raw uint64, bits int) float32 {
	return float32(float64(raw) * 360 / float64(uint64(1)<<uint(bits)))
}

// QuantizeAngle16 returns deg as it reads back after WriteAngle16(deg): deg is first
// normalised to [0,360) (so -90 and 630 both mean 270), then rounded to the nearest multiple of
// 360/65536 degrees (a value that rounds to 360 wraps to 0). The result is in [0,360) and within
// 360/131072 (about 0.0027) degrees of the normalised input. NaN and ±Inf read back as 0.
func QuantizeAngle16(deg float32) float32 { return decAngle(encAngle(deg, 16), 16) }

// QuantizeAngle8 is QuantizeAngle16 with 256 steps of 1.40625 degrees (error at most 0.703125).
func QuantizeAngle8(deg float32) float32 { return decAngle(encAngle(deg, 8), 8) }

// Directions: DOOM III §4.1 "a normalized direction vector can usually be approximated with
// very few bits. For instance, just 3 bits for each coordinate axis."

func dirWidth(bitsPerAxis int) (int, error) {
	if bitsPerAxis < 2 || bitsPerAxis > 10 {
		return 0, ErrWidth
	}
	return 3 * bitsPerAxis, nil
}

func encDir(d [3]float32, bitsPerAxis int) (uint64, int, error) {
	n, err := dirWidth(bitsPerAxis)
	if err != nil {
		return 0, 0, err
	}
	h := float64(int(1)<<uint(bitsPerAxis-1) - 1)
	var raw uint64
	for i, x := range d {
		c := float64(x)
		switch {
		case c != c:
			c = 0
		case c < -1:
			c = -1
		case c > 1:
			c = 1
		}
		q := uint64(math.Round(c*h) + h)
		raw |= q << uint(i*bitsPerAxis)
	}
	return raw, n, nil
}

func decDir(raw uint64, bitsPerAxis int) ([3]float32, error) {
	h := uint64(1)<<uint(bitsPerAxis-1) - 1
	var d [3]float32
	for i := range d {
		q := (raw >> uint(i*bitsPerAxis)) & mask(bitsPerAxis)
		if q > 2*h {
			return [3]float32{}, ErrRange
		}
		d[i] = float32(int64(q)-int64(h)) / float32(h)
	}
	return d, nil
}

// QuantizeDir returns d as it reads back after WriteDir(d, bitsPerAxis). Each axis is clamped to
// [-1,1] (NaN counts as 0) and rounded (half away from zero) to the nearest of the 2^n-1 levels
// k/h, k = -h..h, h = 2^(n-1)-1, n = bitsPerAxis in 2..10 (else ErrWidth, and QuantizeDir
// returns the zero vector). The odd level count keeps 0, ±1 and so axis-aligned directions
// exact and the encoding symmetric under negation; the code 2^n-1 is unused and the reader
// rejects it. The maximum error per axis is 1/(2h): 1/6 ≈ 0.167 for the paper's 3 bits, 1/14
// for 4, 1/510 for 10. The result is not renormalised.
func QuantizeDir(d [3]float32, bitsPerAxis int) [3]float32 {
	raw, _, err := encDir(d, bitsPerAxis)
	if err != nil {
		return [3]float32{}
	}
	q, _ := decDir(raw, bitsPerAxis)
	return q
}
