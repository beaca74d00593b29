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

// median returns the median of xs (the mean of the two middle ones for an even count), 0 for
// none. xs is not changed.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	} else {
		return (s[n/2-1] + s[n/2]) / 2
	}
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
		// Quake 3.
		h0 := heap()
		q := NewQ3Encoder(t)
		var m0, m1 uint64
		passes := make([]float64, steadyMeasured)
		for it := range (steadyWarmups + steadyMeasured) * len(rec.Ticks) {
			ti := it % len(rec.Ticks)
			tk := &rec.Ticks[ti]
			pass := it/len(rec.Ticks) - steadyWarmups // measured from 0 on
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
			if it == steadyWarmups*len(rec.Ticks) {
				runtime.GC()   // as serverLoop does
				m0 = mallocs() // allocations: the first measured pass
			}
			start = time.Now()
			q.Snapshot(tk.Frame, b.fr, pvs, ps, nil)
			b.q.Reset(b.qbuf)
			if err := q.Write(b.q, b.huff); err != nil {
				return nil, err
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
		ns := median(passes)
		if pvsKind == "256" {
			s := out[EncQuake3]
			s.ns256, s.ns256One, s.ns256Passes = ns, ns, passes
			out[EncQuake3] = s
		} else {
			h1 := heap()
			runtime.KeepAlive(q)
			mem := int(h1) - int(h0)
			a := float64(m1-m0) / steady
			c := steadyCost{allocs: a, allocsOne: a, mem: mem, ns: ns, nsOne: ns}
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
	// Per client, the tick's input and the packet sent: the harness's, grown to their largest
	// before the heap is read.
	type clientTick struct {
		cmds []game.PlayerCmd
		sts  []game.Snapshotter
		in   snapshot.Input
		pkt  []byte
		seq  snapshot.Seq
	}
	ins := make([]clientTick, k)
	for c := range ins {
		for i := range rec.Ticks {
			ins[c].cmds = slices.Grow(ins[c].cmds[:0], len(rec.Ticks[i].Cmds))
			ins[c].sts = states(rec.Ticks[i].World, c, ins[c].sts)
		}
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
		// Each client's input, untimed: the game's work, not the snapshot server's (the
		// commands of the other players, the client's non-PVS states).
		for c := range encs {
			in := &ins[c]
			in.cmds = in.cmds[:0]
			for _, pc := range tk.Cmds {
				if int(pc.Entity) != c {
					in.cmds = append(in.cmds, pc)
				}
			}
			in.sts = states(tk.World, c, in.sts)
			in.in = snapshot.Input{Frame: tk.Frame, PVS: &pvs[ti][c], World: tk.World, States: in.sts, Cmds: in.cmds, Cache: &b.cache}
		}
		// Timed, one clock reading before the clients and one after (a reading costs about
		// 50 ns here, a few hundred per client-snapshot when taken around each step): for each
		// client, Build; the server takes the client's acknowledgement of the snapshot two
		// back (made after the previous tick's snapshots, below), applies it and queues
		// "apply S"; and the channel sends the snapshot with its reliables, compressed when
		// smaller. The packet is kept for the client after the loop.
		start = time.Now()
		for c, enc := range encs {
			link, in := links[c], &ins[c]
			b.w.Reset(b.wbuf)
			h, err := enc.Build(b.w, &in.in)
			if err != nil {
				return loopCost{}, err
			}
			if h.Seq > 2 && link.ackSeq == h.Seq-2 {
				if err := link.server.Receive(now, link.ack, nopHandler{}); err != nil {
					return loopCost{}, err
				}
				if m, ok := enc.Ack(h.Seq - 2); ok {
					var buf [session.MaxApplyLen]byte
					if err := link.server.QueueReliable(session.Apply{Seq: m.Seq}.Append(buf[:0], link.prevApply)); err != nil {
						return loopCost{}, err
					}
					link.prevApply = m.Seq
				}
			}
			if in.pkt, err = link.out.send(link.server, now, session.TypeSnapshot, b.w.Bytes()); err != nil {
				return loopCost{}, err
			}
			in.seq = h.Seq
		}
		tickNS += float64(time.Since(start).Nanoseconds())
		for c := range encs {
			links[c].keep(ins[c].seq, ins[c].pkt) // valid until the link's next send
		}
		// The clients' side, untimed and after every snapshot of the tick as on another
		// machine (not between two clients' snapshots, in the server's caches): each client
		// takes the snapshot one back and acknowledges it, for the server to take next tick, when
		// it is two back. Its clock reads the next tick's time, as when it was made then.
		next := frameTime(rec.Ticks[(it+1)%ticks].Frame)
		for _, link := range links {
			if seq := link.lastSeq; seq >= 2 {
				ack, err := link.clientAck(next, seq-1)
				if err != nil {
					return loopCost{}, err
				}
				link.ack, link.ackSeq = ack, seq-1
			}
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
	r := loopCost{ns: median(passes), allocs: float64(m1-m0) / built, passes: passes}
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
