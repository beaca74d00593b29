package matchsim

import (
	"math"

	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/clienthook"
	"github.com/snapwire/snapwire/internal/report"
	"github.com/snapwire/snapwire/internal/serverhook"
)

// Result is what a demo run measured; its JSON is the output of
// "snapwire demo --json" (keys documented in README.md).
type Result struct {
	Clients   int     `json:"clients"`
	LatencyMS float64 `json:"latency_rtt_ms"`
	JitterMS  float64 `json:"jitter_ms"`
	Loss      float64 `json:"loss"`
	Seed      uint64  `json:"seed"`
	Settings  string  `json:"settings"`
	Mode      string  `json:"mode"`      // the bots' behaviour: deathmatch or nevertouch
	Opponents string  `json:"opponents"` // "predicted" (DOOM III) or "interpolated" (Quake 3)
	WarmupS   float64 `json:"warmup_s"`  // left out of the command shares, lead and prediction figures
	DurationS float64 `json:"duration_s"`
	Frames    uint64  `json:"frames"`

	KbpsPerClientMean   float64 `json:"kbps_per_client_mean"`
	KbpsPerClientMax    float64 `json:"kbps_per_client_max"`
	KbpsUpPerClientMean float64 `json:"kbps_up_per_client_mean"`

	SnapshotBytesMean    float64 `json:"snapshot_bytes_mean"`
	SnapshotBytesRawMean float64 `json:"snapshot_bytes_raw_mean"`
	PacketBytesDownMean  float64 `json:"packet_bytes_down_mean"`
	SnapshotsSent        uint64  `json:"snapshots_sent"`
	SnapshotsReceived    uint64  `json:"snapshots_received"`
	SnapshotsLost        uint64  `json:"snapshots_lost"`
	SnapshotsSkipped     uint64  `json:"snapshots_skipped"`
	SnapshotsMeasured    uint64  `json:"snapshots_measured"`

	SavedByBitpacking float64 `json:"saved_by_bitpacking"`
	SavedByDelta      float64 `json:"saved_by_delta"`
	SavedByZRLE       float64 `json:"saved_by_zrle"`
	// Bits behind the three savings, summed over the measured snapshots.
	Bits CompressionBits `json:"bits"`

	PredErrorSelfMean    float64 `json:"pred_error_self_mean"`
	PredErrorSelfP99     float64 `json:"pred_error_self_p99"`
	PredErrorSelfMax     float64 `json:"pred_error_self_max"`
	PredErrorOthersMean  float64 `json:"pred_error_others_mean"`
	PredErrorOthersP99   float64 `json:"pred_error_others_p99"`
	PredErrorOthersMax   float64 `json:"pred_error_others_max"`
	PredSamplesSelf      int     `json:"pred_samples_self"`
	PredSamplesOthers    int     `json:"pred_samples_others"`
	PredExactShareSelf   float64 `json:"pred_exact_share_self"`
	PredExactShareOthers float64 `json:"pred_exact_share_others"`

	// The command figures count the frames due after the warm-up.
	CmdLeadMSMean  float64 `json:"cmd_lead_ms_mean"`
	LateCmdShare   float64 `json:"late_cmd_share"`  // duplicated / frames run
	EarlyCmdShare  float64 `json:"early_cmd_share"` // frames whose command arrived before it was needed / frames run
	DuplicatedCmds uint64  `json:"duplicated_cmds"`
	LateCmds       uint64  `json:"late_cmds"`
	CmdsEarly      uint64  `json:"cmds_early"`
	FramesRun      uint64  `json:"frames_run"`

	ReliableResends uint64 `json:"reliable_resends"`
	PacketsSent     uint64 `json:"packets_sent"`
	PacketsLost     uint64 `json:"packets_lost"`

	BaseChecks      uint64 `json:"base_checks"`
	BaseMismatches  uint64 `json:"base_mismatches"`
	StateChecks     uint64 `json:"state_checks"`
	StateMismatches uint64 `json:"state_mismatches"`
	DecodeErrors    uint64 `json:"decode_errors"`
	MeasureErrors   uint64 `json:"measure_errors"`
	Disconnected    int    `json:"disconnected"`

	// Shots: the hitscan and lag-compensation figures (Options.Shots).
	Shots *ShotStats `json:"shots,omitempty"`
	// Section8: DOOM III §8's ideas measured (Options.Section8).
	Section8 *Section8Stats `json:"section8,omitempty"`
	// Reprediction: the clients' re-prediction after snapshots
	// (Options.Reprediction).
	Reprediction *RepredictionStats `json:"reprediction,omitempty"`

	WallMS    float64        `json:"wall_ms"`
	Seconds   []Second       `json:"seconds"`
	PerClient []ClientResult `json:"per_client"`
}

