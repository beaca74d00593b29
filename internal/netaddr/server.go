package netaddr

// The address of a snapwire server given by a name with several
// addresses: the one where a server answers.

import (
	"context"
	crand "crypto/rand"
	"encoding/binary"
	"net"
	"net/netip"
	"sync"
	"time"

	"github.com/snapwire/snapwire/internal/netchan"
	"github.com/snapwire/snapwire/internal/session"
)

// ProbeTimeout bounds ResolveServer's wait for an answer; ProbeRetry is
// its resend interval.
const (
	ProbeTimeout = time.Second
	ProbeRetry   = 200 * time.Millisecond
)

// ResolveServer is Resolve for the address of a snapwire server. A host
// name with several addresses ("localhost" is 127.0.0.1 and ::1) resolves
// to the first of them where a snapwire server answers a getchallenge
// (docs/PROTOCOL.md, "Session protocol": the server answers it with a
// stateless cookie and keeps nothing), all probed at once for up to
// ProbeTimeout, so that "localhost" meets a server listening only on ::1
// as well as one on 127.0.0.1. When none answers (the server is not up
// yet), it is Resolve's address, the first IPv4 one.
func ResolveServer(s string) (netip.AddrPort, error) {
	ctx, cancel := context.WithTimeout(context.Background(), LookupTimeout)
	defer cancel()
	all, err := resolveAll(ctx, s, s)
	if err != nil || len(all) == 1 {
		if err != nil {
			return netip.AddrPort{}, err
		}
		return all[0], nil
	}
	if ap, ok := probeServers(all, ProbeTimeout); ok {
		return ap, nil
	}
	return all[0], nil
}

// probeServers sends a getchallenge to each candidate from its own socket
// and returns the first candidate that answers with a challenge for it.
func probeServers(cands []netip.AddrPort, timeout time.Duration) (netip.AddrPort, bool) {
	won := make(chan netip.AddrPort, len(cands))
	done := make(chan struct{})
	var wg sync.WaitGroup
	for _, c := range cands {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if probeServer(c, timeout, done) {
				won <- c
			}
		}()
	}
	go func() { wg.Wait(); close(won) }()
	ap, ok := <-won
	close(done)
	return ap, ok
}

// probeServer reports whether a snapwire server at c answers a
// getchallenge within timeout (resent every ProbeRetry); it gives up
// early once done is closed.
func probeServer(c netip.AddrPort, timeout time.Duration, done <-chan struct{}) bool {
	local := netip.IPv6Unspecified()
	switch a := c.Addr(); {
	case a.Is4() && a.IsLoopback():
		local = netip.AddrFrom4([4]byte{127, 0, 0, 1})
	case a.Is4():
		local = netip.IPv4Unspecified()
	case a.IsLoopback():
		local = netip.IPv6Loopback()
	}
	conn, err := net.ListenUDP("udp", net.UDPAddrFromAddrPort(netip.AddrPortFrom(local, 0)))
	if err != nil {
		return false
	}
	defer conn.Close()
	var nb [8]byte
	_, _ = crand.Read(nb[:])
	nonce := binary.LittleEndian.Uint64(nb[:])
	probe := netchan.AppendConnectionless(nil, session.GetChallenge{Nonce: nonce}.Append(nil))
	end := time.Now().Add(timeout)
	buf := make([]byte, 2048)
	for time.Now().Before(end) {
		select {
		case <-done:
			return false
		default:
		}
		if _, err := conn.WriteToUDPAddrPort(probe, c); err != nil {
			return false // no route: this family is not there
		}
		wait := time.Now().Add(ProbeRetry)
		if wait.After(end) {
			wait = end
		}
		conn.SetReadDeadline(wait)
		for {
			n, from, err := conn.ReadFromUDPAddrPort(buf)
			if err != nil {
				break // the retry interval passed (or the port is closed: try again)
			}
			p := buf[:n]
			if from.Addr().Unmap() != c.Addr().Unmap() || from.Port() != c.Port() || !netchan.IsConnectionless(p) {
				continue
			}
			if k, ok := session.ConnectionlessKind(p[4:]); !ok || k != session.KindChallenge {
				continue
			}
			if m, err := session.ParseChallenge(p[4:]); err == nil && m.Nonce == nonce {
				return true
			}
		}
	}
	return false
}
