package report

import (
	"math"
	"slices"
	"strconv"
)

// Mean is the arithmetic mean of v, 0 for none.
func Mean(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// Median is the middle value of v (the mean of the two middle ones for an even count), 0 for
// none. v is not changed.
func Median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// Percentile is the p-quantile of v by nearest rank (the smallest value with at least p of
// the values at or below it; p in [0, 1]), 0 for none. v is not changed.
func Percentile(v []float64, p float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return sortedPercentile(s, p)
}

// MeanPercentile is Mean(v) and Percentile(v, p) with one sort.
func MeanPercentile(v []float64, p float64) (mean, pth float64) {
	if len(v) == 0 {
		return 0, 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return Mean(s), sortedPercentile(s, p)
}

func sortedPercentile(s []float64, p float64) float64 {
	i := int(math.Ceil(p*float64(len(s)))) - 1
	return s[min(max(i, 0), len(s)-1)]
}

// Pct formats the share v (0.25) as a percentage with the given decimals ("25%", "25.0%").
func Pct(v float64, decimals int) string {
	return strconv.FormatFloat(v*100, 'f', decimals, 64) + "%"
}
