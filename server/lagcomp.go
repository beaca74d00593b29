package server

import (
	"math"

	"github.com/snapwire/snapwire/game"
)

// Lag compensation (Half-Life's approach, described and criticised in DOOM
// III network architecture, van Waveren 2006, §1.1): the server keeps a
// short history of the players' positions and checks a shot against the
// world as the shooting client saw it, at its view time (Quake 3 style
// clients show opponents interpolated, in the past), instead of the
// present. The paper's objections are measured by "snapwire models": a
// player can be hit after reaching cover in their own view (the tree
// example), and the optional extra line-of-sight test in the present that
// the paper proposes (CheckLOS) only narrows that.
//
// The history is I/O-free and counted in game frames. The view time a
// client claims is hostile input: clamp bounds it to the MaxRewind frames
// before the present and to the frames still kept.

// LagConfig turns lag compensation's history on (Config.LagCompensation).
type LagConfig struct {
	// Frames is the number of frames of positions kept [0: off], at most
	// maxHistoryFrames.
	Frames int
	// MaxRewind bounds how far before the present a shot is checked, in
	// frames [Frames-1]; a server chooses it from the round trips it
	// serves (Half-Life: about a second).
	MaxRewind int
}

// maxHistoryFrames bounds LagConfig.Frames (17 s at 60 Hz).
const maxHistoryFrames = 1024

// Positioner is implemented by entities that have a position (the
// arena's players and rockets; the client's interface of the same name).
type Positioner interface {
	Position() (x, y, z float32)
}

// entityPos is one entity's position in a frame of the History.
type entityPos struct {
	Num     game.EntityNum
	X, Y, Z float32
}

// PositionFunc returns entity n's position in some frame, or ok == false
// when it had none.
type PositionFunc func(n game.EntityNum) (x, y, z float32, ok bool)

// ShotFunc traces a shot against the entities placed by at and returns the
// entity it hit first (the game's hit detection: walls and the shooter's
// own position are the game's business, in the present).
type ShotFunc func(at PositionFunc) (hit game.EntityNum, ok bool)

// History is a bounded history of entity positions by frame (a ring of
// LagConfig.Frames frames). It allocates nothing once every frame's slice
// has grown to the number of entities recorded. Not safe for concurrent
// use.
type History struct {
	ring      []histFrame
	maxRewind int
	latest    game.Frame
	count     int // frames spanned since the last Reset, saturating at len(ring); 0: empty
}

type histFrame struct {
	frame game.Frame
	valid bool
	pos   []entityPos // ascending by Num
}

// newHistory returns a history of cfg.Frames frames (1..maxHistoryFrames)
// and a rewind bound of cfg.MaxRewind frames (clamped to 0..Frames-1;
// 0 means Frames-1).
func newHistory(cfg LagConfig) *History {
	n := min(max(cfg.Frames, 1), maxHistoryFrames)
	r := cfg.MaxRewind
	if r <= 0 || r > n-1 {
		r = n - 1
	}
	return &History{ring: make([]histFrame, n), maxRewind: r}
}

// frames is the number of frames the history keeps; maxRewindFrames its rewind
// bound.
func (h *History) frames() int          { return len(h.ring) }
func (h *History) maxRewindFrames() int { return h.maxRewind }

// reset forgets every frame (a map change).
func (h *History) reset() {
	for i := range h.ring {
		h.ring[i].valid = false
	}
	h.count = 0
}

// record stores the positions of frame f, which must be newer than the
// latest recorded (an older or repeated frame is ignored and Record
// returns false). pos is copied and sorted by entity number.
func (h *History) record(f game.Frame, pos []entityPos) bool {
	if h.count > 0 && f <= h.latest {
		return false
	}
	if h.count > 0 && int64(f)-int64(h.latest) >= int64(len(h.ring)) {
		h.reset() // a gap longer than the history: nothing kept is contiguous
	}
	hf := &h.ring[int(uint32(f))%len(h.ring)]
	hf.frame, hf.valid = f, true
	hf.pos = append(hf.pos[:0], pos...)
	for i := 1; i < len(hf.pos); i++ {
		for j := i; j > 0 && hf.pos[j].Num < hf.pos[j-1].Num; j-- {
			hf.pos[j], hf.pos[j-1] = hf.pos[j-1], hf.pos[j]
		}
	}
	if h.count > 0 {
		// Frames skipped between the previous and f are not kept.
		for g := h.latest + 1; g < f; g++ {
			h.ring[int(uint32(g))%len(h.ring)].valid = false
		}
		h.count = min(h.count+int(f-h.latest), len(h.ring))
	} else {
		h.count = 1
	}
	h.latest = f
	return true
}