// CompressionBits are the sums behind the saved_by_* figures (DOOM III §6).
type CompressionBits struct {
	// Naive: 32 bits per variable of every PVS entity and non-PVS state;
	// Packed: the same variables bit packed (their WriteSnapshot state).
	Naive  uint64 `json:"naive"`
	Packed uint64 `json:"packed"`
	// Full: each snapshot re-encoded against an empty base (every PVS
	// entity written in full); Delta: against the client's common base, as
	// the server sent it; ZRLE: Delta after zero-run-length compression.
	Full  uint64 `json:"full"`
	Delta uint64 `json:"delta"`
	ZRLE  uint64 `json:"zrle"`
}

// Second is one virtual second of the run, summed or averaged over the
// clients: the lagometer of the report.
type Second struct {
	T         int        `json:"t"`
	Frame     game.Frame `json:"frame"`
	Connected int        `json:"connected"`
	// KbpsDown and KbpsUp are each client's server->client and
	// client->server UDP payload in kbit/s, in client order.
	KbpsDown []float64 `json:"kbps_down"`
	KbpsUp   []float64 `json:"kbps_up"`
	// SnapshotBytesRaw is the mean size of the snapshots the server built
	// (before zrle), SnapshotBytes that of the snapshots received after
	// zrle, PacketBytes the mean UDP payload of a server->client packet
	// (channel header, piggy-backed reliables, compressed snapshot).
	SnapshotBytesRaw float64 `json:"snapshot_bytes_raw"`
	SnapshotBytes    float64 `json:"snapshot_bytes"`
	PacketBytes      float64 `json:"packet_bytes"`
	PredSelfMean     float64 `json:"pred_self_mean"`
	PredSelfP99      float64 `json:"pred_self_p99"`
	PredOthersMean   float64 `json:"pred_others_mean"`
	PredOthersP99    float64 `json:"pred_others_p99"`
	LeadMeanMS       float64 `json:"lead_mean_ms"`
	LeadMinMS        float64 `json:"lead_min_ms"`
	Duplicated       uint64  `json:"duplicated"`
	PacketsLost      uint64  `json:"packets_lost"`
	SnapshotsLost    uint64  `json:"snapshots_lost"`
	ReliableResends  uint64  `json:"reliable_resends"`
}

// ClientResult is one bot's figures over the run.
type ClientResult struct {
	Client            int            `json:"client"`
	Num               game.ClientNum `json:"num"`
	State             string         `json:"state"`
	KbpsDown          float64        `json:"kbps_down"`
	KbpsUp            float64        `json:"kbps_up"`
	SnapshotsReceived uint64         `json:"snapshots_received"`
	SnapshotsLost     uint64         `json:"snapshots_lost"`
	PredSelfMean      float64        `json:"pred_self_mean"`
	PredOthersMean    float64        `json:"pred_others_mean"`
	LeadMeanMS        float64        `json:"lead_mean_ms"`
	Duplicated        uint64         `json:"duplicated"` // after the warm-up, as FramesRun and CmdsEarly
	CmdsEarly         uint64         `json:"cmds_early"`
	FramesRun         uint64         `json:"frames_run"`
	BaseChecks        uint64         `json:"base_checks"`
	BaseMismatches    uint64         `json:"base_mismatches"`
	StateChecks       uint64         `json:"state_checks"`
	StateMismatches   uint64         `json:"state_mismatches"`
}

