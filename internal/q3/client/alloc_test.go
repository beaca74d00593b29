package client

import (
	"testing"
	"time"
)

// activeClient replays the 68 session up to its middle and returns the
// client, active, with a sender that discards.
func activeClient(t testing.TB) *Client {
	s := sessions[0]
	dg := loadDatagrams(t, s.pcap)
	c, err := New(Config{Protocol: s.protocol, ClientChallenge: s.clientChallenge, QPort: s.qport}, func([]byte) {})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dg[:len(dg)/2] {
		if d.Src.Port() == s.serverPort {
			c.HandlePacket(d.Time, d.Payload)
			c.Advance(d.Time)
		}
	}
	if c.Phase() != Active {
		t.Fatalf("phase %v", c.Phase())
	}
	return c
}

// TestSendAllocs: building, scrambling and framing a packet with two
// usercmds and a pending reliable command allocates nothing.
func TestSendAllocs(t *testing.T) {
	c := activeClient(t)
	c.AddCommand("say steady state")
	now := 10 * time.Second
	allocs := testing.AllocsPerRun(200, func() {
		now += 16 * time.Millisecond
		c.writePacket(now)
	})
	if allocs != 0 {
		t.Fatalf("writePacket allocates %v times", allocs)
	}
}

func BenchmarkWritePacket(b *testing.B) {
	c := activeClient(b)
	now := 10 * time.Second
	b.ReportAllocs()
	for b.Loop() {
		now += 16 * time.Millisecond
		c.writePacket(now)
	}
	b.ReportMetric(float64(len(c.pkt)), "bytes/packet")
}
