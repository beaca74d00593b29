// steady.go: the server's steady-state cost per client-snapshot, all clients built each
// frame, at 0% loss.

package bench

import (
	"fmt"
	"runtime"
	"slices"
	"time"

	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/netchan"
	"github.com/snapwire/snapwire/internal/report"
	"github.com/snapwire/snapwire/internal/session"
	"github.com/snapwire/snapwire/internal/snapshot"
)

// steadyCost is an encoder's steady-state cost. The DOOM III server cost is measured two ways
// (serverLoop): over every client of the frame, as a server spends it (the targets' metric), and
// for client 0 alone with a 1/clients share of the frame's shared work.
type steadyCost struct {
	allocs    float64 // per client-snapshot, every client of the frame built (Quake 3: one client)
	allocsOne float64 // per snapshot, client 0 alone
	mem       int     // one client's encoder
	ns        float64 // server µs per client-snapshot, recorded PVS, every client built (Quake 3: one client)
	nsOne     float64 // the same, client 0 alone
	ns256     float64 // server µs per client-snapshot, 256 visible, every client built (Quake 3: one client)
	ns256One  float64 // the same, client 0 alone
	// ns256Passes: ns256's passes (its median), in the order run.
	ns256Passes []float64
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
	recorded, cut, union, union256 := steadyPVSs(rec)
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
		for pipe, encName := range [numPipes]string{EncDoom3, EncDoom3Huff, EncDoom3RC} {
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
				c.ns256, c.ns256One, c.ns256Passes = every.ns, one.ns, every.passes
			} else {
				c.ns, c.nsOne, c.allocs, c.allocsOne, c.mem = every.ns, one.ns, every.allocs, one.allocs, one.mem
			}
			out[encName] = c
			if pipe == pipePaper {
				out[EncDoom3Raw] = c
			}
		}
		if err := q3Steady(rec, t, b, ps, cut, pvsKind == "256", heap, mallocs, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// steadyPVSs returns every client's PVS per tick of rec, recorded and cut or padded to 256
// (visible256), and their unions per tick: what the server's FrameCache encodes once per
// frame for all clients.
func steadyPVSs(rec *Recording) (recorded, cut [][]snapshot.PVS, union, union256 []snapshot.PVS) {
	recorded, cut = make([][]snapshot.PVS, len(rec.Ticks)), make([][]snapshot.PVS, len(rec.Ticks))
	union, union256 = make([]snapshot.PVS, len(rec.Ticks)), make([]snapshot.PVS, len(rec.Ticks))
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
	return recorded, cut, union, union256
}

// q3Steady measures the Quake 3 server for client 0, with the recorded PVS or (with256)
// the one cut to 256 entities, steadyWarmups passes over the ticks then steadyMeasured
// measured (the median pass): the frame's entities filled (charged 1/clients) and the
// snapshot built and written, acknowledged two back. With the recorded PVS it also counts
// the allocations of the first measured pass and the heap the encoder holds (heap and
// mallocs read them). It sets out's EncQuake3 figures, and EncQuake3NoHuf's allocations and
// memory (the same encoder without Huffman; its time is not measured).
func q3Steady(rec *Recording, t *Q3Tables, b *passBufs, ps [][]uint32, cut [][]snapshot.PVS, with256 bool,
	heap, mallocs func() uint64, out map[string]steadyCost) error {
	h0 := heap()
	q := NewQ3Encoder(t)
	var m0, m1 uint64
	passes := make([]float64, steadyMeasured)
	for it := range (steadyWarmups + steadyMeasured) * len(rec.Ticks) {
		ti := it % len(rec.Ticks)
		tk := &rec.Ticks[ti]
		pass := it/len(rec.Ticks) - steadyWarmups // measured from 0 on
		pvs := &tk.PVS[0]
		if with256 {
			pvs = &cut[ti][0]
		}
		start := time.Now()
		if err := fillQ3Frame(b.fr, tk.World, t.U, b.codec); err != nil {
			return err
		}
		frameNS := float64(time.Since(start).Nanoseconds()) / float64(rec.Clients)
		if err := psFields(t, tk.World, 0, b.codec, ps); err != nil {
			return err
		}
		if it == steadyWarmups*len(rec.Ticks) {
			runtime.GC()   // as serverLoop does
			m0 = mallocs() // allocations: the first measured pass
		}
		start = time.Now()
		q.Snapshot(tk.Frame, b.fr, pvs, ps, nil)
		b.q.Reset(b.qbuf)
		if err := q.Write(b.q, b.huff); err != nil {
			return err
		}
		if pass >= 0 {
			passes[pass] += float64(time.Since(start).Nanoseconds()) + frameNS
		}
		if q.next > 3 {
			q.Ack(q.next - 3)
		}
		if it == (steadyWarmups+1)*len(rec.Ticks)-1 {
			m1 = mallocs()
		}
	}
	steady := float64(len(rec.Ticks))
	for i := range passes {
		passes[i] /= steady
	}
	ns := report.Median(passes)
	if with256 {
		s := out[EncQuake3]
		s.ns256, s.ns256One, s.ns256Passes = ns, ns, passes
		out[EncQuake3] = s
		return nil
	}
	h1 := heap()
	runtime.KeepAlive(q)
	mem := int(h1) - int(h0)
	a := float64(m1-m0) / steady
	out[EncQuake3] = steadyCost{allocs: a, allocsOne: a, mem: mem, ns: ns, nsOne: ns}
	// The same encoder without Huffman: its allocations and memory (its time is not measured).
	out[EncQuake3NoHuf] = steadyCost{allocs: a, allocsOne: a, mem: mem}
	return nil
}

// loopCost is what serverLoop measured: server ns and allocations per client-snapshot, and
// the heap one client's encoder holds (when asked).
type loopCost struct {
	ns, allocs float64
	mem        int
	passes     []float64 // ns per client-snapshot of each measured pass (ns: their median)
}

// serverLoop runs the DOOM III server over the ticks steadyWarmups times, then steadyMeasured
// times measured (the result is the median pass), building the snapshots of clients 0..k-1
// every tick from one FrameCache (b.cache), each
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
	ins := newClientTicks(rec, k)
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
	var m0, m1 uint64
	passes := make([]float64, steadyMeasured)
	for it := range (steadyWarmups + steadyMeasured) * ticks {
		ti := it % ticks
		tk := &rec.Ticks[ti]
		pass := it/ticks - steadyWarmups // measured from 0 on
		if it == steadyWarmups*ticks {
			// The harness's garbage (the recordings, the warm-up) collected now, as the Go
			// benchmarks do, rather than by a collection running beside the measured passes:
			// the server allocates nothing in steady state, so none starts during them.
			runtime.GC()
			m0 = mallocs() // allocations: the first measured pass
		}
		start := time.Now()
		if err := prepareFrame(b, reg, tk, &union[ti], rec.Clients); err != nil {
			return loopCost{}, err
		}
		tickNS := float64(time.Since(start).Nanoseconds()) * float64(k) / float64(rec.Clients)
		now := frameTime(tk.Frame)
		fillClientTicks(ins, tk, pvs[ti], &b.cache)
		// Timed, one clock reading before the clients and one after (a reading costs about
		// 50 ns here, a few hundred per client-snapshot when taken around each step).
		start = time.Now()
		if err := sendSnapshots(encs, links, ins, b, now); err != nil {
			return loopCost{}, err
		}
		tickNS += float64(time.Since(start).Nanoseconds())
		for c := range encs {
			links[c].keep(ins[c].seq, ins[c].pkt) // valid until the link's next send
		}
		// The clients' side, untimed and after every snapshot of the tick as on another
		// machine (not between two clients' snapshots, in the server's caches). Their clock
		// reads the next tick's time, as when it was made then.
		if err := ackSnapshots(links, frameTime(rec.Ticks[(it+1)%ticks].Frame)); err != nil {
			return loopCost{}, err
		}
		if pass >= 0 {
			passes[pass] += tickNS
		}
		if it == (steadyWarmups+1)*ticks-1 {
			m1 = mallocs()
		}
	}
	built := float64(ticks * k)
	for i := range passes {
		passes[i] /= built
	}
	r := loopCost{ns: report.Median(passes), allocs: float64(m1-m0) / built, passes: passes}
	if heap != nil {
		r.mem = int(heap()-h0) / k
		runtime.KeepAlive(encs)
	}
	runtime.KeepAlive(links) // not counted: allocated before h0
	return r, nil
}

