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

// observer watches one client of a sim at every point where its world can
// change: after each Advance (frames run) and around each packet.
type observer interface {
	afterFrames(sc *simClient)
	beforePacket(sc *simClient)
	afterPacket(sc *simClient)
}

// runObserved steps s to until like sim.run, but calls each client's
// Advance before its packets (so the frames due run first, as
// HandlePacket would run them itself) and lets obs[i] look at client i
// after its frames and before and after each packet.
func runObserved(s *sim, until time.Duration, obs []observer) {
	s.now = s.net.Run(s.now, until, s.nodes(obs), s.buf)
}

// droneSnap is one drone's state as a snapshot carried it, and the client
// frame at which that snapshot arrived.
type droneSnap struct {
	frame, arrived game.Frame
	x, y           float32
}

// droneHist is the two most recent snapshots that carried a drone since it
// last entered the client's PVS.
type droneHist struct {
	a, b droneSnap
	have int
}

// interpCheck rebuilds, from the snapshots the client received (its
// OnSnapshot hook), where each drone must be shown, and compares it with
// the client's world at every observation after warm.
type interpCheck struct {
	t     *testing.T
	warm  time.Duration
	now   func() time.Duration
	codec *snapshot.StateCodec
	hist  map[game.EntityNum]*droneHist

	// Figures.
	checks, one, two, between, atNewer, wrong int
	lostGaps                                  int // pairs more than one snapshot interval apart
	// Prediction error statistics: the samples measureError must take.
	expSelf, expOthers, droneRecorded int
	// Movers are predicted: what the client showed at a snapshot's frame
	// equals the snapshot exactly. Drones are interpolated: they lag.
	moverChecks, moverWrong, droneChecks, droneLag int
	// ShownTime: drones at the interpolation point, others at their frame.
	shownDrones, shownOthers, shownWrong int
}

func newInterpCheck(t *testing.T, s *sim, sc *simClient, warm time.Duration) *interpCheck {
	ic := &interpCheck{t: t, warm: warm, now: s.net.Now, codec: snapshot.NewStateCodec(), hist: map[game.EntityNum]*droneHist{}}
	sc.onSnap = func(snap *snapshot.Snapshot) { ic.onSnapshot(sc, snap) }
	return ic
}

func (ic *interpCheck) onSnapshot(sc *simClient, snap *snapshot.Snapshot) {
	c := sc.c
	arrived := c.Frame() // the client's frame when the snapshot arrived
	me, _ := sc.g.PlayerEntity(c.ClientNum())
	for i := range snap.Entities {
		es := &snap.Entities[i]
		px, py, _, predicted := clienthook.PredictedPosition(c, es.Num, snap.Header.Frame)
		switch es.Type {
		case testgame.TypeDrone:
			var d testgame.Drone
			if err := ic.codec.Load(&d, es.State, es.Bits); err != nil {
				ic.t.Fatalf("drone %d: %v", es.Num, err)
			}
			h := ic.hist[es.Num]
			if h == nil {
				h = &droneHist{}
				ic.hist[es.Num] = h
			}
			h.a = h.b
			h.b = droneSnap{frame: snap.Header.Frame, arrived: arrived, x: d.X, y: d.Y}
			h.have = min(h.have+1, 2)
			if predicted {
				ic.droneRecorded++
				if ic.now() >= ic.warm {
					ic.droneChecks++
					if px != d.X || py != d.Y {
						ic.droneLag++
					}
				}
			}
		case testgame.TypeMover:
			if predicted {
				ic.expOthers++
				var m testgame.Mover
				if err := ic.codec.Load(&m, es.State, es.Bits); err != nil {
					ic.t.Fatalf("mover %d: %v", es.Num, err)
				}
				ic.moverChecks++
				if px != m.X || py != m.Y {
					ic.moverWrong++
				}
			}
		default:
			if predicted {
				if es.Num == me {
					ic.expSelf++
				} else {
					ic.expOthers++
				}
			}
		}
	}
	// A drone out of the PVS starts over when it re-enters.
	for n, h := range ic.hist {
		if !snap.PVS.Has(n) {
			h.have = 0
		}
	}
}

