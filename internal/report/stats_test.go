package report

import (
	"math"
	"slices"
	"testing"
)

func TestStatistics(t *testing.T) {
	for _, c := range []struct {
		name              string
		v                 []float64
		mean, median, p50 float64
		p99, p0           float64
	}{
		{"empty", nil, 0, 0, 0, 0, 0},
		{"one value", []float64{7}, 7, 7, 7, 7, 7},
		{"two values", []float64{4, 2}, 3, 3, 2, 4, 2},
		{"odd count unsorted", []float64{9, 1, 5}, 5, 5, 5, 9, 1},
		{"ten values", []float64{10, 9, 8, 7, 6, 5, 4, 3, 2, 1}, 5.5, 5.5, 5, 10, 1},
		{"negative", []float64{-3, -1, -2}, -2, -2, -2, -1, -3},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := slices.Clone(c.v)
			if got := Mean(c.v); got != c.mean {
				t.Errorf("Mean = %v, want %v", got, c.mean)
			}
			if got := Median(c.v); got != c.median {
				t.Errorf("Median = %v, want %v", got, c.median)
			}
			if got := Percentile(c.v, 0.5); got != c.p50 {
				t.Errorf("Percentile(0.5) = %v, want %v", got, c.p50)
			}
			if got := Percentile(c.v, 0.99); got != c.p99 {
				t.Errorf("Percentile(0.99) = %v, want %v", got, c.p99)
			}
			if got := Percentile(c.v, 0); got != c.p0 {
				t.Errorf("Percentile(0) = %v, want %v", got, c.p0)
			}
			if m, p := MeanPercentile(c.v, 0.99); m != c.mean || p != c.p99 {
				t.Errorf("MeanPercentile = %v, %v, want %v, %v", m, p, c.mean, c.p99)
			}
			if !slices.Equal(in, c.v) {
				t.Errorf("input changed: %v, was %v", c.v, in)
			}
		})
	}
}

// TestPercentileNearestRank checks the rank against the definition on 1..n: the p-quantile
// of 1..n is ceil(p*n), and the 99th percentile of 100 values is the 99th.
func TestPercentileNearestRank(t *testing.T) {
	for n := 1; n <= 300; n++ {
		v := make([]float64, n)
		for i := range v {
			v[i] = float64(n - i)
		}
		for _, p := range []float64{0.5, 0.9, 0.99} {
			want := max(1, math.Ceil(p*float64(n)))
			if got := Percentile(v, p); got != want {
				t.Fatalf("n=%d p=%v: %v, want %v", n, p, got, want)
			}
		}
	}
}

func TestPct(t *testing.T) {
	for _, c := range []struct {
		v    float64
		d    int
		want string
	}{
		{0.25, 0, "25%"}, {0.256, 1, "25.6%"}, {0, 0, "0%"}, {-0.125, 1, "-12.5%"}, {1.5, 0, "150%"}, {0.0049, 0, "0%"},
	} {
		if got := Pct(c.v, c.d); got != c.want {
			t.Errorf("Pct(%v, %d) = %q, want %q", c.v, c.d, got, c.want)
		}
	}
}
