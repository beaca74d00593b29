package client

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"os"
	"time"
)

// Conn is a Client on a real UDP socket.
type Conn struct {
	*Client
	conn   *net.UDPConn
	server netip.AddrPort
	start  time.Time
	wErrs  int
}

// Dial binds a UDP socket on laddr (an invalid laddr means 127.0.0.1 and
// an ephemeral port) and returns a client whose packets go to server.
func Dial(cfg Config, laddr, server netip.AddrPort) (*Conn, error) {
	if !laddr.IsValid() {
		laddr = netip.AddrPortFrom(netip.AddrFrom4([4]byte{127, 0, 0, 1}), 0)
	}
	uc, err := net.ListenUDP("udp4", net.UDPAddrFromAddrPort(laddr))
	if err != nil {
		return nil, err
	}
	cn := &Conn{conn: uc, server: server}
	cn.Client, err = New(cfg, func(p []byte) {
		if _, err := uc.WriteToUDPAddrPort(p, server); err != nil {
			cn.wErrs++
		}
	})
	if err != nil {
		uc.Close()
		return nil, err
	}
	return cn, nil
}

// LocalAddr is the socket's address.
func (cn *Conn) LocalAddr() netip.AddrPort { return cn.conn.LocalAddr().(*net.UDPAddr).AddrPort() }

// Close closes the socket.
func (cn *Conn) Close() error { return cn.conn.Close() }

// Run connects and plays until ctx ends, d passes (0: no limit) or the
// client is disconnected; tick, when set, is called after every step with
// the session time. Leaving because of ctx or d, it sends the disconnect.
// It returns the client's error (nil after a clean quit). Run owns the
// client while it runs: use tick to act on it.
func (cn *Conn) Run(ctx context.Context, d time.Duration, tick func(now time.Duration)) error {
	cn.start = time.Now()
	buf := make([]byte, 65536)
	next := cn.Advance(0)
	for {
		now := time.Since(cn.start)
		if cn.Phase() == Disconnected {
			return cn.Err()
		}
		if ctx.Err() != nil || (d > 0 && now >= d) {
			cn.Disconnect(now)
			return nil
		}
		wake := min(next, now+100*time.Millisecond) // look at ctx now and then
		if d > 0 {
			wake = min(wake, d)
		}
		if err := cn.conn.SetReadDeadline(cn.start.Add(wake)); err != nil {
			return err
		}
		n, from, err := cn.conn.ReadFromUDPAddrPort(buf)
		now = time.Since(cn.start)
		switch {
		case err == nil:
			if netip.AddrPortFrom(from.Addr().Unmap(), from.Port()) == cn.server {
				cn.HandlePacket(now, buf[:n])
			}
		case errors.Is(err, os.ErrDeadlineExceeded):
		default:
			return err
		}
		next = cn.Advance(now)
		if tick != nil {
			tick(now)
		}
	}
}