// check compares every visible drone with the interpolation between the
// two most recent snapshots that carried it (doc.go: "moving from the
// older to the newer over the snapshot interval after the newer arrived").
func (ic *interpCheck) check(sc *simClient) {
	if ic.now() < ic.warm {
		return
	}
	c := sc.c
	f := c.Frame()
	for n, h := range ic.hist {
		if h.have == 0 || !c.InPVS(n) {
			continue
		}
		e, typ, visible := c.Entity(n)
		d, ok := e.(*testgame.Drone)
		if !visible || !ok || typ != testgame.TypeDrone {
			ic.wrong++
			ic.t.Fatalf("frame %d: drone %d in the PVS is not in the world (%T)", f, n, e)
			continue
		}
		ic.checks++
		wx, wy := h.b.x, h.b.y
		if h.have == 2 {
			ic.two++
			iv := h.b.frame - h.a.frame
			if iv > 3 {
				ic.lostGaps++
			}
			frac := float32(f-h.b.arrived) / float32(iv)
			frac = min(max(frac, 0), 1)
			wx = h.a.x + float32((h.b.x-h.a.x)*frac)
			wy = h.a.y + float32((h.b.y-h.a.y)*frac)
			if frac == 1 {
				ic.atNewer++
			} else if frac > 0 {
				ic.between++
			}
			// Never extrapolated beyond the newer snapshot.
			if lo, hi := min(h.a.x, h.b.x), max(h.a.x, h.b.x); d.X < lo || d.X > hi {
				ic.wrong++
				if ic.wrong <= 10 {
					ic.t.Errorf("frame %d: drone %d at x=%v outside its snapshots' %v..%v", f, n, d.X, lo, hi)
				}
				continue
			}
		} else {
			ic.one++
		}
		if d.X != wx || d.Y != wy {
			ic.wrong++
			if ic.wrong <= 10 {
				ic.t.Errorf("frame %d: drone %d at (%v,%v), want (%v,%v) from %+v (have %d)", f, n, d.X, d.Y, wx, wy, *h, h.have)
			}
		}
	}
}

func (ic *interpCheck) afterFrames(sc *simClient) {
	ic.check(sc)
	ic.checkShown(sc)
}

// checkShown compares ShownTime at the frame just predicted with the
// interpolation point of each drone (the time lag compensation rewinds
// to) and with the frame itself for every predicted entity.
func (ic *interpCheck) checkShown(sc *simClient) {
	if ic.now() < ic.warm {
		return
	}
	c := sc.c
	f := c.Frame()
	for n := range game.EntityNum(scanEntities) {
		if !c.InPVS(n) {
			continue
		}
		got, ok := c.ShownTime(n, f)
		if !ok {
			continue
		}
		want := float64(f)
		if h := ic.hist[n]; h != nil && h.have > 0 {
			if h.b.arrived >= f {
				continue // f was shown before this snapshot came
			}
			ic.shownDrones++
			want = float64(h.b.frame)
			if h.have == 2 && h.b.frame > h.a.frame {
				frac := min(max(float64(f-h.b.arrived)/float64(h.b.frame-h.a.frame), 0), 1)
				want = float64(h.a.frame) + frac*float64(h.b.frame-h.a.frame)
			}
		} else {
			ic.shownOthers++
		}
		if d := got - want; d > 1e-3 || d < -1e-3 {
			ic.shownWrong++
			if ic.shownWrong <= 10 {
				ic.t.Errorf("frame %d: entity %d shown at %v, want %v", f, n, got, want)
			}
		}
	}
}
func (ic *interpCheck) beforePacket(sc *simClient) {}
func (ic *interpCheck) afterPacket(sc *simClient)  { ic.check(sc) }

type nopObserver struct{}

func (nopObserver) afterFrames(*simClient)  {}
func (nopObserver) beforePacket(*simClient) {}
func (nopObserver) afterPacket(*simClient)  {}

