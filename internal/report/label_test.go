package report

import (
	"math"
	"testing"
)

func TestLabel(t *testing.T) {
	for _, c := range []struct {
		v    float64
		unit string
		want string
	}{
		{65700, "", "65.7k"},
		{65730, "", "65.7k"},
		{1.2e6, "", "1.2M"},
		{1_234_567, "", "1.23M"},
		{3e9, "", "3G"},
		{1000, "", "1k"},
		{999.7, "", "1k"}, // rounds up into the next suffix
		{999, "", "999"},
		{0.5, "", "0.5"},
		{0.3, "", "0.3"},
		{0.1 + 0.2, "", "0.3"},
		{0.000123456, "", "0.000123"},
		{12, "ms", "12 ms"},
		{40, "%", "40%"},
		{-20, "%", "-20%"},
		{-65700, "", "-65.7k"},
		{0, "bytes", "0 bytes"},
		{math.Copysign(0, -1), "", "0"},
		{123.45, "", "123"},
		{2500, "bytes/s", "2.5k bytes/s"},
		{math.Inf(1), "", "+Inf"},
	} {
		if got := Label(c.v, c.unit); got != c.want {
			t.Errorf("Label(%v, %q) = %q, want %q", c.v, c.unit, got, c.want)
		}
	}
}

func TestNiceStep(t *testing.T) {
	for _, c := range []struct{ raw, want float64 }{
		{0.7, 1}, {1, 1}, {1.1, 2}, {3, 5}, {6, 10}, {13140, 20000}, {0.013, 0.02}, {0, 1}, {math.NaN(), 1},
	} {
		if got := niceStep(c.raw); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("niceStep(%v) = %v, want %v", c.raw, got, c.want)
		}
	}
}
