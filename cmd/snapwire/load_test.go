package main

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/snapwire/snapwire/internal/acceptance"
	"github.com/snapwire/snapwire/internal/refgame"
	"github.com/snapwire/snapwire/internal/serverhook"
	"github.com/snapwire/snapwire/server"
)

func TestLoadFlags(t *testing.T) {
	o, err := parseLoadFlags(strings.Fields("--clients 256 --connect localhost:27961 --duration 5m --json"))
	if err != nil || o.clients != 256 || o.connect != "localhost:27961" || o.duration != 5*time.Minute || !o.json || o.cmdRate != 60 {
		t.Errorf("%+v, %v", o, err)
	}
	for _, bad := range []string{"--clients 0", "--clients 65537", "--duration -1s", "--cmd-rate 0", "--ramp 0s"} {
		if code, _, errOut := cliRun(append([]string{"load"}, strings.Fields(bad)...)...); code != 1 || errOut == "" {
			t.Errorf("load %s: exit %d, stderr %q", bad, code, errOut)
		}
	}
	if code, _, errOut := cliRun("load", "--connect", "nosuchhost.invalid:1", "--duration", "1s"); code != 1 || !strings.Contains(errOut, "nosuchhost.invalid") {
		t.Errorf("load --connect nosuchhost.invalid:1: exit %d, stderr %q", code, errOut)
	}
}

// Acceptance (issue 25, snapwire load): 24 light clients with connect
// tokens issued from the key file, against an in-process secure server on
// a name (localhost:P), 3 s: the JSON summary's snake_case keys, every
// client connected with its own token and address, 20 snapshots a second
// each.
func TestLoadSecureJSON(t *testing.T) {
	acceptance.Require(t, "load-udp")
	keyFile := writeKeyFile(t)
	key, err := readKeyFile(keyFile)
	if err != nil {
		t.Fatal(err)
	}
	const n = 24
	srv, err := server.Listen("127.0.0.1:0", server.Config{MaxClients: n, TokenKey: &key, ProtocolID: arenaProtocolID,
		Advanced: server.Advanced{MaxClientsPerIP: 1, VerifyBase: true}}, refgame.NewGame(), refgame.Config{MaxPlayers: n}.String())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	defer func() { cancel(); <-done }()
	var ids []uint64
	var out bytes.Buffer
	// The clients are counted on the server just before the run ends.
	counted := make(chan struct{})
	go func() {
		defer close(counted)
		time.Sleep(2500 * time.Millisecond)
		srv.Do(ctx, func(_ time.Duration, s *server.Server) {
			for _, c := range serverhook.Clients(s) {
				if c.Secure {
					ids = append(ids, c.TokenClientID)
				}
			}
		})
	}()
	addr := "localhost:" + strings.TrimPrefix(srv.Addr().String(), "127.0.0.1:")
	if err := load(context.Background(), loadOptions{clients: n, connect: addr, keyFile: keyFile, duration: 3 * time.Second,
		cmdRate: 60, ramp: 2 * time.Millisecond, json: true}, &out); err != nil {
		t.Fatal(err, out.String())
	}
	<-counted
	t.Log(out.String())
	var m map[string]any
	if err := json.Unmarshal(out.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"clients", "connected", "duration_s", "snapshot_rate_p5", "snapshot_rate_p50", "snapshot_rates", "loss", "rtt_p50_s", "bytes_in", "bytes_out", "base_mismatches"} {
		if _, ok := m[k]; !ok {
			t.Errorf("no key %q in %s", k, out.String())
		}
	}
	if m["connected"] != float64(n) || m["snapshot_rate_p5"].(float64) < 19 {
		t.Errorf("connected %v, snapshot rate p5 %v", m["connected"], m["snapshot_rate_p5"])
	}
	if rates, ok := m["snapshot_rates"].([]any); !ok || len(rates) != n {
		t.Errorf("snapshot_rates %v: want one per client", m["snapshot_rates"])
	}
	slices.Sort(ids)
	if len(slices.Compact(ids)) != n {
		t.Errorf("token client ids on the server: %v, want %d distinct", ids, n)
	}
}
