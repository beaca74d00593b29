package server

import (
	"math"
	"testing"
	"time"

	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/testgame"
)

// The lag-compensation world of these tests: a target (entity 1) running
// along +X at 5 units a frame on y = 0, a shooter firing straight along
// +Y at a given x, a hit when the ray passes within radius of the target.
const target game.EntityNum = 1

const (
	targetSpeed  = 5
	targetRadius = 12
)

func targetX(f game.Frame) float32 { return float32(f) * targetSpeed }

// recordRun records frames 1..last of the target (and a still entity 2).
func recordRun(h *History, last game.Frame) {
	for f := game.Frame(1); f <= last; f++ {
		h.record(f, []entityPos{{Num: 2, X: -100}, {Num: target, X: targetX(f)}})
	}
}

// shotAt returns a shot along +Y at x.
func shotAt(x float32) ShotFunc {
	return func(at PositionFunc) (game.EntityNum, bool) {
		tx, _, _, ok := at(target)
		if ok && float32(math.Abs(float64(tx-x))) < targetRadius {
			return target, true
		}
		return 0, false
	}
}

// Acceptance (Half-Life's lag compensation, DOOM III §1.1): a shot aimed
// at where the client saw the target, 20 frames in the past, hits when the
// server rewinds to that view time and misses in the present, where the
// target has run 100 units on.
//
// Guards against: a rewind that does not move the target back (the
// compensated shot would miss) or a check that ignored time (the
// uncompensated one would hit).
func TestHistoryRewindHitsWhereTheClientSaw(t *testing.T) {
	h := newHistory(LagConfig{Frames: 64, MaxRewind: 30})
	recordRun(h, 100)
	seen := game.Frame(80)
	shot := shotAt(targetX(seen))
	if hit, rewound, ok := h.Check(100, float64(seen), shot, nil); !ok || hit != target || rewound != 80 {
		t.Errorf("rewound to %v: hit %v %v, want the target at 80", rewound, hit, ok)
	}
	if _, _, ok := h.Check(100, 100, shot, nil); ok {
		t.Error("the same shot in the present hit a target 100 units away")
	}
	// Between frames (an interpolating client): 80.5 is 2.5 units on.
	x, _, _, ok := h.position(target, 80.5)
	if !ok || x != targetX(80)+2.5 {
		t.Errorf("position at 80.5 = %v %v, want %v", x, ok, targetX(80)+2.5)
	}
}

// Acceptance: the history is bounded in frames: after 2000 frames into a
// 64-frame history, the last 64 are there and the one before is gone.
//
// Guards against: a history that grows with the match, or a ring index
// that returns a frame 64 frames off for an old one.
func TestHistoryBoundedInFrames(t *testing.T) {
	h := newHistory(LagConfig{Frames: 64})
	recordRun(h, 2000)
	if h.frames() != 64 || h.maxRewindFrames() != 63 {
		t.Fatalf("frames %d, max rewind %d", h.frames(), h.maxRewindFrames())
	}
	if x, _, _, ok := h.position(target, 2000-63); !ok || x != targetX(2000-63) {
		t.Errorf("oldest kept frame: %v %v", x, ok)
	}
	if _, _, _, ok := h.position(target, 2000-64); ok {
		t.Error("a frame older than the history was returned")
	}
	if h.record(1999, nil) || h.record(2000, nil) {
		t.Error("an old or repeated frame was recorded")
	}
	// A gap longer than the history forgets everything before it.
	h.record(3000, []entityPos{{Num: target, X: 1}})
	if _, _, _, ok := h.position(target, 2000); ok {
		t.Error("a frame from before a long gap survived")
	}
	if x, _, _, ok := h.position(target, 3000); !ok || x != 1 {
		t.Errorf("frame after the gap: %v %v", x, ok)
	}
}

