package main

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/snapwire/snapwire/internal/acceptance"
	"github.com/snapwire/snapwire/internal/refgame"
	"github.com/snapwire/snapwire/internal/serverhook"
	"github.com/snapwire/snapwire/server"
)

// A server kicks a --json bot that has acknowledged at least 10
// snapshots: the bot's summary counts the snapshots and bytes it received
// before the kick, says it is disconnected and why.
//
// Guards against: a summary taken from the last status line (none with
// --json or --status 0), which reported 0 snapshots and 0 kbit/s for a
// bot the server disconnected (issue 21).
//
// Real loopback UDP (the bot runs client.Dial's Runner): acceptance run
// "bot-kicked". The assertions do not depend on timing.
func TestBotSummaryAfterKick(t *testing.T) {
	acceptance.Require(t, "bot-kicked")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	srv, err := server.Listen("127.0.0.1:0", server.Config{ProtocolID: arenaProtocolID}, refgame.NewGame(), refgame.Config{}.String())
	if err != nil {
		t.Fatal(err)
	}
	srvCtx, stopSrv := context.WithCancel(ctx)
	srvDone := make(chan error, 1)
	go func() { srvDone <- srv.Run(srvCtx) }()
	defer func() {
		stopSrv()
		<-srvDone
	}()

	var out bytes.Buffer
	botDone := make(chan error, 1)
	go func() {
		botDone <- playBot(ctx, botOptions{connect: srv.Addr().String(), name: "kicked", seed: 1, json: true}, &out)
	}()
	// Kick it once the server has applied 10 of its acknowledgements.
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	var acked uint64
	for acked < 10 {
		select {
		case <-ctx.Done():
			t.Fatalf("the bot acknowledged %d snapshots", acked)
		case err := <-botDone:
			t.Fatalf("the bot ended before the kick: %v\n%s", err, out.String())
		case <-tick.C:
		}
		srv.Do(ctx, func(now time.Duration, s *server.Server) {
			if cs, ok := serverhook.Client(s, 0); ok {
				if acked = cs.AcksApplied; acked >= 10 {
					s.Kick(now, 0)
				}
			}
		})
	}
	err = <-botDone
	var s botSummary
	if jerr := json.Unmarshal(out.Bytes(), &s); jerr != nil {
		t.Fatalf("%v: %s", jerr, out.String())
	}
	if err == nil || s.Error == "" || s.State != "disconnected" {
		t.Errorf("err %v, state %q, error %q: want a disconnected bot that says why", err, s.State, s.Error)
	}
	if s.SnapshotsReceived < acked || s.KbpsDown <= 0 || s.KbpsUp <= 0 || s.Frame <= 0 {
		t.Errorf("summary after the kick: %d snapshots (the server applied %d acks), %.1f kbit/s down, %.1f up, frame %d",
			s.SnapshotsReceived, acked, s.KbpsDown, s.KbpsUp, s.Frame)
	}
}