// entities of a game.Interpolate type (testgame drones) are shown
// between the last two snapshots that carried them, Quake 3 style, never
// beyond the newer; they take no part in the prediction error statistics;
// a predicted type (movers) is not interpolated.
func TestInterpolation(t *testing.T) {
	link := netsim.LinkConfig{Latency: 50 * time.Millisecond, Jitter: 15 * time.Millisecond, Loss: 0.1}
	s := newSim(t, 31, link, server.Config{})
	// botConstant walks along X more slowly than the drones: they pass out
	// of its view and back (bouncing off the far wall), so drones leave
	// and re-enter the PVS.
	sc := s.addClient(0, botConstant, client.Config{})
	s.addClient(1, botWander, client.Config{})
	ic := newInterpCheck(t, s, sc, 3*time.Second)
	runObserved(s, 40*time.Second, []observer{ic, nopObserver{}})

	t.Logf("drone samples %d (one snapshot %d, two %d: between %d, at the newer %d, gaps over one interval %d), wrong %d",
		ic.checks, ic.one, ic.two, ic.between, ic.atNewer, ic.lostGaps, ic.wrong)
	if ic.checks < 2000 || ic.two < 1000 || ic.between < 300 || ic.atNewer < 100 || ic.one == 0 || ic.lostGaps == 0 {
		t.Errorf("too few drone samples of some kind: the test shows little")
	}

	st := sc.c.Stats()
	t.Logf("prediction samples: self %d (want %d), others %d (want %d, drones with a recorded position left out: %d)",
		st.Self.Samples, ic.expSelf, st.Others.Samples, ic.expOthers, ic.droneRecorded)
	if st.Self.Samples != uint64(ic.expSelf) || st.Others.Samples != uint64(ic.expOthers) {
		t.Errorf("prediction error samples self %d others %d, want %d and %d (drones excluded)",
			st.Self.Samples, st.Others.Samples, ic.expSelf, ic.expOthers)
	}
	if ic.droneRecorded == 0 {
		t.Error("no drone had a recorded position at a snapshot frame: the exclusion is not shown")
	}

	t.Logf("movers: %d shown positions at snapshot frames, %d differ from the snapshot; drones: %d, %d lag",
		ic.moverChecks, ic.moverWrong, ic.droneChecks, ic.droneLag)
	if ic.moverChecks < 500 || ic.moverWrong != 0 {
		t.Errorf("movers: %d of %d predicted positions differ from the snapshot", ic.moverWrong, ic.moverChecks)
	}
	// Drones are shown in the past: what was shown at a snapshot's frame
	// is almost never that snapshot's state.
	if ic.droneChecks < 200 || ic.droneLag < ic.droneChecks*9/10 {
		t.Errorf("drones: %d of %d shown positions lag the snapshot", ic.droneLag, ic.droneChecks)
	}
	t.Logf("shown times: %d drones, %d predicted entities, %d wrong", ic.shownDrones, ic.shownOthers, ic.shownWrong)
	if ic.shownDrones < 1000 || ic.shownOthers < 1000 || ic.shownWrong != 0 {
		t.Errorf("ShownTime: %d drone and %d predicted samples, %d wrong", ic.shownDrones, ic.shownOthers, ic.shownWrong)
	}
	checkInvariants(t, s)
}

// scanEntities bounds the entity numbers smoothCheck looks at: testgame
// uses numbers below 256 (players, movers, doors, drones).
const scanEntities = 256

// vec is an entity position or render offset.
type vec = [3]float32

func positionOf(e game.Entity) (vec, bool) {
	p, ok := e.(client.Positioner)
	if !ok {
		return vec{}, false
	}
	x, y, z := p.Position()
	return vec{x, y, z}, true
}

func l1(v vec) float32 {
	var s float32
	for _, c := range v {
		s += max(c, -c)
	}
	return s
}

// smoothCheck follows VisualOffset for every entity number (doc.go: "the
// accumulated jump its predicted position made at snapshots, decaying by
// SmoothDecay per frame"): at a snapshot the offset becomes the old
// offset plus the jump (position shown before minus position after
// re-prediction); at each frame it is multiplied by SmoothDecay; an
// entity out of the PVS has none.
type smoothCheck struct {
	t     *testing.T
	warm  time.Duration
	now   func() time.Duration
	decay float32

	off      [scanEntities]vec // VisualOffset at the last observation
	lastCorr [scanEntities]game.Frame
	cf       game.Frame
	// Around a packet.
	pos   [scanEntities]vec
	had   [scanEntities]bool
	snaps uint64

	// Figures, counted after warm.
	observations, corrections, wrong int
	corrByType                       map[game.TypeID]int
	maxJump                          map[game.TypeID]float32
	decaySteps, vanished             int
	minRatio, maxRatio               float32
	maxVanishFrames                  game.Frame
	nonzeroPredicted, nonzeroDrone   int // observations with an offset, by kind
}

