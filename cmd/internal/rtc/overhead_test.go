package rtc

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"testing"
	"time"

	"github.com/pion/webrtc/v4"

	"github.com/snapwire/snapwire/internal/acceptance"
)

// pairTotals sums the application (non-STUN) packets and UDP payload
// bytes pc sent on its candidate pairs (pion's ICE counts them).
func pairTotals(pc *webrtc.PeerConnection) (packets, bytes uint64) {
	for _, st := range pc.GetStats() {
		if p, ok := st.(webrtc.ICECandidatePairStats); ok {
			packets += uint64(p.PacketsSent)
			bytes += p.BytesSent
		}
	}
	return packets, bytes
}

// The cost of a packet on the data channel, measured on loopback: the
// server sends 100-byte messages at 60 Hz and the client answers each
// with one, as a game's snapshots and commands; every UDP datagram either
// side sends (DTLS records of SCTP packets: DATA, and SACK bundled or
// alone) is counted by pion's ICE. docs/PROTOCOL.md states the figure:
// the DTLS record header and AEAD expansion, the SCTP common header and
// DATA chunk header (RFCs 6347, 5288, 9260) come to 65 bytes before
// padding and acknowledgements.
func TestChannelOverhead(t *testing.T) {
	acceptance.Require(t, "webrtc")
	if testing.Short() {
		t.Skip("real WebRTC connection, 3 s")
	}
	s, c, pr, got := loopbackPair(t, 20*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	const size, n = 100, 180
	pkt, buf := make([]byte, size), make([]byte, MaxMessage)
	round := func() {
		s.Send(pr.addr, pkt)
		if _, err := c.Read(buf); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Write(pkt); err != nil {
			t.Fatal(err)
		}
		select {
		case <-got:
		case <-ctx.Done():
			t.Fatal("stalled")
		}
	}
	for range 20 {
		round()
	}
	time.Sleep(300 * time.Millisecond)
	sp0, sb0 := pairTotals(pr.pc)
	cp0, cb0 := pairTotals(c.pc)
	tick := time.NewTicker(time.Second / 60)
	defer tick.Stop()
	for range n {
		<-tick.C
		round()
	}
	time.Sleep(300 * time.Millisecond) // the last acknowledgements
	sp1, sb1 := pairTotals(pr.pc)
	cp1, cb1 := pairTotals(c.pc)
	pkts, bytes := (sp1-sp0)+(cp1-cp0), (sb1-sb0)+(cb1-cb0)
	if md, ok := pr.pc.SCTP().Metadata(); ok {
		t.Logf("SCTP: %+v", md)
	}
	msgs := uint64(2 * n)
	perMsg := float64(bytes-msgs*size) / float64(msgs)
	t.Logf("%d messages of %d bytes: %d datagrams (%.2f per message), %d UDP payload bytes: %.1f bytes of DTLS+SCTP per message "+
		"(+%.1f IPv4/UDP: %.1f on the wire, against 28 for a bare UDP datagram)",
		msgs, size, pkts, float64(pkts)/float64(msgs), bytes, perMsg, 28*float64(pkts)/float64(msgs), perMsg+28*float64(pkts)/float64(msgs))
	// 65 bytes of headers are the least a DATA chunk costs (doc comment);
	// SACKs, alone or bundled, add to it.
	if perMsg < 65 || perMsg > 200 || pkts < msgs {
		t.Errorf("%.1f bytes per message, %d datagrams for %d messages", perMsg, pkts, msgs)
	}
}

// loopbackPair starts a server on 127.0.0.1 whose Inject signals got, dials it with the Go
// client (within timeout), and returns both once the server's end of the channel is open.
func loopbackPair(t *testing.T, timeout time.Duration) (s *Server, c *Conn, pr *peer, got chan struct{}) {
	t.Helper()
	got = make(chan struct{}, 1)
	loop := []netip.Addr{netip.MustParseAddr("127.0.0.1")}
	s, err := NewServer(Config{HostIPs: loop, Inject: func(netip.AddrPort, []byte) bool { got <- struct{}{}; return true }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: s}
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	c, err = Dial(ctx, "http://"+ln.Addr().String()+"/rtc", DialConfig{HostIPs: loop})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	for deadline := time.Now().Add(5 * time.Second); pr == nil && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		s.mu.RLock()
		for _, p := range s.peers {
			if p.ch.Load() != nil {
				pr = p
			}
		}
		s.mu.RUnlock()
	}
	if pr == nil {
		t.Fatal("the server's channel did not open")
	}
	return s, c, pr, got
}
