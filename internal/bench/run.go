// run.go: the options, the result rows and Run, which measures every scenario.

package bench

import (
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/snapwire/snapwire/internal/netchan"
	"github.com/snapwire/snapwire/internal/report"
	"github.com/snapwire/snapwire/internal/zrle"
)

// Encoder names, as they appear in rows.
const (
	EncDoom3       = "doom3"         // snapshot.Encoder and its "apply" messages as a netchan.Channel sends them: zrle (3-bit words), the paper's pipeline
	EncDoom3Huff   = "doom3+huff"    // the same through snapwire's pipeline: zrle or the static Huffman stage, whichever is smaller (netchan.Config.Huffman)
	EncDoom3RC     = "doom3+rc"      // the same with the adaptive entropy stage as well: zrle, Huffman or range coding, whichever is smallest (netchan.Config.Entropy)
	EncDoom3Raw    = "doom3-nozrle"  // the same channel bodies before compression
	EncQuake3      = "quake3"        // the Quake 3 scheme with the fixed Huffman stage
	EncQuake3NoHuf = "quake3-nohuff" // the same snapshots before Huffman
)

// UDPIPBytes is the UDP/IPv4 header overhead of one packet, as the channel's rate control
// counts it.
const UDPIPBytes = netchan.UDPIPOverhead

// Options selects what Run measures.
type Options struct {
	Warmup    int       // frames run before recording (bots spread out)
	Ticks     int       // snapshot ticks recorded per scenario
	Skip      int       // first ticks left out of byte statistics (both schemes start from the map)
	Losses    []float64 // packet loss rates, both directions
	RTT       time.Duration
	Scenarios []string        // names to run; empty: all
	Progress  io.Writer       // progress lines; nil: none
	Validate  int             // clients whose every decoded state is checked against the server's (all clients' Quake 3 snapshots are always checked)
	Predict   []time.Duration // RTTs for the client re-prediction cost
	// PeersDir is the peer libraries' Node program (peers.go); "": the peers are not run.
	PeersDir string
	// Quick marks a --quick run: its short passes, on a machine shared with other work, do
	// not judge the server-time, allocation and core-share targets (Target.Judged).
	Quick bool

	rawOurs    bool         // pipeOurs uncompressed (TestHuffmanTable counts the bodies' bytes)
	countBytes *[256]uint64 // when set: byte counts of pipeOurs' channel streams
	keepBodies *[][]byte    // when set: pipeOurs' channel streams (with rawOurs, the bodies)
}

// QuickOptions is `snapwire bench --quick`: short recordings, all scenarios and loss rates.
func QuickOptions() Options {
	return Options{Warmup: 60, Ticks: 70, Skip: 20, Losses: []float64{0, 0.05, 0.20}, RTT: 100 * time.Millisecond,
		Validate: 1, Predict: []time.Duration{100 * time.Millisecond, 200 * time.Millisecond}, Quick: true}
}

// FullOptions is `snapwire bench`: 20 s of snapshots per scenario.
func FullOptions() Options {
	o := QuickOptions()
	o.Warmup, o.Ticks, o.Quick = 300, 420, false
	return o
}