// clientTick is serverLoop's per-client input of a tick and the packet sent: the harness's,
// grown to their largest before the heap is read.
type clientTick struct {
	cmds []game.PlayerCmd
	sts  []game.Snapshotter
	in   snapshot.Input
	pkt  []byte
	seq  snapshot.Seq
}

// newClientTicks returns the inputs of clients 0..k-1 with their commands and states grown
// to the largest of any tick of rec.
func newClientTicks(rec *Recording, k int) []clientTick {
	ins := make([]clientTick, k)
	for c := range ins {
		for i := range rec.Ticks {
			ins[c].cmds = slices.Grow(ins[c].cmds[:0], len(rec.Ticks[i].Cmds))
			ins[c].sts = states(rec.Ticks[i].World, c, ins[c].sts)
		}
	}
	return ins
}

// prepareFrame is the server's shared work of tick tk: every visible entity (in union) and
// every one of the clients' non-PVS state instances (the scoreboard once) encoded once for
// the frame in b.cache.
func prepareFrame(b *passBufs, reg *game.Registry, tk *Tick, union *snapshot.PVS, clients int) error {
	if err := b.cache.Prepare(tk.Frame, tk.World, reg, union); err != nil {
		return err
	}
	for c := range clients {
		b.sts = states(tk.World, c, b.sts)
		if err := b.cache.PrepareStates(tk.Frame, b.sts); err != nil {
			return err
		}
	}
	return nil
}

