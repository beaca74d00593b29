package playview

import (
	"time"

	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/internal/clienthook"
)

// GraphLen is the number of frames the net graph's strip shows.
const GraphLen = 240

// Sample is one drawn frame of the net graph's strip, in the spirit of
// Quake 3's lagometer (cl_scrn.c): what happened to the client since the
// frame before.
type Sample struct {
	Snapshots   uint16  // snapshots that arrived
	Lost        uint16  // snapshots lost (sequence gaps)
	Repredicted uint16  // game frames re-predicted from them (DOOM III §2, fig. 5)
	Corrections uint16  // entities whose shown position they moved
	Correction  float32 // the length of those jumps, world units
	Duplicated  uint16  // commands the server duplicated because ours came late (§3.2)
	LeadMS      float32 // the server's last "commands arrived N ms early" (§3.2)
	Frames      uint16  // game frames the client ran
}

// Figures are the net graph's numbers, over the last second.
type Figures struct {
	PingMS        float64 // the channel's smoothed round trip
	Loss          float64 // share of snapshots lost (sequence gaps)
	KbpsDown      float64 // UDP payload received
	KbpsUp        float64 // UDP payload sent
	SnapshotBytes float64 // mean size of a snapshot as received (before decoding)
	SnapshotsPerS float64
	AppliesPerS   float64 // common-base applies (DOOM III §4.2)
	LeadMS        float64 // last command lead reported
	Duplicated    uint64  // commands duplicated by the server, in total
	Repredicted   float64 // frames re-predicted per snapshot
	Corrections   float64 // corrections per second
}

// counters is a timestamped copy of the cumulative figures the graph
// differences.
type counters struct {
	at                   time.Duration
	in, out              uint64
	snaps, lost, bytes   uint64
	applies, repredicted uint64
	corrections, dup     uint64
	correctionSum        float64
	frame                int64
}

func countersOf(now time.Duration, st *client.Stats, c *clienthook.Counters) counters {
	return counters{at: now, in: st.BytesIn, out: st.BytesOut,
		snaps: st.SnapshotsReceived, lost: st.SnapshotsLost, bytes: c.SnapshotBytes,
		applies: c.Applies, repredicted: c.Repredicted, corrections: c.Corrections,
		dup: c.Duplicated, correctionSum: c.CorrectionSum, frame: int64(st.Frame)}
}

// histLen bounds the counter history the per-second figures look back
// into: a second at up to 500 drawn frames per second.
const histLen = 512

// Graph collects the net graph's data, one Add per drawn frame; nothing
// is allocated.
type Graph struct {
	strip [GraphLen]Sample
	n     int // samples added
	hist  [histLen]counters
	nh    int
	fig   Figures
}

// Add records the client's statistics and counters at time now (one drawn
// frame).
func (g *Graph) Add(now time.Duration, st *client.Stats, c *clienthook.Counters) {
	cur := countersOf(now, st, c)
	if g.nh == 0 {
		g.hist[0] = cur
		g.nh = 1
	}
	prev := g.hist[(g.nh-1)%histLen]
	g.hist[g.nh%histLen] = cur
	g.nh++
	g.strip[g.n%GraphLen] = Sample{
		Snapshots:   sat16(cur.snaps - prev.snaps),
		Lost:        sat16(cur.lost - prev.lost),
		Repredicted: sat16(cur.repredicted - prev.repredicted),
		Corrections: sat16(cur.corrections - prev.corrections),
		Correction:  float32(cur.correctionSum - prev.correctionSum),
		Duplicated:  sat16(cur.dup - prev.dup),
		LeadMS:      float32(st.Lead) / float32(time.Millisecond),
		Frames:      sat16(uint64(max(cur.frame-prev.frame, 0))),
	}
	g.n++

	// The oldest record within the last second.
	old := cur
	for i := 2; i <= min(g.nh, histLen); i++ {
		h := g.hist[(g.nh-i)%histLen]
		if now-h.at > time.Second {
			break
		}
		old = h
	}
	f := &g.fig
	f.PingMS = float64(st.RTT) / float64(time.Millisecond)
	f.LeadMS = float64(st.Lead) / float64(time.Millisecond)
	f.Duplicated = c.Duplicated
	dt := (cur.at - old.at).Seconds()
	if dt <= 0 {
		return
	}
	snaps := cur.snaps - old.snaps
	f.KbpsDown = float64(cur.in-old.in) * 8 / 1000 / dt
	f.KbpsUp = float64(cur.out-old.out) * 8 / 1000 / dt
	f.SnapshotsPerS = float64(snaps) / dt
	f.AppliesPerS = float64(cur.applies-old.applies) / dt
	f.Corrections = float64(cur.corrections-old.corrections) / dt
	f.Loss, f.SnapshotBytes, f.Repredicted = 0, 0, 0
	if lost := cur.lost - old.lost; snaps+lost > 0 {
		f.Loss = float64(lost) / float64(snaps+lost)
	}
	if snaps > 0 {
		f.SnapshotBytes = float64(cur.bytes-old.bytes) / float64(snaps)
		f.Repredicted = float64(cur.repredicted-old.repredicted) / float64(snaps)
	}
}

func sat16(v uint64) uint16 { return uint16(min(v, 0xffff)) }

// Len is the number of samples in the strip (up to GraphLen).
func (g *Graph) Len() int { return min(g.n, GraphLen) }

// At returns sample i of the strip, 0 the oldest shown.
func (g *Graph) At(i int) Sample {
	first := g.n - g.Len()
	return g.strip[(first+i)%GraphLen]
}

// Figures are the figures over the last second, as of the last Add.
func (g *Graph) Figures() Figures { return g.fig }
