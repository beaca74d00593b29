package client_test

import (
	"testing"
	"time"

	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/clienthook"
	"github.com/snapwire/snapwire/internal/serverhook"
	"github.com/snapwire/snapwire/internal/testgame"
	"github.com/snapwire/snapwire/netsim"
	"github.com/snapwire/snapwire/server"
)

// checkInvariants asserts the common-base and state invariants for every
// client of s.
func checkInvariants(t *testing.T, s *sim) {
	t.Helper()
	for i, sc := range s.cls {
		st := clienthook.CountersOf(sc.c)
		if sc.c.State() != client.Connected {
			t.Errorf("client %d: state %v err %v", i, sc.c.State(), sc.c.Err())
		}
		if sc.stateMismatch != 0 || sc.stateChecks < 100 {
			t.Errorf("client %d: %d of %d entity states differ from the server's", i, sc.stateMismatch, sc.stateChecks)
		}
		if sc.baseMismatch != 0 || sc.baseChecks < 10 {
			t.Errorf("client %d: %d of %d bases differ after apply", i, sc.baseMismatch, sc.baseChecks)
		}
		if st.BaseMismatches != 0 || st.BaseChecks < 10 || st.DecodeErrors != 0 || st.ApplyErrors != 0 {
			t.Errorf("client %d: live checks: %d/%d base mismatches, %d decode errors, %d apply errors",
				i, st.BaseMismatches, st.BaseChecks, st.DecodeErrors, st.ApplyErrors)
		}
		if sc.dupEv != 0 {
			t.Errorf("client %d: %d unreliable events delivered twice", i, sc.dupEv)
		}
	}
}

// Acceptance: 8 clients, 200 ms RTT, 40 ms jitter, 20% loss, 60 s of game:
// bases equal after every apply, entity states equal at every snapshot.
func TestEightClientsLossy(t *testing.T) {
	link := netsim.LinkConfig{Latency: 100 * time.Millisecond, Jitter: 20 * time.Millisecond, Loss: 0.2}
	s := newSim(t, 7, link, server.Config{})
	for i := range 8 {
		s.addClient(i, botWander, client.Config{})
	}
	s.run(60 * time.Second)
	checkInvariants(t, s)
	var recv, ev uint64
	for _, sc := range s.cls {
		st := clienthook.CountersOf(sc.c)
		recv += st.SnapshotsReceived
		ev += st.UnreliableEvents
	}
	if recv < 8*60*20*6/10 || ev == 0 {
		t.Errorf("%d snapshots and %d unreliable events received", recv, ev)
	}
	t.Logf("snapshots received %d, unreliable events %d, server %+v", recv, ev, serverhook.ServerStats(s.srv))
	t.Logf("client 0: %+v", s.cls[0].c.Stats())
}

type counts struct{ run, early, dup uint64 }

func serverCounts(s *sim) []counts {
	var out []counts
	for _, cs := range serverhook.Clients(s.srv) {
		out = append(out, counts{cs.FramesRun, cs.CmdsEarly, cs.Duplicated})
	}
	return out
}

// Acceptance: at 100 ms RTT ± 30 ms jitter, after a 2 s warm-up,
// duplicated commands <= 0.5% of frames and commands early in >= 99%.
func TestLeadControl(t *testing.T) {
	link := netsim.LinkConfig{Latency: 50 * time.Millisecond, Jitter: 30 * time.Millisecond}
	s := newSim(t, 3, link, server.Config{})
	for i := range 4 {
		s.addClient(i, botWander, client.Config{})
	}
	s.run(2 * time.Second)
	before := serverCounts(s)
	s.run(32 * time.Second)
	after := serverCounts(s)
	for i := range after {
		run := after[i].run - before[i].run
		early := after[i].early - before[i].early
		dup := after[i].dup - before[i].dup
		t.Logf("client %d: %d frames, %d early, %d duplicated, lead %v", i, run, early, dup, s.cls[i].c.Stats().Lead)
		if run < 1700 || float64(dup) > 0.005*float64(run) || float64(early) < 0.99*float64(run) {
			t.Errorf("client %d: %d frames, %d early, %d duplicated", i, run, early, dup)
		}
	}
	checkInvariants(t, s)
}

