package client

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"time"

	"github.com/snapwire/snapwire/game"
)

// Runner runs a Client on a UDP socket in real time. One goroutine (Run's)
// owns the core; a reader goroutine passes packets through a channel. The
// wall clock exists only here: the core's now is the time since Run
// started.
type Runner struct {
	conn   *net.UDPConn
	cl     *Client
	server netip.AddrPort
	calls  chan func(now time.Duration, c *Client)
}

// Dial binds a UDP socket (on 127.0.0.1 when the server is on loopback,
// else on all interfaces) and creates a client of game g for the server
// at addr ("127.0.0.1:27960"); Run connects and plays.
func Dial(addr string, cfg Config, g game.Game, input InputSource) (*Runner, error) {
	srv, err := netip.ParseAddrPort(addr)
	if err != nil {
		ua, err2 := net.ResolveUDPAddr("udp", addr)
		if err2 != nil {
			return nil, err2
		}
		srv = ua.AddrPort()
	}
	local := &net.UDPAddr{}
	if srv.Addr().IsLoopback() {
		local.IP = net.IPv4(127, 0, 0, 1)
	}
	conn, err := net.ListenUDP("udp", local)
	if err != nil {
		return nil, err
	}
	r := &Runner{conn: conn, server: srv, calls: make(chan func(time.Duration, *Client))}
	r.cl, err = New(cfg, g, input, SendFunc(func(to netip.AddrPort, p []byte) {
		conn.WriteToUDPAddrPort(p, to)
	}))
	if err != nil {
		conn.Close()
		return nil, err
	}
	return r, nil
}

// Do runs f on the goroutine that owns the client and waits for it; false
// if Run is not running.
func (r *Runner) Do(ctx context.Context, f func(now time.Duration, c *Client)) bool {
	done := make(chan struct{})
	select {
	case r.calls <- func(now time.Duration, c *Client) { f(now, c); close(done) }:
	case <-ctx.Done():
		return false
	}
	select {
	case <-done:
		return true
	case <-ctx.Done():
		return false
	}
}

// Run connects and plays until ctx is cancelled (then it disconnects
// cleanly and returns nil) or the client is disconnected (it returns the
// reason). It closes the socket and waits for its reader before returning.
func (r *Runner) Run(ctx context.Context) error {
	start := time.Now()
	now := func() time.Duration { return time.Since(start) }
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	pkts := make(chan []byte, 256)
	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		buf := make([]byte, 2048)
		for {
			n, from, err := r.conn.ReadFromUDPAddrPort(buf)
			if err != nil {
				if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
					return
				}
				continue
			}
			if from.Addr().Unmap() != r.server.Addr().Unmap() || from.Port() != r.server.Port() {
				continue
			}
			select {
			case pkts <- append([]byte(nil), buf[:n]...):
			case <-ctx.Done():
				return
			}
		}
	}()
	defer func() {
		r.conn.Close()
		<-readerDone
	}()
	r.cl.Connect(now(), r.server)
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			r.cl.Disconnect(now())
			return nil
		case p := <-pkts:
			r.cl.HandlePacket(now(), p)
		case f := <-r.calls:
			f(now(), r.cl)
		case <-timer.C:
		}
		r.cl.Advance(now())
		if r.cl.State() == Disconnected {
			return r.cl.Err()
		}
		d := r.cl.Next() - now()
		timer.Reset(max(d, 0))
	}
}