// fillClientTicks sets each client's input of tick tk, pvs[c] its PVS: the game's work, not
// the snapshot server's (the commands of the other players, the client's non-PVS states).
func fillClientTicks(ins []clientTick, tk *Tick, pvs []snapshot.PVS, cache *snapshot.FrameCache) {
	for c := range ins {
		in := &ins[c]
		in.cmds = in.cmds[:0]
		for _, pc := range tk.Cmds {
			if int(pc.Entity) != c {
				in.cmds = append(in.cmds, pc)
			}
		}
		in.sts = states(tk.World, c, in.sts)
		in.in = snapshot.Input{Frame: tk.Frame, PVS: &pvs[c], World: tk.World, States: in.sts, Cmds: in.cmds, Cache: cache}
	}
}

// sendSnapshots is the server's timed work per client of a tick at now: Build; the server
// takes the client's acknowledgement of the snapshot two back (made after the previous
// tick's snapshots, by ackSnapshots), applies it and queues "apply S"; and the channel sends
// the snapshot with its reliables, compressed when smaller. The packet is kept in ins for
// the client.
func sendSnapshots(encs []*snapshot.Encoder, links []*steadyLink, ins []clientTick, b *passBufs, now time.Duration) error {
	for c, enc := range encs {
		link, in := links[c], &ins[c]
		b.w.Reset(b.wbuf)
		h, err := enc.Build(b.w, &in.in)
		if err != nil {
			return err
		}
		if h.Seq > 2 && link.ackSeq == h.Seq-2 {
			if err := link.server.Receive(now, link.ack, nopHandler{}); err != nil {
				return err
			}
			if m, ok := enc.Ack(h.Seq - 2); ok {
				var buf [session.MaxApplyLen]byte
				if err := link.server.QueueReliable(session.Apply{Seq: m.Seq}.Append(buf[:0], link.prevApply)); err != nil {
					return err
				}
				link.prevApply = m.Seq
			}
		}
		if in.pkt, err = link.out.send(link.server, now, session.TypeSnapshot, b.w.Bytes()); err != nil {
			return err
		}
		in.seq = h.Seq
	}
	return nil
}

// ackSnapshots is the clients' side of a tick: each client takes the snapshot one back and
// acknowledges it at now, for the server to take next tick, when it is two back.
func ackSnapshots(links []*steadyLink, now time.Duration) error {
	for _, link := range links {
		if seq := link.lastSeq; seq >= 2 {
			ack, err := link.clientAck(now, seq-1)
			if err != nil {
				return err
			}
			link.ack, link.ackSeq = ack, seq-1
		}
	}
	return nil
}

// steadyLink is measureSteady's DOOM III channel: the server's end and the client's, and
// the last packets sent, from which the client acknowledges the one two back.
type steadyLink struct {
	server, client *netchan.Channel
	out, in        capture
	sent           [3][]byte
	lastSeq        snapshot.Seq // the last snapshot sent
	ack            []byte       // the client's packet acknowledging snapshot ackSeq
	ackSeq         snapshot.Seq
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
	l.lastSeq = seq
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
