package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestDemoJSON(t *testing.T) {
	var out bytes.Buffer
	err := runDemo([]string{"--clients", "3", "--duration", "3s", "--loss", "5%", "--latency", "100ms", "--seed", "7", "--json"}, &out)
	if err != nil {
		t.Fatal(err)
	}
	var rep demoReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("bad JSON: %v\n%s", err, out.String())
	}
	if rep.Options.Clients != 3 || rep.Options.Loss != 0.05 || rep.Options.LatencyMS != 100 {
		t.Fatalf("options %+v", rep.Options)
	}
	if len(rep.Seconds) != 3 || len(rep.Clients) != 3 {
		t.Fatalf("%d progress entries, %d clients", len(rep.Seconds), len(rep.Clients))
	}
	if !rep.Finished {
		t.Fatalf("not every reliable delivered: %+v", rep.Clients)
	}
	for _, c := range rep.Clients {
		if c.SnapshotsSent < 45 || c.CommandsSent < 135 { // 3 s at 20 and 60 Hz, less the handshake
			t.Fatalf("client %d sent too little: %+v", c.Client, c)
		}
		// 5% loss each way, no reordering beyond 10 ms jitter: most arrive.
		if c.SnapshotShare < 0.85 || c.SnapshotShare > 1 || c.CommandShare < 0.75 || c.CommandShare > 1 {
			t.Fatalf("client %d shares %.3f %.3f", c.Client, c.SnapshotShare, c.CommandShare)
		}
		if c.ReliableOrderErrors != 0 || c.UnreliableOrderErrs != 0 {
			t.Fatalf("client %d order errors: %+v", c.Client, c)
		}
		if c.ServerRTTms < 100 || c.ServerRTTms > 200 {
			t.Fatalf("client %d: RTT estimate %.1f ms for a 100 ms link", c.Client, c.ServerRTTms)
		}
	}
	if rep.Network.Lost == 0 {
		t.Fatal("no loss simulated")
	}
}

func TestDemoText(t *testing.T) {
	var out bytes.Buffer
	if err := runDemo([]string{"--clients", "2", "--duration", "2s"}, &out); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	if strings.Count(s, "\nt=") != 1 || !strings.HasPrefix(s, "t=  1s") || !strings.Contains(s, "conn id") || !strings.Contains(s, "all reliables delivered: true") {
		t.Fatalf("unexpected output:\n%s", s)
	}
	if err := runDemo([]string{"--loss", "150%"}, &out); err == nil {
		t.Fatal("150% loss accepted")
	}
}
