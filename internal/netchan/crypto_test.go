package netchan

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/snapwire/snapwire/netsim"
)

func testKeys() (a, b *Keys) {
	var k Keys
	for i := range k.Send {
		k.Send[i], k.Recv[i] = byte(i), byte(100+i)
	}
	return &k, &Keys{Send: k.Recv, Recv: k.Send}
}

func newKeyedPair(cfg Config) *pair {
	ka, kb := testKeys()
	ca, cb := cfg, cfg
	ca.Keys, cb.Keys = ka, kb
	p := &pair{a: New(ca, 1), b: New(cb, 1)}
	p.emit = func(pk []byte) {
		if err := p.b.Receive(p.now, pk, &p.h); err != nil {
			p.err = err
		}
	}
	return p
}

// The encrypted channel delivers what the plaintext one does, over the
// same lossy, duplicating, reordering link, and adds exactly TagLen bytes
// per packet.
func TestEncryptedSoak(t *testing.T) {
	link := netsim.LinkConfig{Latency: 100 * time.Millisecond, Jitter: 30 * time.Millisecond,
		Loss: 0.25, Duplicate: 0.25, Reorder: 0.02}
	ka, kb := testKeys()
	plain := soakWith(t, link, 1, 3000, 120, Config{}, Config{})
	enc := soakWith(t, link, 1, 3000, 120, Config{Keys: ka}, Config{Keys: kb})
	for k := range 2 {
		if enc.delivered[k] != plain.delivered[k] {
			t.Errorf("direction %d: %d delivered encrypted, %d in plaintext", k, enc.delivered[k], plain.delivered[k])
		}
		share := float64(enc.delivered[k]) / float64(enc.sent[k])
		if math.Abs(share-0.75) > 0.03 {
			t.Errorf("direction %d: delivered share %.3f", k, share)
		}
	}
}

// Guards against: the tag not covering the header or a byte of the
// ciphertext, or a failed packet changing the channel's state.
func TestEncryptedTamperRejected(t *testing.T) {
	for _, size := range []int{0, 200, 5000} {
		p := newKeyedPair(Config{})
		if err := p.step(deltaPayload(100)); err != nil {
			t.Fatal(err)
		}
		_ = p.a.QueueReliable([]byte("reliable"))
		pkts := capture(t, p.a, p.now, 1, deltaPayload(size))
		before := p.b.LastReceivedSequence()
		var r recorder
		for _, pk := range pkts {
			for i := range pk {
				for _, bit := range []byte{1, 0x80} {
					bad := bytes.Clone(pk)
					bad[i] ^= bit
					err := p.b.Receive(p.now, bad, &r)
					if err == nil {
						t.Fatalf("size %d: packet with byte %d bit %x flipped accepted", size, i, bit)
					}
				}
			}
		}
		if len(r.events) != 0 || p.b.LastReceivedSequence() != before || p.b.reasm.active {
			t.Fatalf("size %d: rejected packets changed state: %d deliveries, seq %d->%d, reassembly %v",
				size, len(r.events), before, p.b.LastReceivedSequence(), p.b.reasm.active)
		}
		if p.b.Stats().AuthFailures == 0 {
			t.Fatal("no authentication failure counted")
		}
		mustReceive(t, p.b, p.now, pkts, &r)
		if len(r.unrel) != 1 || len(r.rel) != 1 {
			t.Fatalf("size %d: genuine packets after the forgeries: %d unreliable, %d reliable", size, len(r.unrel), len(r.rel))
		}
	}
}

// Guards against: a replay window that forgets, and a nonce that does not
// include the full sequence (a packet replayed after the 16-bit sequence
// wrapped would then open).
func TestEncryptedReplayRejected(t *testing.T) {
	p := newKeyedPair(Config{})
	var r recorder
	old := capture(t, p.a, 0, 1, []byte("first"))
	mustReceive(t, p.b, 0, old, &r)
	var recent [][]byte
	for i := range 300 {
		pk := capture(t, p.a, 0, 1, []byte{byte(i)})
		mustReceive(t, p.b, 0, pk, &r)
		recent = append(recent, pk...)
	}
	n := len(r.unrel)
	for _, pk := range append(recent, old...) {
		if err := p.b.Receive(0, pk, &r); err != nil {
			t.Fatal(err)
		}
	}
	if len(r.unrel) != n {
		t.Fatalf("replays delivered %d messages", len(r.unrel)-n)
	}
	// Wrap the 16-bit sequence: the first packet's 16 bits now extend to a
	// sequence ahead of the receiver.
	for i := range 65536 - 300 - 2 {
		pk := capture(t, p.a, 0, 1, []byte{byte(i)})
		mustReceive(t, p.b, 0, pk, &r)
	}
	if got := extend(p.b.LastReceivedSequence(), uint16(1)); got <= p.b.LastReceivedSequence() {
		t.Fatalf("test set-up: sequence 1 extends to %d, not ahead of %d", got, p.b.LastReceivedSequence())
	}
	n = len(r.unrel)
	if err := p.b.Receive(0, old[0], &r); !errors.Is(err, ErrAuth) {
		t.Fatalf("packet replayed after wrap: err %v, want ErrAuth", err)
	}
	if len(r.unrel) != n {
		t.Fatal("packet replayed after wrap delivered")
	}
}

