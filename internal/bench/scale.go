// scale.go: how large a match one server process holds at 60 Hz frames and 20 Hz snapshots,
// on one core and on two (snapshots built by parallel goroutines through FrameCache views).

package bench

import (
	"bytes"
	"fmt"
	"sync"
	"time"

	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/snapshot"
)

// ScalePoint is the server's cost at one visible-entity count with one or two workers building
// the snapshots, and the largest client count it holds at 60 Hz frames and 20 Hz snapshots.
type ScalePoint struct {
	Visible int `json:"visible"`
	Workers int `json:"workers"`
	// NsPerClientSnapshot is the wall time of a frame's snapshots (the shared Prepare and
	// PrepareStates, then every client's Build and Ack, the clients split between the workers)
	// over the clients built, with ScaleClients clients.
	NsPerClientSnapshot float64 `json:"ns_per_client_snapshot"`
	// MaxClients is the largest client count whose snapshots, PVS and the 60 Hz game frame
	// fit in one second of wall time per second at these costs (the game frame and the PVS
	// stay on one goroutine).
	MaxClients int `json:"max_clients"`
	// Identical: the parallel snapshots were compared with the serial ones, bit for bit.
	Identical bool `json:"identical"`
}

// ScaleClients is the client count the scale points are measured at: the 64p scenario's 64
// players, each followed by three spectators who see what it sees (a spectator's snapshot
// costs the server what a player's does).
const ScaleClients = 256

// ScaleVisible are the visible-entity counts of the scale curve.
var ScaleVisible = []int{64, 128, 256, 512, 1024}

// visibleN cuts or pads client c's PVS of tk to n live entities, as visible256 does to 256.
func visibleN(tk *Tick, c, n int) snapshot.PVS {
	var p snapshot.PVS
	k := 0
	for e := range tk.PVS[c].All() {
		if k == n {
			return p
		}
		if ent, _ := tk.World.Entity(e); ent != nil {
			p.Add(e)
			k++
		}
	}
	for e := range tk.World.Entities() {
		if k == n {
			break
		}
		if !p.Has(e) {
			p.Add(e)
			k++
		}
	}
	return p
}

// measureScale measures the scale curve on rec (the 64p recording): for each visible count,
// ScaleClients clients built serially and by two workers; the two are compared bit for bit.
func measureScale(rec *Recording, base *snapshot.CommonBase, ticks int) ([]ScalePoint, error) {
	reg := rec.Load.Registry()
	ticks = min(ticks, len(rec.Ticks))
	var out []ScalePoint
	for _, vis := range ScaleVisible {
		pvs := make([][]snapshot.PVS, ticks)
		union := make([]snapshot.PVS, ticks)
		for i := range ticks {
			tk := &rec.Ticks[i]
			pvs[i] = make([]snapshot.PVS, rec.Clients)
			for c := range rec.Clients {
				pvs[i][c] = visibleN(tk, c, vis)
				for j := range union[i] {
					union[i][j] |= pvs[i][c][j]
				}
			}
		}
		var serialOut [][]byte
		for _, workers := range []int{1, 2} {
			ns, snaps, err := scaleRun(rec, base, reg, pvs, union, ticks, workers)
			if err != nil {
				return nil, fmt.Errorf("scale %d visible, %d workers: %w", vis, workers, err)
			}
			pt := ScalePoint{Visible: vis, Workers: workers, NsPerClientSnapshot: ns}
			if workers == 1 {
				serialOut = snaps
			} else {
				pt.Identical = len(snaps) == len(serialOut)
				for i := range snaps {
					pt.Identical = pt.Identical && bytes.Equal(snaps[i], serialOut[i])
				}
				if !pt.Identical {
					return nil, fmt.Errorf("scale %d visible: the parallel snapshots differ from the serial ones", vis)
				}
			}
			// One second holds 60 game frames, and 20 snapshots for every client plus its PVS.
			budget := 1e9 - FrameRate*rec.FrameNS
			pt.MaxClients = max(int(budget/(SnapshotRate*(ns+rec.VisibleNS))), 0)
			out = append(out, pt)
		}
	}
	return out, nil
}

// scaleRun builds every client's snapshot of each tick in three passes and returns the wall
// time per client-snapshot of the second and the snapshots of the third (kept outside the
// timed pass, since copying them costs).
func scaleRun(rec *Recording, base *snapshot.CommonBase, reg *game.Registry, pvs [][]snapshot.PVS, union []snapshot.PVS, ticks, workers int) (float64, [][]byte, error) {
	encs := make([]*snapshot.Encoder, ScaleClients)
	for c := range encs {
		encs[c] = snapshot.NewEncoder(reg)
		encs[c].Base().CopyFrom(base)
	}
	var cache snapshot.FrameCache
	views := make([]snapshot.FrameCache, workers)
	bufs := make([][]byte, workers)
	for w := range bufs {
		bufs[w] = make([]byte, 1<<18)
	}
	sts := make([][]game.Snapshotter, ScaleClients)
	var keep [][]byte
	var total time.Duration
	const passes = 3
	errs := make([]error, workers)
	for pass := range passes {
		timed, last := pass == passes-2, pass == passes-1
		for ti := range ticks {
			tk := &rec.Ticks[ti]
			for c := range ScaleClients {
				sts[c] = states(tk.World, c%rec.Clients, sts[c])
			}
			start := time.Now()
			if err := cache.Prepare(tk.Frame, tk.World, reg, &union[ti]); err != nil {
				return 0, nil, err
			}
			for c := range rec.Clients {
				if err := cache.PrepareStates(tk.Frame, sts[c]); err != nil {
					return 0, nil, err
				}
			}
			clear(errs)
			var got [ScaleClients][]byte
			build := func(wk int, cache *snapshot.FrameCache) {
				w := bitmsg.NewWriter(bufs[wk])
				for c := wk; c < ScaleClients; c += workers {
					in := snapshot.Input{Frame: tk.Frame, PVS: &pvs[ti][c%rec.Clients], World: tk.World, States: sts[c], Cache: cache}
					w.Reset(bufs[wk])
					h, err := encs[c].Build(w, &in)
					if err != nil {
						errs[wk] = err
						return
					}
					if h.Seq > 2 {
						encs[c].Ack(h.Seq - 2)
					}
					if last {
						got[c] = bytes.Clone(w.Bytes())
					}
				}
			}
			if workers == 1 {
				build(0, &cache)
			} else {
				var wg sync.WaitGroup
				for wk := range workers {
					views[wk].ShareFrom(&cache)
					wg.Add(1)
					go func() { defer wg.Done(); build(wk, &views[wk]) }()
				}
				wg.Wait()
			}
			if timed {
				total += time.Since(start)
			}
			if last {
				keep = append(keep, got[:]...)
			}
			for _, err := range errs {
				if err != nil {
					return 0, nil, err
				}
			}
		}
	}
	return float64(total.Nanoseconds()) / float64(ticks*ScaleClients), keep, nil
}
