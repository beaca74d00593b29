package bench

import (
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/netchan"
	"github.com/snapwire/snapwire/internal/q3/huffman"
	"github.com/snapwire/snapwire/internal/session"
	"github.com/snapwire/snapwire/internal/snapshot"
)

// fixture is a short recording of one scenario with its tables, shared by the benchmarks.
type fixture struct {
	rec    *Recording
	t      *Q3Tables
	base   *snapshot.CommonBase
	pvs256 []snapshot.PVS
	// union and union256: every client's PVS (recorded, cut to 256) together, per tick: what
	// a server's FrameCache encodes once per frame for all its clients.
	union, union256 []snapshot.PVS
}

var (
	fixMu sync.Mutex
	fixes = map[string]*fixture{}
)

func getFixture(tb testing.TB, name string) *fixture {
	fixMu.Lock()
	defer fixMu.Unlock()
	if f := fixes[name]; f != nil {
		return f
	}
	for _, sc := range Scenarios() {
		if sc.Name != name {
			continue
		}
		rec, err := Record(sc, 60, 80)
		if err != nil {
			tb.Fatal(err)
		}
		t, base, err := Tables(rec)
		if err != nil {
			tb.Fatal(err)
		}
		f := &fixture{rec: rec, t: t, base: base}
		for i := range rec.Ticks {
			tk := &rec.Ticks[i]
			f.pvs256 = append(f.pvs256, visible256(tk, 0))
			var u, u256 snapshot.PVS
			for c := range rec.Clients {
				v := visible256(tk, c)
				for j := range u {
					u[j] |= tk.PVS[c][j]
					u256[j] |= v[j]
				}
			}
			f.union, f.union256 = append(f.union, u), append(f.union256, u256)
		}
		fixes[name] = f
		return f
	}
	tb.Fatalf("no scenario %q", name)
	return nil
}

// doom3Loop builds client 0's snapshots over the recording again and again, acknowledging
// the one two back (100 ms RTT at 20 Hz), and sends each with its "apply" messages through a
// netchan.Channel, as a server does. The
// frame's entity and non-PVS state encodings are shared through a FrameCache filled with
// every client's PVS and states, of which client 0 is charged its share (1/clients).
type doom3Loop struct {
	f     *fixture
	cache snapshot.FrameCache
	ns    float64 // time charged to client 0
	// the parts of ns: the frame's share (Prepare), Build, and taking the ack and sending
	prepNS, buildNS, sendNS float64
	enc                     *snapshot.Encoder
	w                       *bitmsg.Writer
	buf                     []byte
	link                    *steadyLink
	sts                     []game.Snapshotter
	cmds                    []game.PlayerCmd
	i                       int
	use                     bool // the 256-entity PVS
}

func newDoom3Loop(f *fixture, use256 bool) *doom3Loop {
	link, err := newSteadyLink(pipeConfigs[pipeOurs], 1)
	if err != nil {
		panic(err)
	}
	l := &doom3Loop{f: f, enc: snapshot.NewEncoder(f.rec.Load.Registry()), buf: make([]byte, 1<<18), link: link, use: use256}
	l.enc.Base().CopyFrom(f.base)
	l.w = bitmsg.NewWriter(l.buf)
	return l
}

