package bench

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"slices"
	"time"

	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/examples/arena"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/netchan"
	"github.com/snapwire/snapwire/proto"
	"github.com/snapwire/snapwire/q3/huffman"
	"github.com/snapwire/snapwire/snapshot"
	"github.com/snapwire/snapwire/zrle"
)

// Encoder names, as they appear in rows.
const (
	EncDoom3       = "doom3"         // snapshot.Encoder and its "apply" messages as a netchan.Channel sends them: zrle (3-bit words), the paper's pipeline
	EncDoom3Huff   = "doom3+huff"    // the same through snapwire's pipeline: zrle or the static Huffman stage, whichever is smaller (netchan.Config.Huffman)
	EncDoom3Raw    = "doom3-nozrle"  // the same channel bodies before compression
	EncQuake3      = "quake3"        // the Quake 3 scheme with the fixed Huffman stage
	EncQuake3NoHuf = "quake3-nohuff" // the same snapshots before Huffman
)

// UDPIPBytes is the UDP/IPv4 header overhead of one packet.
const UDPIPBytes = 28

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

	rawOurs    bool         // pipeOurs uncompressed (TestHuffmanTable counts the bodies' bytes)
	countBytes *[256]uint64 // when set: byte counts of pipeOurs' channel streams
}

// QuickOptions is `snapwire bench --quick`: short recordings, all scenarios and loss rates.
func QuickOptions() Options {
	return Options{Warmup: 60, Ticks: 70, Skip: 20, Losses: []float64{0, 0.05, 0.20}, RTT: 100 * time.Millisecond,
		Validate: 1, Predict: []time.Duration{100 * time.Millisecond, 200 * time.Millisecond}}
}

