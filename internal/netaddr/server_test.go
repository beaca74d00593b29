package netaddr

import (
	"fmt"
	"net"
	"net/netip"
	"testing"

	"github.com/snapwire/snapwire/internal/netchan"
	"github.com/snapwire/snapwire/internal/session"
)

// fakeServer answers every getchallenge on a loopback socket of ip with a
// challenge for its nonce, as a snapwire server's handshake does; with
// silent it reads and answers nothing. It returns the port.
func fakeServer(t *testing.T, ip net.IP, silent bool) uint16 {
	t.Helper()
	c, err := net.ListenUDP("udp", &net.UDPAddr{IP: ip})
	if err != nil {
		t.Skipf("no loopback %v: %v", ip, err)
	}
	t.Cleanup(func() { c.Close() })
	go func() {
		buf := make([]byte, 2048)
		for {
			n, from, err := c.ReadFromUDPAddrPort(buf)
			if err != nil {
				return
			}
			if silent || !netchan.IsConnectionless(buf[:n]) {
				continue
			}
			m, err := session.ParseGetChallenge(buf[4:n])
			if err != nil {
				continue
			}
			c.WriteToUDPAddrPort(netchan.AppendConnectionless(nil, session.Challenge{Nonce: m.Nonce}.Append(nil)), from)
		}
	}()
	return uint16(c.LocalAddr().(*net.UDPAddr).Port)
}

// ResolveServer takes localhost's address where a server answers: ::1 for
// a server on ::1 only (the hosts file may list 127.0.0.1 alone), and
// Resolve's 127.0.0.1 for a server there or none.
func TestResolveServerLocalhost(t *testing.T) {
	p6 := fakeServer(t, net.IPv6loopback, false)
	got, err := ResolveServer(fmt.Sprintf("localhost:%d", p6))
	if want := netip.AddrPortFrom(netip.IPv6Loopback(), p6); err != nil || got != want {
		t.Errorf("a server on ::1: ResolveServer(localhost:%d) = %v, %v; want %v", p6, got, err, want)
	}
	p4 := fakeServer(t, net.IPv4(127, 0, 0, 1), false)
	got, err = ResolveServer(fmt.Sprintf("localhost:%d", p4))
	if want := netip.AddrPortFrom(netip.AddrFrom4([4]byte{127, 0, 0, 1}), p4); err != nil || got != want {
		t.Errorf("a server on 127.0.0.1: ResolveServer(localhost:%d) = %v, %v; want %v", p4, got, err, want)
	}
	// A socket that never answers (a server not up yet): Resolve's.
	q := fakeServer(t, net.IPv6loopback, true)
	got, err = ResolveServer(fmt.Sprintf("localhost:%d", q))
	if want := netip.AddrPortFrom(netip.AddrFrom4([4]byte{127, 0, 0, 1}), q); err != nil || got != want {
		t.Errorf("no server: ResolveServer(localhost:%d) = %v, %v; want %v", q, got, err, want)
	}
	// Literals are not probed.
	if got, err := ResolveServer("[::1]:1"); err != nil || got != netip.MustParseAddrPort("[::1]:1") {
		t.Errorf("ResolveServer([::1]:1) = %v, %v", got, err)
	}
}

func TestResolveAllLocalhost(t *testing.T) {
	all, err := resolveAll(t.Context(), "localhost:5", "localhost:5")
	if err != nil || len(all) < 2 || all[0] != netip.MustParseAddrPort("127.0.0.1:5") || all[len(all)-1] != netip.MustParseAddrPort("[::1]:5") {
		t.Errorf("resolveAll(localhost:5) = %v, %v; want 127.0.0.1 first and ::1 last", all, err)
	}
}
