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

// FuzzKeepCandidatesFrom: any offer text yields a subset of its lines, in
// order, with no candidate line whose address is not the request's.
func FuzzKeepCandidatesFrom(f *testing.F) {
	f.Add("v=0\r\na=candidate:1 1 udp 2122260223 127.0.0.1 50000 typ host\r\na=candidate:2 1 udp 1 10.0.0.1 5 typ host\r\n")
	f.Add("a=candidate:\r\na=candidate:1 1 udp 1 ::ffff:127.0.0.1 1 typ host\na=candidate:x y z w 127.0.0.1\n")
	from := netip.MustParseAddr("127.0.0.1")
	f.Fuzz(func(t *testing.T, offer string) {
		got := keepCandidatesFrom(offer, from)
		if len(got) > len(offer) {
			t.Fatalf("output longer than input")
		}
		rest := offer
		for line := range strings.Lines(got) {
			i := strings.Index(rest, line)
			if i < 0 {
				t.Fatalf("line %q not in the offer, in order", line)
			}
			rest = rest[i+len(line):]
			if c, ok := strings.CutPrefix(line, "a=candidate:"); ok {
				fields := strings.Fields(c)
				if ip, err := netip.ParseAddr(fields[4]); err != nil || ip.Unmap() != from {
					t.Fatalf("kept candidate %q", line)
				}
			}
		}
	})
}