// FullOptions is `snapwire bench`: 20 s of snapshots per scenario.
func FullOptions() Options {
	o := QuickOptions()
	o.Warmup, o.Ticks = 300, 420
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
	// doom3-nozrle / quake3-nohuff); 0 on Quake 3 rows.
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
	// client-snapshots built (the metric); the OneClient figures are client 0's
	// snapshots alone plus a 1/clients share of the shared work. Quake 3: one client, both.
	ServerNS          float64 `json:"server_ns_recorded,omitempty"`
	ServerNSOneClient float64 `json:"server_ns_recorded_one_client,omitempty"`
	ServerNS256       float64 `json:"server_ns_256_visible,omitempty"`
	ServerNS256One    float64 `json:"server_ns_256_visible_one_client,omitempty"`
	ServerCoreShare   float64 `json:"server_core_share,omitempty"` // 60 Hz frames + 20 Hz snapshots for every client
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

// Tables builds the Quake 3 field tables and baselines, and the DOOM III initial base, for rec.
func Tables(rec *Recording) (*Q3Tables, *snapshot.CommonBase, error) {
	w := rec.Load
	reg := w.Registry()
	layouts := map[game.TypeID]*Layout{}
	for t := game.TypeID(1); t <= reg.MaxID(); t++ {
		e, err := reg.New(t)
		if err != nil {
			return nil, nil, err
		}
		l, err := ProbeLayout(e)
		if err != nil {
			return nil, nil, fmt.Errorf("type %d: %w", t, err)
		}
		layouts[t] = &l
	}
	u, err := NewUnion(layouts, reg.TypeBits())
	if err != nil {
		return nil, nil, err
	}
	t := &Q3Tables{U: u, Baseline: make([]UnionState, game.MaxEntities)}
	var sts []game.Snapshotter
	for _, s := range states(w, 0, sts) {
		l, err := ProbeLayout(s)
		if err != nil {
			return nil, nil, err
		}
		t.PS = append(t.PS, &l)
	}
	codec := snapshot.NewStateCodec()
	for n, e := range w.Entities() {
		_, typ := w.Entity(n)
		st, nb, err := codec.Save(e)
		if err != nil {
			return nil, nil, err
		}
		if err := u.Fill(&t.Baseline[n], typ, st, nb); err != nil {
			return nil, nil, err
		}
	}
	base := snapshot.NewCommonBase(reg.NumStates())
	if err := base.Init(w, states(w, 0, nil)); err != nil {
		return nil, nil, err
	}
	return t, base, nil
}

// fillQ3Frame computes the union state of every present entity of w.
func fillQ3Frame(fr *Q3Frame, w *arena.World, u *Union, codec *snapshot.StateCodec) error {
	fr.present = [game.MaxEntities]bool{}
	for n, e := range w.Entities() {
		_, typ := w.Entity(n)
		st, nb, err := codec.Save(e)
		if err != nil {
			return err
		}
		if err := u.Fill(&fr.ents[n], typ, st, nb); err != nil {
			return err
		}
		fr.present[n] = true
	}
	return nil
}

// psFields fills the field values of client c's non-PVS states.
func psFields(t *Q3Tables, w *arena.World, c int, codec *snapshot.StateCodec, dst [][]uint32) error {
	for id, l := range t.PS {
		st, nb, err := codec.Save(w.State(game.ClientNum(c), game.StateID(id)))
		if err != nil {
			return err
		}
		if err := l.Split(st, nb, dst[id]); err != nil {
			return err
		}
	}
	return nil
}

// stageAcc accumulates one encoder family's figures over one pass.
type stageAcc struct {
	wire             []float64
	wireOurs         []float64 // DOOM III: pipeOurs
	oursNS           float64
	freq             *[256]uint64 // when set: byte counts of pipeOurs' streams
	raw              []float64
	naive, packed    float64
	delta            float64
	zrle             [zrle.MaxWordBits + 1]float64
	huff             float64
	rel              float64
	n                int
	buildNS, rawNS   float64
	builds           int
	decodeNS         float64
	decodes          int
	dummies          int
	pred100, pred200 float64
	preds            int
}

// packet is a snapshot in flight to a client.
type packet struct {
	arrive game.Frame
	seq    uint32
	tick   int
	d3     [numPipes][]byte // each pipeline's netchan packet: header, reliable "apply" messages, snapshot
	q3     []byte
	q3bits int
}

// ackPkt is a client's packet to the server: its netchan packet (which acknowledges the
// last packet the client's channel delivered and so releases the reliables it carried) and
// the snapshot sequence the client acknowledges in its command header.
type ackPkt struct {
	arrive game.Frame
	seq    uint32
	pkt    [numPipes][]byte
}

// Pipelines: the channel configurations measured, the largest MTU so that a snapshot is one
// packet and only the 8-byte header (left out of both schemes) is added. pipePaper is DOOM
// III's (zrle); pipeOurs adds snapwire's static Huffman stage.
const (
	pipePaper = iota
	pipeOurs
	numPipes
)

var pipeConfigs = [numPipes]netchan.Config{{MTU: 65507}, {MTU: 65507, Huffman: arena.HuffmanTable()}}

// link is one pipeline's channel pair: the server's end, the client's end, and their
// capture buffers.
type link struct {
	sch, cch *netchan.Channel
	out, in  capture
}

func newLink(cfg netchan.Config, id netchan.ConnID) *link {
	return &link{sch: netchan.New(cfg, id), cch: netchan.New(cfg, id)}
}

// frameTime is frame f's virtual time, the channel's clock.
func frameTime(f game.Frame) time.Duration { return time.Duration(f) * time.Second / FrameRate }

// capture is a netchan emit callback that keeps a copy of the one packet of a Send.
type capture struct {
	pkt []byte
	n   int
}

func (c *capture) emit(p []byte) {
	c.pkt = append(c.pkt[:0], p...)
	c.n++
}

// send sends payload on ch and returns the packet (valid until the next send).
func (c *capture) send(ch *netchan.Channel, now time.Duration, typ netchan.MessageType, payload []byte) ([]byte, error) {
	c.n = 0
	if err := ch.Send(now, typ, payload, c.emit); err != nil {
		return nil, err
	}
	if c.n != 1 {
		return nil, fmt.Errorf("channel sent %d packets for one message", c.n)
	}
	return c.pkt, nil
}

// nopHandler takes the client's packets at the server: only their acks matter here.
type nopHandler struct{}

func (nopHandler) Reliable([]byte)                        {}
func (nopHandler) Unreliable(netchan.MessageType, []byte) {}

// payloadCopy keeps what the paper pipeline's client channel delivers, to check that it
// delivers exactly what the other pipeline does.
type payloadCopy struct {
	rel     int
	payload []byte
}

func (c *payloadCopy) Reliable([]byte) { c.rel++ }
func (c *payloadCopy) Unreliable(_ netchan.MessageType, msg []byte) {
	c.payload = append(c.payload[:0], msg...)
}

// clientHandler is the DOOM III client's side of its channel: the reliable "apply" messages
// go to the decoder's common base, the snapshot is decoded into b.snap.
type clientHandler struct {
	cl      *client
	b       *passBufs
	err     error
	snap    bool   // a snapshot was decoded
	rel     int    // reliable messages delivered
	payload []byte // the last snapshot's bytes
}

func (h *clientHandler) Reliable(msg []byte) {
	cl := h.cl
	if h.err != nil {
		return
	}
	h.rel++
	m, err := proto.ParseApply(msg, cl.clientApply)
	if err != nil {
		h.err = err
		return
	}
	cl.clientApply = m.Seq
	if err := cl.dec.Apply(snapshot.ApplyMessage{Seq: m.Seq}); err != nil {
		h.err = err
		return
	}
	if want, ok := cl.hashes[m.Seq]; ok {
		if cl.dec.Base().Hash() != want {
			h.err = fmt.Errorf("common base differs from the server's after applying %d", m.Seq)
		}
		delete(cl.hashes, m.Seq)
	}
}

func (h *clientHandler) Unreliable(typ netchan.MessageType, msg []byte) {
	if h.err != nil {
		return
	}
	if typ != proto.TypeSnapshot {
		h.err = fmt.Errorf("unexpected message type %d", typ)
		return
	}
	h.payload = append(h.payload[:0], msg...)
	h.b.r.Reset(msg, len(msg)*8)
	h.err = h.cl.dec.Decode(h.b.r, &h.b.snap)
	h.snap = true
}

// client is one client's two encoders, two decoders and its link.
type client struct {
	id       int
	rng      *rand.Rand
	enc      *snapshot.Encoder
	dec      *snapshot.Decoder
	q3e      *Q3Encoder
	q3d      *Q3Decoder
	inflight []*packet
	free     []*packet
	acks     []ackPkt
	lastRecv uint32
	hashes   map[snapshot.Seq]uint64
	ps       [][]uint32

	// The DOOM III links, one per pipeline, carrying the same messages, and each end's
	// previous "apply" sequence (proto.Apply is sent as the distance from it). The
	// decoder reads pipeOurs' deliveries; pipePaper's are checked to be the same bytes.
	links       [numPipes]*link
	serverApply snapshot.Seq
	clientApply snapshot.Seq
	h           clientHandler
	paperGot    payloadCopy
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
			r.BytesMean, r.BytesP99 = meanP99(wire)
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
		rdr := mk(EncDoom3Raw, d3, d3.raw, d3.rawNS/float64(max(d3.builds, 1)))
		rdr.ReliableBytes = rd.ReliableBytes
		rq := mk(EncQuake3, q3, q3.wire, q3.buildNS/float64(max(q3.builds, 1)))
		rq.HuffmanSaving = 1 - q3.huff/q3.delta
		rq.DeltaFromDummy = float64(q3.dummies) / float64(max(q3.n, 1))
		rqr := mk(EncQuake3NoHuf, q3, q3.raw, q3.rawNS/float64(max(q3.builds, 1)))
		rqr.DeltaFromDummy = rq.DeltaFromDummy
		rd.Ratio = rd.BytesMean / rq.BytesMean
		rdh.Ratio = rdh.BytesMean / rq.BytesMean
		rdr.Ratio = rdr.BytesMean / rqr.BytesMean
		for _, r := range []*Row{&rd, &rdh, &rdr, &rq, &rqr} {
			s := steady[r.Encoder]
			r.AllocsPerSnapshot, r.AllocsOneClient, r.MemPerClient = s.allocs, s.allocsOne, s.mem
			r.ServerNS, r.ServerNSOneClient, r.ServerNS256, r.ServerNS256One = s.ns, s.nsOne, s.ns256, s.ns256One
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
		rows = append(rows, rd, rdh, rdr, rq, rqr)
	}
	return rows, info, nil
}

func meanP99(v []float64) (mean, p99 float64) {
	if len(v) == 0 {
		return 0, 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	sum := 0.0
	for _, x := range s {
		sum += x
	}
	i := min(len(s)-1, (len(s)*99+99)/100-1)
	return sum / float64(len(s)), s[i]
}

// buffers shared by a pass.
type passBufs struct {
	w     *bitmsg.Writer
	wbuf  []byte
	q     *bitmsg.Writer
	qbuf  []byte
	z     []byte
	r     *bitmsg.Reader
	snap  snapshot.Snapshot
	cmds  []game.PlayerCmd
	sts   []game.Snapshotter
	codec *snapshot.StateCodec
	huff  *huffman.Fixed
	fr    *Q3Frame
	cache snapshot.FrameCache // the frame's entity encodings, shared by the clients (as a server does)
}

func newPassBufs() *passBufs {
	b := &passBufs{wbuf: make([]byte, 1<<19), qbuf: make([]byte, 1<<19), z: make([]byte, 1<<20),
		codec: snapshot.NewStateCodec(), huff: huffman.FixedCode(), fr: new(Q3Frame)}
	b.w = bitmsg.NewWriter(b.wbuf)
	b.q = bitmsg.NewWriter(b.qbuf)
	b.r = bitmsg.NewReader(nil, 0)
	return b
}

// runPass runs both schemes for every client of rec over a link with the given loss and
// o.RTT, and returns the DOOM III and Quake 3 accumulators.
func runPass(rec *Recording, t *Q3Tables, base *snapshot.CommonBase, o Options, loss float64) (*stageAcc, *stageAcc, error) {
	reg := rec.Load.Registry()
	oneWay := game.Frame(o.RTT.Milliseconds() * FrameRate / 2000)
	b := newPassBufs()
	clients := make([]*client, rec.Clients)
	for c := range clients {
		cl := &client{id: c, rng: rand.New(rand.NewPCG(uint64(c)+1, uint64(loss*1e6)+uint64(len(rec.Ticks)))),
			enc: snapshot.NewEncoder(reg), q3e: NewQ3Encoder(t), q3d: NewQ3Decoder(t), hashes: map[snapshot.Seq]uint64{}}
		cl.enc.Base().CopyFrom(base)
		dec, err := snapshot.NewDecoder(reg)
		if err != nil {
			return nil, nil, err
		}
		dec.Base().CopyFrom(base)
		cl.dec = dec
		cl.ps = make([][]uint32, len(t.PS))
		for i, l := range t.PS {
			cl.ps[i] = make([]uint32, l.Fields())
		}
		for i := range cl.links {
			cl.links[i] = newLink(pipeConfigs[i], netchan.ConnID(c+1))
			if o.rawOurs && i == pipeOurs {
				cl.links[i] = newLink(netchan.Config{MTU: 65507, DisableCompression: true}, netchan.ConnID(c+1))
			}
		}
		cl.h = clientHandler{cl: cl, b: b}
		clients[c] = cl
	}
	d3, q3 := &stageAcc{freq: o.countBytes}, &stageAcc{}
	prevFrame := rec.Ticks[0].Frame - SnapshotEvery
	for ti := range rec.Ticks {
		tk := &rec.Ticks[ti]
		count := ti >= o.Skip
		// The Quake 3 game fills every entityState_t once per frame, for all clients.
		start := time.Now()
		if err := fillQ3Frame(b.fr, tk.World, t.U, b.codec); err != nil {
			return nil, nil, err
		}
		frameShare := float64(time.Since(start).Nanoseconds()) / float64(rec.Clients)
		for _, cl := range clients {
			// Frames since the last tick: the client receives snapshots and acks every frame.
			for g := prevFrame + 1; g <= tk.Frame; g++ {
				if err := cl.deliver(g, rec, t, b, o, d3, q3, count); err != nil {
					return nil, nil, fmt.Errorf("client %d frame %d: %w", cl.id, g, err)
				}
				if cl.lastRecv != 0 {
					// The client sends a packet every frame (its commands; here only the
					// channel header that acknowledges the last packet it received).
					a := ackPkt{arrive: g + oneWay, seq: cl.lastRecv}
					for i, l := range cl.links {
						pkt, err := l.in.send(l.cch, frameTime(g), netchan.TypeNone, nil)
						if err != nil {
							return nil, nil, err
						}
						a.pkt[i] = slices.Clone(pkt)
					}
					if cl.rng.Float64() >= loss {
						cl.acks = append(cl.acks, a)
					}
				}
			}
			// The server reads the acks that have arrived.
			k := 0
			for _, a := range cl.acks {
				if a.arrive > tk.Frame {
					cl.acks[k] = a
					k++
					continue
				}
				// The channel's ack releases the reliables the acknowledged packet carried.
				for i, l := range cl.links {
					if err := l.sch.Receive(frameTime(a.arrive), a.pkt[i], nopHandler{}); err != nil {
						return nil, nil, err
					}
				}
				// The snapshot ack: the server applies the snapshot to its base and queues
				// the reliable "apply S" (as server.conn does, without VerifyBase).
				if m, ok := cl.enc.Ack(snapshot.Seq(a.seq)); ok {
					var buf [proto.MaxApplyLen]byte
					msg := proto.Apply{Seq: m.Seq}.Append(buf[:0], cl.serverApply)
					for _, l := range cl.links {
						if err := l.sch.QueueReliable(msg); err != nil {
							return nil, nil, err
						}
					}
					cl.serverApply = m.Seq
					if cl.id < o.Validate {
						cl.hashes[m.Seq] = cl.enc.Base().Hash()
					}
				}
				cl.q3e.Ack(a.seq)
			}
			cl.acks = cl.acks[:k]
			p, err := cl.build(ti, tk, rec, t, b, d3, q3, count, frameShare)
			if err != nil {
				return nil, nil, fmt.Errorf("client %d tick %d: %w", cl.id, ti, err)
			}
			if cl.rng.Float64() >= loss {
				p.arrive = tk.Frame + oneWay
				cl.inflight = append(cl.inflight, p)
			} else {
				cl.free = append(cl.free, p)
			}
		}
		prevFrame = tk.Frame
	}
	return d3, q3, nil
}

// build makes the client's snapshot of tick ti with both schemes.
func (cl *client) build(ti int, tk *Tick, rec *Recording, t *Q3Tables, b *passBufs, d3, q3 *stageAcc, count bool, frameShare float64) (*packet, error) {
	c := cl.id
	b.cmds = b.cmds[:0]
	for _, pc := range tk.Cmds {
		if int(pc.Entity) != c {
			b.cmds = append(b.cmds, pc)
		}
	}
	b.sts = states(tk.World, c, b.sts)
	in := snapshot.Input{Frame: tk.Frame, Time: time.Duration(tk.Frame) * time.Second / FrameRate,
		PVS: &tk.PVS[c], World: tk.World, States: b.sts, Cmds: b.cmds, Cache: &b.cache}

	// DOOM III: build, then the channel sends it with the outstanding reliable "apply"
	// messages, compressed when that is smaller: exactly the bytes a server sends.
	b.w.Reset(b.wbuf)
	start := time.Now()
	h, err := cl.enc.Build(b.w, &in)
	buildNS := float64(time.Since(start).Nanoseconds())
	if err != nil {
		return nil, err
	}
	data, nbits := b.w.Bytes(), b.w.Len()
	rel := cl.links[pipePaper].sch.ReliableSectionLen()
	p := cl.packet()
	p.seq, p.tick = uint32(h.Seq), ti
	var sendNS [numPipes]float64
	for i, l := range cl.links {
		start = time.Now()
		pkt, err := l.out.send(l.sch, frameTime(tk.Frame), proto.TypeSnapshot, data)
		sendNS[i] = float64(time.Since(start).Nanoseconds())
		if err != nil {
			return nil, err
		}
		p.d3[i] = append(p.d3[i][:0], pkt...)
	}

	// Quake 3: the same states through the fixed layout, without and with Huffman.
	if err := psFields(t, tk.World, c, b.codec, cl.ps); err != nil {
		return nil, err
	}
	area := tk.Areas[c][:]
	var areaBytes [32]byte
	nrooms := len(tk.World.Map.Rooms)
	for i := range (nrooms + 7) / 8 {
		areaBytes[i] = byte(area[i/8] >> (8 * (i % 8)))
	}
	start = time.Now()
	cl.q3e.Snapshot(tk.Frame, b.fr, &tk.PVS[c], cl.ps, areaBytes[:(nrooms+7)/8])
	b.q.Reset(b.qbuf)
	if err := cl.q3e.Write(b.q, nil); err != nil {
		return nil, err
	}
	q3RawNS := float64(time.Since(start).Nanoseconds())
	q3raw := b.q.Len()
	qdata := b.q.Bytes()
	qz := [zrle.MaxWordBits + 1]int{}
	if count {
		for w := zrle.MinWordBits; w <= zrle.MaxWordBits; w++ {
			if qz[w], err = zrle.Compress(b.z, qdata, q3raw, w); err != nil {
				return nil, err
			}
		}
	}
	start = time.Now()
	b.q.Reset(b.qbuf)
	if err := cl.q3e.Write(b.q, b.huff); err != nil {
		return nil, err
	}
	q3HufNS := float64(time.Since(start).Nanoseconds())
	p.q3 = append(p.q3[:0], b.q.Bytes()...)
	p.q3bits = b.q.Len()

	if !count {
		return p, nil
	}
	// Sizes of the alternatives (see BENCHMARKS.md "How the stages are measured").
	naive, packed, qnaive, qpacked := cl.fullSizes(tk, t, b)
	d3.naive += float64(snapshot.HeaderBits + naive)
	d3.packed += float64(snapshot.HeaderBits + packed)
	d3.delta += float64(nbits)
	for w := zrle.MinWordBits; w <= zrle.MaxWordBits; w++ {
		zb, err := zrle.Compress(b.z, data, nbits, w)
		if err != nil {
			return nil, err
		}
		d3.zrle[w] += float64(zb)
	}
	// What the channel sent after its 8-byte header, and its body before compression.
	d3.wire = append(d3.wire, float64(len(p.d3[pipePaper])-netchan.HeaderLen))
	d3.wireOurs = append(d3.wireOurs, float64(len(p.d3[pipeOurs])-netchan.HeaderLen))
	d3.raw = append(d3.raw, float64(len(data)+rel))
	if d3.freq != nil {
		for _, c := range p.d3[pipeOurs][netchan.HeaderLen:] {
			d3.freq[c]++
		}
	}
	d3.rel += float64(rel)
	d3.n++
	d3.buildNS += buildNS + sendNS[pipePaper]
	d3.oursNS += buildNS + sendNS[pipeOurs]
	d3.rawNS += buildNS
	d3.builds++

	q3hdr := 32 + 8 + 32 + 8 + 8 + 8 + 8*len(areaBytes[:(nrooms+7)/8]) + 8
	q3.naive += float64(q3hdr + qnaive)
	q3.packed += float64(q3hdr + qpacked)
	q3.delta += float64(q3raw)
	for w := zrle.MinWordBits; w <= zrle.MaxWordBits; w++ {
		q3.zrle[w] += float64(qz[w])
	}
	q3.huff += float64(p.q3bits)
	q3.wire = append(q3.wire, float64((p.q3bits+7)/8))
	q3.raw = append(q3.raw, float64((q3raw+7)/8))
	if cl.q3e.base == nil {
		q3.dummies++
	}
	q3.n++
	q3.buildNS += q3HufNS + frameShare
	q3.rawNS += q3RawNS + frameShare
	q3.builds++
	return p, nil
}

// fullSizes returns the sizes in bits of client cl's snapshot as full states: naive (32 bits
// per field and per entity number) and bit-packed (12-bit entity numbers, packed states), for
// the DOOM III layouts and for the Quake 3 union layout.
func (cl *client) fullSizes(tk *Tick, t *Q3Tables, b *passBufs) (naive, packed, qnaive, qpacked int) {
	u := t.U
	for n := range tk.PVS[cl.id].All() {
		_, typ := tk.World.Entity(n)
		l := u.Types[typ]
		if l == nil {
			continue
		}
		naive += 32 + 32*l.Fields()
		packed += game.EntityNumBits + l.Bits
		qnaive += 32 + 32*u.Slots()
		qpacked += game.EntityNumBits + u.Bits
	}
	for _, l := range t.PS {
		naive += 32 * l.Fields()
		packed += l.Bits
		qnaive += 32 * l.Fields()
		qpacked += l.Bits
	}
	return
}

func (cl *client) packet() *packet {
	if n := len(cl.free); n > 0 {
		p := cl.free[n-1]
		cl.free = cl.free[:n-1]
		return p
	}
	return &packet{}
}

// deliver hands the client every packet arriving at frame g: it applies the reliable "apply"
// messages, decodes both snapshots and checks them.
func (cl *client) deliver(g game.Frame, rec *Recording, t *Q3Tables, b *passBufs, o Options, d3, q3 *stageAcc, count bool) error {
	k := 0
	for _, p := range cl.inflight {
		if p.arrive > g {
			cl.inflight[k] = p
			k++
			continue
		}
		if err := cl.receive(p, rec, b, o, d3, q3, count); err != nil {
			return err
		}
		cl.free = append(cl.free, p)
	}
	clear(cl.inflight[k:])
	cl.inflight = cl.inflight[:k]
	return nil
}

func (cl *client) receive(p *packet, rec *Recording, b *passBufs, o Options, d3, q3 *stageAcc, count bool) error {
	tk := &rec.Ticks[p.tick]
	// DOOM III: the client's channel delivers the reliable "apply" messages, then the
	// snapshot (netchan delivers reliables before the unreliable payload).
	start := time.Now()
	cl.h.err, cl.h.snap = nil, false
	if err := cl.links[pipeOurs].cch.Receive(frameTime(p.arrive), p.d3[pipeOurs], &cl.h); err != nil {
		return err
	}
	dns := float64(time.Since(start).Nanoseconds())
	if cl.h.err != nil {
		return cl.h.err
	}
	if !cl.h.snap {
		return fmt.Errorf("snapshot %d: the channel delivered no snapshot", p.seq)
	}
	if err := cl.links[pipePaper].cch.Receive(frameTime(p.arrive), p.d3[pipePaper], &cl.paperGot); err != nil {
		return err
	}
	if cl.paperGot.rel != cl.h.rel || !bytes.Equal(cl.paperGot.payload, cl.h.payload) {
		return fmt.Errorf("snapshot %d: the two pipelines delivered different messages", p.seq)
	}
	if cl.id < o.Validate {
		if err := checkDoom3(&b.snap, tk, cl.id, b.codec); err != nil {
			return fmt.Errorf("snapshot %d: %w", p.seq, err)
		}
		if count {
			p100, p200, err := repredict(&b.snap, tk, cl.id, o.Predict)
			if err != nil {
				return err
			}
			d3.pred100 += p100
			d3.pred200 += p200
			d3.preds++
		}
	}
	// Quake 3.
	start = time.Now()
	s, err := cl.q3d.Decode(p.q3, p.q3bits, b.huff)
	qns := float64(time.Since(start).Nanoseconds())
	if err != nil {
		return err
	}
	want := &cl.q3e.ring[p.seq%PacketBackup]
	if want.seq != p.seq || !slices.Equal(s.ents, want.ents) || !bytes.Equal(s.area, want.area) {
		return fmt.Errorf("quake3 snapshot %d decodes to other entities", p.seq)
	}
	for i := range s.ps {
		if !slices.Equal(s.ps[i], want.ps[i]) {
			return fmt.Errorf("quake3 snapshot %d: state %d differs", p.seq, i)
		}
	}
	if int32(p.seq-cl.lastRecv) > 0 {
		cl.lastRecv = p.seq
	}
	if count {
		d3.decodeNS += dns
		d3.decodes++
		q3.decodeNS += qns
		q3.decodes++
	}
	return nil
}

// checkDoom3 compares every entity and state of a decoded snapshot with the server's.
func checkDoom3(s *snapshot.Snapshot, tk *Tick, c int, codec *snapshot.StateCodec) error {
	w := tk.World
	n := 0
	for i := range s.Entities {
		es := &s.Entities[i]
		e, typ := w.Entity(es.Num)
		if e == nil || typ != es.Type {
			return fmt.Errorf("entity %d: type %d, server has %d", es.Num, es.Type, typ)
		}
		st, nb, err := codec.Save(e)
		if err != nil {
			return err
		}
		if nb != es.Bits || !bytes.Equal(st, es.State) {
			return fmt.Errorf("entity %d: state differs from the server's", es.Num)
		}
		n++
	}
	for n1 := range tk.PVS[c].All() {
		if e, _ := w.Entity(n1); e != nil {
			n--
		}
	}
	if n != 0 {
		return fmt.Errorf("PVS has %d entities more than the server's", n)
	}
	for id := range s.States {
		st, nb, err := codec.Save(w.State(game.ClientNum(c), game.StateID(id)))
		if err != nil {
			return err
		}
		if nb != s.States[id].Bits || !bytes.Equal(st, s.States[id].State) {
			return fmt.Errorf("state %d differs from the server's", id)
		}
	}
	return nil
}

// repredict measures the DOOM III client's work on a snapshot (§2, §6): overwrite the states of
// the entities in its PVS with the snapshot's, then re-predict from the snapshot's frame up to
// its own, a full round trip ahead. The client world holds only the PVS's entities. It returns
// the time for the first two RTTs in preds.
func repredict(s *snapshot.Snapshot, tk *Tick, c int, preds []time.Duration) (p1, p2 float64, err error) {
	cw := copyWorld(tk.World)
	var keep snapshot.PVS
	for i := range s.Entities {
		keep.Add(s.Entities[i].Num)
	}
	for n := range tk.World.Entities() {
		if !keep.Has(n) {
			cw.Remove(n)
		}
	}
	codec := snapshot.NewStateCodec()
	cmds := slices.Clone(tk.Cmds)
	ev := game.Discard
	start := time.Now()
	for i := range s.Entities {
		es := &s.Entities[i]
		e, _ := cw.Entity(es.Num)
		if e == nil {
			return 0, 0, fmt.Errorf("client world lacks entity %d", es.Num)
		}
		if err := codec.Load(e, es.State, es.Bits); err != nil {
			return 0, 0, err
		}
	}
	for id := range s.States {
		if err := codec.Load(cw.State(game.ClientNum(c), game.StateID(id)), s.States[id].State, s.States[id].Bits); err != nil {
			return 0, 0, err
		}
	}
	loadNS := time.Since(start)
	var out [2]float64
	f := tk.Frame
	done := 0
	elapsed := loadNS
	for k, rtt := range preds[:min(2, len(preds))] {
		frames := int(rtt.Milliseconds()*FrameRate/1000) - done
		start = time.Now()
		for range frames {
			f++
			for i := range cmds {
				cmds[i].Cmd.Frame = f
			}
			cw.RunFrame(&game.Tick{Frame: f, Cmds: cmds, Events: ev, Predicting: true})
		}
		elapsed += time.Since(start)
		done += frames
		out[k] = float64(elapsed.Nanoseconds())
	}
	return out[0], out[1], nil
}

// steadyPasses is how many times measureSteady runs through a recording; the last is measured.
const steadyPasses = 3

// steadyCost is an encoder's steady-state cost. The DOOM III server cost is measured two ways
// (serverLoop): over every client of the frame, as a server spends it (the metric), and
// for client 0 alone with a 1/clients share of the frame's shared work.
type steadyCost struct {
	allocs    float64 // per client-snapshot, every client of the frame built (Quake 3: one client)
	allocsOne float64 // per snapshot, client 0 alone
	mem       int     // one client's encoder
	ns        float64 // server µs per client-snapshot, recorded PVS, every client built (Quake 3: one client)
	nsOne     float64 // the same, client 0 alone
	ns256     float64 // server µs per client-snapshot, 256 visible, every client built (Quake 3: one client)
	ns256One  float64 // the same, client 0 alone
}

// measureSteady runs rec at 0% loss with the acknowledgement two snapshots back (100 ms RTT at
// 20 Hz), to count allocations per snapshot once every buffer has grown, the memory each scheme
// keeps per client, and the server cost per client-snapshot, with the recorded PVS and with
// exactly 256 visible entities per client. DOOM III is measured with every client's snapshot
// built each frame (what a server does, and what lets the FrameCache share work between
// clients) and with client 0's alone.
func measureSteady(rec *Recording, t *Q3Tables, base *snapshot.CommonBase, o Options) (map[string]steadyCost, error) {
	reg := rec.Load.Registry()
	b := newPassBufs()
	out := map[string]steadyCost{}
	ps := make([][]uint32, len(t.PS))
	for i, l := range t.PS {
		ps[i] = make([]uint32, l.Fields())
	}
	// Every client's PVS per tick (recorded, and cut or padded to 256), and their union: what
	// the server's FrameCache encodes once per frame for all clients.
	recorded, cut := make([][]snapshot.PVS, len(rec.Ticks)), make([][]snapshot.PVS, len(rec.Ticks))
	union, union256 := make([]snapshot.PVS, len(rec.Ticks)), make([]snapshot.PVS, len(rec.Ticks))
	for i := range rec.Ticks {
		tk := &rec.Ticks[i]
		recorded[i] = tk.PVS
		cut[i] = make([]snapshot.PVS, rec.Clients)
		for c := range rec.Clients {
			cut[i][c] = visible256(tk, c)
			for j := range union[i] {
				union[i][j] |= tk.PVS[c][j]
				union256[i][j] |= cut[i][c][j]
			}
		}
	}
	var ms runtime.MemStats
	heap := func() uint64 {
		runtime.GC()
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	mallocs := func() uint64 {
		runtime.ReadMemStats(&ms)
		return ms.Mallocs
	}
	// The FrameCache is the server's, shared by all clients: grow it before the heap is read
	// so that it is not counted as one client's memory. (The all-clients loops, run first,
	// grow its delta memo too.)
	if err := b.cache.Prepare(rec.Ticks[0].Frame, rec.Ticks[0].World, reg, &union256[0]); err != nil {
		return nil, err
	}
	b.cache.Invalidate()
	for _, pvsKind := range []string{"recorded", "256"} {
		pvs, all := recorded, union
		if pvsKind == "256" {
			pvs, all = cut, union256
		}
		for pipe, encName := range [numPipes]string{EncDoom3, EncDoom3Huff} {
			every, err := serverLoop(rec, base, pvs, all, pipeConfigs[pipe], rec.Clients, b, nil)
			if err != nil {
				return nil, err
			}
			one, err := serverLoop(rec, base, pvs, all, pipeConfigs[pipe], 1, b, heap)
			if err != nil {
				return nil, err
			}
			c := out[encName]
			if pvsKind == "256" {
				c.ns256, c.ns256One = every.ns, one.ns
			} else {
				c.ns, c.nsOne, c.allocs, c.allocsOne, c.mem = every.ns, one.ns, every.allocs, one.allocs, one.mem
			}
			out[encName] = c
			if pipe == pipePaper {
				out[EncDoom3Raw] = c
			}
		}
		// Quake 3.
		h0 := heap()
		q := NewQ3Encoder(t)
		var m0 uint64
		ns := 0.0
		for it := range steadyPasses * len(rec.Ticks) {
			ti := it % len(rec.Ticks)
			tk := &rec.Ticks[ti]
			measured := it >= (steadyPasses-1)*len(rec.Ticks)
			pvs := &tk.PVS[0]
			if pvsKind == "256" {
				pvs = &cut[ti][0]
			}
			start := time.Now()
			if err := fillQ3Frame(b.fr, tk.World, t.U, b.codec); err != nil {
				return nil, err
			}
			frameNS := float64(time.Since(start).Nanoseconds()) / float64(rec.Clients)
			if err := psFields(t, tk.World, 0, b.codec, ps); err != nil {
				return nil, err
			}
			if it == (steadyPasses-1)*len(rec.Ticks) {
				m0 = mallocs()
			}
			start = time.Now()
			q.Snapshot(tk.Frame, b.fr, pvs, ps, nil)
			b.q.Reset(b.qbuf)
			if err := q.Write(b.q, b.huff); err != nil {
				return nil, err
			}
			if measured {
				ns += float64(time.Since(start).Nanoseconds()) + frameNS
			}
			if q.next > 3 {
				q.Ack(q.next - 3)
			}
		}
		m1 := mallocs()
		steady := float64(len(rec.Ticks))
		if pvsKind == "256" {
			s := out[EncQuake3]
			s.ns256, s.ns256One = ns/steady, ns/steady
			out[EncQuake3] = s
		} else {
			h1 := heap()
			runtime.KeepAlive(q)
			mem := int(h1) - int(h0)
			a := float64(m1-m0) / steady
			c := steadyCost{allocs: a, allocsOne: a, mem: mem, ns: ns / steady, nsOne: ns / steady}
			out[EncQuake3] = c
			// The same encoder without Huffman: its allocations and memory (its time is not measured).
			out[EncQuake3NoHuf] = steadyCost{allocs: a, allocsOne: a, mem: mem}
		}
	}
	return out, nil
}

// loopCost is what serverLoop measured: server ns and allocations per client-snapshot, and
// the heap one client's encoder holds (when asked).
type loopCost struct {
	ns, allocs float64
	mem        int
}

// serverLoop runs the DOOM III server over the ticks steadyPasses times, the last measured,
// building the snapshots of clients 0..k-1 every tick from one FrameCache (b.cache), each
// acknowledging the one two back over its own channel (100 ms RTT at 20 Hz). pvs[i][c] is client
// c's PVS at tick i, union[i] the union of every client's. Timed per tick: the shared work
// (Prepare with the union, PrepareStates with every client's states), and for each client
// built, Build, the server's channel taking the ack, Ack and queueing "apply S", and the
// channel's Send (compression included); the client's side of the ack is not timed. The
// shared work is charged k/clients: with k = clients it is all of it, with k = 1 client 0's
// share. The result is per client-snapshot. With heap set (k = 1), mem is the live heap the
// client's encoder holds.
func serverLoop(rec *Recording, base *snapshot.CommonBase, pvs [][]snapshot.PVS, union []snapshot.PVS, cfg netchan.Config, k int, b *passBufs, heap func() uint64) (loopCost, error) {
	reg := rec.Load.Registry()
	var ms runtime.MemStats
	mallocs := func() uint64 {
		runtime.ReadMemStats(&ms)
		return ms.Mallocs
	}
	// The channels are the server's per-client links, not the encoders' memory: their
	// buffers grow in a warm-up exchange before the heap is read.
	links := make([]*steadyLink, k)
	for c := range links {
		l, err := newSteadyLink(cfg, netchan.ConnID(c+1))
		if err != nil {
			return loopCost{}, err
		}
		links[c] = l
	}
	var h0 uint64
	if heap != nil {
		h0 = heap()
	}
	encs := make([]*snapshot.Encoder, k)
	for c := range encs {
		encs[c] = snapshot.NewEncoder(reg)
		encs[c].Base().CopyFrom(base)
	}
	ticks := len(pvs)
	var m0 uint64
	var ns float64
	for it := range steadyPasses * ticks {
		ti := it % ticks
		tk := &rec.Ticks[ti]
		measured := it >= (steadyPasses-1)*ticks
		if it == (steadyPasses-1)*ticks {
			m0 = mallocs()
		}
		// The shared part: every visible entity and every client's non-PVS state instance
		// (the scoreboard once) encoded once for the frame.
		start := time.Now()
		if err := b.cache.Prepare(tk.Frame, tk.World, reg, &union[ti]); err != nil {
			return loopCost{}, err
		}
		for c := range rec.Clients {
			b.sts = states(tk.World, c, b.sts)
			if err := b.cache.PrepareStates(tk.Frame, b.sts); err != nil {
				return loopCost{}, err
			}
		}
		tickNS := float64(time.Since(start).Nanoseconds()) * float64(k) / float64(rec.Clients)
		now := frameTime(tk.Frame)
		for c, enc := range encs {
			link := links[c]
			b.cmds = b.cmds[:0]
			for _, pc := range tk.Cmds {
				if int(pc.Entity) != c {
					b.cmds = append(b.cmds, pc)
				}
			}
			b.sts = states(tk.World, c, b.sts)
			in := snapshot.Input{Frame: tk.Frame, PVS: &pvs[ti][c], World: tk.World, States: b.sts, Cmds: b.cmds, Cache: &b.cache}
			b.w.Reset(b.wbuf)
			start = time.Now()
			h, err := enc.Build(b.w, &in)
			if err != nil {
				return loopCost{}, err
			}
			tickNS += float64(time.Since(start).Nanoseconds())
			// The client acknowledges the snapshot two back (untimed: the client's work).
			var ack []byte
			if h.Seq > 2 {
				if ack, err = link.clientAck(now, h.Seq-2); err != nil {
					return loopCost{}, err
				}
			}
			// Timed: the server takes the ack, applies it and queues "apply S", and the
			// channel sends the snapshot with its reliables, compressed when smaller.
			start = time.Now()
			if ack != nil {
				if err := link.server.Receive(now, ack, nopHandler{}); err != nil {
					return loopCost{}, err
				}
				if m, ok := enc.Ack(h.Seq - 2); ok {
					var buf [proto.MaxApplyLen]byte
					if err := link.server.QueueReliable(proto.Apply{Seq: m.Seq}.Append(buf[:0], link.prevApply)); err != nil {
						return loopCost{}, err
					}
					link.prevApply = m.Seq
				}
			}
			pkt, err := link.out.send(link.server, now, proto.TypeSnapshot, b.w.Bytes())
			if err != nil {
				return loopCost{}, err
			}
			tickNS += float64(time.Since(start).Nanoseconds())
			link.keep(h.Seq, pkt)
		}
		if measured {
			ns += tickNS
		}
	}
	m1 := mallocs()
	built := float64(ticks * k)
	r := loopCost{ns: ns / built, allocs: float64(m1-m0) / built}
	if heap != nil {
		r.mem = int(heap()-h0) / k
		runtime.KeepAlive(encs)
	}
	runtime.KeepAlive(links) // not counted: allocated before h0
	return r, nil
}

// steadyLink is measureSteady's DOOM III channel: the server's end and the client's, and
// the last packets sent, from which the client acknowledges the one two back.
type steadyLink struct {
	server, client *netchan.Channel
	out, in        capture
	sent           [3][]byte
	prevApply      snapshot.Seq
}

func newSteadyLink(cfg netchan.Config, id netchan.ConnID) (*steadyLink, error) {
	l := &steadyLink{server: netchan.New(cfg, id), client: netchan.New(cfg, id)}
	// The harness's own copies of the packets are as large as a packet can be, so that a
	// larger snapshot than any before (the passes wrap around the recording against bases
	// from its end) does not count as an allocation of the server.
	for i := range l.sent {
		l.sent[i] = make([]byte, 0, cfg.MTU+netchan.HeaderLen)
	}
	l.out.pkt = make([]byte, 0, cfg.MTU+netchan.HeaderLen)
	// Warm-up: one reliable message out and acknowledged grows every buffer.
	if err := l.server.QueueReliable([]byte{0}); err != nil {
		return nil, err
	}
	pkt, err := l.out.send(l.server, 0, netchan.TypeNone, make([]byte, 1<<12))
	if err != nil {
		return nil, err
	}
	if err := l.client.Receive(0, pkt, nopHandler{}); err != nil {
		return nil, err
	}
	if pkt, err = l.in.send(l.client, 0, netchan.TypeNone, nil); err != nil {
		return nil, err
	}
	if err := l.server.Receive(0, pkt, nopHandler{}); err != nil {
		return nil, err
	}
	if l.server.ReliableSectionLen() != 0 {
		return nil, fmt.Errorf("warm-up reliable not released")
	}
	return l, nil
}

// keep stores the packet carrying snapshot seq.
func (l *steadyLink) keep(seq snapshot.Seq, pkt []byte) {
	i := int(seq % 3)
	l.sent[i] = append(l.sent[i][:0], pkt...)
}

// clientAck delivers the packet of snapshot seq to the client's channel and returns the
// client's next packet, which acknowledges it.
func (l *steadyLink) clientAck(now time.Duration, seq snapshot.Seq) ([]byte, error) {
	if err := l.client.Receive(now, l.sent[seq%3], nopHandler{}); err != nil {
		return nil, err
	}
	return l.in.send(l.client, now, netchan.TypeNone, nil)
}

// visible256 returns client c's PVS cut or padded to exactly 256 live entities: entities past
// the 256th are dropped; a smaller PVS is padded with live entities in number order from the
// client's own, so the work is real arena entities either way.
func visible256(tk *Tick, c int) snapshot.PVS {
	var p snapshot.PVS
	n := 0
	for e := range tk.PVS[c].All() {
		if n == 256 {
			break
		}
		if ent, _ := tk.World.Entity(e); ent != nil {
			p.Add(e)
			n++
		}
	}
	for e := range tk.World.Entities() {
		if n == 256 {
			break
		}
		if !p.Has(e) {
			p.Add(e)
			n++
		}
	}
	return p
}

func machine() Machine {
	return Machine{GoVersion: runtime.Version(), GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, CPUs: runtime.NumCPU(), CPU: cpuName()}
}
