// pass.go: one pass over a recording at one loss rate: every client's snapshots built
// under both schemes, carried over its simulated link (wire.go), decoded and checked.

package bench

import (
	"bytes"
	"fmt"
	"slices"
	"time"

	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/events"
	"github.com/snapwire/snapwire/internal/netchan"
	"github.com/snapwire/snapwire/internal/q3/huffman"
	"github.com/snapwire/snapwire/internal/refgame"
	"github.com/snapwire/snapwire/internal/session"
	"github.com/snapwire/snapwire/internal/snapshot"
	"github.com/snapwire/snapwire/internal/zrle"
)

// stageAcc accumulates one encoder family's figures over one pass.
type stageAcc struct {
	wire             []float64
	wireOurs         []float64 // DOOM III: pipeOurs
	wireRC           []float64 // DOOM III: pipeRC
	oursNS           float64
	rcNS             float64
	freq             *[256]uint64 // when set: byte counts of pipeOurs' streams
	bodies           *[][]byte    // when set: pipeOurs' streams, each kept
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
// III's (zrle); pipeOurs adds snapwire's static Huffman stage; pipeRC adds the adaptive
// entropy stage to that (the arena's entropy model, netchan.Config.Entropy).
const (
	pipePaper = iota
	pipeOurs
	pipeRC
	numPipes
)

var pipeConfigs = [numPipes]netchan.Config{{MTU: 65507}, {MTU: 65507, Huffman: refgame.HuffmanTable()},
	{MTU: 65507, Huffman: refgame.HuffmanTable(), Entropy: refgame.EntropyModel()}}

// link is one pipeline's channel pair: the server's end, the client's end, and their
// capture buffers.
type link struct {
	sch, cch *netchan.Channel
	out, in  capture
}

func newLink(cfg netchan.Config, id netchan.ConnID) *link {
	return &link{sch: netchan.New(cfg, id), cch: netchan.New(cfg, id)}
}

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
	m, err := session.ParseApply(msg, cl.clientApply)
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
	if typ != session.TypeSnapshot {
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
	wire     *wire
	enc      *snapshot.Encoder
	dec      *snapshot.Decoder
	q3e      *Q3Encoder
	q3d      *Q3Decoder
	free     []*packet
	lastRecv uint32
	hashes   map[snapshot.Seq]uint64
	ps       [][]uint32

	// The DOOM III links, one per pipeline, carrying the same messages, and each end's
	// previous "apply" sequence (session.Apply is sent as the distance from it). The
	// decoder reads pipeOurs' deliveries; pipePaper's and pipeRC's are checked to be the same bytes.
	links       [numPipes]*link
	serverApply snapshot.Seq
	clientApply snapshot.Seq
	h           clientHandler
	paperGot    payloadCopy
	rcGot       payloadCopy
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
		w, err := newWire(uint64(c)+1+uint64(loss*1e6)<<20+uint64(len(rec.Ticks))<<40, loss, oneWay)
		if err != nil {
			return nil, nil, err
		}
		cl := &client{id: c, wire: w,
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
	d3, q3 := &stageAcc{freq: o.countBytes, bodies: o.keepBodies}, &stageAcc{}
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
				cl.wire.advance(g)
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
					if err := cl.wire.sendUp(a); err != nil {
						return nil, nil, err
					}
				}
			}
			// The server reads the acks that have arrived (those sent with no delay too).
			cl.wire.advance(tk.Frame)
			for {
				a, ok, err := cl.wire.recvUp()
				if err != nil {
					return nil, nil, err
				}
				if !ok {
					break
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
					var buf [session.MaxApplyLen]byte
					msg := session.Apply{Seq: m.Seq}.Append(buf[:0], cl.serverApply)
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
			p, err := cl.build(ti, tk, rec, t, b, d3, q3, count, frameShare)
			if err != nil {
				return nil, nil, fmt.Errorf("client %d tick %d: %w", cl.id, ti, err)
			}
			p.arrive = tk.Frame + oneWay
			if err := cl.wire.sendDown(p); err != nil {
				return nil, nil, err
			}
		}
		prevFrame = tk.Frame
	}
	return d3, q3, nil
}