// Acceptance: the view time a client claims is hostile input: it is
// clamped to MaxRewind frames before the present, never after the present,
// and a non-finite claim is the present. A client claiming the distant
// past to hit where its target stood long ago misses.
//
// Guards against: a server that rewinds as far as a client asks (a cheater
// picks the moment the target stood still in the open) or that reads
// NaN as a frame.
func TestHistoryClampsTheClaimedTime(t *testing.T) {
	h := newHistory(LagConfig{Frames: 120, MaxRewind: 10})
	recordRun(h, 100)
	for _, c := range []struct{ claim, want float64 }{
		{50, 90}, {-1e12, 90}, {95.5, 95.5}, {100, 100}, {130, 100},
		{math.NaN(), 100}, {math.Inf(-1), 100}, {math.Inf(1), 100},
	} {
		if got := h.clamp(100, c.claim); got != c.want {
			t.Errorf("Clamp(100, %v) = %v, want %v", c.claim, got, c.want)
		}
	}
	if _, rewound, ok := h.Check(100, 40, shotAt(targetX(40)), nil); ok || rewound != 90 {
		t.Errorf("a shot claiming frame 40 was checked at %v and hit %v", rewound, ok)
	}
	// The clamp also stops at the frames kept.
	short := newHistory(LagConfig{Frames: 8, MaxRewind: 100})
	recordRun(short, 100)
	if got := short.clamp(100, 0); got != 93 {
		t.Errorf("Clamp to a history of 8 frames = %v, want 93", got)
	}
	if _, _, _, ok := short.position(target, math.NaN()); ok {
		t.Error("a NaN time gave a position")
	}
}

// Acceptance (the paper's extra test, DOOM III §1.1): with a present
// line-of-sight test, a rewound hit counts only when the target is in
// sight now.
//
// Guards against: a Check that ignores its los argument, or asks it about
// another entity than the one hit.
func TestHistoryPresentLineOfSight(t *testing.T) {
	h := newHistory(LagConfig{Frames: 64})
	recordRun(h, 100)
	shot := shotAt(targetX(90))
	var asked []game.EntityNum
	blocked := func(n game.EntityNum) bool { asked = append(asked, n); return false }
	if _, _, ok := h.Check(100, 90, shot, blocked); ok {
		t.Error("a hit counted with no line of sight in the present")
	}
	if len(asked) != 1 || asked[0] != target {
		t.Errorf("los asked about %v, want the target", asked)
	}
	clear := func(game.EntityNum) bool { return true }
	if hit, _, ok := h.Check(100, 90, shot, clear); !ok || hit != target {
		t.Error("a hit in sight did not count")
	}
}

// Acceptance: with Config.LagCompensation the server records each
// player's position after every frame (what the client would show for
// that frame when predicting it exactly), and a map change forgets them.
//
// Guards against: a history recorded before the frame ran (one frame off)
// or kept across maps.
func TestServerRecordsPlayerPositions(t *testing.T) {
	s, r := newTest(t, Config{LagCompensation: LagConfig{Frames: 30}})
	if s.History() == nil {
		t.Fatal("no history")
	}
	if off, _ := newTest(t, Config{}); off.History() != nil {
		t.Error("lag compensation on by default")
	}
	handshake(t, s, r, 0, addr(1), goodConnect(1))
	s.Advance(100 * time.Millisecond)
	ent, _ := s.g.PlayerEntity(0)
	e, _ := s.g.Entity(ent)
	x, y, _ := e.(Positioner).Position()
	hx, hy, _, ok := s.History().position(ent, float64(s.Frame()))
	if !ok || hx != x || hy != y {
		t.Errorf("history at frame %d: %v,%v %v; entity at %v,%v", s.Frame(), hx, hy, ok, x, y)
	}
	if f, ok := s.History().latestFrame(); !ok || f != s.Frame() {
		t.Errorf("latest %d, server frame %d", f, s.Frame())
	}
	if err := s.ChangeMap(testgame.DefaultSettings); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.History().latestFrame(); ok {
		t.Error("history kept across a map change")
	}
}
