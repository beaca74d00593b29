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

// demoJSONKeys are the keys "snapwire demo --json" promises (README.md).
var demoJSONKeys = strings.Fields(`clients duration_s frames kbps_per_client_mean kbps_per_client_max
	snapshot_bytes_mean snapshot_bytes_raw_mean saved_by_bitpacking saved_by_delta saved_by_zrle
	pred_error_self_mean pred_error_self_p99 pred_error_others_mean pred_error_others_p99
	cmd_lead_ms_mean late_cmd_share duplicated_cmds reliable_resends snapshots_skipped
	base_mismatches state_mismatches`)

// TestDemoJSON runs a short lossy demo and checks every figure it names
// against what the run must show.
//
// Guards against (tried): the client predicting its own player with an
// empty command instead of its own (client/predict.go, predict) makes it
// fail: the own player's mean error rises to ~22 units and its exact share
// falls to ~8%.
func TestDemoJSON(t *testing.T) {
	var out bytes.Buffer
	err := runDemo(strings.Fields("--clients 3 --duration 3s --loss 5% --latency 100ms --jitter 20ms --seed 7 --json"), &out)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(out.Bytes(), &m); err != nil {
		t.Fatalf("bad JSON: %v\n%s", err, out.String())
	}
	num := func(k string) float64 {
		t.Helper()
		v, ok := m[k].(float64)
		if !ok {
			t.Fatalf("key %q missing or not a number: %v", k, m[k])
		}
		return v
	}
	for _, k := range demoJSONKeys {
		num(k)
	}
	if num("clients") != 3 || num("duration_s") != 3 || num("frames") != 180 || num("latency_rtt_ms") != 100 || num("loss") != 0.05 {
		t.Errorf("parameters not echoed: %v", out.String()[:300])
	}
	if num("base_mismatches") != 0 || num("state_mismatches") != 0 || num("base_checks") < 100 || num("state_checks") < 100 {
		t.Errorf("invariants: base %v/%v, state %v/%v", num("base_mismatches"), num("base_checks"), num("state_mismatches"), num("state_checks"))
	}
	if num("kbps_per_client_mean") <= 0 || num("kbps_per_client_max") < num("kbps_per_client_mean") {
		t.Errorf("kbps mean %v max %v", num("kbps_per_client_mean"), num("kbps_per_client_max"))
	}
	for _, k := range []string{"saved_by_bitpacking", "saved_by_delta", "saved_by_zrle"} {
		if v := num(k); !(v > 0 && v < 1) {
			t.Errorf("%s = %v, want within (0,1)", k, v)
		}
	}
	if raw, z := num("snapshot_bytes_raw_mean"), num("snapshot_bytes_mean"); z <= 0 || z >= raw {
		t.Errorf("snapshot bytes %v after zrle, %v before", z, raw)
	}
	// Prediction (DOOM III §2): the client foresees its own player, so
	// most of its samples are exact and the mean error is well under a
	// player's width (32 units); the others change their commands, which no
	// client foresees, so their error is measured and not always 0.
	for _, who := range []string{"self", "others"} {
		mean, p99, mx := num("pred_error_"+who+"_mean"), num("pred_error_"+who+"_p99"), num("pred_error_"+who+"_max")
		if !(0 <= mean && mean <= p99 && p99 <= mx) {
			t.Errorf("%s prediction error: mean %v p99 %v max %v out of order", who, mean, p99, mx)
		}
		if n, exact := num("pred_samples_"+who), num("pred_exact_share_"+who); n < 100 || exact < 0 || exact > 1 {
			t.Errorf("%s prediction: %v samples, exact share %v", who, n, exact)
		}
	}
	if mean, exact := num("pred_error_self_mean"), num("pred_exact_share_self"); mean > 16 || exact < 0.5 {
		t.Errorf("own player mispredicted: mean error %v units, exact share %v", mean, exact)
	}
	if num("pred_error_others_max") == 0 {
		t.Error("the other players were never mispredicted: the error is not measured")
	}
	if num("cmd_lead_ms_mean") <= 0 || num("late_cmd_share") < 0 || num("late_cmd_share") > 0.05 {
		t.Errorf("lead figures out of range: lead %v ms, late share %v", num("cmd_lead_ms_mean"), num("late_cmd_share"))
	}
	if num("reliable_resends") == 0 || num("packets_lost") == 0 {
		t.Error("5% loss left no trace")
	}
	if s, ok := m["seconds"].([]any); !ok || len(s) != 3 {
		t.Errorf("seconds: %v", m["seconds"])
	}
}