// latestFrame returns the newest frame recorded.
func (h *History) latestFrame() (game.Frame, bool) { return h.latest, h.count > 0 }

// oldest is the oldest frame the ring may still hold.
func (h *History) oldest() game.Frame { return h.latest - game.Frame(len(h.ring)-1) }

// clamp bounds a view time a client claims for a shot fired at frame now
// (in frames, fractional: an interpolating client sees between frames) to
// [now-MaxRewind, now] and to the frames kept; a non-finite claim is now.
// clamp is where the hostile input stops.
func (h *History) clamp(now game.Frame, claimed float64) float64 {
	hi := float64(now)
	if h.count > 0 {
		hi = min(hi, float64(h.latest))
	}
	lo := float64(now) - float64(h.maxRewind)
	if h.count > 0 {
		lo = max(lo, float64(h.oldest()))
	}
	lo = min(lo, hi)
	if math.IsNaN(claimed) || math.IsInf(claimed, 0) {
		return hi
	}
	return min(max(claimed, lo), hi)
}

func (h *History) frame(f game.Frame) *histFrame {
	if h.count == 0 || f > h.latest || f < h.oldest() {
		return nil
	}
	hf := &h.ring[int(uint32(f))%len(h.ring)]
	if !hf.valid || hf.frame != f {
		return nil
	}
	return hf
}

func (hf *histFrame) find(n game.EntityNum) (entityPos, bool) {
	lo, hi := 0, len(hf.pos)
	for lo < hi {
		m := (lo + hi) / 2
		if hf.pos[m].Num < n {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(hf.pos) && hf.pos[lo].Num == n {
		return hf.pos[lo], true
	}
	return entityPos{}, false
}

// position returns entity n's position at time t (frames, fractional):
// linear between the two frames around t when both hold it, else the
// earlier frame's. ok is false when the history does not hold n at t.
func (h *History) position(n game.EntityNum, t float64) (x, y, z float32, ok bool) {
	if math.IsNaN(t) || math.IsInf(t, 0) || t < math.MinInt32 || t > math.MaxInt32 {
		return 0, 0, 0, false
	}
	a := game.Frame(math.Floor(t))
	fa := h.frame(a)
	if fa == nil {
		return 0, 0, 0, false
	}
	p, ok := fa.find(n)
	if !ok {
		return 0, 0, 0, false
	}
	frac := float32(t - float64(a))
	if frac > 0 {
		if fb := h.frame(a + 1); fb != nil {
			if q, ok := fb.find(n); ok {
				p.X = p.X + float32(frac*float32(q.X-p.X))
				p.Y = p.Y + float32(frac*float32(q.Y-p.Y))
				p.Z = p.Z + float32(frac*float32(q.Z-p.Z))
			}
		}
	}
	return p.X, p.Y, p.Z, true
}

// at returns a PositionFunc of the positions at time t.
func (h *History) at(t float64) PositionFunc {
	return func(n game.EntityNum) (x, y, z float32, ok bool) { return h.position(n, t) }
}

// Check tests a shot fired at frame now by a client claiming view time
// claimed: shot runs against the positions at the clamped time (returned
// as rewound). With los set (the extra test of DOOM III §1.1), a hit
// counts only if los reports a clear line of sight to the target in the
// present.
func (h *History) Check(now game.Frame, claimed float64, shot ShotFunc, los func(target game.EntityNum) bool) (hit game.EntityNum, rewound float64, ok bool) {
	rewound = h.clamp(now, claimed)
	hit, ok = shot(h.at(rewound))
	if ok && los != nil && !los(hit) {
		return 0, rewound, false
	}
	return hit, rewound, ok
}
