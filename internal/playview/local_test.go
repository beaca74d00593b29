package playview

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/clienthook"
	"github.com/snapwire/snapwire/internal/testgame"
)

// newFrame starts a Local match of the test game with an Overlay, the
// player moving forward and strafing, the link at 80 ms round trip, ±5 ms
// jitter and 1% loss.
func newFrame(t testing.TB) (*Local, *Overlay) {
	t.Helper()
	input := client.InputFunc(func(in client.Input) game.UserCmd {
		f := in.Frame
		return game.UserCmd{Frame: f, Forward: 100, Right: int8(int(f/60%2)*254 - 127)}
	})
	l, err := NewLocal(testgame.New(), testgame.New(), testgame.DefaultSettings, input)
	if err != nil {
		t.Fatal(err)
	}
	o := &Overlay{Knobs: Knobs{Latency: 80 * time.Millisecond, Jitter: 5 * time.Millisecond, Loss: 0.01, NetGraph: true},
		Title: "test", Keys: KnobKeys, Interpolate: []game.TypeID{testgame.TypeDrone}, SetLink: l.SetLink}
	if err := l.SetLink(o.Knobs.Link()); err != nil {
		t.Fatal(err)
	}
	return l, o
}

// frame is one drawn frame at now: the match stepped, the overlay
// recorded and built, every visible entity's draw position read.
func frame(l *Local, o *Overlay, now time.Duration) (sc *Scene, positions int) {
	l.Step(now)
	o.Step(now, l.Client())
	sc = o.Scene(l.Client(), 1280, 800)
	for n := range l.Client().Visible() {
		if _, _, _, ok := o.Smooth.Position(l.Client(), n); ok {
			positions++
		}
	}
	return sc, positions
}

// count is the number of sc's shapes of colour c.
func count(sc *Scene, kind Kind, c any) int {
	n := 0
	for _, sh := range sc.Shapes {
		if sh.Kind == kind && sh.Color == c {
			n++
		}
	}
	return n
}

// What package play's window does each frame, without the window: 20 s of
// the test game in process at a 75 Hz display (faster than the game's
// 60 Hz, so that frames fall between game frames). The client connects,
// its common base never differs from the server's (the server's hash in
// every "apply S"), the overlay holds the status band and the net graph
// with its snapshot bars, every visible entity has a draw position, and
// the ghost (the server's position of the player) is behind the
// prediction by about the lead.
func TestLocalOverlay(t *testing.T) {
	l, o := newFrame(t)
	var sc *Scene
	var positions int
	step := time.Second / 75
	for now := step; now <= 20*time.Second; now += step {
		sc, positions = frame(l, o, now)
	}
	cl := l.Client()
	st, ctr := cl.Stats(), clienthook.CountersOf(cl)
	t.Logf("state %v, %d snapshots (%d lost), base checks %d (%d bad), %d positions, ping %v", st.State, st.SnapshotsReceived,
		st.SnapshotsLost, ctr.BaseChecks, ctr.BaseMismatches, positions, st.RTT)
	if st.State != client.Connected || st.SnapshotsReceived < 300 || ctr.BaseChecks < 100 || ctr.BaseMismatches != 0 ||
		ctr.DecodeErrors != 0 || ctr.ApplyErrors != 0 {
		t.Fatalf("client %+v, counters %+v", st, ctr)
	}
	if positions < 3 {
		t.Errorf("%d visible entities with a draw position", positions)
	}
	if count(sc, Rect, ColorHUD) != 1 || count(sc, Rect, ColorGraphBG) != 1 || count(sc, Rect, ColorSnapshot) < 50 || len(sc.Texts) != 2+8 {
		t.Errorf("overlay: hud %d, graph %d, snapshot bars %d, %d texts", count(sc, Rect, ColorHUD), count(sc, Rect, ColorGraphBG),
			count(sc, Rect, ColorSnapshot), len(sc.Texts))
	}
	me, _ := l.srvGame.PlayerEntity(cl.ClientNum())
	px, py, _, ok := o.Smooth.Position(cl, me)
	gx, gy, _, gok := l.Ghost()
	if !ok || !gok {
		t.Fatalf("player drawn %v, ghost %v", ok, gok)
	}
	// The player moves about 2 units a frame; the prediction runs a round
	// trip and a frame ahead of the server: 6 frames and more.
	if d := (px-gx)*(px-gx) + (py-gy)*(py-gy); d < 1 || d > 60*60 {
		t.Errorf("drawn at %.1f,%.1f, ghost at %.1f,%.1f", px, py, gx, gy)
	}

	// The knobs act live: the latency knob moves the round trip, the
	// interpolation knob the client's mode for drones, the graph knob
	// the overlay.
	for range 10 {
		if err := o.Do(LatencyUp, cl); err != nil {
			t.Fatal(err)
		}
	}
	o.Do(ToggleInterp, cl)
	o.Do(ToggleNetGraph, cl)
	if cl.TypeMode(testgame.TypeDrone) != game.Interpolate || cl.TypeMode(testgame.TypeMover) != game.Predict {
		t.Error("the interpolation knob did not reach the client")
	}
	for now := 20*time.Second + step; now <= 25*time.Second; now += step {
		sc, _ = frame(l, o, now)
	}
	if rtt := cl.Stats().RTT; rtt < 250*time.Millisecond || rtt > 350*time.Millisecond {
		t.Errorf("round trip %v after the latency knob went to 280 ms", rtt)
	}
	if count(sc, Rect, ColorGraphBG) != 0 || count(sc, Rect, ColorHUD) != 1 {
		t.Error("the graph knob did not hide the net graph")
	}
}

// A drawn frame allocates nothing in steady state: recording the overlay
// and reading the draw positions allocate nothing, and building the
// overlay's scene allocates only when its text is formatted again, every
// textEvery frames. Stepping the match (the library's server, client and
// link simulator, not this package) is reported and bounded loosely: the
// client's prediction records grow now and then as the PVS changes.
func TestLocalOverlayAllocs(t *testing.T) {
	l, o := newFrame(t)
	step := time.Second / 60
	now := time.Duration(0)
	for now < 5*time.Second {
		now += step
		frame(l, o, now)
	}
	cl := l.Client()
	// Each part of each frame is measured on its own (testing.AllocsPerRun
	// would run it twice, the second time at the same clock, and average
	// away allocations rarer than one a run). runtime.MemStats counts the
	// whole process's allocations, the runtime's own included, so a window
	// of 300 frames that counts some is measured again, up to three times:
	// an allocation of this package's comes back in every window.
	var report string
	for try := range 3 {
		var match, recording, text, other uint64
		for range 300 {
			now += step
			match += mallocs(func() { l.Step(now) })
			recording += mallocs(func() {
				o.Step(now, cl)
				for n := range cl.Visible() {
					o.Smooth.Position(cl, n)
				}
			})
			a := mallocs(func() { o.Scene(cl, 1280, 800) })
			if o.textAt == o.built-1 {
				text = max(text, a)
			} else {
				other = max(other, a)
			}
		}
		report = fmt.Sprintf("allocations in 300 frames: %d stepping the match, %d recording the overlay; a scene: %d, %d when the text is formatted",
			match, recording, other, text)
		t.Logf("window %d: %s", try+1, report)
		// Formatting: 28 allocations (51 under the race detector).
		if recording == 0 && other == 0 && text != 0 && text <= 100 && match <= 30 {
			return
		}
	}
	t.Error(report)
}

func mallocs(f func()) uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	before := ms.Mallocs
	f()
	runtime.ReadMemStats(&ms)
	return ms.Mallocs - before
}
