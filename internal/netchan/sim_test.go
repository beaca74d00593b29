package netchan

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"net/netip"
	"testing"
	"time"

	"github.com/snapwire/snapwire/netsim"
)

// checker is a Handler asserting the channel's guarantees on numbered
// messages: reliables carry consecutive numbers from 0, unreliables carry
// increasing numbers.
type checker struct {
	name      string
	nextRel   uint32
	lastUnrel int64
	unrel     int // unreliable messages delivered
	big       int // of which larger than 4 KB
	err       error
	verify    func(msg []byte) bool // optional content check of unreliables
}

func newChecker(name string) *checker { return &checker{name: name, lastUnrel: -1} }

func (c *checker) fail(format string, args ...any) {
	if c.err == nil {
		c.err = fmt.Errorf(c.name+": "+format, args...)
	}
}

func (c *checker) Reliable(msg []byte) {
	if len(msg) < 4 {
		c.fail("short reliable %x", msg)
		return
	}
	if n := binary.LittleEndian.Uint32(msg); n != c.nextRel {
		c.fail("reliable %d delivered, want %d (exactly once, in order)", n, c.nextRel)
	}
	c.nextRel++
}

func (c *checker) Unreliable(typ MessageType, msg []byte) {
	if len(msg) < 4 {
		c.fail("short unreliable %x", msg)
		return
	}
	n := int64(binary.LittleEndian.Uint32(msg))
	if n <= c.lastUnrel {
		c.fail("unreliable %d after %d (duplicate or out of order)", n, c.lastUnrel)
	}
	if c.verify != nil && !c.verify(msg) {
		c.fail("unreliable %d corrupted", n)
	}
	c.lastUnrel = n
	c.unrel++
	if len(msg) > 4096 {
		c.big++
	}
}

// side is one end of a simulated connection.
type side struct {
	ep      *netsim.Endpoint
	ch      *Channel
	peer    netip.AddrPort
	chk     *checker
	relSent uint32
	unSent  uint32
	// oracle: an independent in-order receiver on the raw arrivals (header
	// bytes 1 and 4-5), counting the messages it would deliver.
	oracleMax  int64
	oracleSeen int
	oracleAll  int
	buf        []byte
}

func newSide(t *testing.T, n *netsim.Network, addr string, cfg Config, id ConnID, name string) *side {
	ep, err := n.Listen(netip.MustParseAddrPort(addr))
	if err != nil {
		t.Fatal(err)
	}
	return &side{ep: ep, ch: New(cfg, id), chk: newChecker(name), buf: make([]byte, 65536), oracleMax: 0}
}

// drain hands every waiting packet to the channel.
func (s *side) drain(t *testing.T, now time.Duration) {
	for {
		k, _, ok := s.ep.ReadFrom(s.buf)
		if !ok {
			return
		}
		p := s.buf[:k]
		if p[1] != byte(TypeNone) && p[0]&flagFragment == 0 {
			s.oracleAll++
			seq := extend(Sequence(s.oracleMax), binary.LittleEndian.Uint16(p[4:]))
			if int64(seq) > s.oracleMax {
				s.oracleMax = int64(seq)
				s.oracleSeen++
			}
		}
		if err := s.ch.Receive(now, p, s.chk); err != nil {
			t.Fatalf("%s: receive: %v", s.chk.name, err)
		}
	}
}