// The clock settles within 2 s after the latency changes (DOOM III §2,
// fig. 4): one-way latency 50 ms -> 100 ms -> 30 ms.
func TestLeadSettles(t *testing.T) {
	s := newSim(t, 5, netsim.LinkConfig{Latency: 50 * time.Millisecond, Jitter: 5 * time.Millisecond}, server.Config{})
	s.addClient(0, botLane, client.Config{})
	s.run(5 * time.Second)
	for _, lat := range []time.Duration{100 * time.Millisecond, 30 * time.Millisecond} {
		s.net.SetDefault(netsim.LinkConfig{Latency: lat, Jitter: 5 * time.Millisecond})
		start := s.now
		s.run(start + 2*time.Second)
		before := serverCounts(s)[0]
		s.run(start + 4*time.Second)
		after := serverCounts(s)[0]
		lead := s.cls[0].c.Stats().Lead
		t.Logf("latency %v: lead %v after 2 s, shift %v; next 2 s: %d frames %d early %d dup",
			lat, lead, clienthook.CountersOf(s.cls[0].c).ClockShift, after.run-before.run, after.early-before.early, after.dup-before.dup)
		if after.dup != before.dup || after.early-before.early != after.run-before.run {
			t.Errorf("latency %v: commands late after settling", lat)
		}
		// Settled: the lead is back near the target (one frame plus jitter).
		if lead < 0 || lead > 60*time.Millisecond {
			t.Errorf("latency %v: lead %v 2 s after the change", lat, lead)
		}
	}
}

// With no loss and nothing the local player cannot foresee, the prediction
// error is exactly 0 (after the clock has settled).
func TestExactPrediction(t *testing.T) {
	t.Run("alone", func(t *testing.T) {
		s := newSim(t, 11, netsim.LinkConfig{Latency: 40 * time.Millisecond, Jitter: 10 * time.Millisecond}, server.Config{})
		s.addClient(0, botLane, client.Config{})
		s.run(3 * time.Second)
		before := s.cls[0].c.Stats()
		s.run(20 * time.Second)
		after := s.cls[0].c.Stats()
		self, others := after.Self.Samples-before.Self.Samples, after.Others.Samples-before.Others.Samples
		if self < 100 || others < 100 || after.Self.Wrong != before.Self.Wrong || after.Others.Wrong != before.Others.Wrong {
			t.Errorf("self %d samples %d wrong, others %d samples %d wrong", self, after.Self.Wrong-before.Self.Wrong,
				others, after.Others.Wrong-before.Others.Wrong)
		}
		checkInvariants(t, s)
	})
	t.Run("never touch", func(t *testing.T) {
		s := newSim(t, 12, netsim.LinkConfig{Latency: 40 * time.Millisecond, Jitter: 10 * time.Millisecond}, server.Config{})
		for i := range 4 {
			s.addClient(i, botLane, client.Config{})
		}
		s.run(3 * time.Second)
		var before []client.Stats
		for _, sc := range s.cls {
			before = append(before, sc.c.Stats())
		}
		s.run(20 * time.Second)
		var othersWrong uint64
		for i, sc := range s.cls {
			after := sc.c.Stats()
			if n := after.Self.Samples - before[i].Self.Samples; n < 100 || after.Self.Wrong != before[i].Self.Wrong {
				t.Errorf("client %d: self %d samples, %d wrong", i, n, after.Self.Wrong-before[i].Self.Wrong)
			}
			othersWrong += after.Others.Wrong - before[i].Others.Wrong
		}
		// Others change their commands, which no client can foresee.
		t.Logf("others mispredicted %d times", othersWrong)
		checkInvariants(t, s)
	})
}

