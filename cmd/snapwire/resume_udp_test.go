package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/acceptance"
	"github.com/snapwire/snapwire/internal/clienthook"
	"github.com/snapwire/snapwire/internal/refgame"
	"github.com/snapwire/snapwire/internal/serverhook"
	"github.com/snapwire/snapwire/internal/udpproxy"
	"github.com/snapwire/snapwire/server"
	"github.com/snapwire/snapwire/token"
)

// resumeBot is an arena bot over real UDP: a client.Dial Runner playing
// refgame's bot AI.
type resumeBot struct {
	r    *client.Runner
	done chan error
}

func dialResumeBot(t *testing.T, ctx context.Context, addr string, tok *token.Token, seed uint64) *resumeBot {
	t.Helper()
	w := refgame.NewGame()
	ai := refgame.NewBot(seed, 0, refgame.BotDeathmatch)
	r, err := client.Dial(addr, client.Config{Name: "resume", Token: tok}, w, client.InputFunc(func(in client.Input) game.UserCmd {
		ai.Client = in.Client
		return ai.Command(w, in.Frame)
	}))
	if err != nil {
		t.Fatal(err)
	}
	b := &resumeBot{r: r, done: make(chan error, 1)}
	go func() { b.done <- r.Run(ctx) }()
	return b
}

// clientNum returns the bot's client number once it is connected.
func (b *resumeBot) clientNum(ctx context.Context) (game.ClientNum, bool) {
	var num game.ClientNum
	var ok bool
	b.r.Do(ctx, func(_ time.Duration, c *client.Client) { num, ok = c.ClientNum(), c.State() == client.Connected })
	return num, ok
}