// build makes the client's snapshot of tick ti with both schemes and, with count, adds its
// sizes and times to d3 and q3 (frameShare: the client's share of the Quake 3 frame's time).
func (cl *client) build(ti int, tk *Tick, rec *Recording, t *Q3Tables, b *passBufs, d3, q3 *stageAcc, count bool, frameShare float64) (*packet, error) {
	p, db, err := cl.buildDoom3(ti, tk, b)
	if err != nil {
		return nil, err
	}
	qb, err := cl.buildQuake3(tk, t, b, p, count)
	if err != nil {
		return nil, err
	}
	if !count {
		return p, nil
	}
	// Sizes of the alternatives (see BENCHMARKS.md "How the stages are measured").
	naive, packed, qnaive, qpacked := cl.fullSizes(tk, t, b)
	if err := d3.addDoom3(db, p, naive, packed, b); err != nil {
		return nil, err
	}
	q3.addQuake3(qb, p, qnaive, qpacked, cl.q3e.base == nil, frameShare)
	return p, nil
}

// doom3Build is what buildDoom3 made besides the packet: the snapshot (its bits in the
// writer), the reliable section the channel sent with it, and the times of Build and of
// each pipeline's Send.
type doom3Build struct {
	data    []byte
	nbits   int
	rel     int
	buildNS float64
	sendNS  [numPipes]float64
}

// buildDoom3 builds the client's DOOM III snapshot of tick ti, then each pipeline's
// channel sends it with the outstanding reliable "apply" messages, compressed when that is
// smaller: exactly the bytes a server sends, kept in the packet it returns.
func (cl *client) buildDoom3(ti int, tk *Tick, b *passBufs) (*packet, doom3Build, error) {
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

	var db doom3Build
	b.w.Reset(b.wbuf)
	start := time.Now()
	h, err := cl.enc.Build(b.w, &in)
	db.buildNS = float64(time.Since(start).Nanoseconds())
	if err != nil {
		return nil, db, err
	}
	db.data, db.nbits = b.w.Bytes(), b.w.Len()
	db.rel = cl.links[pipePaper].sch.ReliableSectionLen()
	p := cl.packet()
	p.seq, p.tick = uint32(h.Seq), ti
	for i, l := range cl.links {
		start = time.Now()
		pkt, err := l.out.send(l.sch, frameTime(tk.Frame), session.TypeSnapshot, db.data)
		db.sendNS[i] = float64(time.Since(start).Nanoseconds())
		if err != nil {
			return nil, db, err
		}
		p.d3[i] = append(p.d3[i][:0], pkt...)
	}
	return p, db, nil
}

// quake3Build is what buildQuake3 measured: the snapshot's bits without Huffman and, with
// count, zrle's size of them per word width; its area mask's bytes; the times of writing it
// without and with Huffman.
type quake3Build struct {
	raw          int
	qz           [zrle.MaxWordBits + 1]int
	areaBytes    int
	rawNS, hufNS float64
}

// buildQuake3 builds the client's Quake 3 snapshot of tick tk from the same states
// through the fixed layout, writes it without and with Huffman, and keeps the Huffman
// coded one in p.
func (cl *client) buildQuake3(tk *Tick, t *Q3Tables, b *passBufs, p *packet, count bool) (quake3Build, error) {
	var qb quake3Build
	c := cl.id
	if err := psFields(t, tk.World, c, b.codec, cl.ps); err != nil {
		return qb, err
	}
	area := tk.Areas[c][:]
	var areaBytes [32]byte
	nrooms := len(tk.World.Map.Rooms)
	for i := range (nrooms + 7) / 8 {
		areaBytes[i] = byte(area[i/8] >> (8 * (i % 8)))
	}
	qb.areaBytes = len(areaBytes[:(nrooms+7)/8])
	start := time.Now()
	cl.q3e.Snapshot(tk.Frame, b.fr, &tk.PVS[c], cl.ps, areaBytes[:(nrooms+7)/8])
	b.q.Reset(b.qbuf)
	if err := cl.q3e.Write(b.q, nil); err != nil {
		return qb, err
	}
	qb.rawNS = float64(time.Since(start).Nanoseconds())
	qb.raw = b.q.Len()
	qdata := b.q.Bytes()
	if count {
		for w := zrle.MinWordBits; w <= zrle.MaxWordBits; w++ {
			var err error
			if qb.qz[w], err = zrle.Compress(b.z, qdata, qb.raw, w); err != nil {
				return qb, err
			}
		}
	}
	start = time.Now()
	b.q.Reset(b.qbuf)
	if err := cl.q3e.Write(b.q, b.huff); err != nil {
		return qb, err
	}
	qb.hufNS = float64(time.Since(start).Nanoseconds())
	p.q3 = append(p.q3[:0], b.q.Bytes()...)
	p.q3bits = b.q.Len()
	return qb, nil
}

