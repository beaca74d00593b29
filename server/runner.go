package server

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"time"

	"github.com/snapwire/snapwire/game"
)

// Runner serves a Server on a UDP socket in real time. One goroutine (the
// one calling Run) owns the core: it runs frames on a timer and handles
// the packets a reader goroutine passes it through a channel (STYLE.md:
// "one goroutine owns a match"). Wall-clock time exists only here: the
// core's now is the time since Run started.
type Runner struct {
	conn  *net.UDPConn
	srv   *Server
	calls chan func(now time.Duration, s *Server)
}

type packet struct {
	from netip.AddrPort
	data []byte
}

// Listen binds a UDP socket on addr ("127.0.0.1:27960", port 0 for any)
// and creates a server on it running g loaded with settings.
func Listen(addr string, cfg Config, g game.Game, settings string) (*Runner, error) {
	ua, err := net.ResolveUDPAddr("udp", addr)
	if err != nil {
		return nil, err
	}
	conn, err := net.ListenUDP("udp", ua)
	if err != nil {
		return nil, err
	}
	r := &Runner{conn: conn, calls: make(chan func(time.Duration, *Server))}
	r.srv, err = New(cfg, g, settings, SendFunc(func(to netip.AddrPort, p []byte) {
		conn.WriteToUDPAddrPort(p, to)
	}))
	if err != nil {
		conn.Close()
		return nil, err
	}
	return r, nil
}

// Addr is the socket's address.
func (r *Runner) Addr() netip.AddrPort { return r.conn.LocalAddr().(*net.UDPAddr).AddrPort() }

// Do runs f on the goroutine that owns the server (for example ChangeMap
// or reading statistics) and waits for it; it returns false if Run is not
// running.
func (r *Runner) Do(ctx context.Context, f func(now time.Duration, s *Server)) bool {
	done := make(chan struct{})
	select {
	case r.calls <- func(now time.Duration, s *Server) { f(now, s); close(done) }:
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

// Run serves until ctx is cancelled; then it drops every client with a
// disconnect message, closes the socket, waits for the reader and returns
// nil.
func (r *Runner) Run(ctx context.Context) error {
	start := time.Now()
	now := func() time.Duration { return time.Since(start) }
	pkts := make(chan packet, 256)
	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		buf := make([]byte, 2048)
		for {
			n, from, err := r.conn.ReadFromUDPAddrPort(buf)
			if err != nil {
				if ctx.Err() != nil || isClosed(err) {
					return
				}
				continue
			}
			p := packet{from: from, data: append([]byte(nil), buf[:n]...)}
			select {
			case pkts <- p:
			case <-ctx.Done():
				return
			}
		}
	}()
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			r.srv.Shutdown(now())
			r.conn.Close()
			<-readerDone
			return nil
		case p := <-pkts:
			r.srv.HandlePacket(now(), p.from, p.data)
		case f := <-r.calls:
			f(now(), r.srv)
		case <-timer.C:
		}
		t := now()
		r.srv.Advance(t)
		if d := r.srv.Next() - now(); d > 0 {
			timer.Reset(d)
		} else {
			timer.Reset(0)
		}
	}
}

func isClosed(err error) bool { return errors.Is(err, net.ErrClosed) }