func newSmoothCheck(t *testing.T, s *sim, warm time.Duration, decay float32) *smoothCheck {
	return &smoothCheck{t: t, warm: warm, now: s.net.Now, decay: decay, corrByType: map[game.TypeID]int{}, maxJump: map[game.TypeID]float32{}, minRatio: 2}
}

func (sm *smoothCheck) fail(format string, args ...any) {
	sm.wrong++
	if sm.wrong <= 10 {
		sm.t.Errorf(format, args...)
	}
}

func (sm *smoothCheck) visual(c *client.Client, n game.EntityNum) vec {
	x, y, z := c.VisualOffset(n)
	return vec{x, y, z}
}

// count tallies the offsets in use at an observation.
func (sm *smoothCheck) count(c *client.Client) {
	if sm.now() < sm.warm {
		return
	}
	sm.observations++
	for n := range game.EntityNum(scanEntities) {
		if sm.off[n] == (vec{}) {
			continue
		}
		if _, typ, _ := c.Entity(n); typ == testgame.TypeDrone {
			sm.nonzeroDrone++
		} else {
			sm.nonzeroPredicted++
		}
	}
}

func (sm *smoothCheck) afterFrames(sc *simClient) {
	c := sc.c
	k := c.Frame() - sm.cf
	for n := range game.EntityNum(scanEntities) {
		got, prev := sm.visual(c, n), sm.off[n]
		want := prev
		for range k {
			for i := range want {
				want[i] *= sm.decay
			}
		}
		switch {
		case got == want:
		case got == (vec{}) && l1(want) < 1e-2:
			// Decayed below what can be seen: dropped.
		default:
			sm.fail("frame %d: entity %d offset %v after %d frames from %v, want %v", c.Frame(), n, got, k, prev, want)
		}
		if sm.now() >= sm.warm && k > 0 && prev != (vec{}) {
			if got == (vec{}) {
				sm.vanished++
				sm.maxVanishFrames = max(sm.maxVanishFrames, c.Frame()-sm.lastCorr[n])
			} else if k == 1 {
				for i := range got {
					if prev[i] != 0 {
						r := got[i] / prev[i]
						sm.minRatio, sm.maxRatio = min(sm.minRatio, r), max(sm.maxRatio, r)
						sm.decaySteps++
					}
				}
			}
		}
		// It reaches 0: 120 frames of decay leave under 1e-8 of any jump.
		if got != (vec{}) && c.Frame()-sm.lastCorr[n] > 120 {
			sm.fail("frame %d: entity %d offset %v %d frames after its last correction", c.Frame(), n, got, c.Frame()-sm.lastCorr[n])
		}
		sm.off[n] = got
	}
	sm.cf = c.Frame()
	sm.count(c)
}

func (sm *smoothCheck) beforePacket(sc *simClient) {
	c := sc.c
	sm.afterFrames(sc) // nothing ran since the last look; keeps off in step
	for n := range game.EntityNum(scanEntities) {
		sm.had[n] = false
		if !c.InPVS(n) {
			continue
		}
		if e, _, visible := c.Entity(n); visible {
			sm.pos[n], sm.had[n] = positionOf(e)
		}
	}
	sm.snaps = c.Stats().SnapshotsReceived
}