func (l *doom3Loop) step(tb testing.TB) int {
	ti := l.i % len(l.f.rec.Ticks)
	l.i++
	tk := &l.f.rec.Ticks[ti]
	pvs, all := &tk.PVS[0], &l.f.union[ti]
	if l.use {
		pvs, all = &l.f.pvs256[ti], &l.f.union256[ti]
	}
	start := time.Now()
	if err := l.cache.Prepare(tk.Frame, tk.World, l.f.rec.Load.Registry(), all); err != nil {
		tb.Fatal(err)
	}
	for c := range l.f.rec.Clients {
		l.sts = states(tk.World, c, l.sts)
		if err := l.cache.PrepareStates(tk.Frame, l.sts); err != nil {
			tb.Fatal(err)
		}
	}
	d := float64(time.Since(start).Nanoseconds()) / float64(l.f.rec.Clients)
	l.ns += d
	l.prepNS += d
	start = time.Now()
	l.cmds = l.cmds[:0]
	for _, pc := range tk.Cmds {
		if pc.Entity != 0 {
			l.cmds = append(l.cmds, pc)
		}
	}
	l.sts = states(tk.World, 0, l.sts)
	in := snapshot.Input{Frame: tk.Frame, PVS: pvs, World: tk.World, States: l.sts, Cmds: l.cmds, Cache: &l.cache}
	l.w.Reset(l.buf)
	h, err := l.enc.Build(l.w, &in)
	if err != nil {
		tb.Fatal(err)
	}
	d = float64(time.Since(start).Nanoseconds())
	l.ns += d
	l.buildNS += d
	now := frameTime(tk.Frame)
	var ack []byte
	if h.Seq > 2 {
		if ack, err = l.link.clientAck(now, h.Seq-2); err != nil {
			tb.Fatal(err)
		}
	}
	start = time.Now()
	if ack != nil {
		if err := l.link.server.Receive(now, ack, nopHandler{}); err != nil {
			tb.Fatal(err)
		}
		if m, ok := l.enc.Ack(h.Seq - 2); ok {
			var buf [session.MaxApplyLen]byte
			if err := l.link.server.QueueReliable(session.Apply{Seq: m.Seq}.Append(buf[:0], l.link.prevApply)); err != nil {
				tb.Fatal(err)
			}
			l.link.prevApply = m.Seq
		}
	}
	pkt, err := l.link.out.send(l.link.server, now, session.TypeSnapshot, l.w.Bytes())
	if err != nil {
		tb.Fatal(err)
	}
	d = float64(time.Since(start).Nanoseconds())
	l.ns += d
	l.sendNS += d
	l.link.keep(h.Seq, pkt)
	return len(pkt) - netchan.HeaderLen
}

func benchDoom3(b *testing.B, name string, use256 bool) {
	f := getFixture(b, name)
	l := newDoom3Loop(f, use256)
	for range 2 * len(f.rec.Ticks) {
		l.step(b)
	}
	b.ReportAllocs()
	bytes, n := 0, 0
	l.ns, l.prepNS, l.buildNS, l.sendNS = 0, 0, 0, 0
	for b.Loop() {
		bytes += l.step(b)
		n++
	}
	b.ReportMetric(l.ns/float64(n)/1000, "µs/client-snapshot")
	b.ReportMetric(l.prepNS/float64(n)/1000, "µs-frame-share")
	b.ReportMetric(l.buildNS/float64(n)/1000, "µs-build")
	b.ReportMetric(l.sendNS/float64(n)/1000, "µs-ack+send")
	b.ReportMetric(float64(bytes)/float64(n), "bytes/snapshot")
}

// BenchmarkDoom3Build256 is the server-cost target: one client's snapshot with exactly 256
// visible arena entities (64-player map: players and rockets, the widest types), built,
// acknowledged and zrle-compressed, plus its share of the frame's entity encoding
// (µs/client-snapshot; ns/op counts the whole frame's encoding, as if one client).
func BenchmarkDoom3Build256(b *testing.B)       { benchDoom3(b, "64p", true) }
func BenchmarkDoom3Build256Static(b *testing.B) { benchDoom3(b, "static", true) }
func BenchmarkDoom3Build16p(b *testing.B)       { benchDoom3(b, "16p", false) }
func BenchmarkDoom3BuildChurn(b *testing.B)     { benchDoom3(b, "churn", false) }

