package client

import (
	"testing"
	"time"
)

// FuzzHandlePacket feeds hostile packets to a connected client of each
// framing: it must never panic, and whatever it accepts it must still be
// able to answer (Advance writes a packet).
func FuzzHandlePacket(f *testing.F) {
	for _, s := range sessions {
		dg := loadDatagrams(f, s.pcap)
		n := 0
		for _, d := range dg {
			if d.Src.Port() == s.serverPort && n < 40 {
				f.Add(s.protocol == 68, d.Payload)
				n++
			}
		}
	}
	f.Fuzz(func(t *testing.T, legacy bool, pkt []byte) {
		proto := 71
		if legacy {
			proto = 68
		}
		var sent int
		c, err := New(Config{Protocol: proto, ClientChallenge: 5, QPort: 7}, func([]byte) { sent++ })
		if err != nil {
			t.Fatal(err)
		}
		c.Advance(0)
		c.HandlePacket(0, []byte("\xff\xff\xff\xffchallengeResponse 1234 5 71"))
		c.Advance(0)
		c.HandlePacket(0, []byte("\xff\xff\xff\xffconnectResponse 1234"))
		c.Advance(0)
		c.HandlePacket(time.Millisecond, pkt)
		c.Advance(time.Second)
		if c.Phase() != Disconnected && sent < 3 {
			t.Fatalf("phase %v, %d packets sent", c.Phase(), sent)
		}
	})
}