func TestDemoTextAndReport(t *testing.T) {
	var out bytes.Buffer
	report := filepath.Join(t.TempDir(), "demo.html")
	if err := runDemo([]string{"--clients", "2", "--duration", "2s", "--report", report}, &out); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	if strings.Count(s, "\nt=") != 2 || !strings.Contains(s, "t=  1s") || !strings.Contains(s, "saved by delta") ||
		!strings.Contains(s, "state mismatches         0 of") || !strings.Contains(s, "report written to") {
		t.Fatalf("unexpected output:\n%s", s)
	}
	html, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(html, []byte("<svg")) || !bytes.HasPrefix(html, []byte("<!DOCTYPE html>")) {
		t.Fatalf("report is not an HTML page with SVG plots:\n%.300s", html)
	}
}

func TestDemoFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--loss", "150%"}, {"--clients", "0"}, {"--clients", "65"}, {"--duration", "0s"}, {"extra"},
	} {
		if err := runDemo(args, &bytes.Buffer{}); err == nil {
			t.Errorf("%v accepted", args)
		}
	}
	opt, asJSON, report, err := parseDemoFlags(strings.Fields("--clients 5 --latency 120ms --jitter 7ms --loss 0.1 --duration 9s --seed 4 --json --report r.html"))
	if err != nil || opt.Clients != 5 || opt.Latency.Milliseconds() != 120 || opt.Jitter.Milliseconds() != 7 ||
		opt.Loss != 0.1 || opt.Duration.Seconds() != 9 || opt.Seed != 4 || !asJSON || report != "r.html" {
		t.Fatalf("%+v %v %q %v", opt, asJSON, report, err)
	}
}

// TestDemoStartLine: the demo says what it is about to play before the run
// starts: first on stdout with the text output, on stderr with --json,
// whose stdout stays one JSON object and nothing else.
func TestDemoStartLine(t *testing.T) {
	const want = "snapwire demo: playing 1.5 s of virtual time: 2 clients, 60 ms round trip, ±5 ms jitter, 1% loss per direction, seed 4"
	args := strings.Fields("--clients 2 --duration 1.5s --latency 60ms --jitter 5ms --loss 1% --seed 4")

	var status, out bytes.Buffer
	defer func(w io.Writer) { demoStatus = w }(demoStatus)
	demoStatus = &status
	if err := runDemo(append(args, "--json"), &out); err != nil {
		t.Fatal(err)
	}
	if got := status.String(); got != want+"\n" {
		t.Errorf("--json: stderr %q, want %q", got, want+"\n")
	}
	dec := json.NewDecoder(bytes.NewReader(out.Bytes()))
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("--json: stdout is not JSON: %v", err)
	}
	if strings.TrimSpace(out.String()[dec.InputOffset():]) != "" {
		t.Errorf("--json: stdout holds more than one JSON object")
	}

	status.Reset()
	out.Reset()
	if err := runDemo(args, &out); err != nil {
		t.Fatal(err)
	}
	if first, _, _ := strings.Cut(out.String(), "\n"); first != want {
		t.Errorf("text: first line %q, want %q", first, want)
	}
	if status.Len() != 0 {
		t.Errorf("text: stderr %q, want nothing", status.String())
	}
}
