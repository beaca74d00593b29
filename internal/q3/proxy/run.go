package proxy

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"sync"
	"syscall"
	"time"

	"github.com/snapwire/snapwire/internal/q3/netchan"
)

// event is one packet read by a socket goroutine.
type event struct {
	client netip.AddrPort
	fromUp bool // read on the client's upstream socket (from the server)
	data   []byte
	err    error
}

// Run forwards packets between clients on listen and the server, through
// p, until ctx ends. One goroutine reads each socket; this one owns p.
func Run(ctx context.Context, listen *net.UDPConn, p *Proxy) error {
	start := time.Now()
	events := make(chan event, 256)
	done := make(chan struct{})
	var wg sync.WaitGroup
	ups := map[netip.AddrPort]*net.UDPConn{}
	defer func() {
		close(done)
		listen.Close()
		for _, u := range ups {
			u.Close()
		}
		wg.Wait()
	}()
	read := func(c *net.UDPConn, client netip.AddrPort, up bool) {
		defer wg.Done()
		buf := make([]byte, maxDatagram)
		for {
			n, from, err := c.ReadFromUDPAddrPort(buf)
			if err != nil {
				if errors.Is(err, net.ErrClosed) {
					return
				}
				if errors.Is(err, syscall.ECONNREFUSED) { // the server is not up (yet)
					continue
				}
				select {
				case events <- event{err: err}:
				case <-done:
				}
				return
			}
			if !up {
				client = netip.AddrPortFrom(from.Addr().Unmap(), from.Port())
			}
			select {
			case events <- event{client: client, fromUp: up, data: append([]byte(nil), buf[:n]...)}:
			case <-done:
				return
			}
		}
	}
	wg.Add(1)
	go read(listen, netip.AddrPort{}, false)
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev := <-events:
			if ev.err != nil && ev.fromUp {
				continue
			}
			if ev.err != nil {
				return ev.err
			}
			now := time.Since(start)
			if ev.fromUp {
				p.FromServer(now, ev.client, ev.data)
			} else if p.FromClient(now, ev.client, ev.data) == nil && ups[ev.client] == nil {
				u, err := net.DialUDP("udp4", nil, net.UDPAddrFromAddrPort(p.cfg.Target))
				if err != nil {
					return err
				}
				ups[ev.client] = u
				wg.Add(1)
				go read(u, ev.client, true)
			}
		case <-timer.C:
		}
		now := time.Since(start)
		out, expired, next, ok := p.Advance(now)
		for _, d := range out {
			if d.Dir == netchan.ClientToServer {
				if u := ups[d.Client]; u != nil {
					u.Write(d.Data)
				}
			} else {
				listen.WriteToUDPAddrPort(d.Data, d.Client)
			}
		}
		for _, a := range expired {
			if u := ups[a]; u != nil {
				u.Close()
				delete(ups, a)
			}
		}
		wake := time.Second // idle sweeps
		if ok {
			wake = min(wake, max(next-now, 0))
		}
		timer.Reset(wake)
	}
}
