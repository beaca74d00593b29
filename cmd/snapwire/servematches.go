package main

// "serve --matches N": many matches in one process on one socket
// (server.Host, issue 25 part 2, "Many matches per process"), each its own
// game instance, map, game id and --max-clients slots, named "1".."N".
// With N = 1 (the default) the process serves one default match named ""
// through server.Listen, as before.

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/snapwire/snapwire/cmd/internal/servermetrics"
	"github.com/snapwire/snapwire/internal/refgame"
	"github.com/snapwire/snapwire/internal/serverhook"
	"github.com/snapwire/snapwire/server"
)

// maxServeMatches bounds --matches: 256 matches of 8 arena players hold
// 2,048 players, twice what the scale section of BENCHMARKS.md measured
// one process to carry (128 × 8).
const maxServeMatches = 256

// matchName is the name of the i-th (from 1) match --matches creates.
func matchName(i int) string { return strconv.Itoa(i) }

// hostedMatch is what serve keeps of one match beside its Server: its
// slots (a Server does not report them) and the arena's world (for the
// query answers' scores), nil for the crowd.
type hostedMatch struct {
	slots int
	world *refgame.World
}

// hostedMatches are serve's matches by name. It is used only on the
// Runner's goroutine (inside Runner.DoHost), as the Host itself.
type hostedMatches struct {
	game   string        // --game
	cfg    server.Config // each match's configuration but its slots
	byName map[string]hostedMatch
	// ended, endedHook and endedTotals are the counters of the matches
	// ended, for the process's totals (hostStats, the metrics).
	ended       server.Stats
	endedHook   serverhook.Stats
	endedTotals server.Totals
}

func newHostedMatches(o serveOptions, cfg server.Config) *hostedMatches {
	return &hostedMatches{game: o.game, cfg: cfg, byName: make(map[string]hostedMatch)}
}

// create starts a match named name on h: a new instance of the game with
// settings and slots player slots.
func (m *hostedMatches) create(now time.Duration, h *server.Host, name, settings string, slots int) (*server.Server, error) {
	g, world := serveGame(m.game)
	cfg := m.cfg
	cfg.MaxClients = slots
	s, err := h.Create(now, name, cfg, g, settings)
	if err != nil {
		return nil, err
	}
	m.byName[name] = hostedMatch{slots: slots, world: world}
	return s, nil
}

// add records a match created elsewhere (server.Listen's default match).
func (m *hostedMatches) add(name string, slots int, world *refgame.World) {
	m.byName[name] = hostedMatch{slots: slots, world: world}
}

// end ends the match named name on h: its clients get the disconnect.
func (m *hostedMatches) end(now time.Duration, h *server.Host, name string) error {
	s := h.Match(name)
	if err := h.End(now, name); err != nil {
		return err
	}
	delete(m.byName, name)
	addStats(&m.ended, s.Stats()) // with the disconnects End made
	servermetrics.AddStats(&m.endedHook, serverhook.ServerStats(s))
	servermetrics.AddTotals(&m.endedTotals, s.Totals())
	return nil
}

// metricsSource is what serve's metrics read: the runner, and the
// counters of the matches ended (servermetrics.EndedSource).
type metricsSource struct {
	*server.Runner
	hm *hostedMatches
}

// Ended runs on the runner's goroutine (the Collector calls it inside
// DoHost), as everything that touches hm.
func (m metricsSource) Ended() (serverhook.Stats, server.Totals) {
	return m.hm.endedHook, m.hm.endedTotals
}

// freeName is the admin interface's name for a match created without
// one: the lowest number from 1 that h has no match of (the loop ends by
// len(h.Matches())+1).
func (m *hostedMatches) freeName(h *server.Host) string {
	for i := 1; ; i++ {
		if h.Match(matchName(i)) == nil {
			return matchName(i)
		}
	}
}

// slots is the sum of the slots of h's matches.
func (m *hostedMatches) slots(h *server.Host) int {
	n := 0
	for _, name := range h.Matches() {
		n += m.byName[name].slots
	}
	return n
}

// errNoHost is createMatches's error when the runner stopped first.
var errNoHost = errors.New("serve: the server stopped before its matches were created")

// createMatches creates the matches "1".."n" on r's host, each a new game
// instance with settings and o.maxClients slots (Runner.DoHost waits for
// Run to start).
func createMatches(ctx context.Context, r *server.Runner, hm *hostedMatches, n int, settings string, slots int) error {
	var err error
	ran := r.DoHost(ctx, func(now time.Duration, h *server.Host) {
		for i := 1; i <= n && err == nil; i++ {
			_, err = hm.create(now, h, matchName(i), settings, slots)
		}
	})
	if err != nil {
		return fmt.Errorf("creating match: %w", err)
	}
	if !ran {
		return errNoHost
	}
	return nil
}