// addDoom3 adds one DOOM III snapshot to the stage sizes and times: full states (naive and
// packed bits), the delta, zrle of it per word width, what the channel of each pipeline
// sent after its 8-byte header, and the body before compression.
func (d3 *stageAcc) addDoom3(db doom3Build, p *packet, naive, packed int, b *passBufs) error {
	d3.naive += float64(snapshot.HeaderBits + naive)
	d3.packed += float64(snapshot.HeaderBits + packed)
	d3.delta += float64(db.nbits)
	for w := zrle.MinWordBits; w <= zrle.MaxWordBits; w++ {
		zb, err := zrle.Compress(b.z, db.data, db.nbits, w)
		if err != nil {
			return err
		}
		d3.zrle[w] += float64(zb)
	}
	// What the channel sent after its 8-byte header, and its body before compression.
	d3.wire = append(d3.wire, float64(len(p.d3[pipePaper])-netchan.HeaderLen))
	d3.wireOurs = append(d3.wireOurs, float64(len(p.d3[pipeOurs])-netchan.HeaderLen))
	d3.wireRC = append(d3.wireRC, float64(len(p.d3[pipeRC])-netchan.HeaderLen))
	d3.raw = append(d3.raw, float64(len(db.data)+db.rel))
	if d3.freq != nil {
		for _, c := range p.d3[pipeOurs][netchan.HeaderLen:] {
			d3.freq[c]++
		}
	}
	if d3.bodies != nil {
		*d3.bodies = append(*d3.bodies, slices.Clone(p.d3[pipeOurs][netchan.HeaderLen:]))
	}
	d3.rel += float64(db.rel)
	d3.n++
	d3.buildNS += db.buildNS + db.sendNS[pipePaper]
	d3.oursNS += db.buildNS + db.sendNS[pipeOurs]
	d3.rcNS += db.buildNS + db.sendNS[pipeRC]
	d3.rawNS += db.buildNS
	d3.builds++
	return nil
}

// addQuake3 adds one Quake 3 snapshot to the stage sizes and times: full states (naive and
// packed bits, after the snapshot header), the delta, zrle of it per word width, Huffman,
// and whether it was sent against the dummy base; frameShare is the client's share of the
// frame's time.
func (q3 *stageAcc) addQuake3(qb quake3Build, p *packet, qnaive, qpacked int, dummy bool, frameShare float64) {
	q3hdr := 32 + 8 + 32 + 8 + 8 + 8 + 8*qb.areaBytes + 8
	q3.naive += float64(q3hdr + qnaive)
	q3.packed += float64(q3hdr + qpacked)
	q3.delta += float64(qb.raw)
	for w := zrle.MinWordBits; w <= zrle.MaxWordBits; w++ {
		q3.zrle[w] += float64(qb.qz[w])
	}
	q3.huff += float64(p.q3bits)
	q3.wire = append(q3.wire, float64((p.q3bits+7)/8))
	q3.raw = append(q3.raw, float64((qb.raw+7)/8))
	if dummy {
		q3.dummies++
	}
	q3.n++
	q3.buildNS += qb.hufNS + frameShare
	q3.rawNS += qb.rawNS + frameShare
	q3.builds++
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
		packed += events.EntityNumBits + l.Bits
		qnaive += 32 + 32*u.Slots()
		qpacked += events.EntityNumBits + u.Bits
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
	for {
		p, ok, err := cl.wire.recvDown(cl.release)
		if err != nil || !ok {
			return err
		}
		if p.arrive != g {
			return fmt.Errorf("snapshot %d arrived at frame %d, sent for frame %d", p.seq, g, p.arrive)
		}
		if err := cl.receive(p, rec, b, o, d3, q3, count); err != nil {
			return err
		}
		cl.release(p)
	}
}

// release returns a delivered or lost packet to the free list.
func (cl *client) release(p *packet) { cl.free = append(cl.free, p) }

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
	if err := cl.links[pipeRC].cch.Receive(frameTime(p.arrive), p.d3[pipeRC], &cl.rcGot); err != nil {
		return err
	}
	if cl.rcGot.rel != cl.h.rel || !bytes.Equal(cl.rcGot.payload, cl.h.payload) {
		return fmt.Errorf("snapshot %d: the entropy pipeline delivered other messages", p.seq)
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

// measureSteady runs through a recording steadyWarmups times unmeasured (every buffer and
// cache grown, the bases wrapped around the recording), then steadyMeasured times, each pass
// measured on its own: a figure is the median of the passes, robust to the bursts of load of a
// shared machine, and the report lists them.
const steadyWarmups, steadyMeasured = 2, 5
