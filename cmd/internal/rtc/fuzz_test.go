package rtc_test

import (
	"context"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/snapwire/snapwire/cmd/internal/rtc"
)

// FuzzAnswer feeds the signalling endpoint's parser (Server.Answer: the
// offer's SDP, pion's parser behind it) arbitrary offers, seeded with a
// real pion offer and its mutations: no panic, whatever it refuses leaves
// no peer behind, and closing the server closes an accepted offer's peer.
func FuzzAnswer(f *testing.F) {
	real := offer(f)
	f.Add(real)
	f.Add(strings.Replace(real, "a=setup:actpass", "a=setup:active", 1))
	f.Add(strings.Replace(real, "UDP/DTLS/SCTP", "RTP/AVP", 1))
	f.Add("v=0\r\no=- 0 0 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\n")
	f.Add("v=0\r\nm=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\n")
	cfg := rtc.Config{
		Inject:   func(netip.AddrPort, []byte) bool { return true },
		HostIPs:  loopback,
		MaxPeers: 4,
	}
	f.Fuzz(func(t *testing.T, o string) {
		if len(o) > 16<<10 {
			return // the endpoint refuses larger bodies before parsing
		}
		s, err := rtc.NewServer(cfg)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if _, err := s.Answer(ctx, o); err != nil && s.Stats().Peers != 0 {
			t.Fatalf("a refused offer left %d peers: %v", s.Stats().Peers, err)
		}
		s.Close()
		if n := s.Stats().Peers; n != 0 {
			t.Fatalf("%d peers left after Close", n)
		}
	})
}
