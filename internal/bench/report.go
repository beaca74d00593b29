package bench

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/snapwire/snapwire/internal/entropy"
)

// The benchmark targets.
const (
	TargetChurnRatio = 0.60 // scenario (d): DOOM III bytes / Quake 3 bytes
	TargetRatio      = 1.00 // every scenario
	TargetLossGrowth = 1.30 // bytes at 20% loss / bytes at 0%
	TargetServerNS   = 10000
	TargetCoreShare  = 0.5
)

// Paper §6 stage reductions, for the side-by-side table.
const paperStages = "bit packing 10-15%, delta 90-100%, zrle (3-bit) 15-50%"

// PlotDir is where WriteFiles puts the SVG plots, relative to the output directory.
const PlotDir = "internal/bench/plots"

// rowsAt calls f, scenario by scenario and loss rate by loss rate, where every encoder of
// encs has a row, with those rows in the order of encs.
func (r *Result) rowsAt(f func(s ScenarioInfo, loss float64, rows []*Row), encs ...string) {
	rows := make([]*Row, len(encs))
	for _, s := range r.Scenarios {
		for _, l := range r.Options.Losses {
			ok := true
			for i, e := range encs {
				rows[i] = r.Find(s.Name, l, e)
				ok = ok && rows[i] != nil
			}
			if ok {
				f(s, l, rows)
			}
		}
	}
}

// Find returns the row for (scenario, loss, encoder).
func (r *Result) Find(sc string, loss float64, enc string) *Row {
	for i := range r.Rows {
		x := &r.Rows[i]
		if x.Scenario == sc && x.Encoder == enc && math.Abs(x.Loss-loss) < 1e-9 {
			return x
		}
	}
	return nil
}

// Target is one acceptance target and whether the run meets it.
type Target struct {
	Name   string
	Figure string
	Met    bool
	// Judged is false where the run cannot judge the target: a --quick run (Options.Quick)
	// shows the server-time, allocation and core-share figures of its short passes but does
	// not judge them. The byte targets come from the recorded traffic and are always judged.
	Judged bool
}

// Verdict is the target's state in a report: "yes", "no", or with "(not judged: --quick)".
func (t Target) Verdict() string {
	v := map[bool]string{true: "yes", false: "no"}[t.Met]
	if !t.Judged {
		v += " (not judged: --quick)"
	}
	return v
}

// Missed returns the targets the run judged and does not meet.
func (r *Result) Missed() []Target {
	var ts []Target
	for _, t := range r.Targets() {
		if t.Judged && !t.Met {
			ts = append(ts, t)
		}
	}
	return ts
}

