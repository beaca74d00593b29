package main

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/snapwire/snapwire/internal/acceptance"
)

// Three "snapwire lockstep" peers over loopback UDP for 3 s: every peer
// runs the frames with the same states (hashes compared, no desync).
func TestLockstepUDP(t *testing.T) {
	acceptance.Require(t, "lockstep-udp")
	// Three hosts: 127.0.0.11-13, on a port below the ephemeral range.
	port := strings.TrimPrefix(freeFixedPort(t), "127.0.0.1:")
	var addrs []string
	for i := range 3 {
		addrs = append(addrs, "127.0.0."+strconv.Itoa(11+i)+":"+port)
	}
	var wg sync.WaitGroup
	outs := make([]bytes.Buffer, 3)
	errs := make([]error, 3)
	for i := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = runLockstep([]string{"--me", string(rune('0' + i)), "--peers", strings.Join(addrs, ","),
				"--duration", "3s", "--seed", string(rune('1' + i)), "--json"}, &outs[i])
		}()
	}
	wg.Wait()
	for i := range 3 {
		var s lockstepSummary
		if errs[i] != nil || json.Unmarshal(outs[i].Bytes(), &s) != nil {
			t.Fatalf("peer %d: %v\n%s", i, errs[i], outs[i].String())
		}
		if s.Frames < 120 || s.HashesChecked == 0 || s.Error != "" || s.BytesOutPerS <= 0 {
			t.Errorf("peer %d: %+v", i, s)
		}
		t.Logf("peer %d: %+v", i, s)
	}
}

// The same three peers through "snapwire lockstep --serve" on 127.0.0.14.
func TestLockstepRelayUDP(t *testing.T) {
	acceptance.Require(t, "lockstep-udp")
	port := strings.TrimPrefix(freeFixedPort(t), "127.0.0.1:")
	var addrs []string
	for i := range 3 {
		addrs = append(addrs, "127.0.0."+strconv.Itoa(21+i)+":"+port)
	}
	relay := "127.0.0.24:" + port
	var wg sync.WaitGroup
	outs := make([]bytes.Buffer, 4)
	errs := make([]error, 4)
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			args := []string{"--peers", strings.Join(addrs, ","), "--duration", "3s", "--json"}
			if i == 3 {
				args = append(args, "--serve", relay)
			} else {
				args = append(args, "--me", strconv.Itoa(i), "--relay", relay, "--seed", strconv.Itoa(5+i))
			}
			errs[i] = runLockstep(args, &outs[i])
		}()
	}
	wg.Wait()
	for i := range 3 {
		var s lockstepSummary
		if errs[i] != nil || json.Unmarshal(outs[i].Bytes(), &s) != nil {
			t.Fatalf("peer %d: %v\n%s", i, errs[i], outs[i].String())
		}
		if s.Frames < 120 || s.Error != "" {
			t.Errorf("peer %d: %+v", i, s)
		}
	}
	var rs relaySummary
	if errs[3] != nil || json.Unmarshal(outs[3].Bytes(), &rs) != nil {
		t.Fatalf("relay: %v\n%s", errs[3], outs[3].String())
	}
	if rs.Decided < 120 || rs.Hashes == 0 || rs.Error != "" {
		t.Errorf("relay: %+v", rs)
	}
	t.Logf("relay: %+v", rs)
}
