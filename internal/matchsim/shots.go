package matchsim

import (
	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/clienthook"
	"github.com/snapwire/snapwire/internal/refgame"
	"github.com/snapwire/snapwire/server"
)

// Hitscan shots and lag compensation (Options.Shots; DOOM III network
// architecture, van Waveren 2006, §1.1).
//
// Every frame after the warm-up, every client fires one hitscan shot at
// every opponent it shows in its line of sight, aimed exactly at the
// position it shows: from where it shows itself, along refgame.YawTo to the
// opponent. The server runs that command at the same frame (the client
// ran ahead so that it arrives in time, §2), so the shot is checked there
// from the shooter's server position along the same yaw, three ways:
//
//   - present: against the players where the server has them at that
//     frame (no lag compensation);
//   - lag compensation: against the players where they were at the view
//     time the client claims (client.ShownTime: the frame itself when it
//     predicts them, the interpolation point when it interpolates them),
//     clamped by the server's History (server.LagConfig.MaxRewind);
//   - lag compensation with the paper's extra test: a rewound hit that
//     counts only with a clear line of sight to the target in the present.
//
// Walls and doors are the server's present in all three (the paper: "it
// is not practical for the server to roll back everything in time").
//
// A hit is behind cover when, in the victim's own view at that frame (where
// its client shows itself), no line from the shooter's position reaches
// any of nine points of its box (corners, edge midpoints, centre): the
// victim saw itself safely behind a wall when it was hit (the paper's tree
// example and "shot after the player has moved safely around a corner").

// ShotLagFrames is the lag-compensation history the shots are checked
// against, and ShotMaxRewind the server's bound on a claimed view time:
// one second, Half-Life's default.
const (
	ShotLagFrames = 64
	ShotMaxRewind = 60
)

// ShotStats are the hitscan figures of a run (Options.Shots), counted after
// the warm-up.
type ShotStats struct {
	Shots int64 `json:"shots"` // aimed at an opponent shown in sight
	// Hits on the aimed-at opponent: present check, lag-compensated,
	// lag-compensated with the present line-of-sight test.
	Hits           int64 `json:"hits"`
	HitsLagComp    int64 `json:"hits_lag_comp"`
	HitsLagCompLOS int64 `json:"hits_lag_comp_los"`
	// Of those, hits on a victim behind cover in its own view.
	BehindCover           int64 `json:"behind_cover"`
	BehindCoverLagComp    int64 `json:"behind_cover_lag_comp"`
	BehindCoverLagCompLOS int64 `json:"behind_cover_lag_comp_los"`
	// RewindMeanFrames: how far back the lag-compensated checks went.
	RewindMeanFrames float64 `json:"rewind_mean_frames"`
	// ClampedShots: claimed view times beyond ShotMaxRewind.
	ClampedShots int64 `json:"clamped_shots"`

	rewindSum float64
}

// HitShare is Hits/Shots, HitShareLagComp and HitShareLagCompLOS the same
// with lag compensation.
func (s *ShotStats) HitShare() float64           { return shotShare(s.Hits, s.Shots) }
func (s *ShotStats) HitShareLagComp() float64    { return shotShare(s.HitsLagComp, s.Shots) }
func (s *ShotStats) HitShareLagCompLOS() float64 { return shotShare(s.HitsLagCompLOS, s.Shots) }

func shotShare(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// shoot fires the shots of frame f (the server has just run it; h.sg is
// its state, the server's History holds it).
func (h *harness) shoot(f game.Frame) {
	hist := h.srv.History()
	st := h.shots
	if hist == nil || st == nil || !h.warm {
		return
	}
	w := h.sg
	players := game.EntityNum(len(w.Players))
	byEnt := make(map[game.EntityNum]*bot, len(h.bots))
	for _, b := range h.bots {
		if ent, ok := w.PlayerEntity(b.c.ClientNum()); ok && h.connected(b) {
			byEnt[ent] = b
		}
	}
	for _, b := range h.bots {
		me, ok := w.PlayerEntity(b.c.ClientNum())
		if !ok || !h.connected(b) || !alive(w, me) {
			continue
		}
		ox, oy, _, ok := clienthook.PredictedPosition(b.c, me, f)
		if !ok {
			continue
		}
		sx, sy := w.Players[me].X, w.Players[me].Y
		for n := range b.c.Visible() {
			if n == me || n >= players || !alive(w, n) {
				continue
			}
			tx, ty, _, ok := clienthook.PredictedPosition(b.c, n, f)
			if !ok || !w.ClearLine(ox, oy, tx, ty) {
				continue
			}
			view, ok := b.c.ShownTime(n, f)
			if !ok {
				continue
			}
			yaw := refgame.YawTo(ox, oy, tx, ty)
			st.Shots++
			hit, ok := w.Hitscan(me, sx, sy, yaw, nil)
			present := ok && hit == n
			shot := func(at server.PositionFunc) (game.EntityNum, bool) {
				return w.Hitscan(me, sx, sy, yaw, refgame.PlaceFunc(at))
			}
			hit, rewound, ok := hist.Check(f, view, shot, nil)
			lc := ok && hit == n
			los := lc && w.ClearLine(sx, sy, w.Players[n].X, w.Players[n].Y)
			st.rewindSum += float64(f) - rewound
			if rewound > view {
				st.ClampedShots++
			}
			if !present && !lc {
				continue
			}
			cover := false
			if v := byEnt[n]; v != nil {
				if vx, vy, _, ok := clienthook.PredictedPosition(v.c, n, f); ok {
					cover = hidden(w, sx, sy, vx, vy)
				}
			}
			count(&st.Hits, &st.BehindCover, present, cover)
			count(&st.HitsLagComp, &st.BehindCoverLagComp, lc, cover)
			count(&st.HitsLagCompLOS, &st.BehindCoverLagCompLOS, los, cover)
		}
	}
}

func count(hits, covered *int64, hit, cover bool) {
	if hit {
		*hits++
		if cover {
			*covered++
		}
	}
}

func (h *harness) connected(b *bot) bool { return b.c.State() == client.Connected }

func alive(w *refgame.World, n game.EntityNum) bool {
	e, _ := w.Entity(n)
	p, ok := e.(*refgame.Player)
	return ok && p.Alive()
}

// hidden reports whether no line from (sx, sy) reaches any of nine points
// of the player box centred on (x, y).
func hidden(w *refgame.World, sx, sy, x, y float32) bool {
	const r = refgame.PlayerRadius
	for _, dx := range [3]float32{-r, 0, r} {
		for _, dy := range [3]float32{-r, 0, r} {
			if w.ClearLine(sx, sy, x+dx, y+dy) {
				return false
			}
		}
	}
	return true
}

// finishShots fills the derived figures.
func (s *ShotStats) finish() {
	if s.Shots > 0 {
		s.RewindMeanFrames = round(s.rewindSum/float64(s.Shots), 2)
	}
}
