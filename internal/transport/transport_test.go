package transport

import (
	"errors"
	"net/netip"
	"testing"
)

// host records what a transport attached to it with; it refuses a second
// Attach, as server.Runner does.
type host struct {
	prefix netip.Prefix
	send   func(to netip.AddrPort, p []byte)
}

func (h *host) Attach(prefix netip.Prefix, send func(to netip.AddrPort, p []byte)) error {
	if h.send != nil {
		return errors.New("attached twice")
	}
	h.prefix, h.send = prefix, send
	return nil
}

func (h *host) Inject(from netip.AddrPort, pkt []byte) bool { return h.prefix.Contains(from.Addr()) }

// peers is a transport of 100::/64 that records the addresses it sends to.
type peers struct{ sent []netip.AddrPort }

func (p *peers) Prefix() netip.Prefix             { return netip.MustParsePrefix("100::/64") }
func (p *peers) Send(to netip.AddrPort, _ []byte) { p.sent = append(p.sent, to) }

// Attach gives the host the transport's prefix and a send that reaches the
// transport, and passes on the host's refusal.
func TestAttach(t *testing.T) {
	var h host
	var p peers
	if err := Attach(&h, &p); err != nil {
		t.Fatal(err)
	}
	if h.prefix != p.Prefix() {
		t.Fatalf("host got prefix %v, want %v", h.prefix, p.Prefix())
	}
	to := netip.MustParseAddrPort("[100::7]:1")
	h.send(to, []byte{1})
	if len(p.sent) != 1 || p.sent[0] != to {
		t.Fatalf("the host's send reached the transport with %v, want [%v]", p.sent, to)
	}
	if err := Attach(&h, &p); err == nil {
		t.Fatal("the host's refusal of a second transport was lost")
	}
}