// startProxy runs a `snapwire proxy` link (internal/udpproxy) on listen
// (port 0: any) to target until the returned stop is called.
func startProxy(t *testing.T, listen, target netip.AddrPort) (netip.AddrPort, func()) {
	t.Helper()
	p, err := udpproxy.New(udpproxy.Config{Listen: listen, Target: target, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	return p.Addr(), func() { cancel(); <-done }
}

// Acceptance (issue 25, reconnection): a bot playing through the proxy is
// cut off for 10 s (the proxy goes away, and comes back with new upstream
// ports: a NAT rebinding); its session times out on both ends, the server
// holds its slot, the game is told nothing, and the bot, dialling again
// with its token, resumes with the same client number, player entity and
// score (frags set on the server before the cut: a ClientConnected or
// ClientDisconnected would zero them), and plays on.
//
// Real loopback UDP and the wall clock: acceptance run "reconnect-udp".
func TestResumeThroughProxy(t *testing.T) {
	acceptance.Require(t, "reconnect-udp")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	key, err := token.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	world := refgame.NewGame() // read only in srv.Do, on the server's goroutine
	srv, err := server.Listen("127.0.0.1:0", server.Config{TokenKey: &key, ProtocolID: arenaProtocolID}, world, refgame.Config{}.String())
	if err != nil {
		t.Fatal(err)
	}
	srvCtx, stopSrv := context.WithCancel(ctx)
	srvDone := make(chan error, 1)
	go func() { srvDone <- srv.Run(srvCtx) }()
	defer func() { stopSrv(); <-srvDone }()

	issue := func(id uint64) *token.Token {
		tok, err := token.Issue(key, token.Params{ProtocolID: arenaProtocolID, ClientID: id, Servers: []netip.AddrPort{srv.Addr()},
			Lifetime: time.Minute, Timeout: 3 * time.Second}, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	proxyAddr, stopProxy := startProxy(t, netip.MustParseAddrPort("127.0.0.1:0"), srv.Addr())
	tok := issue(1)
	cut := dialResumeBot(t, ctx, proxyAddr.String(), tok, 1)
	other := dialResumeBot(t, ctx, srv.Addr().String(), issue(2), 2)
	defer func() { <-other.done }()

	var num game.ClientNum
	for ok := false; !ok; {
		select {
		case <-ctx.Done():
			t.Fatal("the bot did not connect")
		case err := <-cut.done:
			t.Fatalf("the bot ended: %v", err)
		case <-time.After(50 * time.Millisecond):
		}
		num, ok = cut.clientNum(ctx)
	}
	time.Sleep(2 * time.Second)
	var ent game.EntityNum
	srv.Do(ctx, func(_ time.Duration, s *server.Server) {
		// A score of its own that the game would reset on a reconnect.
		world.Score.Slots[num].Frags = 7
		ent, _ = world.PlayerEntity(num)
	})

	stopProxy()
	start := time.Now()
	err = <-cut.done // the session times out on the bot's side (3 s)
	if !errors.Is(err, client.ErrTimeout) {
		t.Fatalf("cut bot: %v, want a timeout", err)
	}
	var reserved int
	for reserved == 0 && time.Since(start) < 8*time.Second {
		time.Sleep(100 * time.Millisecond)
		srv.Do(ctx, func(_ time.Duration, s *server.Server) { reserved = serverhook.ServerStats(s).Reserved })
	}
	if reserved != 1 {
		t.Fatalf("%d slots reserved %v after the cut", reserved, time.Since(start))
	}
	time.Sleep(10*time.Second - time.Since(start))
	proxyAddr, stopProxy = startProxy(t, proxyAddr, srv.Addr())
	defer stopProxy()
	t.Logf("link back after %v", time.Since(start).Round(time.Millisecond))
	back := dialResumeBot(t, ctx, proxyAddr.String(), tok, 1)
	var again game.ClientNum
	for ok := false; !ok; {
		select {
		case <-ctx.Done():
			t.Fatal("the bot did not resume")
		case err := <-back.done:
			t.Fatalf("the bot's resume ended: %v", err)
		case <-time.After(50 * time.Millisecond):
		}
		again, ok = back.clientNum(ctx)
	}
	t.Logf("resumed %v after the cut", time.Since(start).Round(time.Millisecond))
	time.Sleep(3 * time.Second)
	var (
		frags      int32
		entAfter   game.EntityNum
		st         serverhook.Stats
		snapshots  uint64
		mismatches uint64
	)
	srv.Do(ctx, func(_ time.Duration, s *server.Server) {
		frags = world.Score.Slots[num].Frags
		entAfter, _ = world.PlayerEntity(num)
		st = serverhook.ServerStats(s)
	})
	back.r.Do(ctx, func(_ time.Duration, c *client.Client) {
		snapshots, mismatches = c.Stats().SnapshotsReceived, clienthook.CountersOf(c).BaseMismatches
	})
	if again != num || entAfter != ent || frags < 7 {
		t.Errorf("resumed as client %d (was %d), entity %d (was %d), frags %d (were 7)", again, num, entAfter, ent, frags)
	}
	if st.Resumes != 1 || st.Reserved != 0 || st.Disconnects != 0 || st.Connects != 2 {
		t.Errorf("server: %d resumes, %d reserved, %d disconnects, %d connects", st.Resumes, st.Reserved, st.Disconnects, st.Connects)
	}
	if snapshots < 40 || mismatches != 0 {
		t.Errorf("after the resume: %d snapshots in 3 s, %d base mismatches", snapshots, mismatches)
	}
	t.Logf("client %d entity %d frags %d; %d snapshots in the 3 s after the resume", again, entAfter, frags, snapshots)
	cancel()
	<-back.done
}

// Acceptance (issue 25): `snapwire bot --key-file` through the proxy, cut
// off for 12 s (past its token's 10 s timeout), dials again with its token
// and resumes with the same client number and frags; its summary counts the
// resume and its last session's invariants.
func TestBotResumesThroughProxy(t *testing.T) {
	acceptance.Require(t, "reconnect-udp")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	key, err := token.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(t.TempDir(), "key")
	if err := os.WriteFile(keyFile, []byte(key.String()+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// The bot's token names the address it dials, the proxy's: the server
	// lists it among its public addresses. A port free a moment ago.
	free, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	proxyAddr := free.LocalAddr().(*net.UDPAddr).AddrPort()
	free.Close()
	world := refgame.NewGame() // read only in srv.Do, on the server's goroutine
	srv, err := server.Listen("127.0.0.1:0", server.Config{TokenKey: &key, ProtocolID: arenaProtocolID,
		PublicAddrs: []netip.AddrPort{proxyAddr}}, world, refgame.Config{}.String())
	if err != nil {
		t.Fatal(err)
	}
	srvCtx, stopSrv := context.WithCancel(ctx)
	srvDone := make(chan error, 1)
	go func() { srvDone <- srv.Run(srvCtx) }()
	defer func() { stopSrv(); <-srvDone }()
	_, stopProxy := startProxy(t, proxyAddr, srv.Addr())

	var out bytes.Buffer
	botDone := make(chan error, 1)
	go func() {
		botDone <- playBot(ctx, botOptions{connect: proxyAddr.String(), keyFile: keyFile, name: "cut", seed: 1,
			duration: 28 * time.Second, json: true}, &out)
	}()
	var num game.ClientNum
	for connected := false; !connected; {
		select {
		case <-ctx.Done():
			t.Fatal("the bot did not connect")
		case err := <-botDone:
			t.Fatalf("the bot ended: %v\n%s", err, out.String())
		case <-time.After(50 * time.Millisecond):
		}
		srv.Do(ctx, func(_ time.Duration, s *server.Server) {
			if cs := s.AppendClients(nil); len(cs) == 1 && cs[0].InGame {
				num, connected = cs[0].Num, true
				world.Score.Slots[num].Frags = 7
			}
		})
	}
	time.Sleep(2 * time.Second)
	stopProxy()
	time.Sleep(12 * time.Second)
	_, stopProxy = startProxy(t, proxyAddr, srv.Addr())
	defer stopProxy()
	// The frags as the bot resumes (a bot's clean leave at the end of its
	// run zeroes them).
	var (
		frags int32
		st    serverhook.Stats
	)
	for st.Resumes == 0 {
		select {
		case <-ctx.Done():
			t.Fatal("no resume")
		case err := <-botDone:
			t.Fatalf("the bot ended before it resumed: %v\n%s", err, out.String())
		case <-time.After(20 * time.Millisecond):
		}
		srv.Do(ctx, func(_ time.Duration, s *server.Server) {
			frags, st = world.Score.Slots[num].Frags, serverhook.ServerStats(s)
		})
	}
	err = <-botDone
	var sum botSummary
	if jerr := json.Unmarshal(out.Bytes(), &sum); jerr != nil {
		t.Fatalf("%v: %s", jerr, out.String())
	}
	if err != nil || sum.Resumes != 1 || sum.ClientNum != int(num) || sum.SnapshotsReceived < 100 {
		t.Errorf("bot: %v; %d resumes, client %d (was %d), %d snapshots in its last session", err, sum.Resumes, sum.ClientNum, num, sum.SnapshotsReceived)
	}
	if frags != 7 || st.Resumes != 1 || st.Connects != 1 {
		t.Errorf("server: frags %d (were 7), %d resumes, %d connects", frags, st.Resumes, st.Connects)
	}
	t.Logf("bot resumed as client %d: %d snapshots after the resume, frags %d", sum.ClientNum, sum.SnapshotsReceived, frags)
}