func (s *side) send(t *testing.T, now time.Duration, typ MessageType, payload []byte) {
	err := s.ch.Send(now, typ, payload, func(p []byte) {
		if err := s.ep.WriteTo(p, s.peer); err != nil {
			t.Fatal(err)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
}

func (s *side) queueReliable(t *testing.T, rng *rand.Rand) {
	msg := make([]byte, 4+rng.IntN(40))
	binary.LittleEndian.PutUint32(msg, s.relSent)
	if err := s.ch.QueueReliable(msg); err != nil {
		t.Fatalf("%s: queue reliable %d: %v", s.chk.name, s.relSent, err)
	}
	s.relSent++
}

// snapshotLike fills a payload that compresses like delta-coded state.
func snapshotLike(rng *rand.Rand, b []byte, index uint32) []byte {
	binary.LittleEndian.PutUint32(b, index)
	for i := 4; i < len(b); i++ {
		b[i] = 0
		if rng.IntN(6) == 0 {
			b[i] = byte(rng.Uint32())
		}
	}
	return b
}

type soakResult struct {
	sent, delivered [2]int
	oracle          [2]int
	arrived         [2]int
	late            [2]uint64 // packets dropped as older than the last delivered
}

// soak runs two channels over link for steps of 16 ms, each side sending an
// unreliable message every step and queueing a reliable about every 10th,
// then keeps exchanging empty packets until every reliable is delivered.
func soak(t *testing.T, link netsim.LinkConfig, seed uint64, steps int, size int) soakResult {
	return soakWith(t, link, seed, steps, size, Config{}, Config{})
}

// soakWith is soak with each side's configuration.
func soakWith(t *testing.T, link netsim.LinkConfig, seed uint64, steps int, size int, cfgA, cfgB Config) soakResult {
	t.Helper()
	n := netsim.New(seed)
	n.SetDefault(link)
	a := newSide(t, n, "10.0.0.1:27960", cfgA, 0x5A5A, "server")
	b := newSide(t, n, "10.0.0.2:50000", cfgB, 0x5A5A, "client")
	a.peer, b.peer = b.ep.Addr(), a.ep.Addr()
	rng := rand.New(rand.NewPCG(seed, 99))
	payload := make([]byte, size)
	const step = 16 * time.Millisecond
	sides := [2]*side{a, b}
	for i := 0; ; i++ {
		now := time.Duration(i) * step
		n.AdvanceTo(now)
		for _, s := range sides {
			s.drain(t, now)
		}
		if i < steps {
			for _, s := range sides {
				if rng.IntN(10) == 0 {
					s.queueReliable(t, rng)
				}
				s.send(t, now, 1, snapshotLike(rng, payload, s.unSent))
				s.unSent++
			}
			continue
		}
		done := a.chk.nextRel == b.relSent && b.chk.nextRel == a.relSent
		if done || i > steps+1000 {
			break
		}
		for _, s := range sides {
			s.send(t, now, TypeNone, nil)
		}
	}
	var r soakResult
	for k, s := range sides {
		peer := sides[1-k]
		if s.chk.err != nil {
			t.Fatal(s.chk.err)
		}
		if s.chk.nextRel != peer.relSent {
			t.Fatalf("%s: %d of %d reliables delivered", s.chk.name, s.chk.nextRel, peer.relSent)
		}
		r.sent[k], r.delivered[k] = int(peer.unSent), s.chk.unrel
		r.oracle[k], r.arrived[k] = s.oracleSeen, s.oracleAll
		r.late[k] = s.ch.Stats().DroppedLate
	}
	return r
}

// Acceptance: 25% loss, 25% duplication, reordering, 200 ms RTT, 30 ms
// jitter, 10,000 messages each way: reliables exactly once and in order,
// unreliables never twice nor out of order (asserted by the checkers), and
// the unreliable deliveries are exactly those an in-order receiver can make
// from the packets that arrived, which is within 2 points of 1-loss.
//
// netsim's jitter is queueing delay (a packet never overtakes an earlier one
// on the same link); overtaking comes from Reorder, here 2% of packets held
// back up to 20 ms, so some messages are overtaken and dropped as late.
func TestSoakLossDupReorder(t *testing.T) {
	link := netsim.LinkConfig{
		Latency: 100 * time.Millisecond, Jitter: 30 * time.Millisecond,
		Loss: 0.25, Duplicate: 0.25, Reorder: 0.02,
	}
	r := soak(t, link, 1, 10000, 120)
	for k := range 2 {
		share := float64(r.delivered[k]) / float64(r.sent[k])
		t.Logf("direction %d: %d sent, %d delivered (share %.3f; 1-loss = 0.75), %d unique in-order arrivals per the oracle",
			k, r.sent[k], r.delivered[k], share, r.oracle[k])
		if r.delivered[k] != r.oracle[k] {
			t.Errorf("direction %d: delivered %d, an in-order receiver on the same arrivals delivers %d", k, r.delivered[k], r.oracle[k])
		}
		if math.Abs(share-0.75) > 0.02 {
			t.Errorf("direction %d: delivered share %.3f, want within 2 points of 1-loss = 0.75", k, share)
		}
		if r.late[k] == 0 {
			t.Errorf("direction %d: no message arrived late: the link did not reorder", k)
		}
	}
}

// With loss and duplication but no reordering, the delivered share of
// one-packet messages is 1-loss (duplicates counted once).
func TestDeliveredShareIsOneMinusLoss(t *testing.T) {
	link := netsim.LinkConfig{Latency: 100 * time.Millisecond, Loss: 0.25, Duplicate: 0.25}
	r := soak(t, link, 2, 10000, 120)
	for k := range 2 {
		share := float64(r.delivered[k]) / float64(r.sent[k])
		t.Logf("direction %d: share %.4f, want 0.75 +- 0.02", k, share)
		if math.Abs(share-0.75) > 0.02 {
			t.Errorf("direction %d: delivered share %.4f, want within 2 points of 0.75", k, share)
		}
	}
}

// 8 KB messages (6 fragments) under 10% loss: each is reassembled intact
// or lost whole, and the delivered share is about 0.9^6.
func TestLargeMessagesUnderLoss(t *testing.T) {
	n := netsim.New(3)
	n.SetDefault(netsim.LinkConfig{Latency: 50 * time.Millisecond, Loss: 0.10})
	a := newSide(t, n, "10.0.0.1:27960", Config{}, 7, "server")
	b := newSide(t, n, "10.0.0.2:50000", Config{}, 7, "client")
	a.peer, b.peer = b.ep.Addr(), a.ep.Addr()
	rng := rand.New(rand.NewPCG(3, 3))
	body := func(i uint32) []byte {
		m := make([]byte, 8192)
		binary.LittleEndian.PutUint32(m, i)
		r := rand.New(rand.NewPCG(uint64(i), 77)) // incompressible, checkable
		for j := 4; j < len(m); j++ {
			m[j] = byte(r.Uint32())
		}
		return m
	}
	b.chk.verify = func(msg []byte) bool {
		want := body(binary.LittleEndian.Uint32(msg))
		return string(msg) == string(want)
	}
	const msgs = 2000
	frags := 0
	for i := 0; i < msgs+100; i++ {
		now := time.Duration(i) * 16 * time.Millisecond
		n.AdvanceTo(now)
		a.drain(t, now)
		b.drain(t, now)
		if i < msgs {
			if i%10 == 0 {
				a.queueReliable(t, rng)
			}
			before := a.ch.Stats().PacketsOut
			a.send(t, now, 2, body(a.unSent))
			frags = int(a.ch.Stats().PacketsOut - before)
			a.unSent++
		} else {
			a.send(t, now, TypeNone, nil)
		}
		b.send(t, now, TypeNone, nil) // acks
	}
	if b.chk.err != nil {
		t.Fatal(b.chk.err)
	}
	if b.chk.nextRel != a.relSent {
		t.Fatalf("%d of %d reliables", b.chk.nextRel, a.relSent)
	}
	share := float64(b.chk.big) / msgs
	want := math.Pow(0.9, float64(frags))
	st := b.ch.Stats()
	t.Logf("%d fragments per message: delivered share %.3f, (1-loss)^%d = %.3f; reassembly failures %d",
		frags, share, frags, want, st.ReassemblyFailures)
	if frags != 6 {
		t.Fatalf("%d fragments per 8 KB message, want 6", frags)
	}
	if math.Abs(share-want) > 0.03 {
		t.Fatalf("delivered share %.3f, want %.3f +- 0.03", share, want)
	}
}

// A client whose NAT changes its source port mid-stream keeps its
// connection: the server finds the channel by PeekConnID and answers the
// new address.
func TestPortChangeKeepsConnection(t *testing.T) {
	n := netsim.New(4)
	n.SetDefault(netsim.LinkConfig{Latency: 30 * time.Millisecond, Jitter: 5 * time.Millisecond})
	srv, err := n.Listen(netip.MustParseAddrPort("10.0.0.1:27960"))
	if err != nil {
		t.Fatal(err)
	}
	type conn struct {
		ch   *Channel
		addr netip.AddrPort
		chk  *checker
		sent uint32
		rels uint32
	}
	conns := map[ConnID]*conn{}
	clients := make([]*side, 2)
	for i, id := range []ConnID{0x1111, 0x2222} {
		clients[i] = newSide(t, n, fmt.Sprintf("10.0.0.%d:50000", i+2), Config{}, id, fmt.Sprintf("client%d", i))
		clients[i].peer = srv.Addr()
		conns[id] = &conn{ch: New(Config{}, id), chk: newChecker(fmt.Sprintf("server-conn%d", i))}
	}
	rng := rand.New(rand.NewPCG(4, 4))
	buf := make([]byte, 2048)
	payload := make([]byte, 64)
	var afterRebind [2]int
	const steps = 625 // 10 s
	for i := 0; i < steps+40; i++ {
		now := time.Duration(i) * 16 * time.Millisecond
		n.AdvanceTo(now)
		if i == steps/2 {
			if err := clients[0].ep.Rebind(netip.MustParseAddrPort("10.0.0.2:61234")); err != nil {
				t.Fatal(err)
			}
		}
		for {
			k, from, ok := srv.ReadFrom(buf)
			if !ok {
				break
			}
			id, ok := PeekConnID(buf[:k])
			c := conns[id]
			if !ok || c == nil {
				t.Fatalf("unknown connection id %v", id)
			}
			before := c.chk.unrel
			if err := c.ch.Receive(now, buf[:k], c.chk); err != nil {
				t.Fatal(err)
			}
			c.addr = from // only a valid packet moves the connection
			if i > steps/2 && id == 0x1111 {
				afterRebind[0] += c.chk.unrel - before
			}
		}
		for k, cl := range clients {
			before := cl.chk.unrel
			cl.drain(t, now)
			if i > steps/2+10 && k == 0 {
				afterRebind[1] += cl.chk.unrel - before
			}
		}
		if i >= steps {
			continue
		}
		for _, cl := range clients {
			if i%10 == 0 {
				cl.queueReliable(t, rng)
			}
			cl.send(t, now, 1, snapshotLike(rng, payload, cl.unSent))
			cl.unSent++
		}
		for _, c := range conns {
			if c.addr.IsValid() {
				if i%10 == 0 {
					msg := binary.LittleEndian.AppendUint32(nil, c.rels)
					if err := c.ch.QueueReliable(msg); err != nil {
						t.Fatal(err)
					}
					c.rels++
				}
				err := c.ch.Send(now, 1, snapshotLike(rng, payload, c.sent), func(p []byte) {
					if err := srv.WriteTo(p, c.addr); err != nil {
						t.Fatal(err)
					}
				})
				if err != nil {
					t.Fatal(err)
				}
				c.sent++
			}
		}
	}
	if conns[0x1111].addr.Port() != 61234 {
		t.Fatalf("server still sends to %v", conns[0x1111].addr)
	}
	for k, cl := range clients {
		c := conns[cl.ch.ID()]
		for _, chk := range []*checker{cl.chk, c.chk} {
			if chk.err != nil {
				t.Fatal(chk.err)
			}
		}
		if c.chk.nextRel != cl.relSent || cl.chk.nextRel != c.rels {
			t.Fatalf("client %d: reliables %d/%d up, %d/%d down", k, c.chk.nextRel, cl.relSent, cl.chk.nextRel, c.rels)
		}
	}
	// In flight at the rebind: packets to the old port are lost (about one
	// one-way latency's worth); everything else arrives.
	if afterRebind[0] < steps/2-5 || afterRebind[1] < steps/2-20 {
		t.Fatalf("after the port change: %d messages up, %d down (want about %d)", afterRebind[0], afterRebind[1], steps/2)
	}
	t.Logf("after rebind: %d up, %d down; netsim dropped %d to the unbound old port",
		afterRebind[0], afterRebind[1], n.Stats().DroppedUnbound)
}
