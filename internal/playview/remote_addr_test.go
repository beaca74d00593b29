package playview

import (
	"fmt"
	"net"
	"net/netip"
	"testing"
	"time"
)

// dialUDP binds the loopback of the server's family: a play client for a
// server on ::1 (by literal, or by localhost when it listens there only)
// reaches it; it used to bind 127.0.0.1 for any loopback server.
func TestDialUDPLoopbackFamily(t *testing.T) {
	srv, err := net.ListenUDP("udp6", &net.UDPAddr{IP: net.IPv6loopback})
	if err != nil {
		t.Skipf("no IPv6 loopback (::1) on this machine: %v", err)
	}
	defer srv.Close()
	port := srv.LocalAddr().(*net.UDPAddr).Port
	// The reader hands the remote only the server's packets; this server
	// sends none, so the remote is never used.
	got, link, err := dialUDP(fmt.Sprintf("[::1]:%d", port), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer link.Close()
	if want := netip.AddrPortFrom(netip.IPv6Loopback(), uint16(port)); got != want {
		t.Errorf("server address %v, want %v", got, want)
	}
	link.Send([]byte("hello"))
	srv.SetReadDeadline(time.Now().Add(10 * time.Second)) // bounds a failing test only
	buf := make([]byte, 64)
	n, from, err := srv.ReadFromUDPAddrPort(buf)
	if err != nil || string(buf[:n]) != "hello" || from.Addr() != netip.IPv6Loopback() {
		t.Errorf("server read %q from %v: %v", buf[:n], from, err)
	}
}