// errStats accumulates one client's prediction errors.
type errStats struct {
	n, exact uint64
	sum, max float64
}

func (e *errStats) add(d float64) {
	e.n++
	if d == 0 {
		e.exact++
	}
	e.sum += d
	e.max = max(e.max, d)
}

func (e *errStats) mean() float64 {
	if e.n == 0 {
		return 0
	}
	return e.sum / float64(e.n)
}

func minOf(v []float64) float64 {
	m := math.Inf(1)
	for _, x := range v {
		m = min(m, x)
	}
	return m
}

func share(part, whole uint64) float64 {
	if whole == 0 {
		return 0
	}
	return float64(part) / float64(whole)
}

func saved(after, before uint64) float64 {
	if before == 0 {
		return 0
	}
	return round(1-float64(after)/float64(before), 4)
}

// finish fills res with the totals of the run.
func (h *harness) finish(res *Result) {
	if h.shots != nil {
		h.shots.finish()
		res.Shots = h.shots
	}
	if h.sparse != nil {
		h.sparse.stats.finish()
		res.Section8 = h.sparse.stats
	}
	dur := h.now.Seconds()
	res.DurationS = round(dur, 3)
	res.Frames = serverhook.ServerStats(h.srv).Frames
	byNum := map[game.ClientNum]serverhook.ClientStats{}
	for _, cs := range serverhook.Clients(h.srv) {
		byNum[cs.Num] = cs
	}
	var leadSum float64
	var leadN uint64
	var kbpsSum, upSum float64
	for _, b := range h.bots {
		cur := b.counters(byNum)
		st := clienthook.CountersOf(b.c)
		cr := ClientResult{Client: b.idx, Num: b.c.ClientNum(), State: b.c.State().String(),
			KbpsDown: round(float64(cur.down)*8/1000/dur, 2), KbpsUp: round(float64(cur.up)*8/1000/dur, 2),
			SnapshotsReceived: st.SnapshotsReceived, SnapshotsLost: st.SnapshotsLost,
			PredSelfMean: round(b.self.mean(), 3), PredOthersMean: round(b.others.mean(), 3),
			Duplicated: since(cur.dup, b.mark.dup), BaseChecks: st.BaseChecks + b.baseChecks,
			BaseMismatches: st.BaseMismatches + b.baseMismatches,
			StateChecks:    b.stateChecks, StateMismatches: b.stateMismatches}
		if b.leadN > 0 {
			cr.LeadMeanMS = round(b.leadSum/float64(b.leadN), 2)
		}
		if cs, ok := byNum[b.c.ClientNum()]; ok && b.c.State() == client.Connected {
			cr.FramesRun = since(cs.FramesRun, b.mark.run)
			cr.CmdsEarly = since(cs.CmdsEarly, b.mark.early)
			res.LateCmds += since(cs.LateCmds, b.mark.late)
			res.SnapshotsSkipped += cs.SnapshotsSkipped
		}
		if b.c.State() != client.Connected {
			res.Disconnected++
		}
		res.PerClient = append(res.PerClient, cr)

		kbpsSum += cr.KbpsDown
		upSum += cr.KbpsUp
		leadSum += b.leadSum
		leadN += b.leadN
		res.SnapshotsSent += cur.snaps
		res.SnapshotsReceived += st.SnapshotsReceived
		res.SnapshotsLost += st.SnapshotsLost
		res.DuplicatedCmds += cr.Duplicated
		res.FramesRun += cr.FramesRun
		res.CmdsEarly += cr.CmdsEarly
		res.ReliableResends += cur.resends
		res.BaseChecks += cr.BaseChecks
		res.BaseMismatches += cr.BaseMismatches
		res.StateChecks += b.stateChecks
		res.StateMismatches += b.stateMismatches
		res.DecodeErrors += st.DecodeErrors + st.ApplyErrors
		res.SnapshotBytesRawMean += float64(cur.snapBits) / 8
		res.PacketBytesDownMean += float64(cur.down)
		res.PredErrorSelfMax = max(res.PredErrorSelfMax, b.self.max)
		res.PredErrorOthersMax = max(res.PredErrorOthersMax, b.others.max)
		if h.opt.Reprediction {
			if res.Reprediction == nil {
				res.Reprediction = &RepredictionStats{}
			}
			res.Reprediction.add(b)
		}
	}
	if res.Reprediction != nil {
		res.Reprediction.finish()
	}
	n := float64(len(h.bots))
	res.KbpsPerClientMean = round(kbpsSum/n, 2)
	res.KbpsUpPerClientMean = round(upSum/n, 2)
	for _, s := range res.Seconds {
		for _, k := range s.KbpsDown {
			res.KbpsPerClientMax = max(res.KbpsPerClientMax, k)
		}
	}
	if res.SnapshotsSent > 0 {
		res.SnapshotBytesRawMean = round(res.SnapshotBytesRawMean/float64(res.SnapshotsSent), 1)
	}
	downPkts := uint64(0)
	for _, b := range h.bots {
		downPkts += b.counters(byNum).downPkts
	}
	if downPkts > 0 {
		res.PacketBytesDownMean = round(res.PacketBytesDownMean/float64(downPkts), 1)
	}
	if leadN > 0 {
		res.CmdLeadMSMean = round(leadSum/float64(leadN), 2)
	}
	res.LateCmdShare = round(share(res.DuplicatedCmds, res.FramesRun), 5)
	res.EarlyCmdShare = round(share(res.CmdsEarly, res.FramesRun), 5)

	res.PredSamplesSelf, res.PredSamplesOthers = len(h.allSelf), len(h.allOthers)
	res.PredErrorSelfMean, res.PredErrorOthersMean = round(report.Mean(h.allSelf), 3), round(report.Mean(h.allOthers), 3)
	res.PredErrorSelfP99 = round(report.Percentile(h.allSelf, 0.99), 3)
	res.PredErrorOthersP99 = round(report.Percentile(h.allOthers, 0.99), 3)
	res.PredErrorSelfMax, res.PredErrorOthersMax = round(res.PredErrorSelfMax, 3), round(res.PredErrorOthersMax, 3)
	res.PredExactShareSelf = round(exactShare(h.allSelf), 4)
	res.PredExactShareOthers = round(exactShare(h.allOthers), 4)

	m := h.meas
	res.SnapshotsMeasured = m.snapshots
	res.Bits = m.bits
	if m.snapshots > 0 {
		res.SnapshotBytesMean = round(float64(m.bits.ZRLE)/8/float64(m.snapshots), 1)
	}
	res.SavedByBitpacking = saved(m.bits.Packed, m.bits.Naive)
	res.SavedByDelta = saved(m.bits.Delta, m.bits.Full)
	res.SavedByZRLE = saved(m.bits.ZRLE, m.bits.Delta)
	res.MeasureErrors = m.errors

	ns := h.net.Stats()
	res.PacketsSent, res.PacketsLost = ns.Sent, ns.Lost
}

// since is a counter's growth since mark (0 if it started again: a new
// connection in the slot).
func since(cur, mark uint64) uint64 {
	if cur < mark {
		return cur
	}
	return cur - mark
}

func exactShare(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	k := 0
	for _, x := range v {
		if x == 0 {
			k++
		}
	}
	return float64(k) / float64(len(v))
}
