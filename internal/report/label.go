package report

import (
	"math"
	"strconv"
)

// Label writes v the way a person reads an axis: three significant digits at most, trailing
// zeros dropped, thousands as k, millions as M, billions as G (65700 → "65.7k", 1.2e6 →
// "1.2M", 0.5 → "0.5", 12 → "12"), then the unit after a space ("12 ms"), or right after
// the number for "%" ("40%").
func Label(v float64, unit string) string {
	s := humanize(v)
	switch {
	case unit == "":
		return s
	case unit == "%":
		return s + unit
	}
	return s + " " + unit
}

func humanize(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	v = sig3(v)
	if v == 0 {
		return "0" // also for -0
	}
	for _, u := range []struct {
		scale  float64
		suffix string
	}{{1e9, "G"}, {1e6, "M"}, {1e3, "k"}} {
		if math.Abs(v) >= u.scale {
			return strconv.FormatFloat(sig3(v/u.scale), 'f', -1, 64) + u.suffix
		}
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// sig3 rounds v to three significant digits (through its shortest decimal form, so 0.3
// stays 0.3).
func sig3(v float64) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 3, 64), 64)
	return r
}

// niceStep rounds a raw tick step up to 1, 2 or 5 times a power of ten.
func niceStep(raw float64) float64 {
	if raw <= 0 || math.IsNaN(raw) || math.IsInf(raw, 0) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= raw {
			return m * p
		}
	}
	return 10 * p
}