// Targets evaluates the benchmark targets on the run, on snapwire's pipeline (EncDoom3Huff: the
// DOOM III scheme with our static Huffman stage next to zrle); each figure also gives the
// paper's pipeline (EncDoom3: zrle only) for comparison.
func (r *Result) Targets() []Target {
	var ts []Target
	timed := !r.Options.Quick // the figures of the passes' clocks and allocation counters
	worstRatio := func(enc string) (float64, string) {
		m, w := 0.0, ""
		for _, x := range r.Rows {
			if x.Encoder == enc && x.Ratio > m {
				m, w = x.Ratio, fmt.Sprintf("%s at %.0f%% loss", x.Scenario, x.Loss*100)
			}
		}
		return m, w
	}
	worstChurn := func(enc string) float64 {
		m := 0.0
		for _, l := range r.Options.Losses {
			if y := r.Find("churn", l, enc); y != nil {
				m = max(m, y.Ratio)
			}
		}
		return m
	}
	if r.Find("churn", 0, EncDoom3Huff) != nil {
		c, cp := worstChurn(EncDoom3Huff), worstChurn(EncDoom3)
		ts = append(ts, Target{"(d) PVS churn: DOOM III bytes <= 60% of Quake 3's",
			fmt.Sprintf("%.1f%% (worst loss rate; paper's pipeline %.1f%%)", c*100, cp*100), c <= TargetChurnRatio, true})
	}
	maxRatio, worst := worstRatio(EncDoom3Huff)
	maxPaper, worstPaper := worstRatio(EncDoom3)
	ts = append(ts, Target{"every scenario: DOOM III bytes <= 100% of Quake 3's",
		fmt.Sprintf("worst %.1f%% (%s; paper's pipeline %.1f%%, %s)", maxRatio*100, worst, maxPaper*100, worstPaper), maxRatio <= TargetRatio, true})
	growth, gw, growthPaper := 0.0, "", 0.0
	for _, x := range r.Rows {
		if x.Loss < 0.199 {
			continue
		}
		if x.Encoder == EncDoom3Huff && x.LossGrowth > growth {
			growth, gw = x.LossGrowth, x.Scenario
		}
		if x.Encoder == EncDoom3 {
			growthPaper = max(growthPaper, x.LossGrowth)
		}
	}
	ts = append(ts, Target{"20% loss: DOOM III bytes <= 1.3x its lossless bytes",
		fmt.Sprintf("worst %.2fx (%s; paper's pipeline %.2fx)", growth, gw, growthPaper), growth <= TargetLossGrowth, true})
	// The server cost is the all-clients average (every client's snapshot built each frame from
	// one FrameCache, as a server does); client 0's alone is given next to it.
	ns, allocs, nsw, nsPaper, nsOne := 0.0, 0.0, "", 0.0, 0.0
	for _, x := range r.Rows {
		if x.Loss != 0 {
			continue
		}
		if x.Encoder == EncDoom3Huff && x.ServerNS256 > ns {
			ns, nsw, nsOne = x.ServerNS256, x.Scenario, x.ServerNS256One
		}
		if x.Encoder == EncDoom3 {
			nsPaper = max(nsPaper, x.ServerNS256)
		}
		if x.Encoder == EncDoom3 || x.Encoder == EncDoom3Huff {
			allocs = max(allocs, x.AllocsPerSnapshot, x.AllocsOneClient)
		}
	}
	ts = append(ts, Target{"server <= 10 µs per client-snapshot with 256 visible entities (all clients' snapshots built each frame)",
		fmt.Sprintf("worst %.1f µs (%s; one client alone %.1f µs; paper's pipeline %.1f µs)", ns/1000, nsw, nsOne/1000, nsPaper/1000), ns <= TargetServerNS, timed})
	ts = append(ts, Target{"0 allocations per snapshot in steady state",
		fmt.Sprintf("worst %.2f (both pipelines, all clients and one client)", allocs), allocs == 0, timed})
	if x := r.Find("64p", 0, EncDoom3Huff); x != nil {
		ts = append(ts, Target{"64 clients x 4096 entities, 60 Hz frames + 20 Hz snapshots < half a core",
			fmt.Sprintf("%.0f%% of a core", x.ServerCoreShare*100), x.ServerCoreShare < TargetCoreShare, timed})
	}
	return ts
}

// WriteFiles writes BENCHMARKS.md and the SVG plots into dir.
func (r *Result) WriteFiles(dir string, notes string) error {
	pd := filepath.Join(dir, PlotDir)
	if err := os.MkdirAll(pd, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(pd, "bytes.svg"), []byte(r.bytesSVG()), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(pd, "zrle.svg"), []byte(r.zrleSVG()), 0o644); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(dir, "BENCHMARKS.md"))
	if err != nil {
		return err
	}
	if err := r.WriteMarkdown(f, notes); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func pct(v float64) string { return fmt.Sprintf("%.0f%%", v*100) }

