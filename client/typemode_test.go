package client_test

import (
	"testing"
	"time"

	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/clienthook"
	"github.com/snapwire/snapwire/internal/snapshot"
	"github.com/snapwire/snapwire/internal/testgame"
	"github.com/snapwire/snapwire/netsim"
	"github.com/snapwire/snapwire/server"
)

// frozenCheck counts, after each client frame, whether the other player
// (entity 0 or 1, the one that is not the local player's) is shown where
// the last snapshot put it.
type frozenCheck struct {
	snapPos     vec
	haveSnap    bool
	lastFrame   game.Frame
	frames      int
	otherAtSnap int // frames the other player shows the snapshot's position
}

func (o *frozenCheck) afterFrames(sc *simClient) {
	if !o.haveSnap || sc.c.State() != client.Connected || sc.c.Frame() == o.lastFrame {
		return
	}
	o.lastFrame = sc.c.Frame()
	me := game.EntityNum(sc.c.ClientNum())
	other, _ := sc.g.Entity(1 - me)
	op, ok := positionOf(other)
	if !ok {
		return
	}
	o.frames++
	if op == o.snapPos {
		o.otherAtSnap++
	}
}

func (o *frozenCheck) beforePacket(*simClient) {}
func (o *frozenCheck) afterPacket(*simClient)  {}

func (o *frozenCheck) reset() {
	*o = frozenCheck{snapPos: o.snapPos, haveSnap: o.haveSnap, lastFrame: o.lastFrame}
}

// SetTypeMode switches a predicted type (testgame players) to
// interpolation on one client and back, live: while interpolated, the
// other player is shown at a snapshot state (testgame's Player has no
// Interpolator: the newer state) on every frame and leaves the
// prediction error statistics; the local player, of the same type, stays
// predicted (exactly, in its lane); nothing changes on the wire (states
// and bases stay equal to the server's).
func TestSetTypeModeLive(t *testing.T) {
	link := netsim.LinkConfig{Latency: 40 * time.Millisecond, Jitter: 5 * time.Millisecond}
	s := newSim(t, 7, link, server.Config{})
	sc := s.addClient(0, botLane, client.Config{})
	s.addClient(1, botWander, client.Config{})
	chk := &frozenCheck{}
	sc.onSnap = func(snap *snapshot.Snapshot) {
		if e, _ := sc.g.Entity(1 - game.EntityNum(sc.c.ClientNum())); e != nil {
			chk.snapPos, _ = positionOf(e)
			chk.haveSnap = true
		}
	}
	obs := []observer{chk, nopObserver{}}

	runObserved(s, 3*time.Second, obs)
	chk.reset()
	before := sc.c.Stats()
	runObserved(s, 6*time.Second, obs)
	predicted := *chk
	mid := sc.c.Stats()

	sc.c.SetTypeMode(testgame.TypePlayer, game.Interpolate)
	if sc.c.TypeMode(testgame.TypePlayer) != game.Interpolate || sc.g.Registry().Mode(testgame.TypePlayer) != game.Predict {
		t.Fatal("the override is not the client's alone")
	}
	runObserved(s, 6500*time.Millisecond, obs) // two snapshots to start interpolating
	chk.reset()
	midI := sc.c.Stats()
	runObserved(s, 9500*time.Millisecond, obs)
	interpolated := *chk
	after := sc.c.Stats()

	sc.c.SetTypeMode(testgame.TypePlayer, game.Predict)
	runObserved(s, 10*time.Second, obs)
	chk.reset()
	runObserved(s, 13*time.Second, obs)
	back := *chk

	t.Logf("frames with the other player at its snapshot position: predicted %d/%d, interpolated %d/%d, predicted again %d/%d",
		predicted.otherAtSnap, predicted.frames, interpolated.otherAtSnap, interpolated.frames, back.otherAtSnap, back.frames)
	if predicted.frames < 150 || predicted.otherAtSnap > predicted.frames/4 {
		t.Errorf("predicted: the other player sits at the snapshot position in %d of %d frames", predicted.otherAtSnap, predicted.frames)
	}
	if interpolated.frames < 150 || interpolated.otherAtSnap != interpolated.frames {
		t.Errorf("interpolated: the other player is off its snapshot state in %d of %d frames",
			interpolated.frames-interpolated.otherAtSnap, interpolated.frames)
	}
	if back.frames < 150 || back.otherAtSnap > back.frames/4 {
		t.Errorf("switched back: the other player sits at the snapshot position in %d of %d frames", back.otherAtSnap, back.frames)
	}
	// The other player's samples leave the prediction error statistics
	// while interpolated (movers keep counting).
	dPred := mid.Others.Samples - before.Others.Samples
	dInterp := after.Others.Samples - midI.Others.Samples
	// The local player stays predicted: it keeps its samples (an
	// interpolated entity has none), exact in its lane.
	if dSelf, wrong := after.Self.Samples-midI.Self.Samples, after.Self.Wrong-midI.Self.Wrong; dSelf < 40 || wrong != 0 {
		t.Errorf("self samples while interpolating opponents: %d, %d wrong", dSelf, wrong)
	}
	if dInterp >= dPred {
		t.Errorf("other-entity samples: %d predicted, %d interpolated over the same time", dPred, dInterp)
	}
	afterC := clienthook.CountersOf(sc.c)
	if afterC.Corrections == 0 || afterC.CorrectionSum <= 0 {
		t.Errorf("no corrections counted: %d, %.1f units", afterC.Corrections, afterC.CorrectionSum)
	}
	if afterC.Applies < 50 || afterC.SnapshotBytes < 50*afterC.SnapshotsReceived/10 {
		t.Errorf("applies %d, snapshot bytes %d for %d snapshots", afterC.Applies, afterC.SnapshotBytes, afterC.SnapshotsReceived)
	}
	checkInvariants(t, s)
}
