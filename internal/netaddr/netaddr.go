// Package netaddr turns the addresses people type on a command line into
// the netip.AddrPort that sockets, tokens and the cores use: an IP literal
// ("127.0.0.1:27960", "[::1]:27960") as it is, a host name
// ("localhost:27960", "game.example.org:27960") looked up with a bounded
// wait. Every snapwire command that takes an address goes through Resolve.
package netaddr

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"time"
)

// LookupTimeout bounds the name and port lookups of one Resolve.
const LookupTimeout = 5 * time.Second

// Resolve returns the address s ("HOST:PORT") names. HOST is an IP literal
// (an IPv6 one in brackets) or a host name; a name with IPv4 and IPv6
// addresses resolves to its first IPv4 one, as net.ResolveUDPAddr does, so
// that "localhost" meets servers that listen on 127.0.0.1. PORT is a
// number or a service name.
func Resolve(s string) (netip.AddrPort, error) {
	ctx, cancel := context.WithTimeout(context.Background(), LookupTimeout)
	defer cancel()
	return ResolveContext(ctx, s)
}

// ResolveDefaultPort is Resolve where the port may be left out: "HOST",
// "[v6]" and a bare IPv6 literal name port.
func ResolveDefaultPort(s string, port uint16) (netip.AddrPort, error) {
	if a, err := netip.ParseAddr(s); err == nil {
		return netip.AddrPortFrom(a, port), nil
	}
	full := s
	if _, _, err := net.SplitHostPort(s); err != nil {
		var ae *net.AddrError
		if errors.As(err, &ae) && ae.Err == "missing port in address" {
			full = net.JoinHostPort(trimBrackets(s), strconv.Itoa(int(port)))
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), LookupTimeout)
	defer cancel()
	return resolve(ctx, full, s)
}

func trimBrackets(s string) string {
	if len(s) >= 2 && s[0] == '[' && s[len(s)-1] == ']' {
		return s[1 : len(s)-1]
	}
	return s
}

// ResolveContext is Resolve with the lookups bounded by ctx.
func ResolveContext(ctx context.Context, s string) (netip.AddrPort, error) {
	return resolve(ctx, s, s)
}

// resolve resolves s; its errors name the address as typed.
func resolve(ctx context.Context, s, typed string) (netip.AddrPort, error) {
	all, err := resolveAll(ctx, s, typed)
	if err != nil {
		return netip.AddrPort{}, err
	}
	return all[0], nil
}

// resolveAll returns every address s names: the literal, or the host's
// addresses with the IPv4 ones first (each family in the resolver's
// order), at least one; localhost's include 127.0.0.1 and ::1.
func resolveAll(ctx context.Context, s, typed string) ([]netip.AddrPort, error) {
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return []netip.AddrPort{ap}, nil
	}
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		return nil, fmt.Errorf("address %q: want HOST:PORT, e.g. 127.0.0.1:27960, localhost:27960 or [::1]:27960", typed)
	}
	if host == "" {
		return nil, fmt.Errorf("address %q: no host (want HOST:PORT, e.g. 127.0.0.1:27960)", typed)
	}
	p, err := lookupPort(ctx, port)
	if err != nil {
		return nil, fmt.Errorf("address %q: port %q: %w", typed, port, err)
	}
	if a, err := netip.ParseAddr(host); err == nil {
		return []netip.AddrPort{netip.AddrPortFrom(a, p)}, nil
	}
	ips, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return nil, fmt.Errorf("address %q: %w", typed, err)
	}
	if h := strings.ToLower(strings.TrimSuffix(host, ".")); h == "localhost" || strings.HasSuffix(h, ".localhost") {
		// RFC 6761 §6.3: localhost names the loopback addresses, both
		// families, whatever a hosts file lists (this machine's maps it
		// to 127.0.0.1 only).
		ips = append(ips, netip.AddrFrom4([4]byte{127, 0, 0, 1}), netip.IPv6Loopback())
	}
	var v4, v6 []netip.AddrPort
	for _, ip := range ips {
		ap := netip.AddrPortFrom(ip.Unmap(), p)
		switch {
		case slices.Contains(v4, ap) || slices.Contains(v6, ap):
		case ap.Addr().Is4():
			v4 = append(v4, ap)
		default:
			v6 = append(v6, ap)
		}
	}
	if len(v4)+len(v6) == 0 {
		return nil, fmt.Errorf("address %q: host %q has no address", typed, host)
	}
	return append(v4, v6...), nil
}

// lookupPort reads a port number or looks a service name up ("http").
func lookupPort(ctx context.Context, port string) (uint16, error) {
	if n, err := strconv.ParseUint(port, 10, 16); err == nil {
		return uint16(n), nil
	}
	if port == "" {
		return 0, errors.New("missing")
	}
	if _, err := strconv.ParseUint(port, 10, 64); err == nil {
		return 0, errors.New("outside 0..65535")
	}
	n, err := net.DefaultResolver.LookupPort(ctx, "udp", port)
	if err != nil {
		return 0, err
	}
	return uint16(n), nil
}
