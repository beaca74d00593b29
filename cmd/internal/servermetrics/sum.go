package servermetrics

import (
	"github.com/snapwire/snapwire/internal/serverhook"
	"github.com/snapwire/snapwire/server"
)

// addStats adds o's counters that a Collector exports to st: the process's
// totals over its matches.
func addStats(st, o *serverhook.Stats) {
	st.Frames += o.Frames
	st.FramesLate += o.FramesLate
	st.Connects += o.Connects
	st.Refused += o.Refused
	st.Disconnects += o.Disconnects
	st.Timeouts += o.Timeouts
	st.Reservations += o.Reservations
	st.Resumes += o.Resumes
	st.Reserved += o.Reserved
	st.BadPackets += o.BadPackets
	st.AuthFailures += o.AuthFailures
	st.UnknownConn += o.UnknownConn
	st.WrongSource += o.WrongSource
	st.BadCookies += o.BadCookies
	st.Throttled += o.Throttled
	addHistogram(&st.FrameTime, &o.FrameTime)
	addHistogram(&st.SnapshotBuildTime, &o.SnapshotBuildTime)
}

// AddStats is addStats for a caller that keeps ended matches' counters
// (EndedSource).
func AddStats(st *serverhook.Stats, o serverhook.Stats) { addStats(st, &o) }

func addHistogram(h, o *serverhook.DurationHistogram) {
	for i := range h.Counts {
		h.Counts[i] += o.Counts[i]
	}
	h.Count += o.Count
	h.Sum += o.Sum
}

// AddTotals adds o to t, every field.
func AddTotals(t *server.Totals, o server.Totals) { addTotals(t, &o) }

func addTotals(t, o *server.Totals) {
	t.SnapshotsSent += o.SnapshotsSent
	t.SnapshotsSkipped += o.SnapshotsSkipped
	t.SnapshotBytes += o.SnapshotBytes
	t.LoadGameSent += o.LoadGameSent
	t.AcksApplied += o.AcksApplied
	t.CmdsEarly += o.CmdsEarly
	t.DuplicatedCmds += o.DuplicatedCmds
	t.LateCmds += o.LateCmds
	t.BytesIn += o.BytesIn
	t.BytesOut += o.BytesOut
	t.PacketsIn += o.PacketsIn
	t.PacketsOut += o.PacketsOut
	t.MessagesLostIn += o.MessagesLostIn
	t.ReliableResends += o.ReliableResends
}
