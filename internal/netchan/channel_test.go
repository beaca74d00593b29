package netchan

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/snapwire/snapwire/internal/entropy"
)

// recorder is a Handler that keeps copies of everything delivered, in the
// order of the calls.
type recorder struct {
	events []string // "R:<msg>" or "U<typ>:<msg>"
	rel    [][]byte
	unrel  [][]byte
	types  []MessageType
}

func (r *recorder) Reliable(msg []byte) {
	r.rel = append(r.rel, bytes.Clone(msg))
	r.events = append(r.events, "R:"+string(msg))
}

func (r *recorder) Unreliable(typ MessageType, msg []byte) {
	r.unrel = append(r.unrel, bytes.Clone(msg))
	r.types = append(r.types, typ)
	r.events = append(r.events, "U"+string(rune('0'+typ))+":"+string(msg))
}

// capture collects the packets of one Send.
func capture(t testing.TB, c *Channel, now time.Duration, typ MessageType, payload []byte) [][]byte {
	t.Helper()
	var out [][]byte
	if err := c.Send(now, typ, payload, func(p []byte) { out = append(out, bytes.Clone(p)) }); err != nil {
		t.Fatal(err)
	}
	return out
}

func mustReceive(t testing.TB, c *Channel, now time.Duration, pkts [][]byte, h Handler) {
	t.Helper()
	for _, p := range pkts {
		if err := c.Receive(now, p, h); err != nil {
			t.Fatalf("receive %x: %v", p, err)
		}
	}
}

func bitString(s string) []byte {
	b := make([]byte, (len(s)+7)/8)
	for i, c := range s {
		if c == '1' {
			b[i/8] |= 1 << (i % 8)
		}
	}
	return b
}

// Exact bytes of named packets (docs/PROTOCOL.md, "Message channel").
func TestPacketBytes(t *testing.T) {
	raw := Config{DisableCompression: true}
	t.Run("unreliable", func(t *testing.T) {
		a := New(raw, 0x1234)
		got := capture(t, a, 0, 7, []byte("hi"))
		want := []byte{0x00, 0x07, 0x34, 0x12, 0x01, 0x00, 0x00, 0x00, 'h', 'i'}
		if len(got) != 1 || !bytes.Equal(got[0], want) {
			t.Fatalf("got %x, want %x", got, want)
		}
	})
	t.Run("reliable and ack", func(t *testing.T) {
		a, b := New(raw, 0x1234), New(raw, 0x1234)
		mustReceive(t, a, 0, capture(t, b, 0, 1, nil), &recorder{}) // a has received b's #1
		if err := a.QueueReliable([]byte("ok")); err != nil {
			t.Fatal(err)
		}
		got := capture(t, a, 0, 2, []byte("x"))
		want := []byte{
			flagReliable | flagAck, 0x02, 0x34, 0x12, 0x01, 0x00, 0x01, 0x00, // header: seq 1, ack 1
			0x11,           // count 1 (high nibble), first reliable 1 (low 4 bits)
			0x02, 'o', 'k', // length 2, "ok"
			'x', // unreliable payload
		}
		if len(got) != 1 || !bytes.Equal(got[0], want) {
			t.Fatalf("got %x, want %x", got, want)
		}
	})
	t.Run("compressed", func(t *testing.T) {
		a := New(Config{}, 0x0001)
		got := capture(t, a, 0, 3, make([]byte, 64))
		// 64 zero bytes = 512 bits = 171 3-bit words: 21 runs of 8 (000 + 111)
		// and one run of 3 (000 + 010), DOOM III §4.3.
		z := bitString(strings.Repeat("000111", 21) + "000010")
		want := append([]byte{flagCompressed, 0x03, 0x01, 0x00, 0x01, 0x00, 0x00, 0x00, 64}, z...)
		if len(got) != 1 || !bytes.Equal(got[0], want) {
			t.Fatalf("got %x, want %x", got, want)
		}
		var r recorder
		mustReceive(t, New(Config{}, 1), 0, got, &r)
		if len(r.unrel) != 1 || !bytes.Equal(r.unrel[0], make([]byte, 64)) {
			t.Fatalf("delivered %x", r.unrel)
		}
	})
	t.Run("fragments", func(t *testing.T) {
		a := New(Config{MTU: 64, DisableCompression: true}, 0x0001)
		payload := make([]byte, 100)
		for i := range payload {
			payload[i] = byte(i)
		}
		got := capture(t, a, 0, 4, payload)
		// 100 bytes, at most 64-8-3 = 53 per fragment: 2 fragments of 50.
		if len(got) != 2 {
			t.Fatalf("%d fragments, want 2", len(got))
		}
		for i, p := range got {
			wantHdr := []byte{flagFragment, 0x04, 0x01, 0x00, 0x01, 0x00, 0x00, 0x00, byte(i), 2, 100}
			if !bytes.Equal(p[:11], wantHdr) || !bytes.Equal(p[11:], payload[i*50:(i+1)*50]) {
				t.Fatalf("fragment %d: %x", i, p)
			}
		}
	})
}