func (sm *smoothCheck) afterPacket(sc *simClient) {
	c := sc.c
	st := c.Stats()
	snap := st.SnapshotsReceived != sm.snaps
	// Re-prediction (and so a correction) happens only when the
	// snapshot is older than the frame the client had reached.
	repredicted := snap && st.ServerFrame < sm.cf && c.Frame() == sm.cf
	for n := range game.EntityNum(scanEntities) {
		got, want := sm.visual(c, n), sm.off[n]
		if snap && !c.InPVS(n) {
			want = vec{}
		} else if repredicted && sm.had[n] {
			e, typ, _ := c.Entity(n)
			if p, ok := positionOf(e); ok && p != sm.pos[n] {
				jump := vec{sm.pos[n][0] - p[0], sm.pos[n][1] - p[1], sm.pos[n][2] - p[2]}
				for i := range want {
					want[i] += jump[i]
				}
				sm.lastCorr[n] = c.Frame()
				if sm.now() >= sm.warm {
					sm.corrections++
					sm.corrByType[typ]++
					sm.maxJump[typ] = max(sm.maxJump[typ], l1(jump))
				}
			}
		}
		if got != want {
			sm.fail("frame %d (snapshot of frame %d): entity %d offset %v, want %v (offset before %v)", c.Frame(), st.ServerFrame, n, got, want, sm.off[n])
		}
		sm.off[n] = got
	}
	sm.cf = c.Frame()
	sm.count(c)
}

// render smoothing. When a snapshot corrects a prediction (other
// players change their commands, which no client can foresee; lost and
// late packets make the server duplicate commands), VisualOffset becomes
// the accumulated jump and decays by SmoothDecay per frame to 0.
func TestRenderSmoothing(t *testing.T) {
	link := netsim.LinkConfig{Latency: 50 * time.Millisecond, Jitter: 15 * time.Millisecond, Loss: 0.1}
	s := newSim(t, 41, link, server.Config{})
	const decay = 0.8
	var obs []observer
	var checks []*smoothCheck
	for i := range 3 {
		s.addClient(i, botWander, client.Config{SmoothDecay: decay})
		sm := newSmoothCheck(t, s, 3*time.Second, decay)
		obs = append(obs, sm)
		checks = append(checks, sm)
	}
	runObserved(s, 40*time.Second, obs)
	for i, sm := range checks {
		t.Logf("client %d: %d observations, %d corrections %v (max L1 jump %v), offsets shown: predicted %d drones %d; %d one-frame decay ratios in [%v, %v], %d vanished (at most %d frames after the correction); wrong %d",
			i, sm.observations, sm.corrections, sm.corrByType, sm.maxJump, sm.nonzeroPredicted, sm.nonzeroDrone,
			sm.decaySteps, sm.minRatio, sm.maxRatio, sm.vanished, sm.maxVanishFrames, sm.wrong)
		if sm.corrections < 50 || sm.corrByType[testgame.TypePlayer] < 50 || sm.decaySteps < 500 || sm.vanished < 20 {
			t.Errorf("client %d: too few corrections or decay steps: the test shows little", i)
		}
		if sm.minRatio < decay*0.9999 || sm.maxRatio > decay*1.0001 {
			t.Errorf("client %d: per-frame decay ratio in [%v, %v], want %v", i, sm.minRatio, sm.maxRatio, decay)
		}
	}
	checkInvariants(t, s)
}

// With exact prediction nothing is corrected: the predicted entities'
// offsets stay 0.
func TestRenderSmoothingExact(t *testing.T) {
	s := newSim(t, 11, netsim.LinkConfig{Latency: 40 * time.Millisecond, Jitter: 10 * time.Millisecond}, server.Config{})
	s.addClient(0, botLane, client.Config{})
	sm := newSmoothCheck(t, s, 3*time.Second, 0.85)
	runObserved(s, 20*time.Second, []observer{sm})
	st := s.cls[0].c.Stats()
	t.Logf("%d observations, %d corrections %v, offsets shown: predicted %d drones %d; prediction errors self %d/%d others %d/%d",
		sm.observations, sm.corrections, sm.corrByType, sm.nonzeroPredicted, sm.nonzeroDrone,
		st.Self.Wrong, st.Self.Samples, st.Others.Wrong, st.Others.Samples)
	if sm.observations < 1000 || sm.wrong != 0 {
		t.Errorf("%d observations, %d wrong", sm.observations, sm.wrong)
	}
	if sm.nonzeroPredicted != 0 {
		t.Errorf("exact prediction, yet a predicted entity had an offset at %d observations", sm.nonzeroPredicted)
	}
	checkInvariants(t, s)
}
