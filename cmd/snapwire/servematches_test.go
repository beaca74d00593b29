package main

import (
	"context"
	"errors"
	"net/http"
	"net/netip"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/snapwire/snapwire/agones"
	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/acceptance"
	"github.com/snapwire/snapwire/internal/agonestest"
	"github.com/snapwire/snapwire/internal/refgame"
	"github.com/snapwire/snapwire/internal/testwait"
	"github.com/snapwire/snapwire/token"
)

// --matches: 1 by default (one default match, as before), 1..256.
func TestServeMatchesFlag(t *testing.T) {
	base := "--listen 127.0.0.1:0 --insecure "
	if o, err := parseServeFlags(strings.Fields(base)); err != nil || o.matches != 1 {
		t.Errorf("default: %d, %v", o.matches, err)
	}
	if o, err := parseServeFlags(strings.Fields(base + "--matches 128")); err != nil || o.matches != 128 {
		t.Errorf("128: %d, %v", o.matches, err)
	}
	for _, v := range []string{"0", "-1", "257"} {
		if _, err := parseServeFlags(strings.Fields(base + "--matches " + v)); err == nil {
			t.Errorf("--matches %s accepted", v)
		}
	}
	if _, err := parseServeFlags(strings.Fields(base + "--log-level loud")); err == nil {
		t.Error("--log-level loud accepted")
	}
}

// dialMatch connects an arena client to the match named match at addr and
// returns once it is connected or disconnected (at most limit); it leaves.
func dialMatch(ctx context.Context, t *testing.T, addr, match string, limit time.Duration) (game.GameID, client.State, error) {
	t.Helper()
	id, state, leave, err := joinMatch(ctx, t, addr, match, limit)
	leave()
	return id, state, err
}

// joinMatch is dialMatch whose client stays until leave.
func joinMatch(ctx context.Context, t *testing.T, addr, match string, limit time.Duration) (game.GameID, client.State, func(), error) {
	t.Helper()
	r, err := client.Dial(addr, client.Config{Name: "m" + match, Match: match}, refgame.NewGame(),
		client.InputFunc(func(client.Input) game.UserCmd { return game.UserCmd{} }))
	if err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- r.Run(cctx) }()
	leave := func() { cancel(); <-done }
	var (
		id    game.GameID
		state client.State
		cerr  error
	)
	testwait.Until(limit, func() bool {
		read := func(c *client.Client) { id, state, cerr = c.GameID(), c.State(), c.Err() }
		if !r.Do(cctx, func(_ time.Duration, c *client.Client) { read(c) }) {
			r.After(read) // Run returned: the client failed
		}
		return state == client.Connected || state == client.Disconnected
	})
	return id, state, leave, cerr
}

