package netchan

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/snapwire/snapwire/internal/q3/internal/golden"
)

func TestHeaderRoundTrip(t *testing.T) {
	cases := []struct {
		name string
		h    Header
		d    Direction
		f    Framing
		want string
	}{
		{"s2c-legacy", Header{Sequence: 1}, ServerToClient, Legacy, "01 00 00 00"},
		{"c2s-legacy", Header{Sequence: 416, QPort: 28363}, ClientToServer, Legacy, "a0 01 00 00 cb 6e"},
		{"s2c-legacy-frag", Header{Sequence: 1, Fragmented: true, FragStart: 3900, FragLen: 291}, ServerToClient, Legacy, "01 00 00 80 3c 0f 23 01"},
		{"c2s-checksum", Header{Sequence: 2, QPort: 10933, Checksum: GenChecksum(-580757636, 2)}, ClientToServer, Checksummed, "02 00 00 00 b5 2a 84 f9 a6 67"}, // bytes of session-71.pcap C->S seq 2
		{"s2c-checksum-frag", Header{Sequence: 2, Fragmented: true, Checksum: 7, FragStart: 1300, FragLen: 1300}, ServerToClient, Checksummed, "02 00 00 80 07 00 00 00 14 05 14 05"},
	}
	for _, c := range cases {
		b := AppendHeader(nil, &c.h, c.d, c.f)
		if got := fmt.Sprintf("% x", b); got != c.want {
			t.Errorf("%s: % x, want %s", c.name, b, c.want)
		}
		if len(b) != c.h.Len(c.d, c.f) {
			t.Errorf("%s: Len %d, appended %d", c.name, c.h.Len(c.d, c.f), len(b))
		}
		h, n, err := ParseHeader(append(b, 0xaa), c.d, c.f)
		if err != nil || n != len(b) || h != c.h {
			t.Errorf("%s: parsed %+v %d %v", c.name, h, n, err)
		}
		for k := 0; k < len(b); k++ {
			if _, _, err := ParseHeader(b[:k], c.d, c.f); !errors.Is(err, ErrShort) {
				t.Errorf("%s: %d-byte prefix: %v", c.name, k, err)
			}
		}
	}
	if _, _, err := ParseHeader([]byte{0xff, 0xff, 0xff, 0xff, 'x'}, ServerToClient, Legacy); !errors.Is(err, ErrOOB) {
		t.Errorf("oob: %v", err)
	}
}

func TestGenChecksum(t *testing.T) {
	// challenge ^ (seq * challenge) in wrapping 32-bit arithmetic: 0 for
	// sequence 1, whatever the challenge.
	c := int32(-580757636)
	if got := GenChecksum(c, 1); got != 0 {
		t.Fatalf("seq 1: %d, want 0", got)
	}
	if got, want := GenChecksum(c, 3), int32(uint32(c)^uint32(3)*uint32(c)); got != want {
		t.Fatalf("seq 3: %d want %d", got, want)
	}
}

// TestXORGolden pins both scramblers and checks they are involutions that
// leave the clear prefix alone.
func TestXORGolden(t *testing.T) {
	var out strings.Builder
	base := []byte("0123456789abcdefghijklmnopqrstuvwxyz")
	for _, text := range []string{"", "cp 838", "say 100% \xff"} {
		s := append([]byte(nil), base...)
		ServerXOR(s, -642195320, 176, text)
		c := append([]byte(nil), base...)
		ClientXOR(c, -642195320, 123456, 175, text)
		fmt.Fprintf(&out, "%q\nS->C % x\nC->S % x\n", text, s, c)
		if !bytes.Equal(s[:4], base[:4]) || !bytes.Equal(c[:12], base[:12]) {
			t.Errorf("%q: clear prefix changed", text)
		}
		ServerXOR(s, -642195320, 176, text)
		ClientXOR(c, -642195320, 123456, 175, text)
		if !bytes.Equal(s, base) || !bytes.Equal(c, base) {
			t.Errorf("%q: not an involution", text)
		}
	}
	// '%' and bytes above 127 key like '.'.
	a, b := append([]byte(nil), base...), append([]byte(nil), base...)
	ServerXOR(a, 1, 2, "a%\xff")
	ServerXOR(b, 1, 2, "a..")
	if !bytes.Equal(a, b) {
		t.Error("'%' and high bytes must key as '.'")
	}
	golden.Check(t, "xor.golden", []byte(out.String()))
}

func pair(f Framing) (client, server *Chan) {
	return NewChan(ClientToServer, f, 28363, -642195320), NewChan(ServerToClient, f, 0, -642195320)
}

