package main

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// Three "snapwire lockstep" peers over loopback UDP for 3 s: every peer
// runs the frames with the same states (hashes compared, no desync).
func TestLockstepUDP(t *testing.T) {
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