func benchQuake3(b *testing.B, name string, use256 bool) {
	f := getFixture(b, name)
	q := NewQ3Encoder(f.t)
	fr := new(Q3Frame)
	codec := snapshot.NewStateCodec()
	buf := make([]byte, 1<<18)
	w := bitmsg.NewWriter(buf)
	huff := huffman.FixedCode()
	ps := make([][]uint32, len(f.t.PS))
	for i, l := range f.t.PS {
		ps[i] = make([]uint32, l.Fields())
	}
	i := 0
	step := func() int {
		ti := i % len(f.rec.Ticks)
		i++
		tk := &f.rec.Ticks[ti]
		pvs := &tk.PVS[0]
		if use256 {
			pvs = &f.pvs256[ti]
		}
		if err := fillQ3Frame(fr, tk.World, f.t.U, codec); err != nil {
			b.Fatal(err)
		}
		if err := psFields(f.t, tk.World, 0, codec, ps); err != nil {
			b.Fatal(err)
		}
		q.Snapshot(tk.Frame, fr, pvs, ps, nil)
		w.Reset(buf)
		if err := q.Write(w, huff); err != nil {
			b.Fatal(err)
		}
		if q.next > 3 {
			q.Ack(q.next - 3)
		}
		return (w.Len() + 7) / 8
	}
	for range 2 * len(f.rec.Ticks) {
		step()
	}
	b.ReportAllocs()
	bytes, n := 0, 0
	for b.Loop() {
		bytes += step()
		n++
	}
	b.ReportMetric(float64(bytes)/float64(n), "bytes/snapshot")
}

// BenchmarkQuake3Build256 includes filling the whole frame's fixed states (shared by all
// clients in a real server), so it overstates the per-client cost; the harness amortises it.
func BenchmarkQuake3Build256(b *testing.B) { benchQuake3(b, "64p", true) }
func BenchmarkQuake3Build16p(b *testing.B) { benchQuake3(b, "16p", false) }

// benchPrepare measures the shared per-frame part alone: a FrameCache encoding the union of
// every client's 256-entity PVS, tick after tick (ns/entity; a server charges each client
// 1/clients of the frame).
func benchPrepare(b *testing.B, name string) {
	f := getFixture(b, name)
	reg := f.rec.Load.Registry()
	var c snapshot.FrameCache
	ents, i := 0, 0
	step := func() {
		ti := i % len(f.rec.Ticks)
		i++
		tk := &f.rec.Ticks[ti]
		if err := c.Prepare(tk.Frame, tk.World, reg, &f.union256[ti]); err != nil {
			b.Fatal(err)
		}
		ents += f.union256[ti].Len()
	}
	for range 2 * len(f.rec.Ticks) {
		step()
	}
	b.ReportAllocs()
	ents = 0
	n := 0
	for b.Loop() {
		step()
		n++
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(ents), "ns/entity")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n)/float64(f.rec.Clients)/1000, "µs/client-snapshot")
}

func BenchmarkFramePrepare64p(b *testing.B)    { benchPrepare(b, "64p") }
func BenchmarkFramePrepareStatic(b *testing.B) { benchPrepare(b, "static") }

// BenchmarkDoom3Build256All builds every client's snapshot of each frame (each client's PVS cut
// or padded to 256 entities; the recorded PVS for churn), acknowledging the one two back) from one FrameCache, as a server
// does, so that what the cache shares between the clients of a frame (the states' encoding and
// the deltas against equal bases) shows. Build and Ack only, no channel: µs-build+ack is the
// mean per client-snapshot, with the frame's Prepare charged to it.
func BenchmarkDoom3Build256All(b *testing.B)       { benchDoom3All(b, "64p", true) }
func BenchmarkDoom3Build256StaticAll(b *testing.B) { benchDoom3All(b, "static", true) }
func BenchmarkDoom3BuildChurnAll(b *testing.B)     { benchDoom3All(b, "churn", false) }

// BenchmarkAll256 is benchDoom3All on every scenario with every client's PVS cut or padded to
// 256 entities: the snapshot layer's part of the server-cost target (Prepare, Build, Ack; no
// channel). internal/bench/callgrind.sh counts its instructions per client-snapshot.
func BenchmarkAll256(b *testing.B) {
	for _, sc := range Scenarios() {
		b.Run(sc.Name, func(b *testing.B) { benchDoom3All(b, sc.Name, true) })
	}
}

