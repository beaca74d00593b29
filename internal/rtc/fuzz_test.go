package rtc_test

import (
	"context"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/snapwire/snapwire/internal/rtc"
)

// FuzzAnswer feeds the signalling endpoint's parser (Server.Answer: the
// offer's SDP, pion's parser behind it) arbitrary offers, seeded with a
// real pion offer and its mutations: no panic, and whatever it refuses
// leaves no peer behind; an accepted offer's peer is closed when its
// channel never opens.
func FuzzAnswer(f *testing.F) {
	real := offer(f)
	f.Add(real)
	f.Add(strings.Replace(real, "a=setup:actpass", "a=setup:active", 1))
	f.Add(strings.Replace(real, "UDP/DTLS/SCTP", "RTP/AVP", 1))
	f.Add("v=0\r\no=- 0 0 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\n")
	f.Add("v=0\r\nm=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\n")
	s, err := rtc.NewServer(rtc.Config{
		Inject:         func(netip.AddrPort, []byte) bool { return true },
		HostIPs:        loopback,
		MaxPeers:       4,
		ConnectTimeout: 200 * time.Millisecond,
	})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { s.Close() })
	f.Fuzz(func(t *testing.T, o string) {
		if len(o) > 16<<10 {
			return // the endpoint refuses larger bodies before parsing
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		before := s.Stats().Peers
		if _, err := s.Answer(ctx, o); err != nil && s.Stats().Peers > before {
			t.Fatalf("a refused offer left a peer (%d before, %d after): %v", before, s.Stats().Peers, err)
		}
		// Accepted offers' peers never open their channel: they must go.
		deadline := time.Now().Add(5 * time.Second)
		for s.Stats().Peers != 0 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if n := s.Stats().Peers; n != 0 {
			t.Fatalf("%d peers still open 5 s after their offers", n)
		}
	})
}
