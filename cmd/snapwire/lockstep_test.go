package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/snapwire/snapwire/internal/acceptance"
	"github.com/snapwire/snapwire/token"
)

// Three "snapwire lockstep" peers over loopback UDP for 3 s: every peer
// runs the frames with the same states (hashes compared, no desync).
func TestLockstepUDP(t *testing.T) {
	acceptance.Require(t, "lockstep-udp")
	// Three hosts: 127.0.0.11-13, on a port below the ephemeral range.
	key := lockstepKeyFile(t)
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
				"--duration", "3s", "--seed", string(rune('1' + i)), "--json", "--key-file", key}, &outs[i])
		}()
	}
	wg.Wait()
	for i := range 3 {
		var s lockstepSummary
		if errs[i] != nil || json.Unmarshal(outs[i].Bytes(), &s) != nil {
			t.Fatalf("peer %d: %v\n%s", i, errs[i], outs[i].String())
		}
		if s.Frames < 120 || s.HashesChecked == 0 || s.Error != "" || s.BytesOutPerS <= 0 || s.AuthFailures != 0 || s.Replayed != 0 {
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
	key := lockstepKeyFile(t)
	var wg sync.WaitGroup
	outs := make([]bytes.Buffer, 4)
	errs := make([]error, 4)
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			args := []string{"--peers", strings.Join(addrs, ","), "--duration", "3s", "--json", "--key-file", key}
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
	if rs.Decided < 120 || rs.Hashes == 0 || rs.Error != "" || rs.AuthFailures != 0 {
		t.Errorf("relay: %+v", rs)
	}
	t.Logf("relay: %+v", rs)
}

// lockstepKeyFile writes a match key file, as "snapwire token keygen" does.
func lockstepKeyFile(t *testing.T) string {
	t.Helper()
	k, err := token.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "match.key")
	if err := os.WriteFile(path, []byte(k.String()+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// "snapwire lockstep" is secure by default: without a key file it refuses
// to start unless told --insecure, and the two exclude each other.
func TestLockstepNeedsKey(t *testing.T) {
	peers := "127.0.0.1:1,127.0.0.1:2"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--peers", peers}, "--key-file"},
		{[]string{"--peers", peers, "--serve", "127.0.0.1:3"}, "--insecure"},
		{[]string{"--peers", peers, "--insecure", "--key-file", lockstepKeyFile(t)}, "exclude each other"},
		{[]string{"--peers", peers, "--key-file", filepath.Join(t.TempDir(), "none")}, "--key-file"},
	} {
		err := runLockstep(c.args, &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: err %v, want one naming %q", c.args, err, c.want)
		}
	}
}