// WriteMarkdown writes the report; notes is appended as the closing section.
func (r *Result) WriteMarkdown(w io.Writer, notes string) error {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	m := r.Machine
	p("# snapwire benchmarks: DOOM III scheme vs Quake 3 scheme\n\n")
	p("Generated by `snapwire bench%s` in %.1f s. Every figure below comes from this one run.\n\n", map[bool]string{true: " --quick", false: ""}[r.Options.Ticks < 200], r.Elapsed.Seconds())
	p("Machine: %s, %d CPUs (shared with other work, so timings are noisy; compare ratios within the run), %s/%s, %s.\n\n", orUnknown(m.CPU), m.CPUs, m.GOOS, m.GOARCH, m.GoVersion)
	p("Each scenario runs the arena (internal/refgame) with a bot on every player slot for %d frames, then records %d snapshot ticks at %d Hz (frames at %d Hz). The first %d ticks are left out of the byte statistics (both schemes start from the map). Links: %v RTT, the given loss in both directions, one snapshot per tick, one acknowledgement per client frame.\n\n",
		r.Options.Warmup, r.Options.Ticks, SnapshotRate, FrameRate, r.Options.Skip, r.Options.RTT)

	p("## Scenarios\n\n| scenario | clients | map entities | mean PVS | server frame | PVS per client |\n|---|---:|---:|---:|---:|---:|\n")
	for _, s := range r.Scenarios {
		p("| %s | %d | %d | %.0f | %.1f µs | %.1f µs |\n", s.Title, s.Clients, s.Entities, s.Visible, s.FrameNS/1000, s.VisibleNS/1000)
	}

	p("\n## Targets\n\nMeasured on snapwire's pipeline (`doom3+huff`: the DOOM III scheme with our static Huffman stage next to zrle, below); each figure gives the paper's pipeline (`doom3`: zrle only) too.\n\n| target | this run | met |\n|---|---|---|\n")
	for _, t := range r.Targets() {
		v := t.Verdict()
		if t.Judged && !t.Met {
			v = "**no**"
		}
		p("| %s | %s | %s |\n", t.Name, t.Figure, v)
	}
	if r.Options.Quick {
		p("\nA `--quick` run judges the byte targets only: the server-time, allocation and core-share figures of its short passes are shown, not judged (a full `snapwire bench` judges them).\n")
	}

	p("\n## Bytes per snapshot and DOOM III / Quake 3 ratio\n\n")
	p("`doom3` (the paper's pipeline): every byte a netchan.Channel sends after its 8-byte header for the snapshot and the reliable \"apply S\" messages outstanding (session.Apply, usually 2 bytes each, in the channel's reliable section, 1 byte plus a length byte per message), the body zero-run-length compressed (3-bit words, DOOM III §4.3) when that is smaller. `doom3+huff` (snapwire's pipeline): the same messages through a channel with Config.Huffman, which sends the body coded with our static Huffman table instead when that is smaller than zrle (our addition, not the paper's; the table is built from our own channel bodies recorded on other map seeds). `quake3`: the Quake 3 scheme with its fixed Huffman stage. Both DOOM III pipelines carry the same messages and are decoded and compared. kbit/s is per client at %d Hz, with %d bytes of UDP/IP per packet in the last column. Channel headers (8 bytes ours, 4+ Quake 3's) are left out of both schemes.\n\n", SnapshotRate, UDPIPBytes)
	p("![bytes per snapshot](%s/bytes.svg)\n\n", PlotDir)
	p("| scenario | loss | doom3 mean | doom3 p99 | of which apply | doom3+huff mean | doom3+huff p99 | quake3 mean | quake3 p99 | ratio doom3 | **ratio doom3+huff** | doom3+huff kbit/s | +UDP/IP | quake3 kbit/s | +UDP/IP | doom3+huff / its 0%% | quake3 / its 0%% | Q3 full snapshots |\n")
	p("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	r.rowsAt(func(s ScenarioInfo, l float64, x []*Row) {
		d, h, q := x[0], x[1], x[2]
		p("| %s | %.0f%% | %.1f | %.0f | %.1f | %.1f | %.0f | %.1f | %.0f | %.3f | **%.3f** | %.1f | %.1f | %.1f | %.1f | %.2f | %.2f | %s |\n",
			s.Name, l*100, d.BytesMean, d.BytesP99, d.ReliableBytes, h.BytesMean, h.BytesP99, q.BytesMean, q.BytesP99, d.Ratio, h.Ratio, h.Kbps, h.KbpsUDP, q.Kbps, q.KbpsUDP, h.LossGrowth, q.LossGrowth, pct(q.DeltaFromDummy))
	}, EncDoom3, EncDoom3Huff, EncQuake3)
	if len(r.Encryption) > 0 {
		p("\n### Secure sessions: encryption per packet\n\nThe byte tables above are the plaintext channel's, as before, so they stay comparable with earlier runs. A secure session (connect tokens, docs/PROTOCOL.md \"Encryption\") seals every packet with ChaCha20-Poly1305: measured here on a channel pair sending each scenario's mean `doom3+huff` snapshot payload (0%% loss), plaintext against encrypted, the same messages; the time is Send + Receive per packet, both ends.\n\n| scenario | payload (before compression) | plaintext bytes/packet | encrypted bytes/packet | added bytes | plaintext µs/packet | encrypted µs/packet | added µs | encrypted allocs/packet |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
		for _, e := range r.Encryption {
			p("| %s | %d | %.1f | %.1f | +%.1f | %.2f | %.2f | +%.2f | %.2f |\n", e.Scenario, e.Payload, e.PlainBytes, e.SecureBytes, e.AddedBytes, e.PlainNS/1e3, e.SecureNS/1e3, e.AddedNS/1e3, e.SecureAllocs)
		}
	}
	r.writePeers(&b)
	p("\nBefore the entropy stages (doom3 without zrle, quake3 without Huffman):\n\n| scenario | loss | doom3-nozrle | quake3-nohuff | ratio |\n|---|---:|---:|---:|---:|\n")
	r.rowsAt(func(s ScenarioInfo, l float64, x []*Row) {
		d, q := x[0], x[1]
		p("| %s | %.0f%% | %.1f | %.1f | %.2f |\n", s.Name, l*100, d.BytesMean, q.BytesMean, d.Ratio)
	}, EncDoom3Raw, EncQuake3NoHuf)

	p("\n## Stage reductions (0%% loss) next to the paper's\n\nThe paper (§6): %s. Measured the paper's way: bit packing = bits saved by the packed quantised fields against 32 bits per field (and per entity number); delta = saved by the delta snapshot against a message of bit-packed full states of the same PVS; zrle / Huffman = saved by that stage on the delta stream.\n\n", paperStages)
	p("| scenario | scheme | naive bits | packed bits | delta bits | bit packing | delta | zrle (3-bit) | Huffman |\n|---|---|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, s := range r.Scenarios {
		for _, e := range []string{EncDoom3, EncQuake3} {
			x := r.Find(s.Name, 0, e)
			if x == nil {
				continue
			}
			h := "-"
			if e == EncQuake3 {
				h = pct(x.HuffmanSaving)
			}
			p("| %s | %s | %.0f | %.0f | %.0f | %s | %s | %s | %s |\n", s.Name, e, x.NaiveBits, x.PackedBits, x.DeltaBits, pct(x.BitPackSaving), pct(x.DeltaSaving), pct(x.ZRLESaving), h)
		}
	}
	p("\nzrle at word sizes 2-8 on each scheme's delta stream (0%% loss; share of bits saved, negative = larger):\n\n![zrle by word size](%s/zrle.svg)\n\n| scenario | scheme | w=2 | w=3 | w=4 | w=5 | w=6 | w=7 | w=8 |\n|---|---|---:|---:|---:|---:|---:|---:|---:|\n", PlotDir)
	for _, s := range r.Scenarios {
		for _, e := range []string{EncDoom3, EncQuake3} {
			x := r.Find(s.Name, 0, e)
			if x == nil {
				continue
			}
			p("| %s | %s |", s.Name, e)
			for _, v := range x.ZRLESavingWords {
				p(" %s |", pct(v))
			}
			p("\n")
		}
	}

	p("\n## Adaptive entropy stage (ours, not the paper's)\n\n`doom3+rc` is `doom3+huff` with a third stage the channel may choose: the body range coded bit by bit (LZMA's binary range coder), each bit's probability chosen by the %d bits before it, starting every packet from the arena's trained prior (internal/refgame/entropy_model.bin, trained on recordings on other map seeds) and adapting within the packet only, since packets are lost. The channel sends it only when it is shorter than both zrle and Huffman, so it is kept exactly where it wins, packet by packet. Bytes are the mean per client-snapshot after the channel header; µs is Build plus the channel's Send per client-snapshot in the pass (the stage's cost beside its saving: the difference of the two columns), and the steady server cost with 256 visible entities, all clients built, from the server cost table's measurement.\n\n", entropy.ContextBits)
	p("| scenario | loss | doom3+huff bytes | doom3+rc bytes | saving | doom3+huff µs | doom3+rc µs | added µs | server µs, 256 visible, huff / rc |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	r.rowsAt(func(s ScenarioInfo, l float64, x []*Row) {
		h, c := x[0], x[1]
		p("| %s | %s | %.1f | %.1f | %s | %.1f | %.1f | %+.1f | %.1f / %.1f |\n", s.Name, pct(l), h.BytesMean, c.BytesMean, pct(1-c.BytesMean/h.BytesMean),
			h.NsPerClientSnapshot/1000, c.NsPerClientSnapshot/1000, (c.NsPerClientSnapshot-h.NsPerClientSnapshot)/1000, h.ServerNS256/1000, c.ServerNS256/1000)
	}, EncDoom3Huff, EncDoom3RC)
	if len(r.Scale) > 0 {
		p("\n## Scale: the largest match one server process holds\n\nThe 64p recording with %d clients (its 64 players, each followed by three spectators who see what it sees), every client's PVS cut or padded to the given count of live entities; each snapshot frame the shared Prepare and PrepareStates, then every client's Build and Ack (no channel), built by one goroutine or split between two through read-only views of the frame's cache (snapshot.FrameCache.ShareFrom; the two-worker snapshots are compared with the serial ones bit for bit). µs is the wall time per client-snapshot (the second of three passes over %d ticks). Max clients: the most whose 20 Hz snapshots and PVS (%.1f µs a client) fit, with the 60 Hz game frame (%.0f µs, on one goroutine), in one second per second: one core for one worker, two for two. Wall times on a shared machine; the two-worker figures need the second core free.\n\n", ScaleClients, min(r.Options.Ticks, 60), r.scaleVisibleNS()/1000, r.scaleFrameNS()/1000)
		p("| visible entities | µs per client-snapshot, 1 core | max clients, 1 core | µs per client-snapshot, 2 workers | max clients, 2 cores | identical |\n|---:|---:|---:|---:|---:|---|\n")
		for i := 0; i+1 < len(r.Scale); i += 2 {
			a, b := r.Scale[i], r.Scale[i+1]
			p("| %d | %.1f | %d | %.1f | %d | %v |\n", a.Visible, a.NsPerClientSnapshot/1000, a.MaxClients, b.NsPerClientSnapshot/1000, b.MaxClients, b.Identical)
		}
	}
	p("\n## Server cost, allocations, memory (0%% loss)\n\nServer CPU per client-snapshot, steady state, measured as a server spends it: each snapshot frame the shared work (the FrameCache's Prepare with the union of every client's PVS, which encodes again only the entities whose snapshot.EntityVersions the arena changed since the last snapshot frame, the arena's tracking of its changes being part of its game frame, and PrepareStates with every client's non-PVS states) plus, for **every** client, Build + taking the ack (channel and snapshot) + queueing \"apply S\" + the channel's Send (reliable section, compression: zrle for `doom3`, zrle or Huffman for `doom3+huff`), all divided by the client-snapshots built (\"all clients\": the metric the targets use). Building all clients' snapshots from one cache is what lets it share the deltas of clients whose base states are equal. \"one client\": client 0's snapshots alone plus a 1/clients share of the shared work, which can never share deltas. Quake 3 = taking the snapshot + writing it with Huffman (client 0), plus a per-client share of filling every entity's fixed state once per frame. \"256 visible\": the same recording with each client's PVS cut or padded to exactly 256 live entities. Each figure is the median of five passes through the recording (%d ticks each), measured one by one after two unmeasured passes and a garbage collection (the server allocates nothing in steady state), the median being robust to the bursts of load of a shared machine (the passes of the 256-visible, all-clients `doom3+huff` figures follow the table), acknowledging two snapshots back (100 ms RTT); the clients' side (taking a snapshot, sending the ack) runs untimed after all of a tick's snapshots, as on the clients' machines, not between two clients' snapshots in the server's caches. Each client's input (the other players' commands, its non-PVS states: the game's work) is made before the tick's snapshots, and the clock is read once before and once after the tick's shared work and its clients' snapshots, not around each step (a reading costs about 50 ns here). These are wall times on a shared machine; `internal/bench/callgrind.sh` counts the machine instructions per client-snapshot at 256 visible, of the snapshot layer's part (Prepare share, Build, Ack of every client) and with the channel's Send (`doom3+huff`), figures that do not move with the machine's load.\n\n", r.Options.Ticks)
	p("| scenario | PVS | doom3 µs, all clients | doom3 µs, one client | doom3+huff µs, all clients | doom3+huff µs, one client | quake3 µs |\n|---|---|---:|---:|---:|---:|---:|\n")
	for _, s := range r.Scenarios {
		d, h, q := r.Find(s.Name, 0, EncDoom3), r.Find(s.Name, 0, EncDoom3Huff), r.Find(s.Name, 0, EncQuake3)
		if d == nil || h == nil || q == nil {
			continue
		}
		p("| %s | recorded | %.1f | %.1f | **%.1f** | %.1f | %.1f |\n", s.Name, d.ServerNS/1000, d.ServerNSOneClient/1000, h.ServerNS/1000, h.ServerNSOneClient/1000, q.ServerNS/1000)
		p("| %s | 256 visible | %.1f | %.1f | **%.1f** | %.1f | %.1f |\n", s.Name, d.ServerNS256/1000, d.ServerNS256One/1000, h.ServerNS256/1000, h.ServerNS256One/1000, q.ServerNS256/1000)
	}
	p("\nThe passes of the 256-visible, all-clients `doom3+huff` figures, µs per client-snapshot, in the order run (the figure is their median):\n\n| scenario | passes |\n|---|---|\n")
	for _, s := range r.Scenarios {
		if h := r.Find(s.Name, 0, EncDoom3Huff); h != nil {
			var ps []string
			for _, ns := range h.ServerNS256Passes {
				ps = append(ps, fmt.Sprintf("%.1f", ns/1000))
			}
			p("| %s | %s |\n", s.Name, strings.Join(ps, ", "))
		}
	}
	p("\nAllocations are counted over the first measured pass, after every buffer has grown in the two before: DOOM III per client-snapshot with every client built (and, in the target, client 0 alone too), Quake 3 for client 0. Memory per client is the live heap one client's encoder holds (DOOM III: common base and pending snapshots; Quake 3: the ring of %d snapshots); the server's FrameCache (entity and state encodings, delta memo) is shared by all clients and not counted.\n\n", PacketBackup)
	p("| scenario | doom3 allocs | doom3+huff allocs | doom3+huff allocs, one client | quake3 allocs | doom3 memory | quake3 memory | doom3+huff core share | quake3 core share |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, s := range r.Scenarios {
		d, h, q := r.Find(s.Name, 0, EncDoom3), r.Find(s.Name, 0, EncDoom3Huff), r.Find(s.Name, 0, EncQuake3)
		if d == nil || h == nil || q == nil {
			continue
		}
		p("| %s | %.2f | %.2f | %.2f | %.2f | %.0f KiB | %.0f KiB | %s | %s |\n", s.Name, d.AllocsPerSnapshot, h.AllocsPerSnapshot, h.AllocsOneClient, q.AllocsPerSnapshot,
			float64(d.MemPerClient)/1024, float64(q.MemPerClient)/1024, pct(h.ServerCoreShare), pct(q.ServerCoreShare))
	}
	p("\nCore share = (%d server frames + %d snapshots x clients x (PVS + server cost per client-snapshot, all clients, recorded PVS)) per second, on one core.\n", FrameRate, SnapshotRate)

	p("\n## Client cost (DOOM III: decode + re-prediction)\n\nDecode = the client channel receiving the `doom3+huff` packet (decompression, the reliable \"apply\" messages applied to the base) and decoding the snapshot. Re-prediction = overwriting the PVS entities' states from the snapshot and running the game's prediction from the snapshot's frame a full round trip ahead (§2, §6), on a client world holding only the PVS's entities (client 0). Quake 3 clients interpolate and do not re-predict other entities.\n\n")
	p("| scenario | loss | doom3 decode µs | + re-predict 100 ms RTT µs | + re-predict 200 ms RTT µs | quake3 decode µs |\n|---|---:|---:|---:|---:|---:|\n")
	r.rowsAt(func(s ScenarioInfo, l float64, x []*Row) {
		d, q := x[0], x[1]
		p("| %s | %.0f%% | %.1f | %.1f | %.1f | %.1f |\n", s.Name, l*100, d.DecodeNS/1000, d.Repredict100NS/1000, d.Repredict200NS/1000, q.DecodeNS/1000)
	}, EncDoom3, EncQuake3)

	p("\n## How the Quake 3 scheme is mapped onto the arena\n\n")
	p("Arena entities write variable state through `WriteSnapshot`; Quake 3 has one fixed `entityState_t` walked by a field table. The harness derives each type's field table from its own `WriteSnapshot` (bench.ProbeLayout: the full state is written once, then once per state bit against a base differing in that bit; the single field flagged changed owns the bit), so each field has exactly the width and quantised encoding our scheme sends. The fixed state is the union of the types: slot i is field i of whichever type the entity is, as wide as the widest field i of any type (a narrower value is zero-extended), and a last slot holds the entity type (eType). Fields keep the write order, which is the arena's most-often-changing-first order, as Quake 3 sorts its table so that `lc` stays small. Every field is coded as a Quake 3 integer field (changed bit, zero bit, value); Quake 3's 13-bit form for integral floats is not used since the arena's float positions are almost never integral. The non-PVS states (scoreboard, player statistics) travel as Quake 3's player state (`lc` then a changed bit and value per field, no zero bit), against the base snapshot's copy or the all-zero dummy. Entity numbers are %d bits (4096 entities; Quake 3 has 10 for 1024), with 4095 followed by one bit to tell the end marker from a real entity 4095. Both schemes start from the same state right after the map loaded: the DOOM III common base (§8) and the Quake 3 baselines.\n\n", q3EntityBits)
	p("Field tables found (bits per field, in write order):\n\n| type | fields |\n|---|---|\n")
	if len(r.Scenarios) > 0 {
		s := r.Scenarios[0]
		names := make([]string, 0, len(s.Layouts))
		for name := range s.Layouts {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			p("| %s | %v |\n", name, s.Layouts[name])
		}
		p("| union (entityState) | %v |\n", s.Union)
		for i, ws := range s.PSLayouts {
			if len(ws) > 24 {
				p("| non-PVS state %d | %d fields, %v ... |\n", i, len(ws), ws[:24])
			} else {
				p("| non-PVS state %d | %v |\n", i, ws)
			}
		}
	}
	p("\nWhat only the DOOM III side carries: the PVS bit string (§4.2), other players' latest commands in the PVS (§2), and the reliable \"apply S\" messages of the common base (§4.2, counted in the bytes). What only the Quake 3 side carries: the areamask (visible rooms) and a 32-bit server time. Both carry a 32-bit sequence. Unreliable events are left out of both. Every delivered snapshot of both schemes is decoded and checked: Quake 3 snapshots against the server's ring for every client; DOOM III entity states against the server's, and the client's common base hash against the server's after every apply, for client 0.\n")

	if notes != "" {
		p("\n## Notes\n\n%s\n", strings.TrimSpace(notes))
	}
	for _, sec := range r.Sections {
		p("\n%s\n", strings.TrimSpace(sec))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown CPU"
	}
	return s
}