// TestChanFragments sends messages around the fragment size both ways and
// checks sequences, fragment counts and reassembly.
func TestChanFragments(t *testing.T) {
	for _, f := range []Framing{Legacy, Checksummed} {
		cl, sv := pair(f)
		for _, n := range []int{0, 1, 1299, 1300, 1301, 2600, 4191, MaxMsgLen} {
			msg := make([]byte, n)
			for i := range msg {
				msg[i] = byte(i * 7)
			}
			var pkts [][]byte
			p, err := sv.Transmit(nil, msg)
			if err != nil {
				t.Fatal(err)
			}
			pkts = append(pkts, p)
			for sv.UnsentFragments() {
				pkts = append(pkts, sv.TransmitNextFragment(nil))
			}
			wantPkts := 1
			if n >= FragmentSize {
				wantPkts = n/FragmentSize + 1
			}
			if len(pkts) != wantPkts {
				t.Fatalf("%v %d bytes: %d packets, want %d", f, n, len(pkts), wantPkts)
			}
			var got []byte
			for i, p := range pkts {
				if len(p) > MaxPacketLen {
					t.Fatalf("packet of %d bytes", len(p))
				}
				m, _, ok, err := cl.Process(p)
				if err != nil || ok != (i == len(pkts)-1) {
					t.Fatalf("%v %d bytes: packet %d: ok=%v err=%v", f, n, i, ok, err)
				}
				if ok {
					got = append([]byte(nil), m...)
				}
			}
			if !bytes.Equal(got, msg) {
				t.Fatalf("%v %d bytes: reassembled %d bytes", f, n, len(got))
			}
			// and a client message back
			p, _ = cl.Transmit(nil, msg[:min(n, 100)])
			m, _, ok, err := sv.Process(p)
			if err != nil || !ok || !bytes.Equal(m, msg[:min(n, 100)]) {
				t.Fatalf("client message: %v %v", ok, err)
			}
		}
		if sv.OutgoingSequence != 9 || cl.IncomingSequence != 8 {
			t.Fatalf("sequences: out %d in %d", sv.OutgoingSequence, cl.IncomingSequence)
		}
	}
	if _, err := NewChan(ServerToClient, Legacy, 0, 0).Transmit(nil, make([]byte, MaxMsgLen+1)); !errors.Is(err, ErrTooLong) {
		t.Fatalf("too long: %v", err)
	}
}

func TestChanDropsAndChecksum(t *testing.T) {
	cl, sv := pair(Checksummed)
	p1, _ := sv.Transmit(nil, []byte("one"))
	p2, _ := sv.Transmit(nil, []byte("two"))
	p3, _ := sv.Transmit(nil, []byte("three"))
	if _, _, ok, _ := cl.Process(p2); !ok || cl.Dropped != 1 {
		t.Fatalf("p2: ok=%v dropped=%d", ok, cl.Dropped)
	}
	if _, _, ok, err := cl.Process(p1); ok || err != nil {
		t.Fatal("out of order packet accepted")
	}
	if _, _, ok, err := cl.Process(p2); ok || err != nil {
		t.Fatal("duplicate accepted")
	}
	bad := append([]byte(nil), p3...)
	bad[4] ^= 1
	if _, _, ok, err := cl.Process(bad); ok || !errors.Is(err, ErrChecksum) {
		t.Fatalf("bad checksum: %v %v", ok, err)
	}
	// A missing fragment drops the message until it is resent.
	msg := bytes.Repeat([]byte{1}, 3000)
	f1, _ := sv.Transmit(nil, msg)
	f2 := sv.TransmitNextFragment(nil)
	f3 := sv.TransmitNextFragment(nil)
	if _, _, ok, _ := cl.Process(f1); ok {
		t.Fatal("f1")
	}
	if _, _, ok, _ := cl.Process(f3); ok {
		t.Fatal("f3 before f2 completed the message")
	}
	if _, _, ok, _ := cl.Process(f2); ok {
		t.Fatal("f2 alone")
	}
	if m, _, ok, _ := cl.Process(f3); !ok || len(m) != 3000 {
		t.Fatal("resent f3 did not complete the message")
	}
	// Illegal fragment length.
	h := Header{Sequence: 99, Fragmented: true, FragStart: 0, FragLen: 500, Checksum: GenChecksum(-642195320, 99)}
	if _, _, _, err := cl.Process(AppendHeader(nil, &h, ServerToClient, Checksummed)); !errors.Is(err, ErrFragment) {
		t.Fatalf("fragment longer than the packet: %v", err)
	}
}

func FuzzProcess(f *testing.F) {
	_, sv := pair(Legacy)
	p, _ := sv.Transmit(nil, []byte("hello"))
	f.Add(p, false)
	big, _ := sv.Transmit(nil, make([]byte, 1400))
	f.Add(big, true)
	f.Fuzz(func(t *testing.T, pkt []byte, checksum bool) {
		fr := Legacy
		if checksum {
			fr = Checksummed
		}
		for _, d := range []Direction{ClientToServer, ServerToClient} {
			h, n, err := ParseHeader(pkt, d, fr)
			if err == nil {
				if again := AppendHeader(nil, &h, d, fr); !bytes.Equal(again, pkt[:n]) {
					t.Fatalf("header round trip: % x vs % x", again, pkt[:n])
				}
			}
			c := NewChan(d, fr, 1, 5)
			for i := 0; i < 3; i++ {
				m, _, ok, _ := c.Process(pkt)
				if ok && len(m) > MaxMsgLen {
					t.Fatal("oversized message")
				}
			}
		}
	})
}

func BenchmarkTransmitProcess(b *testing.B) {
	cl, sv := pair(Legacy)
	msg := make([]byte, 200)
	buf := make([]byte, 0, MaxPacketLen)
	rng := rand.New(rand.NewPCG(1, 1))
	for i := range msg {
		msg[i] = byte(rng.Uint32())
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(msg)))
	for b.Loop() {
		buf, _ = sv.Transmit(buf[:0], msg)
		ServerXOR(buf[4:], 1, 2, "cp 838 425310625")
		if _, _, ok, _ := cl.Process(buf); !ok {
			b.Fatal("dropped")
		}
	}
}
