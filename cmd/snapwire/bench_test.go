package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `snapwire bench --quick --json --out dir` on two scenarios: the JSON rows carry the issue's
// fields and BENCHMARKS.md is written. (.ci/run runs the whole --quick suite.)
func TestBenchQuickJSON(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	if err := runBench([]string{"--quick", "--json", "-q", "--ticks", "45", "--scenarios", "duel,churn", "--out", dir}, &out); err != nil {
		t.Fatal(err)
	}
	var rows []map[string]any
	if err := json.Unmarshal(out.Bytes(), &rows); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	if len(rows) != 2*3*4 {
		t.Fatalf("%d rows", len(rows))
	}
	for _, k := range []string{"scenario", "loss", "encoder", "bytes_mean", "bytes_p99", "kbps", "ns_per_client_snapshot", "allocs_per_snapshot"} {
		if _, ok := rows[0][k]; !ok {
			t.Errorf("row lacks %q", k)
		}
	}
	md, err := os.ReadFile(filepath.Join(dir, "BENCHMARKS.md"))
	if err != nil || !strings.Contains(string(md), "DOOM III / Quake 3 ratio") {
		t.Fatalf("BENCHMARKS.md: %v", err)
	}
}

func TestBenchFlags(t *testing.T) {
	for _, args := range [][]string{{"--scenarios", "nope"}, {"--ticks", "3"}, {"extra"}} {
		if err := runBench(append(args, "-q"), io.Discard); err == nil {
			t.Errorf("%v accepted", args)
		}
	}
}
