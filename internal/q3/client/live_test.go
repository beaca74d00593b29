package client

import (
	"context"
	"fmt"
	"io"
	"net/netip"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/snapwire/snapwire/internal/acceptance"
	"github.com/snapwire/snapwire/internal/oaserver"
	"github.com/snapwire/snapwire/internal/q3/capture"
	"github.com/snapwire/snapwire/internal/q3/demo"
	"github.com/snapwire/snapwire/internal/q3/msg"
)

// TestLiveOpenArena connects the client to a real OpenArena dedicated
// server with two bots for 30 s, once in protocol 71 (checksummed
// framing) and once in plain protocol 68 (legacy framing, XOR), in
// parallel on two servers. It skips without openarena-server unless
// SNAPWIRE_REQUIRE_Q3=1.
func TestLiveOpenArena(t *testing.T) {
	acceptance.Require(t, "q3live")
	oaserver.Need(t, oaserver.Binary)
	for _, proto := range []int{71, 68} {
		t.Run(fmt.Sprint("protocol", proto), func(t *testing.T) {
			t.Parallel()
			liveSession(t, proto)
		})
	}
}

func liveSession(t *testing.T, proto int) {
	d := 30 * time.Second
	if dl, ok := t.Deadline(); ok {
		d = min(d, time.Until(dl)-20*time.Second)
	}
	if d < 5*time.Second {
		t.Fatalf("test deadline too close for a live session (%v)", d)
	}
	srv := oaserver.Start(t, oaserver.Options{Protocol68: proto == 68, Bots: []string{"Liz", "Dark", "Cyber-Garg"}})
	name := fmt.Sprintf("live%d", proto)
	text := fmt.Sprintf("snapwire live test %d", proto)
	// Our player runs forward while turning a full circle about every 8.7 s,
	// so that it meets the bots: standing still at its spawn point it may
	// never have one in view (its snapshots carry only what it can see).
	wander := func(cmd *msg.UserCmd) {
		cmd.ForwardMove = 127
		cmd.Angles[1] = cmd.ServerTime / 8 & 0xffff
	}
	cn, err := Dial(Config{Name: name, Protocol: proto, Seed: uint64(proto), Commands: []string{"say " + text}, Input: wander}, netip.AddrPort{}, srv.Addr)
	if err != nil {
		t.Fatal(err)
	}
	defer cn.Close()
	demoPath := filepath.Join(t.TempDir(), fmt.Sprintf("live.dm_%d", proto))
	df, err := os.Create(demoPath)
	if err != nil {
		t.Fatal(err)
	}
	defer df.Close()
	if err := cn.Record(df); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), d+10*time.Second)
	defer cancel()
	if err := cn.Run(ctx, d, nil); err != nil {
		t.Fatalf("run: %v", err)
	}
	records, err := cn.StopRecord()
	if err != nil {
		t.Fatal(err)
	}
	st := cn.Stats()
	checkDemo(t, demoPath, records, st.Snapshots)
	t.Logf("%v protocol %d for %v: %d snapshots, server time %d..%d, %d parse errors, %d entities seen, %d moved (%d players), bytes in %d out %d, packets in %d out %d, usercmds %d, ping %d ms",
		srv.Addr, proto, d, st.Snapshots, st.ServerTimeFirst, st.ServerTimeLast, st.ParseErrors, st.EntitiesSeen,
		st.EntitiesMoved, st.PlayersMoved, st.BytesIn, st.BytesOut, st.PacketsIn, st.PacketsOut, st.Usercmds, st.PingMs)
	if st.ParseErrors != 0 || st.NetchanErrors != 0 {
		t.Errorf("parse errors %d, netchan errors %d: %v", st.ParseErrors, st.NetchanErrors, st.Errors)
	}
	// sv_fps 20, snaps 20: 20 snapshots a second; allow the handshake.
	want := int(d.Seconds()*20) - 100
	if d == 30*time.Second {
		want = 500
	}
	if st.Snapshots < want || st.InvalidSnapshots != 0 || st.TimeNotRising != 0 {
		t.Errorf("snapshots %d (want >= %d), invalid %d, server time not rising %d", st.Snapshots, want, st.InvalidSnapshots, st.TimeNotRising)
	}
	if span := st.ServerTimeLast - st.ServerTimeFirst; span < int32(d.Milliseconds())-5000 {
		t.Errorf("server time advanced %d ms in %v", span, d)
	}
	if st.PlayersMoved == 0 {
		t.Errorf("no bot seen moving (entities seen %d, moved %d)", st.EntitiesSeen, st.EntitiesMoved)
	}
	if st.CommandTimeLast < st.ServerTimeLast-2000 {
		t.Errorf("server ran our user commands up to %d, server time %d", st.CommandTimeLast, st.ServerTimeLast)
	}
	if st.ClientCommandAck < 1 {
		t.Errorf("the server acknowledged %d of %d client commands", st.ClientCommandAck, st.ClientCommands)
	}
	wctx, wcancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer wcancel()
	line := "say: " + name + ": " + text
	if !srv.WaitLog(wctx, line) {
		t.Errorf("server log lacks %q", line)
	}
	if !srv.WaitLog(wctx, name+"^7 disconnected") {
		t.Errorf("server log does not show our disconnect")
	}
}

// checkDemo decodes a recorded demo: a gamestate first, then the
// snapshots, no parse error.
func checkDemo(t *testing.T, path string, records, snapshots int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	first, err := demo.NewReader(f).Next()
	if err != nil {
		t.Fatal(err)
	}
	var st msg.ClientState
	m, err := st.ParseServerMessage(first.Data, first.Sequence)
	if err != nil || len(m.Ops) != 1 || m.Ops[0].Op() != msg.SvcGamestate {
		t.Fatalf("first demo record: %v %+v", err, m)
	}
	f.Seek(0, io.SeekStart)
	sum, err := capture.DecodeDemo(f, capture.Options{})
	if err != nil || sum.ParseErrors != 0 || sum.Messages != records || sum.Snapshots < snapshots-5 || sum.InvalidSnapshots != 0 {
		t.Fatalf("demo %s: %v, %d records (wrote %d), %d snapshots (client saw %d), %d invalid, errors %v",
			path, err, sum.Messages, records, sum.Snapshots, snapshots, sum.InvalidSnapshots, sum.Errors)
	}
	t.Logf("demo %s: %d records, %d snapshots", filepath.Base(path), sum.Messages, sum.Snapshots)
}
