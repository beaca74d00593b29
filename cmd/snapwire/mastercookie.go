package main

import (
	"net"
	"net/netip"
	"time"

	"github.com/snapwire/snapwire/internal/q3/master"
)

// masterCookie asks the master at ap for a getservers cookie and returns
// " cookie=C" to add to getservers, or "" when none came within timeout
// (a master without the extension answers nothing; it then lists what it
// sends an unproven asker).
func masterCookie(conn *net.UDPConn, ap netip.AddrPort, timeout time.Duration) string {
	if _, err := conn.WriteToUDPAddrPort(master.AppendCookieRequest(nil), ap); err != nil {
		return ""
	}
	buf := make([]byte, 2048)
	for deadline := time.Now().Add(min(timeout, time.Second)); ; {
		conn.SetReadDeadline(deadline)
		n, from, err := conn.ReadFromUDPAddrPort(buf)
		if err != nil {
			return ""
		}
		if netip.AddrPortFrom(from.Addr().Unmap(), from.Port()) != ap {
			continue
		}
		if c, ok := master.ParseCookie(buf[:n]); ok {
			return " cookie=" + c
		}
	}
}
