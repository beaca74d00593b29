package play

import (
	"net"
	"net/netip"
	"strings"
	"time"

	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/internal/netaddr"
	"github.com/snapwire/snapwire/internal/refgame"
)

// remote carries the player's client to a "snapwire serve": over UDP, or
// over a WebRTC data channel when Options.Connect is the server's
// signalling URL (http://HOST/rtc). A reader (a goroutine, or in the
// browser the data channel's message callback) passes packets through a
// channel from a fixed pool of buffers; the client core runs on the
// session's goroutine (docs/ARCHITECTURE.md: one goroutine owns the
// game), which drains the channel at each step without waiting.
type remote struct {
	cl   *client.Client
	link link
	pkts chan []byte
	free chan []byte
}

// link is the transport under a remote: send one packet; close it and
// wait for its reader, which has stopped queueing packets on return.
type link interface {
	send(p []byte)
	close() error
}

const (
	remoteBuffers    = 256
	remoteBufferSize = 2048
)

// webServer is the address the client core is given for a server reached
// by WebRTC: the data channel has one peer, so it names nothing; it is
// in the discard-only block (RFC 6666), as the server's peer addresses.
var webServer = netip.MustParseAddrPort("[100::]:1")

// isWebURL reports whether Options.Connect names a signalling URL.
func isWebURL(s string) bool {
	return strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://")
}

func dial(opt Options, w *refgame.World, input client.InputSource) (*remote, error) {
	r := &remote{pkts: make(chan []byte, remoteBuffers), free: make(chan []byte, remoteBuffers)}
	pool := make([]byte, remoteBuffers*remoteBufferSize)
	for i := range remoteBuffers {
		r.free <- pool[i*remoteBufferSize : (i+1)*remoteBufferSize]
	}
	var (
		srv netip.AddrPort
		err error
	)
	if isWebURL(opt.Connect) {
		srv = webServer
		r.link, err = dialWeb(opt.Connect, r)
	} else {
		srv, r.link, err = dialUDP(opt.Connect, r)
	}
	if err != nil {
		return nil, err
	}
	cfg := client.Config{Name: opt.Name, Password: opt.Password, Token: opt.Token}
	r.cl, err = client.New(cfg, w, input, client.SendFunc(func(to netip.AddrPort, p []byte) { r.link.send(p) }))
	if err != nil {
		r.link.close()
		return nil, err
	}
	r.cl.Connect(0, srv)
	return r, nil
}

// deliver queues p (copied into a pool buffer) for the session, or drops
// it when every buffer is queued: never blocks (a browser callback must
// not).
func (r *remote) deliver(p []byte) {
	select {
	case buf := <-r.free:
		if len(p) > len(buf) {
			r.free <- buf
			return
		}
		r.pkts <- buf[:copy(buf, p)] // never blocks: at most remoteBuffers buffers exist
	default:
	}
}

// udpLink is a UDP socket and its reader goroutine.
type udpLink struct {
	conn *net.UDPConn
	srv  netip.AddrPort
	done chan struct{}
}

func dialUDP(addr string, r *remote) (netip.AddrPort, link, error) {
	srv, err := netaddr.ResolveServer(addr)
	if err != nil {
		return srv, nil, err
	}
	local := &net.UDPAddr{}
	if a := srv.Addr().Unmap(); a.IsLoopback() {
		// The loopback of the server's family: a socket bound to
		// 127.0.0.1 cannot reach a server on ::1 (as client.Dial).
		local.IP = net.IPv4(127, 0, 0, 1)
		if a.Is6() {
			local.IP = net.IPv6loopback
		}
	}
	conn, err := net.ListenUDP("udp", local)
	if err != nil {
		return srv, nil, err
	}
	u := &udpLink{conn: conn, srv: srv, done: make(chan struct{})}
	go u.read(r)
	return srv, u, nil
}

func (u *udpLink) send(p []byte) { u.conn.WriteToUDPAddrPort(p, u.srv) }

func (u *udpLink) read(r *remote) {
	defer close(u.done)
	buf := make([]byte, remoteBufferSize)
	for {
		n, from, err := u.conn.ReadFromUDPAddrPort(buf)
		if err != nil {
			return // closed
		}
		if from.Addr().Unmap() == u.srv.Addr().Unmap() && from.Port() == u.srv.Port() {
			r.deliver(buf[:n])
		}
	}
}

func (u *udpLink) close() error {
	err := u.conn.Close()
	<-u.done
	return err
}

// step hands the client the packets that arrived and advances it to now.
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

// close disconnects cleanly and closes the link.
func (r *remote) close(now time.Duration) error {
	if r.cl.State() == client.Connected {
		r.cl.Disconnect(now)
	}
	return r.link.close()
}

// loopbackURL reports whether url's host is a loopback address or
// "localhost".
func loopbackURL(url string) bool {
	_, rest, _ := strings.Cut(url, "://")
	host, _, _ := strings.Cut(rest, "/")
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	if host == "localhost" {
		return true
	}
	a, err := netip.ParseAddr(strings.Trim(host, "[]"))
	return err == nil && a.IsLoopback()
}
