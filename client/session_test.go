package client_test

import (
	"net/netip"
	"testing"
	"time"

	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/clienthook"
	"github.com/snapwire/snapwire/internal/serverhook"
	"github.com/snapwire/snapwire/internal/snapshot"
	"github.com/snapwire/snapwire/internal/testgame"
	"github.com/snapwire/snapwire/netsim"
	"github.com/snapwire/snapwire/server"
)

// Acceptance: a map change and a client in the wrong game both end with
// every client in the right game, with equal bases and states.
func TestMapChange(t *testing.T) {
	link := netsim.LinkConfig{Latency: 40 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.1}
	s := newSim(t, 31, link, server.Config{})
	for i := range 4 {
		s.addClient(i, botWander, client.Config{})
	}
	s.run(5 * time.Second)
	// Client 3 hears nothing from the server for 1.5 s around the change:
	// it stays in the old game while the others move on.
	cut := s.cls[3].ep.Addr()
	s.net.SetDropFilter(func(from, to netip.AddrPort, p []byte) bool { return to == cut })
	old := s.srv.GameID()
	if err := s.srv.ChangeMap("map=two,movers=3,doors=2,drones=1,period=61"); err != nil {
		t.Fatal(err)
	}
	s.run(6 * time.Second)
	if s.cls[3].c.GameID() != old {
		t.Fatal("the cut-off client changed game")
	}
	s.net.SetDropFilter(nil)
	s.run(12 * time.Second)
	for i, sc := range s.cls {
		if sc.c.GameID() != s.srv.GameID() || sc.g.Settings.Map != "two" || clienthook.CountersOf(sc.c).LoadGames != 2 {
			t.Errorf("client %d: game %x (server %x), map %q, %d loads", i, sc.c.GameID(), s.srv.GameID(), sc.g.Settings.Map, clienthook.CountersOf(sc.c).LoadGames)
		}
	}
	cs, _ := serverhook.Client(s.srv, 3)
	if cs.LoadGameSent == 0 || cs.WrongGame == 0 {
		t.Errorf("client 3 was not told to load the game: %+v", cs)
	}
	checkInvariants(t, s)
}

// Acceptance: a NAT port change mid-game keeps the client connected; the
// server replies to the new address.
func TestNATRebind(t *testing.T) {
	s := newSim(t, 41, netsim.LinkConfig{Latency: 30 * time.Millisecond}, server.Config{})
	sc := s.addClient(0, botLane, client.Config{})
	s.run(3 * time.Second)
	newAddr := netip.MustParseAddrPort("10.0.1.1:51234")
	if err := sc.ep.Rebind(newAddr); err != nil {
		t.Fatal(err)
	}
	before := sc.c.Stats().SnapshotsReceived
	s.run(8 * time.Second)
	cs, ok := serverhook.Client(s.srv, 0)
	if !ok || cs.Addr != newAddr || sc.c.State() != client.Connected {
		t.Fatalf("after rebind: server sees %v (ok %v), client %v", cs.Addr, ok, sc.c.State())
	}
	if got := sc.c.Stats().SnapshotsReceived - before; got < 90 {
		t.Errorf("%d snapshots after the rebind", got)
	}
	checkInvariants(t, s)
}

// Acceptance: an unchanged entity is never written, and an entity that
// leaves and re-enters the PVS costs no more than its changed fields.
//
// Guards against (tried): the server's encoder writing unchanged entities
// (internal/snapshot/encoder.go writeCached, the "unchanged: omitted" continue
// removed) makes this test fail: the client rejects those snapshots and
// the door is never seen unwritten. A typo in the settings makes it fail
// at ChangeMap instead of running on the default map.
func TestEntityCost(t *testing.T) {
	// One mover (changes every frame), one door that never toggles.
	const settings = "map=one,movers=1,doors=1,drones=0,period=0"
	s := newSim(t, 51, netsim.LinkConfig{Latency: 20 * time.Millisecond}, server.Config{})
	if err := s.srv.ChangeMap(settings); err != nil {
		t.Fatal(err)
	}
	// The server loaded the map asked for: a door that never toggles.
	if st := s.sg.Settings; st.Movers != 1 || st.Doors != 1 || st.Drones != 0 || st.DoorPeriod != 0 || s.sg.Loads != 2 {
		t.Fatalf("server game settings %+v after %d loads, want %q", st, s.sg.Loads, settings)
	}
	sc := s.addClient(0, botConstant, client.Config{})
	door := game.EntityNum(testgame.FirstDoor)
	mover := game.EntityNum(testgame.FirstMover)
	var doorWritten, doorSeen, reentries int
	prevIn := false
	sc.onSnap = func(snap *snapshot.Snapshot) {
		in := false
		for _, es := range snap.Entities {
			switch es.Num {
			case door:
				doorSeen++
				if es.Changed {
					doorWritten++
				}
			case mover:
				in = true
				if !prevIn && doorSeen > 0 {
					reentries++
					// Re-entry: against the base, not a full state.
					if es.Spawn {
						t.Errorf("re-entering mover sent as a spawn")
					}
				}
			}
		}
		prevIn = in
	}
	s.run(40 * time.Second)
	if sc.g.Settings != s.sg.Settings {
		t.Fatalf("client game settings %+v, server %+v", sc.g.Settings, s.sg.Settings)
	}
	if doorSeen < 50 || doorWritten != 0 {
		t.Errorf("door in %d snapshots, written in %d", doorSeen, doorWritten)
	}
	if reentries == 0 {
		t.Error("the mover never re-entered the PVS")
	}
	checkInvariants(t, s)
}
