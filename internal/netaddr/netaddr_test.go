package netaddr

import (
	"net/netip"
	"strings"
	"testing"
)

func TestResolve(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"127.0.0.1:27960", "127.0.0.1:27960"},
		{"[::1]:27960", "[::1]:27960"},
		{"[fe80::1%eth0]:1", "[fe80::1%eth0]:1"},
		{"0.0.0.0:0", "0.0.0.0:0"},
		{"localhost:27960", "127.0.0.1:27960"}, // the IPv4 address first, where servers listen by default
		{"LOCALHOST:1", "127.0.0.1:1"},
		{"127.0.0.1:65535", "127.0.0.1:65535"},
	} {
		got, err := Resolve(c.in)
		if err != nil || got != netip.MustParseAddrPort(c.want) {
			t.Errorf("Resolve(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	for _, c := range []struct{ in, want string }{
		{"localhost", "want HOST:PORT"},
		{"127.0.0.1", "want HOST:PORT"},
		{"::1", "want HOST:PORT"},
		{":27960", "no host"},
		{"localhost:", "port"},
		{"localhost:70000", "outside 0..65535"},
		{"127.0.0.1:-1", "port"},
		{"", "want HOST:PORT"},
	} {
		if got, err := Resolve(c.in); err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.in) {
			t.Errorf("Resolve(%q) = %v, %v; want an error naming the input and saying %q", c.in, got, err, c.want)
		}
	}
}

func TestResolveDefaultPort(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"127.0.0.1", "127.0.0.1:27960"},
		{"127.0.0.1:1", "127.0.0.1:1"},
		{"::1", "[::1]:27960"},
		{"[::1]", "[::1]:27960"},
		{"[::1]:2", "[::1]:2"},
		{"localhost", "127.0.0.1:27960"},
		{"localhost:3", "127.0.0.1:3"},
	} {
		got, err := ResolveDefaultPort(c.in, 27960)
		if err != nil || got != netip.MustParseAddrPort(c.want) {
			t.Errorf("ResolveDefaultPort(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	if got, err := ResolveDefaultPort("::bad::", 27960); err == nil {
		t.Errorf("::bad:: = %v", got)
	}
}
