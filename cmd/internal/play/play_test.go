package play

import (
	"context"
	"image/color"
	"math"
	"testing"
	"time"

	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/clienthook"
	"github.com/snapwire/snapwire/internal/refgame"
	"github.com/snapwire/snapwire/internal/serverhook"
	"github.com/snapwire/snapwire/internal/testwait"
	"github.com/snapwire/snapwire/server"
)

// display steps s like a window drawing at hz from from to to (virtual
// time in process), building a scene each frame; it returns how many
// frames drew each colour.
func display(s *Session, sc *Scene, in Input, hz int, from, to time.Duration) map[color.RGBA]int {
	step := time.Second / time.Duration(hz)
	frames := map[color.RGBA]int{}
	for now := from + step; now <= to; now += step {
		s.Step(now, in)
		s.Scene(sc, 1280, 800)
		s.Drawn()
		for _, c := range []color.RGBA{ColorFloor, ColorSelf, ColorOther, ColorRocket, ColorGraphBG, ColorSnapshot, ColorCorrection, ColorLead, ColorGhost} {
			if count(sc, c) > 0 {
				frames[c]++
			}
		}
	}
	return frames
}

func count(sc *Scene, c color.RGBA) int {
	n := 0
	for _, sh := range sc.Shapes {
		if sh.Color == c {
			n++
		}
	}
	return n
}

// the game logic of play, headless. 20 s of autoplay in
// process at a 60 Hz display: at least 300 snapshots, no base or state
// mismatch, and every frame's scene holds the map, the player and the net
// graph.
func TestSessionAutoplay(t *testing.T) {
	opt := DefaultOptions()
	opt.Autoplay = true
	s, err := New(opt)
	if err != nil {
		t.Fatal(err)
	}
	var sc Scene
	drew := display(s, &sc, Input{}, 60, 0, 20*time.Second)
	sum := s.Summary()
	t.Logf("%+v", sum)
	if err := sum.Check(); err != nil {
		t.Fatal(err)
	}
	if sum.Snapshots < 300 || sum.StateChecks < 1000 || sum.BaseChecks < 100 || sum.FramesDrawn != 1200 || sum.Frame < 1150 {
		t.Errorf("summary %+v", sum)
	}
	if sum.Corrections == 0 || sum.Repredicted < sum.Snapshots {
		t.Errorf("no corrections or re-prediction: %+v", sum)
	}
	// The autoplaying player moves.
	if sum.KbpsUp <= 0 || sum.PredSelfMean > 8 {
		t.Errorf("up %.1f kbit/s, self prediction error %.2f", sum.KbpsUp, sum.PredSelfMean)
	}
	// Frames that drew each thing: the map and graph always once
	// connected (within the first half second), the player while alive,
	// others and rockets now and then.
	t.Logf("frames drawing: %v", drew)
	if drew[ColorFloor] < 1150 || drew[ColorGraphBG] != 1200 || drew[ColorSnapshot] < 1150 || drew[ColorLead] < 1100 ||
		drew[ColorSelf] < 400 || drew[ColorOther] < 100 || drew[ColorRocket] < 50 || drew[ColorCorrection] < 100 || drew[ColorGhost] != 0 {
		t.Errorf("frames drawing: %v", drew)
	}
	if count(&sc, ColorFloor) != 9 {
		t.Errorf("%d rooms drawn", count(&sc, ColorFloor))
	}
	f := s.Graph().Figures()
	if f.SnapshotsPerS < 15 || f.SnapshotsPerS > 25 || f.PingMS < 60 || f.PingMS > 150 || f.KbpsDown <= 0 || f.SnapshotBytes <= 0 || f.AppliesPerS < 5 {
		t.Errorf("figures %+v", f)
	}
	if len(sc.Texts) < 8 || sc.Texts[0].S == "" {
		t.Errorf("texts %+v", sc.Texts)
	}
}