// Row is one (scenario, loss, encoder) result; `snapwire bench --json` prints a list of them.
type Row struct {
	Scenario string  `json:"scenario"`
	Loss     float64 `json:"loss"`
	Encoder  string  `json:"encoder"`
	Clients  int     `json:"clients"`
	Visible  float64 `json:"visible_mean"` // entities in a client's PVS

	BytesMean float64 `json:"bytes_mean"` // snapshot payload per packet (DOOM III: with the reliable "apply" messages)
	BytesP99  float64 `json:"bytes_p99"`
	Kbps      float64 `json:"kbps"`     // per client at 20 Hz, payload only
	KbpsUDP   float64 `json:"kbps_udp"` // the same with 28 bytes of UDP/IP per packet
	// Ratio is this encoder's bytes over the matching Quake 3 encoder's (doom3 / quake3,
	// doom3-nozrle / quake3-nohuff, a peer's / quake3); 0 on Quake 3 rows.
	Ratio float64 `json:"ratio_vs_quake3,omitempty"`
	// LossGrowth is bytes_mean over the same encoder's bytes_mean at 0% loss.
	LossGrowth float64 `json:"loss_growth"`

	// NsPerClientSnapshot is the server CPU per client-snapshot in this loss rate's pass (every
	// client built each tick, interleaved with the clients' side; the FrameCache filled by the
	// tick's first Build).
	NsPerClientSnapshot float64 `json:"ns_per_client_snapshot"`
	// AllocsPerSnapshot: steady state, per client-snapshot with every client's snapshot built
	// each frame (DOOM III; Quake 3: one client); AllocsOneClient: client 0's alone.
	AllocsPerSnapshot float64 `json:"allocs_per_snapshot"`
	AllocsOneClient   float64 `json:"allocs_per_snapshot_one_client"`
	MemPerClient      int     `json:"mem_per_client_bytes"` // bases / snapshot history

	// Stage sizes, mean bits per snapshot, and reductions (the paper's §6 measures).
	NaiveBits       float64   `json:"naive_bits"`       // 32 bits per field and per entity number
	PackedBits      float64   `json:"packed_bits"`      // bit-packed full states
	DeltaBits       float64   `json:"delta_bits"`       // the delta-compressed snapshot
	BitPackSaving   float64   `json:"bitpack_saving"`   // 1 - packed/naive
	DeltaSaving     float64   `json:"delta_saving"`     // 1 - delta/packed
	ZRLESaving      float64   `json:"zrle_saving"`      // 1 - zrle3/delta
	ZRLESavingWords []float64 `json:"zrle_saving_w2_8"` // the same at word sizes 2..8
	HuffmanSaving   float64   `json:"huffman_saving,omitempty"`

	DecodeNS       float64 `json:"client_decode_ns"`
	Repredict100NS float64 `json:"client_repredict_100ms_ns,omitempty"`
	Repredict200NS float64 `json:"client_repredict_200ms_ns,omitempty"`
	ReliableBytes  float64 `json:"reliable_bytes_mean,omitempty"`
	DeltaFromDummy float64 `json:"full_snapshots_share,omitempty"` // Quake 3: snapshots sent against the dummy
	// Steady-state server cost per client-snapshot at 0% loss (measureSteady), with the
	// recorded PVS and with every client's PVS cut or padded to 256 entities. DOOM III: the
	// frame's shared FrameCache work plus every client's Build, ack and Send, over the
	// client-snapshots built (the targets' metric); the OneClient figures are client 0's
	// snapshots alone plus a 1/clients share of the shared work. Quake 3: one client, both.
	ServerNS          float64 `json:"server_ns_recorded,omitempty"`
	ServerNSOneClient float64 `json:"server_ns_recorded_one_client,omitempty"`
	ServerNS256       float64 `json:"ns_per_client_snapshot_256,omitempty"`
	// ServerNS256Passes: the measured passes ServerNS256 is the median of, in the order run.
	ServerNS256Passes []float64 `json:"ns_per_client_snapshot_256_passes,omitempty"`
	ServerNS256One    float64   `json:"ns_per_client_snapshot_256_one_client,omitempty"`
	ServerCoreShare   float64   `json:"server_core_share,omitempty"` // 60 Hz frames + 20 Hz snapshots for every client

	// PeerUpdateNS, colyseus only: the time per client-snapshot its change tracking takes while
	// the tick's values are assigned to the room state and the clients' views follow their
	// PVS (the work DOOM III's Build does by comparing with the base); not in
	// NsPerClientSnapshot, which is the encode calls alone.
	PeerUpdateNS float64 `json:"peer_state_update_ns,omitempty"`
}

// Result is a whole run.
type Result struct {
	Options   Options
	Rows      []Row
	Scenarios []ScenarioInfo
	Machine   Machine
	Elapsed   time.Duration
	// Encryption is the per-packet cost of secure sessions, at each
	// scenario's mean doom3+huff payload.
	Encryption []Encryption
	// Sections are further Markdown sections, measured in the same run by other packages
	// (`snapwire bench` adds the network models' comparison), written after the notes.
	Sections []string `json:"-"`
	// Peers says whether the peer libraries ran (Options.PeersDir).
	Peers PeerStatus
	// Scale is the largest match one server process holds, on one core and on two (64p
	// recording, ScaleClients clients, ScaleVisible entities each).
	Scale []ScalePoint
}

