package rtc

import (
	"net/netip"
	"strings"
	"testing"
)

// An offer keeps only the candidates on the address it came from: a hostile
// page cannot have the server send connectivity checks to other hosts.
//
// Guards against: the offer handed to pion whole (the 10.9.9.9 and mDNS
// candidates survive).
func TestKeepCandidatesFrom(t *testing.T) {
	offer := "v=0\r\n" +
		"m=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\n" +
		"a=candidate:1 1 udp 2122260223 127.0.0.1 50000 typ host\r\n" +
		"a=candidate:2 1 udp 2122260223 10.9.9.9 5000 typ host\r\n" +
		"a=candidate:3 1 udp 2122260223 3b2f-host.local 5001 typ host\r\n" +
		"a=candidate:4 1 udp 1686052607 127.0.0.1 50001 typ srflx raddr 0.0.0.0 rport 0\r\n" +
		"a=candidate:bad\r\n" +
		"a=end-of-candidates\r\n"
	got := keepCandidatesFrom(offer, netip.MustParseAddr("127.0.0.1"))
	want := "v=0\r\n" +
		"m=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\n" +
		"a=candidate:1 1 udp 2122260223 127.0.0.1 50000 typ host\r\n" +
		"a=candidate:4 1 udp 1686052607 127.0.0.1 50001 typ srflx raddr 0.0.0.0 rport 0\r\n" +
		"a=end-of-candidates\r\n"
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if got := keepCandidatesFrom(offer, netip.MustParseAddr("192.0.2.1")); strings.Contains(got, "a=candidate") {
		t.Fatalf("candidates of other hosts kept:\n%s", got)
	}
}