// Real loopback UDP (acceptance run "matches"): serve --matches 3 hosts
// matches "1", "2" and "3" on one socket, each its own game (its own game
// id); a client naming one plays in it, and one naming no match (the
// default, which --matches N > 1 has not) is refused.
func TestServeMatches(t *testing.T) {
	acceptance.Require(t, "matches")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	o, err := parseServeFlags(strings.Fields("--listen 127.0.0.1:0 --insecure --matches 3 --max-clients 4 --status 200ms --metrics 127.0.0.1:0 --admin 127.0.0.1:0 --log-level debug"))
	if err != nil {
		t.Fatal(err)
	}
	addr, srvOut := startServe(ctx, t, o)
	ids := map[game.GameID]string{}
	for _, m := range []string{"1", "3"} {
		id, state, err := dialMatch(ctx, t, addr, m, 5*time.Second)
		if state != client.Connected {
			t.Fatalf("match %q: state %v, %v", m, state, err)
		}
		if other, ok := ids[id]; ok {
			t.Errorf("matches %q and %q share game id %v", other, m, id)
		}
		ids[id] = m
	}
	_, state, err := dialMatch(ctx, t, addr, "", 5*time.Second)
	var refused *client.RefusedError
	if state != client.Disconnected || !errors.As(err, &refused) {
		t.Errorf("default match on --matches 3: state %v, %v\n%s", state, err, srvOut.String())
	}
	if waitMatch(srvOut, statusMatchesRE, 2*time.Second) == "" || waitMatch(srvOut, statusMatch2RE, time.Second) == "" {
		t.Errorf("no summary status line, or none for match 2 at debug level:\n%s", srvOut.String())
	}
	// The metrics: each match's series under its name, the process's
	// totals their sum.
	maddr := waitMatch(srvOut, metricsRE, time.Second)
	m := metricValues(httpGet(t, "http://"+maddr+"/metrics"))
	sum := 0.0
	for _, name := range []string{"1", "2", "3"} {
		f, ok := m[`snapwire_match_frames_total{match="`+name+`"}`]
		if !ok || f == 0 {
			t.Errorf("match %s: frames %v (present %v)", name, f, ok)
		}
		sum += f
	}
	if m["snapwire_matches"] != 3 || m["snapwire_connects_total"] != 2 {
		t.Errorf("matches %v, connects %v", m["snapwire_matches"], m["snapwire_connects_total"])
	}
	if m["snapwire_frames_total"] != sum {
		t.Errorf("process frames %v, the matches' sum %v (one read)", m["snapwire_frames_total"], sum)
	}

	// The admin interface: a client plays in a match created while the
	// server runs, and ending it disconnects the client with the reason.
	admin := "http://" + waitMatch(srvOut, adminRE, time.Second)
	if code, body := adminCall(t, "POST", admin+"/matches", `{"name":"late","slots":2}`, ""); code != http.StatusCreated {
		t.Fatalf("POST late: %d %s", code, body)
	}
	r, err := client.Dial(addr, client.Config{Name: "late", Match: "late"}, refgame.NewGame(),
		client.InputFunc(func(client.Input) game.UserCmd { return game.UserCmd{} }))
	if err != nil {
		t.Fatal(err)
	}
	runDone := make(chan error, 1)
	go func() { runDone <- r.Run(ctx) }()
	testwait.Until(5*time.Second, func() bool {
		r.Do(ctx, func(_ time.Duration, c *client.Client) { state = c.State() })
		return state == client.Connected
	})
	if ms := listMatches(t, admin, ""); len(ms) != 4 || ms[3].Name != "late" || ms[3].Players != 1 {
		t.Errorf("matches with the late one: %+v", ms)
	}
	if code, body := adminCall(t, "DELETE", admin+"/matches/late", "", ""); code != http.StatusNoContent {
		t.Fatalf("DELETE late: %d %s", code, body)
	}
	select {
	case <-runDone:
	case <-time.After(5 * time.Second):
		t.Fatal("the client of the ended match is still running")
	}
	var cerr error
	r.After(func(c *client.Client) { state, cerr = c.State(), c.Err() })
	if !errors.As(cerr, &refused) || refused.Reason != client.ReasonShutdown {
		t.Errorf("client of the ended match: %v, %v", state, cerr)
	}
	if waitMatch(srvOut, regexp.MustCompile(`msg="match ended" (match=late players=1)`), time.Second) == "" {
		t.Errorf("no log line for the end:\n%s", srvOut.String())
	}
}

var adminRE = regexp.MustCompile(`msg=admin url=http://(127\.0\.0\.1:\d+)/matches`)

var (
	statusMatchesRE = regexp.MustCompile(`level=INFO msg=status (matches=3) clients=\d+ slots=12 `)
	statusMatch2RE  = regexp.MustCompile(`level=DEBUG msg=status (match=2) frame=\d+ clients=\d+ slots=4 `)
)