// ScenarioInfo describes a recorded scenario.
type ScenarioInfo struct {
	Scenario
	Clients   int
	Ticks     int
	Visible   float64
	FrameNS   float64
	VisibleNS float64
	Entities  int
	// Field tables as the probe found them.
	Layouts   map[string][]uint8
	Union     []uint8
	PSLayouts [][]uint8
}

// Machine is where the run happened.
type Machine struct {
	GoVersion string
	GOOS      string
	GOARCH    string
	CPUs      int
	CPU       string
}

// Run records every selected scenario and measures every encoder on it.
func Run(o Options) (*Result, error) {
	start := time.Now()
	res := &Result{Options: o, Machine: machine()}
	node := ""
	if o.PeersDir == "" {
		res.Peers.Reason = "not requested"
	} else if n, err := PeersReady(o.PeersDir); err != nil {
		res.Peers.Reason = err.Error()
		progress(o, "peers: not run: %s", res.Peers.Reason)
	} else {
		node = n
	}
	for _, sc := range Scenarios() {
		if len(o.Scenarios) > 0 && !slices.Contains(o.Scenarios, sc.Name) {
			continue
		}
		progress(o, "recording %s", sc.Name)
		rec, err := Record(sc, o.Warmup, o.Ticks)
		if err != nil {
			return nil, err
		}
		rows, info, err := measureScenario(rec, o)
		if err != nil {
			return nil, fmt.Errorf("bench: %s: %w", sc.Name, err)
		}
		res.Rows = append(res.Rows, rows...)
		res.Scenarios = append(res.Scenarios, info)
		if sc.Name == "64p" {
			progress(o, "  64p scale: %d clients, %v visible, 1 and 2 workers", ScaleClients, ScaleVisible)
			_, base, err := Tables(rec)
			if err != nil {
				return nil, err
			}
			if res.Scale, err = measureScale(rec, base, min(o.Ticks, 60)); err != nil {
				return nil, fmt.Errorf("bench: %w", err)
			}
		}
		if node != "" {
			progress(o, "  %s: peers (node)", sc.Name)
			pr, err := measurePeers(rec, o, node, &res.Peers, func(loss float64) *Row { return res.Find(sc.Name, loss, EncQuake3) })
			if err != nil {
				return nil, fmt.Errorf("bench: %s: %w", sc.Name, err)
			}
			res.Rows = append(res.Rows, pr...)
			res.Peers.Ran = true
		}
		if h := res.Find(sc.Name, 0, EncDoom3Huff); h != nil {
			res.Encryption = append(res.Encryption, measureEncryption(sc.Name, int(h.BytesMean+0.5), 20000))
		}
	}
	res.Elapsed = time.Since(start)
	return res, nil
}

func progress(o Options, format string, args ...any) {
	if o.Progress != nil {
		fmt.Fprintf(o.Progress, format+"\n", args...)
	}
}

