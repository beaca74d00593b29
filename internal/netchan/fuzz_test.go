package netchan

import (
	"bytes"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/snapwire/snapwire/internal/entropy/entropytest"
)

// realPackets returns packets of every kind the sender makes, for id 0x0102:
// plain, with reliables and an ack, compressed, and the fragments of a
// large message.
func realPackets(t testing.TB) [][]byte {
	a := New(Config{MTU: 200}, 0x0102)
	b := New(Config{MTU: 200}, 0x0102)
	var out [][]byte
	out = append(out, capture(t, a, 0, 1, []byte("plain payload, not compressible?!"))...)
	mustReceive(t, a, 0, capture(t, b, 0, 0, nil), &recorder{})
	_ = a.QueueReliable([]byte("reliable one"))
	_ = a.QueueReliable(make([]byte, 150))
	out = append(out, capture(t, a, 0, 2, make([]byte, 40))...)
	big := make([]byte, 700)
	for i := range big {
		big[i] = byte(i * 7)
	}
	out = append(out, capture(t, a, 0, 3, big)...)
	out = append(out, capture(t, a, 0, TypeNone, nil)...)
	h := New(Config{MTU: 200, Huffman: testHuffman}, 0x0102)
	_ = h.QueueReliable([]byte{1, 2})
	out = append(out, capture(t, h, 0, 1, huffmanFriendly())...)
	e := New(Config{MTU: 200, Huffman: testHuffman, Entropy: testEntropy}, 0x0102)
	for _, body := range entropytest.SparseBodies(12, 3, 150) {
		out = append(out, capture(t, e, 0, 1, body)...) // entropy coded, one fragmented
	}
	return out
}

// FuzzReceive feeds arbitrary packets to a channel. Beyond not panicking:
// whatever a packet delivers, a fresh channel pair carrying the same
// reliables and payload delivers again identically (decode, encode,
// decode).
func FuzzReceive(f *testing.F) {
	for _, p := range realPackets(f) {
		f.Add(p)
	}
	f.Add([]byte{})
	f.Add(AppendConnectionless(nil, []byte("getinfo")))
	f.Fuzz(func(t *testing.T, p []byte) {
		c := New(Config{MTU: 200, Huffman: testHuffman, Entropy: testEntropy}, 0x0102)
		c.Send(0, 1, nil, func([]byte) {}) // something to acknowledge
		var r recorder
		err := c.Receive(time.Millisecond, p, &r)
		if err != nil {
			if len(r.events) != 0 {
				t.Fatalf("rejected packet delivered %v", r.events)
			}
			return
		}
		if len(r.events) == 0 {
			return // a fragment, a keepalive or a late packet
		}
		// Re-encode what was delivered and decode it again.
		a, b := New(Config{}, 7), New(Config{}, 7)
		for _, m := range r.rel {
			if err := a.QueueReliable(m); err != nil {
				return // legal on the wire from a peer with larger limits
			}
		}
		typ, payload := TypeNone, []byte(nil)
		if len(r.unrel) == 1 {
			typ, payload = r.types[0], r.unrel[0]
		}
		var r2 recorder
		mustReceive(t, b, 0, capture(t, a, 0, typ, payload), &r2)
		if !slices.Equal(r.events, r2.events) {
			t.Fatalf("re-encoded delivery %q, first delivery %q", r2.events, r.events)
		}
	})
}

// A million hostile packets, pure noise and mutated real packets, with the
// right connection id more often than not: no panic, bounded memory.
func TestRandomPackets(t *testing.T) {
	n := 1_000_000
	if testing.Short() {
		n = 100_000
	}
	seeds := realPackets(t)
	rng := rand.New(rand.NewPCG(11, 12))
	c := New(Config{MTU: 200, Huffman: testHuffman, Entropy: testEntropy}, 0x0102)
	h := &countHandler{}
	buf := make([]byte, 0, 512)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	before := ms.TotalAlloc
	accepted := 0
	for i := range n {
		buf = buf[:0]
		switch rng.IntN(4) {
		case 0: // noise
			for range rng.IntN(300) {
				buf = append(buf, byte(rng.Uint32()))
			}
			if len(buf) >= 4 && rng.IntN(2) == 0 {
				buf[0] &= 0x0F
				buf[2], buf[3] = 0x02, 0x01
			}
		default: // a real packet, mutated
			buf = append(buf, seeds[rng.IntN(len(seeds))]...)
			for range 1 + rng.IntN(4) {
				switch rng.IntN(4) {
				case 0:
					buf[rng.IntN(len(buf))] ^= 1 << rng.IntN(8)
				case 1:
					buf[rng.IntN(len(buf))] = byte(rng.Uint32())
				case 2:
					buf = buf[:rng.IntN(len(buf)+1)]
				case 3:
					buf = append(buf, byte(rng.Uint32()))
				}
				if len(buf) == 0 {
					break
				}
			}
			if len(buf) >= 6 && rng.IntN(2) == 0 {
				// a plausible sequence, so the parser goes past the late check
				seq := uint16(c.LastReceivedSequence()) + uint16(1+rng.IntN(3))
				buf[4], buf[5] = byte(seq), byte(seq>>8)
			}
		}
		if c.Receive(time.Duration(i)*time.Microsecond, buf, h) == nil {
			accepted++
		}
		if i%1000 == 0 {
			c.Send(time.Duration(i)*time.Microsecond, 1, buf[:min(len(buf), 50)], func([]byte) {})
		}
	}
	runtime.ReadMemStats(&ms)
	alloc := ms.TotalAlloc - before
	t.Logf("%d packets: %d accepted, %d rejected, %d messages delivered; %d KB allocated",
		n, accepted, c.Stats().Rejected, h.unrel, alloc/1024)
	if alloc > 4<<20 {
		t.Fatalf("allocated %d bytes for hostile input", alloc)
	}
}