// Acceptance: a late joiner sees every door in its current state through
// saved events, including doors out of its PVS (DOOM III network
// architecture, van Waveren 2006, §5: events saved for late joiners).
//
// Doors toggle on a schedule, so a late joiner that missed the saved events
// still shows a door right whenever the door's toggle count is even. The
// test therefore counts the checks that only a saved event can pass
// (savedOnly: a door the late joiner has never seen, open at the join while
// the map spawns it closed, not toggled since) and fails when there are none.
//
// Guards against (tried): enterGame in server/conn.go not queueing the
// saved events (looping over savedMessages()[:0]) makes this test fail with
// door mismatches.
func TestLateJoinerDoors(t *testing.T) {
	link := netsim.LinkConfig{Latency: 30 * time.Millisecond, Jitter: 5 * time.Millisecond, Loss: 0.1}
	s := newSim(t, 21, link, server.Config{})
	s.addClient(0, botWander, client.Config{})
	// At 11 s the door at x=1050 (period 123) has toggled 5 times: open,
	// while the map spawns it closed, and out of sight of a player in lane 1.
	s.run(11 * time.Second)
	saved := serverhook.ServerStats(s.srv).SavedEvents
	if saved == 0 {
		t.Fatal("no saved events")
	}
	type doorState struct {
		atJoin, changed, seen bool       // open at the join; toggled since; in the late joiner's PVS at some check
		lastChange            game.Frame // server frame of the last toggle seen
	}
	doors := map[game.EntityNum]*doorState{}
	for n, e := range s.sg.Entities() {
		if d, ok := e.(*testgame.Door); ok {
			doors[n] = &doorState{atJoin: d.Open}
		}
	}
	prev := map[game.EntityNum]bool{}
	for n, ds := range doors {
		prev[n] = ds.atJoin
	}
	// step runs the simulation to until in 5 ms steps (under one server
	// frame, while a door toggles at most once a second) and notes the
	// server's door toggles.
	step := func(until time.Duration) {
		for s.now < until {
			s.run(min(until, s.now+5*time.Millisecond))
			for n, ds := range doors {
				e, _ := s.sg.Entity(n)
				open := e.(*testgame.Door).Open
				if open != prev[n] {
					ds.changed = true
					ds.lastChange = s.srv.Frame()
					prev[n] = open
				}
			}
		}
	}
	joinAt := s.now
	late := s.addClient(1, botLane, client.Config{})
	// Connected, plus time for the saved events to arrive (bounded).
	for late.c.State() != client.Connected {
		if s.now > joinAt+3*time.Second {
			t.Fatalf("the late joiner is %v after 3 s", late.c.State())
		}
		step(s.now + 10*time.Millisecond)
	}
	step(s.now + 300*time.Millisecond)
	if got := clienthook.CountersOf(late.c).ReliableEvents; got < uint64(saved) {
		t.Errorf("the late joiner has %d reliable events, the server kept %d saved ones", got, saved)
	}
	var checks, outOfSight, savedOnly, mismatches int
	for k := range 120 {
		step(s.now + 10*time.Millisecond + time.Duration(k%3)*7*time.Millisecond)
		f := s.srv.Frame()
		for n, ds := range doors {
			e, _ := s.sg.Entity(n)
			d := e.(*testgame.Door)
			ce, _, visible := late.c.Entity(n)
			cd, ok := ce.(*testgame.Door)
			if !ok {
				t.Fatalf("late joiner has no door %d", n)
			}
			ds.seen = ds.seen || visible
			// A toggle in the last 20 frames may still be on its way, and a
			// visible door's may be predicted ahead of the server.
			if ds.changed && f-ds.lastChange < 20 {
				continue
			}
			if visible && int(f)%int(d.Period) > int(d.Period)-10 {
				continue
			}
			checks++
			if !visible {
				outOfSight++
				if !ds.seen && !ds.changed && ds.atJoin {
					savedOnly++ // known only through a saved event
				}
			}
			if cd.Open != d.Open {
				if mismatches++; mismatches <= 5 {
					t.Errorf("frame %d: door %d open=%v at the late joiner, %v on the server (visible %v)", f, n, cd.Open, d.Open, visible)
				}
			}
		}
	}
	if mismatches != 0 {
		t.Errorf("%d of %d door checks differ", mismatches, checks)
	}
	if outOfSight == 0 || savedOnly < 20 {
		t.Errorf("%d door checks, %d out of sight, %d known only through saved events: the test shows nothing",
			checks, outOfSight, savedOnly)
	}
	t.Logf("%d door checks, %d out of sight, %d known only through saved events", checks, outOfSight, savedOnly)
	checkInvariants(t, s)
}

var _ = game.Frame(0)