// The reliable section header: 1 byte for up to 15 messages (count<<4 |
// first mod 16), 3 bytes for more (0, first mod 256, count); the receiver
// recovers first from its next expected sequence across every wrap of
// those low bits.
func TestReliableSectionHeader(t *testing.T) {
	raw := Config{DisableCompression: true}
	a, b := New(raw, 1), New(raw, 1)
	var r recorder
	next := 0 // messages queued so far
	queue := func(n int) {
		for range n {
			next++
			if err := a.QueueReliable([]byte{byte(next)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Release everything queued: b receives a packet and acknowledges it.
	settle := func() {
		mustReceive(t, b, 0, capture(t, a, 0, 1, nil), &r)
		mustReceive(t, a, 0, capture(t, b, 0, 1, nil), &recorder{})
		if a.ReliableSectionLen() != 0 {
			t.Fatalf("reliables not released")
		}
	}
	queue(3)
	p := capture(t, a, 0, 1, nil)[0]
	if want := []byte{0x31, 1, 1, 1, 2, 1, 3}; !bytes.Equal(p[8:], want) || a.ReliableSectionLen() != len(want) {
		t.Fatalf("3 messages from 1: %x (length %d), want %x", p[8:], a.ReliableSectionLen(), want)
	}
	settle()
	queue(16) // messages 4..19: the long form
	p = capture(t, a, 0, 1, nil)[0]
	if p[8] != 0 || p[9] != 4 || p[10] != 16 || len(p) != 8+3+16*2 || a.ReliableSectionLen() != 3+16*2 {
		t.Fatalf("16 messages from 4: %x", p[8:])
	}
	settle()
	// Many rounds with first wrapping mod 16 and mod 256, some packets lost,
	// a resent message always overlapping what b has.
	for round := range 300 {
		queue(1 + round%7)
		if round%3 == 0 {
			capture(t, a, 0, 1, nil) // lost
		}
		if round%5 == 4 {
			queue(20)
		}
		// b receives but its ack is lost every other round: the next packet
		// carries messages b already has (first < b's next).
		mustReceive(t, b, 0, capture(t, a, 0, 1, nil), &r)
		if round%2 == 0 {
			mustReceive(t, a, 0, capture(t, b, 0, 1, nil), &recorder{})
		}
	}
	settle()
	if len(r.rel) != next {
		t.Fatalf("%d reliables delivered, %d sent", len(r.rel), next)
	}
	for i, m := range r.rel {
		if len(m) != 1 || m[0] != byte(i+1) {
			t.Fatalf("reliable %d is %x", i+1, m)
		}
	}
}

// huffmanFriendly is a payload the static Huffman table codes shorter than
// zrle does: bytes with short codes and few zero runs.
func huffmanFriendly() []byte {
	var short []byte
	for b, l := range testHuffman.Lengths() {
		if l <= 6 && b != 0 {
			short = append(short, byte(b))
		}
	}
	p := make([]byte, 48)
	for i := range p {
		p[i] = short[i%len(short)]
	}
	return p
}

// The H flag: the stream is the body length, then the body coded with the
// static table; the sender picks it only when it beats zrle and the raw body.
func TestHuffmanStage(t *testing.T) {
	payload := huffmanFriendly()
	got := capture(t, New(Config{Huffman: testHuffman}, 0x0001), 0, 3, payload)[0]
	// Expected stream, coded here bit by bit from the canonical code (RFC 1951
	// §3.2.2 order) rather than through testHuffman.Encode.
	lengths := testHuffman.Lengths()
	var count [entropy.HuffmanMaxBits + 1]int
	for _, l := range lengths {
		count[l]++
	}
	var next [entropy.HuffmanMaxBits + 1]int
	code := 0
	for l := 1; l <= entropy.HuffmanMaxBits; l++ {
		code = (code + count[l-1]) << 1
		next[l] = code
	}
	var codes [256]int
	for b, l := range lengths {
		codes[b] = next[l]
		next[l]++
	}
	var bits strings.Builder
	for _, b := range payload {
		l := int(lengths[b])
		for i := l - 1; i >= 0; i-- {
			bits.WriteByte('0' + byte(codes[b]>>i&1))
		}
	}
	want := append([]byte{flagHuffman, 0x03, 0x01, 0x00, 0x01, 0x00, 0x00, 0x00, byte(len(payload))}, bitString(bits.String())...)
	if !bytes.Equal(got, want) {
		t.Fatalf("got  %x\nwant %x", got, want)
	}
	var r recorder
	mustReceive(t, New(Config{Huffman: testHuffman}, 1), 0, [][]byte{got}, &r)
	if len(r.unrel) != 1 || !bytes.Equal(r.unrel[0], payload) {
		t.Fatalf("delivered %x", r.unrel)
	}
	// Without Config.Huffman the same payload goes as zrle or raw.
	if p := capture(t, New(Config{}, 1), 0, 3, payload)[0]; p[0]&flagHuffman != 0 {
		t.Fatalf("Huffman used without Config.Huffman")
	}
	// Zero runs: zrle wins even with Config.Huffman.
	if p := capture(t, New(Config{Huffman: testHuffman}, 1), 0, 3, make([]byte, 64))[0]; p[0]&flagCompressed == 0 {
		t.Fatalf("64 zero bytes not zrle coded: %x", p)
	}
	// Random bytes: neither stage helps, the body goes raw.
	rng := rand.New(rand.NewPCG(1, 2))
	noise := make([]byte, 200)
	for i := range noise {
		noise[i] = byte(rng.Uint32())
	}
	if p := capture(t, New(Config{Huffman: testHuffman}, 1), 0, 3, noise)[0]; p[0]&(flagCompressed|flagHuffman) != 0 {
		t.Fatalf("noise compressed")
	}
}

func TestConnectionless(t *testing.T) {
	p := AppendConnectionless(nil, []byte("getchallenge"))
	if !bytes.Equal(p, append([]byte{0xFF, 0xFF, 0xFF, 0xFF}, "getchallenge"...)) || !IsConnectionless(p) {
		t.Fatalf("got %x", p)
	}
	if IsConnectionless([]byte{0xFF, 0xFF, 0xFF}) {
		t.Fatal("3 bytes taken for connectionless")
	}
	if _, ok := PeekConnID(p); ok {
		t.Fatal("PeekConnID accepted a connectionless packet")
	}
	if err := New(Config{}, 1).Receive(0, p, &recorder{}); !errors.Is(err, ErrConnectionless) {
		t.Fatalf("err %v", err)
	}
	// A channel packet never starts with 0xFF: every flag combination the
	// sender uses keeps the reserved high bits zero.
	a := New(Config{MTU: 64}, 0xFFFF)
	b := New(Config{MTU: 64}, 0xFFFF)
	rng := rand.New(rand.NewPCG(1, 1))
	for i := range 300 {
		if i%3 == 0 {
			_ = a.QueueReliable([]byte{0xFF, 0xFF})
		}
		payload := make([]byte, rng.IntN(300))
		for j := range payload {
			payload[j] = 0xFF
		}
		for _, p := range capture(t, a, 0, 0xFF, payload) {
			if p[0] == 0xFF || IsConnectionless(p) {
				t.Fatalf("channel packet %x looks connectionless", p)
			}
			if id, ok := PeekConnID(p); !ok || id != 0xFFFF {
				t.Fatalf("PeekConnID = %v %v", id, ok)
			}
		}
		mustReceive(t, a, 0, capture(t, b, 0, 1, nil), &recorder{})
	}
}

func TestReliableBeforeUnreliable(t *testing.T) {
	a, b := New(Config{}, 9), New(Config{}, 9)
	for _, m := range []string{"one", "two"} {
		if err := a.QueueReliable([]byte(m)); err != nil {
			t.Fatal(err)
		}
	}
	p1 := capture(t, a, 0, 1, []byte("u1"))
	if err := a.QueueReliable([]byte("three")); err != nil {
		t.Fatal(err)
	}
	p2 := capture(t, a, 0, 1, []byte("u2"))
	var r recorder
	mustReceive(t, b, 0, p2, &r) // p1 lost: p2 carries all three
	mustReceive(t, b, 0, p1, &r) // late: dropped
	want := []string{"R:one", "R:two", "R:three", "U1:u2"}
	if strings.Join(r.events, ",") != strings.Join(want, ",") {
		t.Fatalf("events %v, want %v", r.events, want)
	}
	st := b.Stats()
	if st.DroppedLate != 1 || st.MessagesLost != 1 || st.ReliablesDelivered != 3 {
		t.Fatalf("stats %+v", st)
	}
	if a.Stats().ReliableResends != 2 {
		t.Fatalf("resends %d, want 2", a.Stats().ReliableResends)
	}
	// b acks #2; a releases all three and stops sending them.
	mustReceive(t, a, 10*time.Millisecond, capture(t, b, 5*time.Millisecond, 0, nil), &r)
	if st := a.Stats(); st.ReliableOutstanding != 0 || st.RTT != 10*time.Millisecond {
		t.Fatalf("after ack: %+v", st)
	}
	p3 := capture(t, a, 20*time.Millisecond, 1, []byte("u3"))
	if p3[0][0]&flagReliable != 0 {
		t.Fatalf("acknowledged reliables still sent: %x", p3[0])
	}
}

func TestDuplicateAndLate(t *testing.T) {
	a, b := New(Config{}, 1), New(Config{}, 1)
	p1 := capture(t, a, 0, 1, []byte("a"))
	p2 := capture(t, a, 0, 1, []byte("b"))
	p3 := capture(t, a, 0, 1, []byte("c"))
	var r recorder
	mustReceive(t, b, 0, p1, &r)
	mustReceive(t, b, 0, p1, &r) // duplicate
	mustReceive(t, b, 0, p3, &r)
	mustReceive(t, b, 0, p2, &r) // late
	mustReceive(t, b, 0, p3, &r) // duplicate
	if len(r.unrel) != 2 || string(r.unrel[0]) != "a" || string(r.unrel[1]) != "c" {
		t.Fatalf("delivered %q", r.unrel)
	}
	st := b.Stats()
	if st.DroppedDuplicate != 2 || st.DroppedLate != 1 || st.MessagesLost != 1 || b.LastReceivedSequence() != 3 {
		t.Fatalf("stats %+v", st)
	}
}

// 16-bit wire sequences wrap; the 32-bit API sequence keeps counting.
func TestSequenceWrap(t *testing.T) {
	a, b := New(Config{}, 1), New(Config{}, 1)
	var r recorder
	for i := range 70000 {
		pk := capture(t, a, 0, 1, []byte{byte(i)})
		if i%5 == 3 {
			continue // lost
		}
		mustReceive(t, b, 0, pk, &r)
		if i%1000 == 0 {
			mustReceive(t, a, 0, capture(t, b, 0, 0, nil), &r)
		}
	}
	if a.OutgoingSequence() != 70000 || b.LastReceivedSequence() != 70000 {
		t.Fatalf("sequences %d %d", a.OutgoingSequence(), b.LastReceivedSequence())
	}
	if got := b.Stats().MessagesLost; got != 14000 {
		t.Fatalf("lost %d, want 14000", got)
	}
	if a.LastAcknowledged() != 69001 {
		t.Fatalf("last ack %d", a.LastAcknowledged())
	}
}

func TestReliableLimits(t *testing.T) {
	a := New(Config{MaxReliableBytes: 100}, 1)
	if err := a.QueueReliable(make([]byte, MaxReliableMessageBytes+1)); !errors.Is(err, ErrReliableTooBig) {
		t.Fatalf("err %v", err)
	}
	if err := a.QueueReliable(make([]byte, 60)); err != nil {
		t.Fatal(err)
	}
	if err := a.QueueReliable(make([]byte, 41)); !errors.Is(err, ErrReliableFull) {
		t.Fatalf("err %v", err)
	}
	if err := a.QueueReliable(make([]byte, 40)); err != nil {
		t.Fatal(err)
	}
	b := New(Config{}, 1)
	for range MaxReliableMessages {
		if err := b.QueueReliable(nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.QueueReliable(nil); !errors.Is(err, ErrReliableFull) {
		t.Fatalf("256th message: %v", err)
	}
	// All 255 empty messages arrive.
	var r recorder
	c := New(Config{}, 1)
	mustReceive(t, c, 0, capture(t, b, 0, 1, nil), &r)
	if len(r.rel) != MaxReliableMessages {
		t.Fatalf("%d reliables delivered", len(r.rel))
	}
	if err := a.Send(0, 1, make([]byte, a.Config().MaxMessageBytes+1), func([]byte) {}); !errors.Is(err, ErrMessageTooLarge) {
		t.Fatalf("err %v", err)
	}
}

func TestFragmentReassembly(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	msg := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		return b
	}
	a, b := New(Config{}, 5), New(Config{}, 5)
	_ = a.QueueReliable([]byte("rel"))
	m1, m2, m3 := msg(8192), msg(8192), msg(3000)
	p1 := capture(t, a, 0, 1, m1)
	p2 := capture(t, a, 0, 1, m2)
	p3 := capture(t, a, 0, 1, m3)
	if len(p1) != 6 || len(p3) != 3 {
		t.Fatalf("fragments %d %d", len(p1), len(p3))
	}
	for _, p := range append(append(p1, p2...), p3...) {
		if len(p) > 1400 {
			t.Fatalf("packet of %d bytes over the MTU", len(p))
		}
	}
	var r recorder
	// m1 arrives reversed and with a duplicate fragment; m2 loses one
	// fragment and is overtaken by m3, which discards it.
	for i := len(p1) - 1; i >= 0; i-- {
		mustReceive(t, b, 0, p1[i:i+1], &r)
	}
	mustReceive(t, b, 0, p1[2:3], &r)
	mustReceive(t, b, 0, p2[:3], &r)
	mustReceive(t, b, 0, p3, &r)
	mustReceive(t, b, 0, p2[3:], &r) // late fragments of the discarded message
	if len(r.unrel) != 2 || !bytes.Equal(r.unrel[0], m1) || !bytes.Equal(r.unrel[1], m3) {
		t.Fatalf("delivered %d messages", len(r.unrel))
	}
	if len(r.rel) != 1 || r.events[0] != "R:rel" {
		t.Fatalf("reliables %q", r.events)
	}
	st := b.Stats()
	if st.ReassemblyFailures != 1 || st.DroppedDuplicate != 1 || st.DroppedLate != uint64(len(p2)-3) || st.MessagesLost != 1 {
		t.Fatalf("stats %+v", st)
	}
}

// Every malformed packet is rejected with its error; nothing is delivered.
func TestReceiveRejects(t *testing.T) {
	a := New(Config{DisableCompression: true}, 0x0102)
	_ = a.QueueReliable([]byte("rr"))
	good := capture(t, a, 0, 1, []byte("payload"))[0]
	comp := capture(t, New(Config{}, 0x0102), 0, 1, make([]byte, 50))[0]
	frag := capture(t, New(Config{MTU: 64, DisableCompression: true}, 0x0102), 0, 1, make([]byte, 100))[0]
	huff := capture(t, New(Config{Huffman: testHuffman}, 0x0102), 0, 1, huffmanFriendly())[0]
	if huff[0]&flagHuffman == 0 {
		t.Fatalf("payload not Huffman coded: %x", huff)
	}
	mod := func(p []byte, f func(b []byte) []byte) []byte { return f(bytes.Clone(p)) }
	cases := []struct {
		name string
		p    []byte
		want error
	}{
		{"short", good[:7], ErrShortPacket},
		{"connectionless", AppendConnectionless(nil, []byte("x")), ErrConnectionless},
		{"reserved flag", mod(good, func(b []byte) []byte { b[0] |= 0x40; return b }), ErrBadFlags},
		{"encrypted flag on a plaintext channel", mod(good, func(b []byte) []byte { b[0] |= flagEncrypted; return b }), ErrNotEncrypted},
		{"entropy-coded without a model", mod(comp, func(b []byte) []byte { b[0] |= flagHuffman; return b }), ErrNoEntropyModel},
		{"Huffman stream truncated", mod(huff, func(b []byte) []byte { return b[:len(b)-1] }), ErrDecompress},
		{"Huffman stream with a trailing byte", mod(huff, func(b []byte) []byte { return append(b, 0) }), ErrDecompress},
		{"Huffman stream decoded as zrle", mod(huff, func(b []byte) []byte { b[0] ^= flagHuffman | flagCompressed; return b }), ErrDecompress},
		{"wrong conn id", mod(good, func(b []byte) []byte { b[2]++; return b }), ErrWrongConnID},
		{"reliable count 0", mod(good, func(b []byte) []byte { b[8] = 0x01; return b }), ErrBadReliable},
		{"reliable long form with a short count", mod(good, func(b []byte) []byte {
			return append(append(b[:8:8], 0x00, 0x01, 0x01), b[9:]...)
		}), ErrBadReliable},
		{"reliable long form truncated", mod(good, func(b []byte) []byte { return append(b[:8:8], 0x00, 0x01) }), ErrBadReliable},
		{"reliable length past end", mod(good, func(b []byte) []byte { b[9] = 100; return b }), ErrBadReliable},
		{"reliable section truncated", good[:9], ErrBadReliable},
		{"reliable gap", mod(good, func(b []byte) []byte { b[8] = 0x15; return b }), ErrReliableGap},
		{"reliable long form gap", mod(good, func(b []byte) []byte {
			return append(append(b[:8:8], 0x00, 0x30, 16), b[9:]...)
		}), ErrReliableGap},
		{"too many reliables", mod(good, func(b []byte) []byte { b[8] = 0xF1; return b }), ErrBadReliable},
		{"decompress", mod(comp, func(b []byte) []byte { return b[:len(b)-1] }), ErrDecompress},
		{"body length 0", mod(comp, func(b []byte) []byte { b[8] = 0; return b }), ErrBadLength},
		{"fragment index past count", mod(frag, func(b []byte) []byte { b[8] = 2; return b }), ErrBadFragment},
		{"fragment count 1", mod(frag, func(b []byte) []byte { b[9] = 1; return b }), ErrBadFragment},
		{"fragment short", frag[:len(frag)-1], ErrBadFragment},
		{"fragment total too big", mod(frag, func(b []byte) []byte {
			return append(append(b[:10:10], 0xFF, 0xFF, 0x7F), b[11:]...)
		}), ErrBadLength},
		{"fragment geometry", mod(frag, func(b []byte) []byte { b[9] = 100; return b }), ErrBadFragment},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := New(Config{Huffman: testHuffman}, 0x0102)
			var r recorder
			if err := b.Receive(0, c.p, &r); !errors.Is(err, c.want) {
				t.Fatalf("err %v, want %v", err, c.want)
			}
			if len(r.events) != 0 || b.LastReceivedSequence() != 0 || b.Stats().Rejected != 1 {
				t.Fatalf("rejected packet changed state: %v", r.events)
			}
		})
	}
	// Every prefix that cuts into the header, the reliable section, a
	// fragment or a compressed stream fails cleanly. (An uncompressed
	// unreliable payload has no length of its own: UDP gives whole
	// datagrams, so a shorter one is a different valid message.)
	for _, c := range []struct {
		p      []byte
		mustTo int // prefixes shorter than this must fail
	}{{good, 12}, {comp, len(comp)}, {frag, len(frag)}, {huff, len(huff)}} {
		for k := range c.mustTo {
			b := New(Config{}, 0x0102)
			var r recorder
			if err := b.Receive(0, c.p[:k], &r); err == nil || len(r.events) > 0 {
				t.Fatalf("prefix %d of %x: err %v, delivered %v", k, c.p, err, r.events)
			}
		}
	}
}

func TestRateLimit(t *testing.T) {
	const rate = 20000
	c := New(Config{Rate: rate}, 1)
	payload := make([]byte, 1000)
	rng := rand.New(rand.NewPCG(4, 4))
	for i := range payload {
		payload[i] = byte(rng.Uint32()) // incompressible
	}
	wire := 0
	const dur = 10 * time.Second
	for now := time.Duration(0); now < dur; now += time.Millisecond {
		if !c.CanSend(now, len(payload)) {
			continue
		}
		if err := c.Send(now, 1, payload, func(p []byte) { wire += len(p) + UDPIPOverhead }); err != nil {
			t.Fatal(err)
		}
	}
	got := float64(wire) / dur.Seconds()
	t.Logf("rate %d B/s: measured %.0f B/s (%d messages)", rate, got, c.Stats().MessagesOut)
	if got < rate*0.95 || got > rate*1.05 {
		t.Fatalf("measured %.0f B/s, want within 5%% of %d", got, rate)
	}
	if !New(Config{}, 1).CanSend(0, 1<<20) {
		t.Fatal("unlimited channel refused")
	}
}