// measureScenario runs every loss rate over rec.
func measureScenario(rec *Recording, o Options) ([]Row, ScenarioInfo, error) {
	t, base, err := Tables(rec)
	if err != nil {
		return nil, ScenarioInfo{}, err
	}
	info := ScenarioInfo{Scenario: rec.Scenario, Clients: rec.Clients, Ticks: len(rec.Ticks), Visible: rec.MeanVisible(),
		FrameNS: rec.FrameNS, VisibleNS: rec.VisibleNS, Entities: rec.Load.Map.NumEntities,
		Layouts: map[string][]uint8{}, Union: t.U.Widths}
	reg := rec.Load.Registry()
	for id, l := range t.U.Types {
		et, _ := reg.Type(id)
		info.Layouts[et.Name] = l.Widths
	}
	for _, l := range t.PS {
		info.PSLayouts = append(info.PSLayouts, l.Widths)
	}
	steady, err := measureSteady(rec, t, base, o)
	if err != nil {
		return nil, info, err
	}
	var rows []Row
	lossless := map[string]float64{}
	for _, loss := range o.Losses {
		progress(o, "  %s loss %.0f%%", rec.Scenario.Name, loss*100)
		d3, q3, err := runPass(rec, t, base, o, loss)
		if err != nil {
			return nil, info, err
		}
		mk := func(name string, a *stageAcc, wire []float64, cost float64) Row {
			r := Row{Scenario: rec.Scenario.Name, Loss: loss, Encoder: name, Clients: rec.Clients, Visible: info.Visible}
			r.BytesMean, r.BytesP99 = report.MeanPercentile(wire, 0.99)
			r.Kbps = r.BytesMean * 8 * SnapshotRate / 1000
			r.KbpsUDP = (r.BytesMean + UDPIPBytes) * 8 * SnapshotRate / 1000
			n := float64(max(a.n, 1))
			r.NaiveBits, r.PackedBits, r.DeltaBits = a.naive/n, a.packed/n, a.delta/n
			r.BitPackSaving = 1 - a.packed/a.naive
			r.DeltaSaving = 1 - a.delta/a.packed
			r.ZRLESaving = 1 - a.zrle[zrle.DefaultWordBits]/a.delta
			for w := zrle.MinWordBits; w <= zrle.MaxWordBits; w++ {
				r.ZRLESavingWords = append(r.ZRLESavingWords, 1-a.zrle[w]/a.delta)
			}
			r.NsPerClientSnapshot = cost
			r.DecodeNS = a.decodeNS / float64(max(a.decodes, 1))
			if a.preds > 0 {
				r.Repredict100NS, r.Repredict200NS = a.pred100/float64(a.preds), a.pred200/float64(a.preds)
			}
			return r
		}
		rd := mk(EncDoom3, d3, d3.wire, d3.buildNS/float64(max(d3.builds, 1)))
		rd.ReliableBytes = d3.rel / float64(max(d3.n, 1))
		rdh := mk(EncDoom3Huff, d3, d3.wireOurs, d3.oursNS/float64(max(d3.builds, 1)))
		rdh.ReliableBytes = rd.ReliableBytes
		rdc := mk(EncDoom3RC, d3, d3.wireRC, d3.rcNS/float64(max(d3.builds, 1)))
		rdc.ReliableBytes = rd.ReliableBytes
		rdr := mk(EncDoom3Raw, d3, d3.raw, d3.rawNS/float64(max(d3.builds, 1)))
		rdr.ReliableBytes = rd.ReliableBytes
		rq := mk(EncQuake3, q3, q3.wire, q3.buildNS/float64(max(q3.builds, 1)))
		rq.HuffmanSaving = 1 - q3.huff/q3.delta
		rq.DeltaFromDummy = float64(q3.dummies) / float64(max(q3.n, 1))
		rqr := mk(EncQuake3NoHuf, q3, q3.raw, q3.rawNS/float64(max(q3.builds, 1)))
		rqr.DeltaFromDummy = rq.DeltaFromDummy
		rd.Ratio = rd.BytesMean / rq.BytesMean
		rdh.Ratio = rdh.BytesMean / rq.BytesMean
		rdc.Ratio = rdc.BytesMean / rq.BytesMean
		rdr.Ratio = rdr.BytesMean / rqr.BytesMean
		for _, r := range []*Row{&rd, &rdh, &rdc, &rdr, &rq, &rqr} {
			s := steady[r.Encoder]
			r.AllocsPerSnapshot, r.AllocsOneClient, r.MemPerClient = s.allocs, s.allocsOne, s.mem
			r.ServerNS, r.ServerNSOneClient, r.ServerNS256, r.ServerNS256One = s.ns, s.nsOne, s.ns256, s.ns256One
			r.ServerNS256Passes = s.ns256Passes
			if loss == 0 {
				lossless[r.Encoder] = r.BytesMean
			}
			if l0 := lossless[r.Encoder]; l0 > 0 {
				r.LossGrowth = r.BytesMean / l0
			}
		}
		// One core's share: 60 frames a second, and 20 snapshots a second for every client
		// (PVS + the steady server cost per client-snapshot, recorded PVS).
		for _, r := range []*Row{&rd, &rdh, &rq} {
			r.ServerCoreShare = (FrameRate*rec.FrameNS + SnapshotRate*float64(rec.Clients)*(rec.VisibleNS+r.ServerNS)) / 1e9
		}
		rows = append(rows, rd, rdh, rdc, rdr, rq, rqr)
	}
	return rows, info, nil
}