// Real loopback UDP (acceptance run "matches"): serve --matches 3 --agones
// reports the process as a whole to the sidecar: the capacity is the
// matches' slots (3 × 4) and the players those of every match.
func TestServeMatchesAgones(t *testing.T) {
	acceptance.Require(t, "matches")
	f := agonestest.New()
	defer f.Close()
	u, _ := url.Parse(f.URL)
	t.Setenv(agones.EnvPort, u.Port())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	o, err := parseServeFlags(strings.Fields("--listen 127.0.0.1:0 --insecure --matches 3 --max-clients 4 --status 0"))
	if err != nil || !o.agones {
		t.Fatalf("flags: %v, agones %v", err, o.agones)
	}
	addr, _ := startServe(ctx, t, o)
	for _, m := range []string{"1", "3"} {
		_, state, leave, err := joinMatch(ctx, t, addr, m, 5*time.Second)
		defer leave()
		if state != client.Connected {
			t.Fatalf("match %q: state %v, %v", m, state, err)
		}
	}
	// The agent reports the players every 3 s.
	var joined string
	testwait.Until(10*time.Second, func() bool {
		joined = strings.Join(f.Calls(), "\n")
		return strings.Count(joined, "/alpha/player/connect") == 2
	})
	if strings.Count(joined, "/alpha/player/connect") != 2 || !strings.Contains(joined, `PUT /alpha/player/capacity {"count":"12"}`) {
		t.Errorf("sidecar calls:\n%s", joined)
	}
}

// Real loopback UDP (acceptance run "matches"): a secure serve --matches 2
// admits a token to the match it names, and refuses one naming a match
// the process does not host (sealed, so the client believes it at once).
func TestServeMatchesSecure(t *testing.T) {
	acceptance.Require(t, "matches")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	keyFile := writeKeyFile(t)
	key, err := readKeyFile(keyFile)
	if err != nil {
		t.Fatal(err)
	}
	o, err := parseServeFlags(strings.Fields("--listen 127.0.0.1:0 --key-file " + keyFile + " --matches 2 --status 0"))
	if err != nil {
		t.Fatal(err)
	}
	addr, _ := startServe(ctx, t, o)
	for i, c := range []struct {
		match string
		want  client.State
	}{{"2", client.Connected}, {"9", client.Disconnected}} {
		tok, err := token.Issue(key, token.Params{ProtocolID: arenaProtocolID, ClientID: uint64(100 + i),
			Servers: []netip.AddrPort{netip.MustParseAddrPort(addr)}, Match: c.match}, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		r, err := client.Dial(addr, client.Config{Name: "s" + c.match, Token: tok}, refgame.NewGame(),
			client.InputFunc(func(client.Input) game.UserCmd { return game.UserCmd{} }))
		if err != nil {
			t.Fatal(err)
		}
		cctx, stop := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { done <- r.Run(cctx) }()
		var state client.State
		var cerr error
		testwait.Until(5*time.Second, func() bool {
			read := func(c *client.Client) { state, cerr = c.State(), c.Err() }
			if !r.Do(cctx, func(_ time.Duration, c *client.Client) { read(c) }) {
				r.After(read)
			}
			return state == client.Connected || state == client.Disconnected
		})
		stop()
		<-done
		var refused *client.RefusedError
		if state != c.want || (c.want == client.Disconnected && (!errors.As(cerr, &refused) || refused.Reason != client.ReasonNoSuchMatch)) {
			t.Errorf("token for match %q: %v, %v", c.match, state, cerr)
		}
	}
}

// startServe runs serve with o until the test ends (or ctx does) and
// returns its address once it logged "listening", and its output.
func startServe(ctx context.Context, t *testing.T, o serveOptions) (string, *syncBuffer) {
	t.Helper()
	srvCtx, stopSrv := context.WithCancel(ctx)
	srvOut := &syncBuffer{}
	srvDone := make(chan error, 1)
	go func() { srvDone <- serve(srvCtx, o, srvOut) }()
	t.Cleanup(func() {
		stopSrv()
		if err := <-srvDone; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	addr := waitMatch(srvOut, listenRE, 10*time.Second)
	if addr == "" {
		t.Fatalf("server did not start:\n%s", srvOut.String())
	}
	return addr, srvOut
}