// bytesSVG draws mean bytes per snapshot per scenario and loss, DOOM III next to Quake 3.
func (r *Result) bytesSVG() string {
	type bar struct {
		label string
		d, q  float64
	}
	var bars []bar
	maxV := 1.0
	r.rowsAt(func(s ScenarioInfo, l float64, x []*Row) {
		d, q := x[0], x[1]
		bars = append(bars, bar{fmt.Sprintf("%s %.0f%%", s.Name, l*100), d.BytesMean, q.BytesMean})
		maxV = max(maxV, d.BytesMean, q.BytesMean)
	}, EncDoom3, EncQuake3)
	const W, H, left, bottom, top = 900, 360, 60, 70, 30
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="11">`+"\n", W, H)
	fmt.Fprintf(&b, `<text x="%d" y="18" font-size="14">Mean bytes per snapshot: DOOM III (blue) vs Quake 3 (orange)</text>`+"\n", left)
	plotH := float64(H - bottom - top)
	slot := float64(W-left-10) / float64(max(len(bars), 1))
	for i := 0; i <= 4; i++ {
		v := maxV * float64(i) / 4
		y := float64(H-bottom) - plotH*float64(i)/4
		fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#ddd"/><text x="%d" y="%.1f" text-anchor="end">%.0f</text>`+"\n", left, W-10, y, y, left-4, y+4, v)
	}
	for i, br := range bars {
		x := float64(left) + slot*float64(i)
		bw := slot * 0.38
		for j, v := range []float64{br.d, br.q} {
			h := plotH * v / maxV
			color := []string{"#3b6fb6", "#e8873a"}[j]
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"/>`+"\n", x+slot*0.1+float64(j)*bw, float64(H-bottom)-h, bw, h, color)
		}
		fmt.Fprintf(&b, `<text transform="translate(%.1f,%d) rotate(45)">%s</text>`+"\n", x+slot*0.3, H-bottom+12, br.label)
	}
	b.WriteString("</svg>\n")
	return b.String()
}

