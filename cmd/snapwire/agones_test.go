package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/snapwire/snapwire/agones"
	"github.com/snapwire/snapwire/internal/acceptance"
	"github.com/snapwire/snapwire/internal/agonestest"
)

// Acceptance (Agones): "serve --agones" against a fake sidecar
// for a match that runs to its end (--match-duration): Ready, Health,
// both bots' connects and disconnects, Shutdown; the sidecar fails for
// 10 s of the match and the bots lose no snapshot over it (each receives
// its 20 a second).
//
// Guards against: the game loop waiting on the sidecar (snapshots would
// stop during the outage), player reports lost in the outage.
func TestServeAgones(t *testing.T) {
	acceptance.Require(t, "agones-process")
	if testing.Short() {
		t.Skip("a 13 s match")
	}
	f := agonestest.New()
	defer f.Close()
	u, _ := url.Parse(f.URL)
	t.Setenv(agones.EnvPort, u.Port())
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	keyFile := writeKeyFile(t)
	var srvOut syncBuffer
	srvDone := make(chan error, 1)
	o, err := parseServeFlags([]string{"--listen", "127.0.0.1:0", "--key-file", keyFile, "--max-clients", "4", "--status", "0", "--match-duration", "14s"})
	if err != nil || !o.agones {
		t.Fatalf("flags: %v, agones %v (%s set)", err, o.agones, agones.EnvPort)
	}
	go func() { srvDone <- serve(ctx, o, &srvOut) }()
	addr := waitMatch(&srvOut, listenRE, 5*time.Second)
	if addr == "" {
		t.Fatalf("server did not start:\n%s", srvOut.String())
	}
	var wg sync.WaitGroup
	outs := make([]bytes.Buffer, 2)
	errs := make([]error, 2)
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o := botOptions{connect: addr, name: "ag" + string(rune('a'+i)), seed: uint64(40 + i), duration: 12 * time.Second, json: true, keyFile: keyFile}
			errs[i] = playBot(ctx, o, &outs[i])
		}()
	}
	time.Sleep(1500 * time.Millisecond)
	f.SetFailing(true)
	time.Sleep(10 * time.Second)
	f.SetFailing(false)
	wg.Wait()
	if err := <-srvDone; err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		var s botSummary
		if errs[i] != nil || json.Unmarshal(outs[i].Bytes(), &s) != nil {
			t.Fatalf("bot %d: %v\n%s", i, errs[i], outs[i].String())
		}
		// 12 s at 20 Hz, less the handshake: no snapshot lost to the outage.
		if s.SnapshotsReceived < 230 || s.SnapshotsLost != 0 {
			t.Errorf("bot %d: %d snapshots received, %d lost", i, s.SnapshotsReceived, s.SnapshotsLost)
		}
	}
	calls := f.Calls()
	joined := strings.Join(calls, "\n")
	if index := func(p string) int {
		for i, c := range calls {
			if strings.HasPrefix(c, p) {
				return i
			}
		}
		return -1
	}; index("POST /ready") < 0 || index("POST /health") < index("POST /ready") ||
		strings.Count(joined, "/alpha/player/connect") != 2 || strings.Count(joined, "/alpha/player/disconnect") != 2 ||
		calls[len(calls)-1] != "POST /shutdown" || f.Failed() == 0 {
		t.Errorf("%d calls failed during the outage; calls:\n%s", f.Failed(), joined)
	}
	t.Logf("sidecar: %d calls, %d failed during the 10 s outage", len(calls), f.Failed())
}