// countHandler counts deliveries without allocating.
type countHandler struct{ rel, unrel, bytes int }

func (h *countHandler) Reliable(msg []byte) { h.rel++; h.bytes += len(msg) }
func (h *countHandler) Unreliable(typ MessageType, msg []byte) {
	h.unrel++
	h.bytes += len(msg)
}

// pair is a sender and a receiver exchanging messages without I/O.
type pair struct {
	a, b *Channel
	h    countHandler
	now  time.Duration
	err  error
	emit func([]byte)
}

func newPair(cfg Config) *pair {
	p := &pair{a: New(cfg, 1), b: New(cfg, 1)}
	p.emit = func(pk []byte) {
		if err := p.b.Receive(p.now, pk, &p.h); err != nil {
			p.err = err
		}
	}
	return p
}

func (p *pair) step(payload []byte) error {
	p.now += 16 * time.Millisecond
	if err := p.a.Send(p.now, 1, payload, p.emit); err != nil {
		return err
	}
	// The peer answers every 4th message with an ack, releasing reliables.
	if p.a.OutgoingSequence()%4 == 0 {
		if err := p.b.Send(p.now, TypeNone, nil, func(pk []byte) { _ = p.a.Receive(p.now, pk, &p.h) }); err != nil {
			return err
		}
	}
	return p.err
}

func deltaPayload(n int) []byte {
	rng := rand.New(rand.NewPCG(5, 5))
	b := make([]byte, n)
	for i := range b {
		if rng.IntN(6) == 0 {
			b[i] = byte(rng.Uint32())
		}
	}
	return b
}

func TestSendReceiveAllocs(t *testing.T) {
	for _, big := range []bool{false, true} {
		p := newPair(Config{})
		payload := deltaPayload(200)
		if big {
			payload = deltaPayload(20000) // fragmented
		}
		rel := []byte("a small reliable message")
		for range 10 {
			_ = p.a.QueueReliable(rel)
			if err := p.step(payload); err != nil {
				t.Fatal(err)
			}
		}
		i := 0
		allocs := testing.AllocsPerRun(200, func() {
			if i%5 == 0 {
				_ = p.a.QueueReliable(rel)
			}
			i++
			if err := p.step(payload); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Fatalf("big=%v: %v allocs per Send+Receive, want 0", big, allocs)
		}
		if p.h.unrel < 200 || p.h.rel < 40 {
			t.Fatalf("delivered %d unreliable, %d reliable", p.h.unrel, p.h.rel)
		}
	}
}

func benchmarkSendReceive(b *testing.B, payload []byte, cfg Config) {
	p := newPair(cfg)
	rel := []byte("reliable event")
	b.ReportAllocs()
	b.SetBytes(int64(len(payload)))
	i := 0
	for b.Loop() {
		if i%10 == 0 {
			_ = p.a.QueueReliable(rel)
		}
		i++
		if err := p.step(payload); err != nil {
			b.Fatal(err)
		}
	}
	st := p.a.Stats()
	b.ReportMetric(float64(st.BytesOut)/float64(st.MessagesOut), "wire-B/msg")
}

func BenchmarkSendReceive(b *testing.B) {
	b.Run("200B", func(b *testing.B) { benchmarkSendReceive(b, deltaPayload(200), Config{}) })
	b.Run("200B-nocompress", func(b *testing.B) {
		benchmarkSendReceive(b, deltaPayload(200), Config{DisableCompression: true})
	})
	b.Run("1200B", func(b *testing.B) { benchmarkSendReceive(b, deltaPayload(1200), Config{}) })
	b.Run("8KB-fragmented", func(b *testing.B) { benchmarkSendReceive(b, deltaPayload(8192), Config{}) })
}

func BenchmarkReceiveGarbage(b *testing.B) {
	c := New(Config{}, 0x0102)
	pk := bytes.Repeat([]byte{0x04, 1, 0x02, 0x01, 9, 0, 0, 0, 0xFF}, 20)
	var h countHandler
	b.ReportAllocs()
	for b.Loop() {
		_ = c.Receive(0, pk, &h)
	}
}