// The knobs act live: the latency knob moves the round trip, the
// interpolation knob the client's mode for players, the ghost and graph
// knobs what is drawn.
func TestSessionKnobs(t *testing.T) {
	opt := DefaultOptions()
	opt.Autoplay, opt.Bots = true, 3
	s, err := New(opt)
	if err != nil {
		t.Fatal(err)
	}
	var sc Scene
	display(s, &sc, Input{}, 120, 0, 5*time.Second)
	low := s.Graph().Figures().PingMS
	for range 10 {
		s.Do(LatencyUp) // 80 ms + 200 ms
	}
	s.Do(ToggleGhost)
	s.Do(ToggleInterp)
	if s.Client().TypeMode(refgame.TypePlayer) != game.Interpolate {
		t.Error("interpolation knob did not reach the client")
	}
	drew := display(s, &sc, Input{}, 120, 5*time.Second, 10*time.Second)
	high := s.Graph().Figures().PingMS
	if low > 130 || high < 250 || s.Knobs().Latency != 280*time.Millisecond {
		t.Errorf("ping %.0f ms at 80 ms, %.0f ms at %v", low, high, s.Knobs().Latency)
	}
	if drew[ColorGhost] < 500 {
		t.Errorf("ghost drawn in %d of 600 frames", drew[ColorGhost])
	}
	gx, gy, ok := s.Ghost()
	p, okP := s.Player()
	if !ok || !okP || math.Hypot(float64(gx-p.X), float64(gy-p.Y)) > 3*refgame.MaxSpeed*0.3 {
		t.Errorf("ghost %v,%v (%v) far from the player %+v", gx, gy, ok, p)
	}
	s.Do(ToggleNetGraph)
	s.Do(ToggleInterp)
	s.Scene(&sc, 1280, 800)
	if count(&sc, ColorGraphBG) != 0 || s.Client().TypeMode(refgame.TypePlayer) != game.Predict {
		t.Error("graph still drawn or players still interpolated")
	}
	if err := s.Summary().Check(); err != nil {
		t.Error(err)
	}
}

func TestKnobsApply(t *testing.T) {
	k := Knobs{Latency: 10 * time.Millisecond}
	if !k.Apply(LatencyDown) || k.Latency != 0 || k.Apply(LatencyDown) {
		t.Errorf("latency floor: %v", k.Latency)
	}
	for range 200 {
		k.Apply(LossUp)
		k.Apply(JitterUp)
		k.Apply(LatencyUp)
	}
	if k.Loss != MaxLoss || k.Jitter != MaxJitter || k.Latency != MaxLatency {
		t.Errorf("ceilings: %+v", k)
	}
	if err := k.Link().Validate(); err != nil || k.Link().Latency != MaxLatency/2 {
		t.Errorf("link %+v: %v", k.Link(), err)
	}
	for range 3 {
		k.Apply(LossDown)
	}
	if math.Abs(k.Loss-0.47) > 1e-9 {
		t.Errorf("loss after three steps down: %v", k.Loss)
	}
	if k.Apply(ToggleGhost) || !k.Ghost || k.Apply(ToggleInterp) || !k.Interpolate || k.Apply(ToggleNetGraph) || !k.NetGraph {
		t.Errorf("toggles: %+v", k)
	}
}

