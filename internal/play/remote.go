package play

import (
	"net"
	"net/netip"
	"time"

	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/examples/arena"
)

// remote carries the player's client over UDP to a "snapwire serve". A
// reader goroutine passes datagrams through a channel from a fixed pool of
// buffers; the client core runs on the session's goroutine (docs/ARCHITECTURE.md: one
// goroutine owns the game), which drains the channel at each step without
// waiting.
type remote struct {
	conn *net.UDPConn
	srv  netip.AddrPort
	cl   *client.Client
	pkts chan []byte
	free chan []byte
	done chan struct{}
}

const (
	remoteBuffers    = 256
	remoteBufferSize = 2048
)

func dial(opt Options, w *arena.World, input client.InputSource) (*remote, error) {
	srv, err := netip.ParseAddrPort(opt.Connect)
	if err != nil {
		ua, err2 := net.ResolveUDPAddr("udp", opt.Connect)
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
	r := &remote{conn: conn, srv: srv, pkts: make(chan []byte, remoteBuffers),
		free: make(chan []byte, remoteBuffers), done: make(chan struct{})}
	pool := make([]byte, remoteBuffers*remoteBufferSize)
	for i := range remoteBuffers {
		r.free <- pool[i*remoteBufferSize : (i+1)*remoteBufferSize]
	}
	cfg := client.Config{Name: opt.Name, Password: opt.Password, Token: opt.Token, Seed: opt.Seed}
	r.cl, err = client.New(cfg, w, input, client.SendFunc(func(to netip.AddrPort, p []byte) {
		conn.WriteToUDPAddrPort(p, to)
	}))
	if err != nil {
		conn.Close()
		return nil, err
	}
	go r.read()
	r.cl.Connect(0, srv)
	return r, nil
}

func (r *remote) read() {
	defer close(r.done)
	for {
		buf := <-r.free
		n, from, err := r.conn.ReadFromUDPAddrPort(buf[:cap(buf)])
		if err != nil {
			return // closed
		}
		if from.Addr().Unmap() != r.srv.Addr().Unmap() || from.Port() != r.srv.Port() {
			r.free <- buf
			continue
		}
		r.pkts <- buf[:n]
	}
}

// step hands the client the datagrams that arrived and advances it to now.
func (r *remote) step(now time.Duration) {
	for range remoteBuffers {
		select {
		case p := <-r.pkts:
			r.cl.HandlePacket(now, p)
			r.free <- p[:cap(p)]
			continue
		default:
		}
		break
	}
	r.cl.Advance(now)
}

// close disconnects cleanly, closes the socket and waits for the reader.
func (r *remote) close(now time.Duration) error {
	if r.cl.State() == client.Connected {
		r.cl.Disconnect(now)
	}
	err := r.conn.Close()
	// The reader may wait for a free buffer: give it one.
	for {
		select {
		case p := <-r.pkts:
			r.free <- p[:cap(p)]
			continue
		case <-r.done:
			return err
		}
	}
}
