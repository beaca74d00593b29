package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/snapwire/snapwire/internal/acceptance"
	"github.com/snapwire/snapwire/internal/bench"
)

// `snapwire bench --quick --json --out dir` on two scenarios: the JSON rows carry the documented
// fields and BENCHMARKS.md is written. (.ci/run runs the whole --quick suite.) The peer
// libraries run on Node, an external program: only in the "peers" acceptance run.
func TestBenchQuickJSON(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	args := []string{"--quick", "--json", "-q", "--ticks", "45", "--scenarios", "duel,churn", "--out", dir}
	withPeers := acceptance.Enabled("peers")
	if !withPeers {
		args = append(args, "--peers", "none")
	}
	if err := runBench(args, &out); err != nil {
		t.Fatal(err)
	}
	var rows []map[string]any
	if err := json.Unmarshal(out.Bytes(), &rows); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	// 2 scenarios x 3 loss rates x 6 encoders (doom3, doom3+huff, doom3+rc, doom3-nozrle,
	// quake3, quake3-nohuff); with Node and the peers installed, 2 scenarios x (colyseus at 0%
	// loss, geckos at every loss rate).
	want, encs := 2*3*6, []string{"doom3", "doom3+huff", "doom3+rc", "doom3-nozrle", "quake3", "quake3-nohuff"}
	if withPeers {
		if _, err := bench.PeersReady(bench.DefaultPeersDir()); err == nil {
			want += 2 * (1 + 3)
			encs = append(encs, bench.EncColyseus, bench.EncGeckos)
		} else if os.Getenv("SNAPWIRE_REQUIRE_NODE_PEERS") == "1" {
			t.Fatalf("peers required (SNAPWIRE_REQUIRE_NODE_PEERS=1): %v", err)
		}
	}
	if len(rows) != want {
		t.Fatalf("%d rows, want %d", len(rows), want)
	}
	encoders := map[string]bool{}
	for _, r := range rows {
		encoders[r["encoder"].(string)] = true
	}
	for _, e := range encs {
		if !encoders[e] {
			t.Errorf("no %s rows", e)
		}
	}
	for _, k := range []string{"scenario", "loss", "encoder", "bytes_mean", "bytes_p99", "kbps", "ns_per_client_snapshot", "allocs_per_snapshot"} {
		if _, ok := rows[0][k]; !ok {
			t.Errorf("row lacks %q", k)
		}
	}
	// The server cost at 256 visible entities, all clients built, on every DOOM III and Quake 3
	// row: the figure the server-cost target is judged by.
	for _, r := range rows {
		switch r["encoder"] {
		case "doom3", "doom3+huff", "doom3+rc", "quake3":
			if ns, _ := r["ns_per_client_snapshot_256"].(float64); ns <= 0 {
				t.Errorf("%v %v row: ns_per_client_snapshot_256 = %v", r["scenario"], r["encoder"], r["ns_per_client_snapshot_256"])
			}
		}
	}
	md, err := os.ReadFile(filepath.Join(dir, "BENCHMARKS.md"))
	if err != nil || !strings.Contains(string(md), "DOOM III / Quake 3 ratio") || !strings.Contains(string(md), "## Peer libraries on the same frames") {
		t.Fatalf("BENCHMARKS.md: %v", err)
	}
	// The report carries the network models' section, measured in the same run.
	if !strings.Contains(string(md), "network models side by side") || !strings.Contains(string(md), "| doom3 | 8 | 200 |") {
		t.Errorf("BENCHMARKS.md lacks the models section or its doom3 8-player 200 ms row")
	}
}

func TestBenchFlags(t *testing.T) {
	for _, args := range [][]string{{"--scenarios", "nope"}, {"--ticks", "3"}, {"extra"}} {
		if err := runBench(append(args, "-q"), io.Discard); err == nil {
			t.Errorf("%v accepted", args)
		}
	}
}