// zrleSVG draws zrle's saving against word size, one line per scenario and scheme.
func (r *Result) zrleSVG() string {
	const W, H, left, bottom, top = 700, 360, 60, 40, 30
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="11">`+"\n", W, H)
	fmt.Fprintf(&b, `<text x="%d" y="18" font-size="14">zrle saving by word size (solid: DOOM III stream, dashed: Quake 3 stream)</text>`+"\n", left)
	lo, hi := -0.2, 0.6
	plotW, plotH := float64(W-left-150), float64(H-bottom-top)
	yOf := func(v float64) float64 { return float64(H-bottom) - plotH*(min(max(v, lo), hi)-lo)/(hi-lo) }
	for v := lo; v <= hi+1e-9; v += 0.2 {
		y := yOf(v)
		fmt.Fprintf(&b, `<line x1="%d" x2="%.0f" y1="%.1f" y2="%.1f" stroke="#ddd"/><text x="%d" y="%.1f" text-anchor="end">%.0f%%</text>`+"\n", left, float64(left)+plotW, y, y, left-4, y+4, v*100)
	}
	xOf := func(i int) float64 { return float64(left) + plotW*float64(i)/6 }
	for i := 0; i <= 6; i++ {
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">w=%d</text>`+"\n", xOf(i), H-bottom+16, i+2)
	}
	colors := []string{"#3b6fb6", "#e8873a", "#4a9a4a", "#b63b3b", "#7a4ab6"}
	for si, s := range r.Scenarios {
		for _, e := range []string{EncDoom3, EncQuake3} {
			x := r.Find(s.Name, 0, e)
			if x == nil {
				continue
			}
			var pts []string
			for i, v := range x.ZRLESavingWords {
				pts = append(pts, fmt.Sprintf("%.1f,%.1f", xOf(i), yOf(v)))
			}
			dash := ""
			if e == EncQuake3 {
				dash = ` stroke-dasharray="5,4"`
			}
			fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2"%s/>`+"\n", strings.Join(pts, " "), colors[si%len(colors)], dash)
		}
		fmt.Fprintf(&b, `<text x="%.0f" y="%d" fill="%s">%s</text>`+"\n", float64(left)+plotW+10, top+20+16*si, colors[si%len(colors)], s.Name)
	}
	b.WriteString("</svg>\n")
	return b.String()
}

// scaleFrameNS and scaleVisibleNS are the 64p scenario's game frame and PVS costs, which the
// scale points' client counts include.
func (r *Result) scaleFrameNS() float64 {
	for _, s := range r.Scenarios {
		if s.Name == "64p" {
			return s.FrameNS
		}
	}
	return 0
}

func (r *Result) scaleVisibleNS() float64 {
	for _, s := range r.Scenarios {
		if s.Name == "64p" {
			return s.VisibleNS
		}
	}
	return 0
}
