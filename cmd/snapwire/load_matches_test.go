package main

import (
	"context"
	"encoding/json"
	"net/netip"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/snapwire/snapwire/internal/acceptance"
	"github.com/snapwire/snapwire/internal/loadgen"
	"github.com/snapwire/snapwire/internal/tokenwire"
)

// load --matches N: client i joins match "1 + i mod N" (serve --matches'
// names), in its connect and in the token the key file issues it; with
// --matches 1 (the default) the default match, as serve's; out-of-range
// values are refused.
func TestLoadMatchesConfig(t *testing.T) {
	o, err := parseLoadFlags(strings.Fields("--clients 40 --matches 16"))
	if err != nil || o.matches != 16 {
		t.Fatalf("%+v, %v", o, err)
	}
	if o, err := parseLoadFlags(nil); err != nil || o.matches != 1 {
		t.Errorf("default --matches %d, %v; want 1", o.matches, err)
	}
	for _, bad := range []string{"--matches 0", "--matches 65537"} {
		if code, _, errOut := cliRun(append([]string{"load"}, strings.Fields(bad)...)...); code != 1 || !strings.Contains(errOut, "--matches") {
			t.Errorf("load %s: exit %d, stderr %q", bad, code, errOut)
		}
	}
	key, err := readKeyFile(writeKeyFile(t))
	if err != nil {
		t.Fatal(err)
	}
	srv := netip.MustParseAddrPort("127.0.0.1:27960")
	opener := tokenwire.NewOpener(tokenwire.Key(key), arenaProtocolID, []netip.AddrPort{srv})
	for _, tc := range []struct {
		matches, client int
		want            string
	}{{16, 0, "1"}, {16, 15, "16"}, {16, 17, "2"}, {128, 1023, "128"}, {2, 5, "2"}, {1, 5, ""}} {
		o.matches = tc.matches
		cfg, err := loadClientConfig(o, &key, srv, time.Minute)(tc.client)
		if err != nil {
			t.Fatal(err)
		}
		p, err := opener.Open(tokenwire.Of(cfg.Token).AppendPrivate(nil), time.Now())
		if err != nil || cfg.Match != tc.want || p.Match != tc.want || p.ClientID != uint64(tc.client)+1 {
			t.Errorf("--matches %d, client %d: connect names %q, token %q (client id %d, %v); want %q",
				tc.matches, tc.client, cfg.Match, p.Match, p.ClientID, err, tc.want)
		}
		insecure, err := loadClientConfig(o, nil, srv, time.Minute)(tc.client)
		if err != nil || insecure.Token != nil || insecure.Match != tc.want {
			t.Errorf("--matches %d, client %d insecure: %q, token %v, %v", tc.matches, tc.client, insecure.Match, insecure.Token, err)
		}
	}
}

// The summary status line of serve --matches 16 (servestatus.go) once
// the host has its matches, and once all 128 clients play.
var (
	statusMatches16RE     = regexp.MustCompile(`msg=status (matches=16) `)
	statusMatches16FullRE = regexp.MustCompile(`msg=status matches=16 (clients=128) slots=128 `)
)

// Acceptance (issue 25, "Many matches per process", run "matches-udp"):
// serve --matches 16 --max-clients 8, secure, on real loopback UDP, and
// load --matches 16 with 128 light clients (8 a match, each with its own
// token naming its match) for 20 s: every client connected and received
// at least 95% of its 20 Hz snapshots (19 a second), in every match, with
// the common base's invariants intact (load's error), and the server
// counted all 128 in its 128 slots.
func TestLoadMatchesUDP(t *testing.T) {
	acceptance.Require(t, "matches-udp")
	const matches, perMatch = 16, 8
	keyFile := writeKeyFile(t)
	o, err := parseServeFlags(strings.Fields("--listen 127.0.0.1:0 --matches 16 --max-clients 8 --status 1s --key-file " + keyFile))
	if err != nil {
		t.Fatal(err)
	}
	addr, srvOut := startServe(context.Background(), t, o)
	// The matches exist once the first status line sums them.
	if waitMatch(srvOut, statusMatches16RE, 10*time.Second) == "" {
		t.Fatalf("server did not start its 16 matches:\n%s", srvOut.String())
	}
	var out strings.Builder
	if err := load(context.Background(), loadOptions{clients: matches * perMatch, matches: matches, connect: addr, keyFile: keyFile,
		duration: 20 * time.Second, cmdRate: 60, ramp: 2 * time.Millisecond, json: true}, &out); err != nil {
		t.Fatal(err, out.String())
	}
	var sum loadgen.Summary
	if err := json.Unmarshal([]byte(out.String()), &sum); err != nil {
		t.Fatal(err)
	}
	w := sum.WorstMatch
	if w == nil {
		t.Fatalf("no worst match in %s", out.String())
	}
	t.Logf("%d clients in %d matches for %.1f s: %d connected, %d failed; snapshots per client per second p5 %.2f, p50 %.2f, min %.2f; "+
		"loss %.4f%%; %.0f bytes/s down per client; the worst match %q: p5 %.2f, min %.2f",
		sum.Clients, len(sum.Matches), sum.DurationS, sum.Connected, sum.Failed, sum.SnapshotRateP5, sum.SnapshotRateP50, sum.SnapshotRateMin,
		100*sum.Loss, sum.BytesInPerClientPerS, w.Match, w.SnapshotRateP5, w.SnapshotRateMin)
	if sum.Connected != matches*perMatch || sum.Failed != 0 || sum.SnapshotRateMin < 19 {
		t.Errorf("connected %d, failed %d (%s), the slowest client %.2f snapshots a second: want all %d at >= 19",
			sum.Connected, sum.Failed, sum.FirstError, sum.SnapshotRateMin, matches*perMatch)
	}
	if len(sum.Matches) != matches {
		t.Fatalf("%d matches in the summary, want %d", len(sum.Matches), matches)
	}
	for _, m := range sum.Matches {
		if m.Clients != perMatch || m.Connected != perMatch || m.SnapshotRateMin < 19 {
			t.Errorf("match %q: %d of %d connected, min %.2f snapshots a second", m.Match, m.Connected, m.Clients, m.SnapshotRateMin)
		}
	}
	if waitMatch(srvOut, statusMatches16FullRE, 0) == "" {
		t.Errorf("no status line counted 128 clients in the 128 slots:\n%s", srvOut.String())
	}
}
