package agones_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/snapwire/snapwire/agones"
	"github.com/snapwire/snapwire/internal/agonestest"
	"github.com/snapwire/snapwire/internal/testwait"
)

// players is a match's player list, changed by the test.
type players struct {
	mu  sync.Mutex
	ids []string
}

func (p *players) set(ids ...string) { p.mu.Lock(); p.ids = ids; p.mu.Unlock() }
func (p *players) get() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.ids)
}

// waitFor polls cond; only a hang fails it.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	if !testwait.Until(testwait.Hang, cond) {
		t.Fatalf("timed out waiting for %s", what)
	}
}

func index(calls []string, prefix string) int {
	return slices.IndexFunc(calls, func(c string) bool { return strings.HasPrefix(c, prefix) })
}

// Acceptance (Agones): the fake sidecar records Ready → Health
// → (Allocated, with its labels handed over) → player connects and
// disconnects → Shutdown for a match that runs to its end.
//
// Guards against: players reported before Ready, a missed Allocated,
// players left connected at Shutdown, calls in the wrong order.
func TestAgentLifecycle(t *testing.T) {
	f := agonestest.New()
	defer f.Close()
	var ps players
	allocated := make(chan agones.GameServer, 1)
	a := &agones.Agent{
		Client: agones.New(f.URL), Players: ps.get, Capacity: 16,
		Labels:         map[string]string{"map": "arena3x3"},
		OnAllocated:    func(gs agones.GameServer) { allocated <- gs },
		HealthInterval: 20 * time.Millisecond, Interval: 10 * time.Millisecond,
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx, time.Second) }()
	waitFor(t, "ready and a health ping", func() bool { return index(f.Calls(), "POST /health") >= 0 })
	ps.set("7", "8")
	waitFor(t, "two connects", func() bool { return strings.Count(strings.Join(f.Calls(), "\n"), "/alpha/player/connect") == 2 })
	f.Allocate(map[string]string{"mode": "duel"})
	select {
	case gs := <-allocated:
		if gs.Status.State != "Allocated" || gs.ObjectMeta.Labels["mode"] != "duel" || gs.ObjectMeta.Labels["agones.dev/sdk-map"] != "arena3x3" {
			t.Errorf("allocated game server %+v", gs)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("OnAllocated not called")
	}
	ps.set("8")
	waitFor(t, "a disconnect", func() bool { return index(f.Calls(), `POST /alpha/player/disconnect {"playerID":"7"}`) >= 0 })
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	calls := f.Calls()
	order := []string{
		`PUT /alpha/player/capacity {"count":"16"}`, `PUT /metadata/label {"key":"map","value":"arena3x3"}`, "POST /ready", "POST /health",
		`POST /alpha/player/connect {"playerID":"7"}`, `POST /alpha/player/disconnect {"playerID":"7"}`,
		`POST /alpha/player/disconnect {"playerID":"8"}`, "POST /shutdown",
	}
	last := -1
	for _, c := range order {
		i := index(calls, c)
		if i <= last {
			t.Errorf("%q at %d, after %d: calls %q", c, i, last, calls)
		}
		last = i
	}
	if calls[len(calls)-1] != "POST /shutdown" || index(calls, `POST /alpha/player/connect {"playerID":"8"}`) < 0 {
		t.Errorf("calls %q", calls)
	}
}

// An outage of the sidecar: calls are retried with backoff, players that
// came and went meanwhile are reported when it is back, nothing lost.
//
// Guards against: giving up on a failed call (the player would never be
// reported), an agent that blocks while the sidecar is down.
func TestAgentSidecarOutage(t *testing.T) {
	f := agonestest.New()
	defer f.Close()
	f.SetFailing(true) // down from the start: Ready itself must be retried
	var ps players
	a := &agones.Agent{Client: agones.New(f.URL), Players: ps.get, HealthInterval: 20 * time.Millisecond, Interval: 10 * time.Millisecond}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx, time.Second) }()
	waitFor(t, "Ready retried while the sidecar is down", func() bool { return f.Failed() >= 3 })
	f.SetFailing(false)
	waitFor(t, "ready", func() bool { return index(f.Calls(), "POST /ready") >= 0 })
	f.SetFailing(true)
	n := f.Failed()
	ps.set("1", "2")
	waitFor(t, "the players' reports failing", func() bool { return f.Failed() >= n+2 })
	ps.set("2", "3") // 1 came and went during the outage
	n = f.Failed()
	waitFor(t, "more failed calls after the change", func() bool { return f.Failed() >= n+1 })
	f.SetFailing(false)
	waitFor(t, "the players after the outage", func() bool {
		c := f.Calls()
		return index(c, `POST /alpha/player/connect {"playerID":"2"}`) >= 0 && index(c, `POST /alpha/player/connect {"playerID":"3"}`) >= 0
	})
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	calls := f.Calls()
	if f.Failed() < 5 || index(calls, `POST /alpha/player/connect {"playerID":"1"}`) >= 0 || calls[len(calls)-1] != "POST /shutdown" {
		t.Errorf("%d failed calls; calls %q", f.Failed(), calls)
	}
}
