// Package report is what the tools' reports share: the statistics of their figures (Mean,
// Median, Percentile, Pct), axis labels a person reads (Label: 65.7k, 1.2M, 12 ms), one SVG
// chart (Chart: lines over seconds, players or round trips, or grouped bars per scenario)
// and the HTML page shell (Page) that html/template fills and escapes.
//
// It sits beside the harnesses that measure (internal/bench, internal/matchsim,
// internal/netmodels) and knows nothing of the wire: they pass it numbers and names.
// Report prose lives in each harness's embedded templates, not in Go string literals.
package report
