package server

import (
	"context"
	"net"
	"net/netip"
	"sync"
	"testing"
	"time"

	"github.com/snapwire/snapwire/internal/serverhook"
	"github.com/snapwire/snapwire/internal/testgame"
	"github.com/snapwire/snapwire/internal/testwait"
	"github.com/snapwire/snapwire/internal/transport"
)

// fakeTransport owns 100::/64 and records what the server sends it.
type fakeTransport struct {
	mu   sync.Mutex
	sent []netip.AddrPort
	got  chan struct{}
}

func (f *fakeTransport) Prefix() netip.Prefix { return netip.MustParsePrefix("100::/64") }

func (f *fakeTransport) Send(to netip.AddrPort, p []byte) {
	f.mu.Lock()
	f.sent = append(f.sent, to)
	f.mu.Unlock()
	select {
	case f.got <- struct{}{}:
	default:
	}
}

// An attached transport (through serverhook.Host, as cmd/internal/rtc
// attaches) has its packets reach the core through inject and its
// answers go back to the transport, not the socket; inject refuses
// addresses outside the transport's range, the UDP socket drops
// datagrams claiming one (the filter), and attach works once, before Run.
//
// Guards against: a browser's answer sent to a UDP address, and a UDP
// datagram speaking for a browser.
func TestRunnerTransport(t *testing.T) {
	r, err := Listen("127.0.0.1:0", Config{}, testgame.New(), testgame.DefaultSettings)
	if err != nil {
		t.Fatal(err)
	}
	ft := &fakeTransport{got: make(chan struct{}, 1)}
	if err := transport.Attach(serverhook.Host(r), ft); err != nil {
		t.Fatal(err)
	}
	if err := transport.Attach(serverhook.Host(r), ft); err == nil {
		t.Error("a second Attach succeeded")
	}
	peer := netip.MustParseAddrPort("[100::5]:1")
	if r.inject(netip.MustParseAddrPort("127.0.0.1:9"), []byte{1}) {
		t.Error("Inject accepted an address outside the transport's range")
	}
	// The socket's filter: a datagram from the transport's range is
	// dropped, any other passes.
	if r.fromSocket(peer) || !r.fromSocket(netip.MustParseAddrPort("[::ffff:127.0.0.1]:9")) {
		t.Error("the socket filter lets a spoofed peer address in, or keeps a real one out")
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	defer func() {
		cancel()
		<-done
	}()
	if !testwait.Until(testwait.Hang, r.started.Load) {
		t.Fatal("Run did not start")
	}
	if err := transport.Attach(serverhook.Host(r), ft); err == nil {
		t.Error("Attach after Run succeeded")
	}
	if !r.inject(peer, oob(goodConnect(7).Append(nil))) {
		t.Fatal("Inject refused a peer's connect")
	}
	select {
	case <-ft.got:
	case <-time.After(testwait.Hang):
		t.Fatal("no answer through the transport")
	}
	ft.mu.Lock()
	if len(ft.sent) != 1 || ft.sent[0] != peer {
		t.Errorf("transport sent to %v, want [%v]", ft.sent, peer)
	}
	ft.mu.Unlock()
	// A UDP datagram from a real socket still gets its answer by UDP.
	c, err := net.DialUDP("udp", nil, net.UDPAddrFromAddrPort(r.Addr()))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Write(oob(goodConnect(8).Append(nil))); err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(testwait.Hang))
	if n, err := c.Read(make([]byte, 2048)); err != nil || n < 5 {
		t.Errorf("no UDP answer: %d %v", n, err)
	}
}
