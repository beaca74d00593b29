package main

import (
	"net/netip"
	"strings"
	"testing"
	"time"

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