// The mouse sets the view; the keys move along the screen's axes whatever
// the view, through the arena's Forward and Right.
func TestCommand(t *testing.T) {
	p := &refgame.Player{X: 100, Y: 100}
	for _, c := range []struct {
		name       string
		in         Input
		yaw        uint16
		fwd, right int8
		buttons    game.Buttons
	}{
		{"aim +X, move right", Input{Right: true, Aim: true, AimX: 200, AimY: 100}, 0, 127, 0, 0},
		{"aim +Y, move down", Input{Down: true, Aim: true, AimX: 100, AimY: 300}, 16384, 127, 0, 0},
		{"aim +X, move down", Input{Down: true, Aim: true, AimX: 200, AimY: 100}, 0, 0, -127, 0},
		{"aim -X, move right", Input{Right: true, Aim: true, AimX: 0, AimY: 100}, 32768, -127, 0, 0},
		{"aim +X, up left", Input{Up: true, Left: true, Fire: true, Use: true, Aim: true, AimX: 200, AimY: 100}, 0, -90, 90, refgame.ButtonAttack | refgame.ButtonUse},
		{"no aim keeps the yaw", Input{}, 1234, 0, 0, 0},
	} {
		cmd := Command(c.in, p, 1234, 7)
		if cmd.Yaw != c.yaw || cmd.Forward != c.fwd || cmd.Right != c.right || cmd.Buttons != c.buttons || cmd.Frame != 7 {
			t.Errorf("%s: %+v", c.name, cmd)
		}
	}
	// A command moves the player on the screen the way the key says: run
	// the arena's own movement.
	w, err := refgame.NewWorld(refgame.Config{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.ClientConnected(0); err != nil {
		t.Fatal(err)
	}
	me := &w.Players[0]
	x0, y0 := me.X, me.Y
	in := Input{Up: true, Aim: true, AimX: me.X + 100, AimY: me.Y + 30}
	for f := game.Frame(1); f <= 10; f++ {
		cmd := Command(in, me, 0, f)
		w.RunFrame(&game.Tick{Frame: f, Cmds: []game.PlayerCmd{{Entity: 0, Cmd: cmd}}, Events: game.Discard})
	}
	if dy, dx := me.Y-y0, me.X-x0; dy > -20 || math.Abs(float64(dx)) > 1 {
		t.Errorf("up moved by %v, %v", dx, dy)
	}
}

// Graph: per-frame samples from the statistics' differences, and the
// figures over the last second.
func TestGraph(t *testing.T) {
	var g Graph
	var st client.Stats
	var ctr clienthook.Counters
	for i := range 300 {
		now := time.Duration(i) * time.Second / 60
		st.Frame++
		if i%3 == 0 {
			st.SnapshotsReceived++
			ctr.SnapshotBytes += 100
			ctr.Repredicted += 5
			ctr.Applies++
		}
		if i%30 == 0 {
			st.SnapshotsLost++
			ctr.Corrections += 2
			ctr.CorrectionSum += 6
		}
		st.BytesIn += 50
		st.BytesOut += 25
		st.RTT = 80 * time.Millisecond
		st.Lead = 12 * time.Millisecond
		g.Add(now, &st, &ctr)
	}
	if g.Len() != GraphLen {
		t.Fatalf("len %d", g.Len())
	}
	last := g.At(GraphLen - 1) // frame 299: no snapshot
	prev := g.At(GraphLen - 3) // frame 297: a snapshot
	if last.Snapshots != 0 || prev.Snapshots != 1 || prev.Repredicted != 5 || last.Frames != 1 || last.LeadMS != 12 {
		t.Errorf("samples %+v %+v", last, prev)
	}
	at270 := g.At(GraphLen - 30) // frame 270
	if at270.Lost != 1 || at270.Corrections != 2 || at270.Correction != 6 {
		t.Errorf("frame 270: %+v", at270)
	}
	f := g.Figures()
	near := func(a, b float64) bool { return math.Abs(a-b) <= 0.05*b }
	if !near(f.KbpsDown, 24) || !near(f.KbpsUp, 12) || !near(f.SnapshotsPerS, 20) || f.SnapshotBytes != 100 ||
		f.Repredicted != 5 || !near(f.AppliesPerS, 20) || f.PingMS != 80 || !near(f.Loss, 2.0/22) {
		t.Errorf("figures %+v", f)
	}
}

// Steady state: a step allocates less than once a frame on average (the
// in-process match's harness), and a scene with its render positions
// nothing but in the scenes whose text is formatted again (the overlay's,
// every textEvery scenes: playview.Overlay).
func TestSessionAllocs(t *testing.T) {
	opt := DefaultOptions()
	opt.Autoplay = true
	s, err := New(opt)
	if err != nil {
		t.Fatal(err)
	}
	var sc Scene
	// Slices sized by the PVS (the client's and the harness's rings of
	// recorded frames) reach their size within the first seconds.
	display(s, &sc, Input{}, 60, 0, 20*time.Second)
	now := 20 * time.Second
	stepping := testing.AllocsPerRun(600, func() {
		now += time.Second / 60
		s.Step(now, Input{})
	})
	if stepping > 0.02 {
		t.Errorf("%.2f allocations per step", stepping)
	}
	scenes := 0
	for range 600 {
		// AllocsPerRun(1, f) runs f twice and measures the second run.
		if testing.AllocsPerRun(1, func() { s.Scene(&sc, 1280, 800) }) > 0 {
			scenes++
		}
	}
	if scenes > 600/textEvery+1 {
		t.Errorf("%d of 600 scenes allocated; the text is formatted in 1 of %d", scenes, textEvery)
	}
}

// Remote: a session joins a real UDP server on loopback (insecure) and
// plays.
func TestSessionRemote(t *testing.T) {
	settings := refgame.Config{Seed: 3, MaxPlayers: 4}.String()
	r, err := server.Listen("127.0.0.1:0", serverhook.With(server.Config{MaxClients: 4, Advanced: server.Advanced{VerifyBase: true}}, serverhook.Hooks{Seed: 3}), refgame.NewGame(), settings)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	defer func() {
		cancel()
		<-done
	}()
	opt := DefaultOptions()
	opt.Connect, opt.Autoplay = r.Addr().String(), true
	s, err := New(opt)
	if err != nil {
		t.Fatal(err)
	}
	// Real time at a display's pace until 30 snapshots and 10 base checks
	// are in (about 2 s idle); only a hang fails the bound.
	start := time.Now()
	var sc Scene
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for time.Since(start) < testwait.Hang {
		s.Step(time.Since(start), Input{})
		s.Scene(&sc, 800, 600)
		if sum := s.Summary(); sum.Snapshots >= 30 && sum.BaseChecks >= 10 {
			break
		}
		<-tick.C
	}
	sum := s.Summary()
	if err := s.Close(); err != nil {
		t.Error(err)
	}
	t.Logf("%+v", sum)
	if err := sum.Check(); err != nil || sum.Mode != "udp" || sum.Snapshots < 30 || sum.BaseChecks < 10 {
		t.Errorf("%v: %+v", err, sum)
	}
	if count(&sc, ColorSelf) == 0 || count(&sc, ColorFloor) == 0 {
		t.Error("remote scene lacks the player or the map")
	}
}

// The game side of a frame at 8 players (a server, 7 bots and the
// player's client in this process, stepped one 60 Hz frame), and the
// scene built from it; the window adds the drawing (BenchmarkPlayFrame in
// cmd/snapwire measures the whole frame under Xvfb).
func BenchmarkFrame(b *testing.B) {
	opt := DefaultOptions()
	opt.Autoplay = true
	s, err := New(opt)
	if err != nil {
		b.Fatal(err)
	}
	var sc Scene
	display(s, &sc, Input{}, 60, 0, 5*time.Second)
	now := 5 * time.Second
	b.ReportAllocs()
	var sw CPUStopwatch
	for b.Loop() {
		t0 := sw.Now()
		now += time.Second / 60
		s.Step(now, Input{})
		s.Scene(&sc, ScreenW, ScreenH)
		s.FrameTime(sw.Now() - t0)
	}
	b.ReportMetric(float64(s.FramePercentile(0.99))/float64(time.Millisecond), "ms-p99/frame")
}

// The stopwatch counts the frame goroutine's CPU, not the time it waits:
// 100 ms asleep read as far less than that on Linux, and busy work as
// more than nothing.
func TestCPUStopwatchCountsCPU(t *testing.T) {
	if _, ok := ThreadCPU(); !ok {
		t.Skip("no thread CPU clock on this system: the stopwatch reads the wall clock")
	}
	done := make(chan [2]time.Duration)
	go func() { // a goroutine of its own: the stopwatch locks it to its thread
		var sw CPUStopwatch
		t0 := sw.Now()
		time.Sleep(100 * time.Millisecond)
		slept := sw.Now() - t0
		t0 = sw.Now()
		x := 0
		for i := range 20_000_000 {
			x ^= i * i
		}
		busy := sw.Now() - t0
		if x == 1 {
			busy = 0
		}
		done <- [2]time.Duration{slept, busy}
	}()
	r := <-done
	if r[0] >= 50*time.Millisecond || r[1] <= 0 {
		t.Fatalf("asleep 100 ms read %v; busy work read %v", r[0], r[1])
	}
}