func TestEncryptionMismatch(t *testing.T) {
	ka, _ := testKeys()
	plain, enc := New(Config{}, 1), New(Config{Keys: ka}, 1)
	var r recorder
	if err := enc.Receive(0, capture(t, plain, 0, 1, []byte("x"))[0], &r); !errors.Is(err, ErrNotEncrypted) {
		t.Fatalf("plaintext packet on encrypted channel: %v", err)
	}
	if err := plain.Receive(0, capture(t, enc, 0, 1, []byte("x"))[0], &r); !errors.Is(err, ErrNotEncrypted) {
		t.Fatalf("encrypted packet on plaintext channel: %v", err)
	}
	// Same direction's key on both ends (a misconfiguration) fails to open.
	same := New(Config{Keys: ka}, 1)
	if err := same.Receive(0, capture(t, enc, 0, 1, []byte("x"))[0], &r); !errors.Is(err, ErrAuth) {
		t.Fatalf("wrong key: %v", err)
	}
}

func TestSequenceJumpBounded(t *testing.T) {
	a, b := New(Config{}, 1), New(Config{}, 1)
	var r recorder
	mustReceive(t, b, 0, capture(t, a, 0, 1, []byte("x")), &r)
	pk := capture(t, a, 0, 1, []byte("y"))[0]
	binary.LittleEndian.PutUint16(pk[4:], MaxSequenceJump+2)
	if err := b.Receive(0, pk, &r); !errors.Is(err, ErrSequenceJump) {
		t.Fatalf("jump of %d: err %v", MaxSequenceJump+1, err)
	}
	if b.LastReceivedSequence() != 1 {
		t.Fatalf("sequence moved to %d", b.LastReceivedSequence())
	}
}

func TestEncryptedFragmentsAndOverhead(t *testing.T) {
	p, q := newKeyedPair(Config{DisableCompression: true}), newPair(Config{DisableCompression: true})
	for _, size := range []int{10, 1000, 20000} {
		payload := deltaPayload(size)
		ep, pp := capture(t, p.a, 0, 1, payload), capture(t, q.a, 0, 1, payload)
		var r recorder
		mustReceive(t, p.b, 0, ep, &r)
		if len(r.unrel) != 1 || !bytes.Equal(r.unrel[0], payload) {
			t.Fatalf("size %d: encrypted message not delivered intact", size)
		}
		el, pl := 0, 0
		for _, pk := range ep {
			el += len(pk)
			if len(pk) > p.a.Config().MTU {
				t.Fatalf("size %d: encrypted packet of %d bytes over the MTU", size, len(pk))
			}
		}
		for _, pk := range pp {
			pl += len(pk)
		}
		if len(ep) == len(pp) && el-pl != TagLen*len(ep) {
			t.Fatalf("size %d: %d encrypted bytes in %d packets, %d plaintext: overhead not %d per packet", size, el, len(ep), pl, TagLen)
		}
	}
}

func TestEncryptedSendReceiveAllocs(t *testing.T) {
	for _, size := range []int{200, 20000} {
		p := newKeyedPair(Config{})
		payload := deltaPayload(size)
		rel := []byte("a small reliable message")
		for range 10 {
			_ = p.a.QueueReliable(rel)
			if err := p.step(payload); err != nil {
				t.Fatal(err)
			}
		}
		allocs := testing.AllocsPerRun(200, func() {
			if err := p.step(payload); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Fatalf("%d bytes: %v allocs per encrypted Send+Receive, want 0", size, allocs)
		}
	}
}

// BenchmarkEncryption is the cost of encryption per message: the same
// messages through a plaintext and an encrypted pair.
func BenchmarkEncryption(b *testing.B) {
	for _, size := range []int{200, 1200} {
		for _, enc := range []bool{false, true} {
			name := "plain"
			if enc {
				name = "encrypted"
			}
			b.Run(name+"-"+strconv.Itoa(size)+"B", func(b *testing.B) {
				p := newPair(Config{DisableCompression: true})
				if enc {
					p = newKeyedPair(Config{DisableCompression: true})
				}
				payload := deltaPayload(size)
				b.ReportAllocs()
				for b.Loop() {
					if err := p.step(payload); err != nil {
						b.Fatal(err)
					}
				}
				st := p.a.Stats()
				b.ReportMetric(float64(st.BytesOut)/float64(st.PacketsOut), "wire-B/packet")
			})
		}
	}
}

// FuzzEncryptedReceive feeds an encrypted channel hostile packets, seeded
// with real encrypted packets (whole messages, fragments, reliables): no
// panic, and nothing that fails to authenticate changes the channel.
func FuzzEncryptedReceive(f *testing.F) {
	ka, _ := testKeys()
	seedPair := newKeyedPair(Config{})
	_ = seedPair.a.QueueReliable([]byte("reliable"))
	for _, size := range []int{0, 100, 3000} {
		for _, p := range capture(f, seedPair.a, 0, 1, deltaPayload(size)) {
			f.Add(p)
		}
	}
	f.Fuzz(func(t *testing.T, pkt []byte) {
		_, kb := testKeys()
		_ = ka
		c := New(Config{Keys: kb}, 1)
		var r recorder
		err := c.Receive(0, pkt, &r)
		if err != nil && (len(r.events) != 0 || c.LastReceivedSequence() != 0 || c.reasm.active) {
			t.Fatalf("rejected packet (%v) changed state", err)
		}
	})
}