// BenchmarkAllSend256 is BenchmarkAll256 with every snapshot also sent on its client's channel
// as doom3+huff sends it (zrle or the static Huffman code, whichever is shorter): the server's
// whole part but taking the acknowledgement's packet (µs-build+ack+send). callgrind.sh counts
// its instructions too.
func BenchmarkAllSend256(b *testing.B) {
	for _, sc := range Scenarios() {
		b.Run(sc.Name, func(b *testing.B) { benchDoom3All(b, sc.Name, true, pipeConfigs[pipeOurs]) })
	}
}

// byteCount counts the bytes of the packets given to add.
type byteCount int

func (n *byteCount) add(p []byte) { *n += byteCount(len(p)) }

// benchDoom3All: with a channel configuration, each snapshot is also sent on its client's
// channel with it.
func benchDoom3All(b *testing.B, name string, use256 bool, send ...netchan.Config) {
	f := getFixture(b, name)
	reg := f.rec.Load.Registry()
	clients := f.rec.Clients
	pvs := make([][]snapshot.PVS, len(f.rec.Ticks))
	for i := range f.rec.Ticks {
		for c := range clients {
			if use256 {
				pvs[i] = append(pvs[i], visible256(&f.rec.Ticks[i], c))
			} else {
				pvs[i] = append(pvs[i], f.rec.Ticks[i].PVS[c])
			}
		}
	}
	encs := make([]*snapshot.Encoder, clients)
	var chans []*netchan.Channel
	for c := range encs {
		encs[c] = snapshot.NewEncoder(reg)
		encs[c].Base().CopyFrom(f.base)
		if len(send) > 0 {
			chans = append(chans, netchan.New(send[0], netchan.ConnID(c+1)))
		}
	}
	var sent byteCount // not a closure: callgrind.sh collects benchDoom3All.func1, the frame
	var cache snapshot.FrameCache
	buf := make([]byte, 1<<18)
	w := bitmsg.NewWriter(buf)
	var sts []game.Snapshotter
	var cmds []game.PlayerCmd
	i, bytes, n := 0, 0, 0
	frame := func() {
		ti := i % len(f.rec.Ticks)
		i++
		tk := &f.rec.Ticks[ti]
		all := &f.union[ti]
		if use256 {
			all = &f.union256[ti]
		}
		if err := cache.Prepare(tk.Frame, tk.World, reg, all); err != nil {
			b.Fatal(err)
		}
		for c, enc := range encs {
			cmds = cmds[:0]
			for _, pc := range tk.Cmds {
				if int(pc.Entity) != c {
					cmds = append(cmds, pc)
				}
			}
			sts = states(tk.World, c, sts)
			in := snapshot.Input{Frame: tk.Frame, PVS: &pvs[ti][c], World: tk.World, States: sts, Cmds: cmds, Cache: &cache}
			w.Reset(buf)
			h, err := enc.Build(w, &in)
			if err != nil {
				b.Fatal(err)
			}
			if h.Seq > 2 {
				enc.Ack(h.Seq - 2)
			}
			if chans != nil {
				if err := chans[c].Send(frameTime(tk.Frame), session.TypeSnapshot, w.Bytes(), sent.add); err != nil {
					b.Fatal(err)
				}
			}
			bytes += (w.Len() + 7) / 8
			n++
		}
	}
	for range 2 * len(f.rec.Ticks) {
		frame()
	}
	runtime.GC() // the fixture's garbage collected now, not during the measured loop
	b.ReportAllocs()
	bytes, n, sent = 0, 0, 0
	for b.Loop() {
		frame()
	}
	unit := "µs-build+ack"
	if chans != nil {
		unit = "µs-build+ack+send"
		b.ReportMetric(float64(sent)/float64(n), "wire-bytes/snapshot")
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n)/1000, unit)
	b.ReportMetric(float64(bytes)/float64(n), "bytes/snapshot")
}
