package playview

import (
	"net"
	"net/netip"
	"strings"
	"time"

	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/netaddr"
)

// Remote carries the player's client to a server: over UDP, or over a
// WebRTC data channel when the address is the server's signalling URL
// (http://HOST/rtc). A reader (a goroutine, or in the browser the data
// channel's message callback) passes packets through a channel from a
// fixed pool of buffers; the client core runs on the window's goroutine
// (docs/ARCHITECTURE.md: one goroutine owns the game), which drains the
// channel at each Step without waiting.
type Remote struct {
	cl   *client.Client
	link Link
	pkts chan []byte
	free chan []byte
}

// Link is the transport under a Remote: Send sends one packet (or drops
// it, as a datagram is); Close closes it and waits for its reader, which
// has stopped delivering packets on return.
type Link interface {
	Send(p []byte)
	Close() error
}

// WebDialer opens a WebRTC data channel to a signalling URL, handing each
// packet that arrives to deliver (which copies it and never blocks).
type WebDialer func(url string, deliver func(p []byte)) (Link, error)

const (
	remoteBuffers = 256
	// RemoteBufferSize is the largest packet a Remote takes (rtc.MaxMessage).
	RemoteBufferSize = 2048
)

// webServer is the address the client core is given for a server reached
// by WebRTC: the data channel has one peer, so it names nothing; it is
// in the discard-only block (RFC 6666), as the server's peer addresses.
var webServer = netip.MustParseAddrPort("[100::]:1")

// IsWebURL reports whether addr names a signalling URL.
func IsWebURL(addr string) bool {
	return strings.HasPrefix(addr, "http://") || strings.HasPrefix(addr, "https://")
}

// Dial makes a client of cfg playing g with input and connects it to addr:
// a UDP server ("host:port"), or a signalling URL over web (nil: the
// browser's data channel, which only a js/wasm build has).
func Dial(addr string, cfg client.Config, g game.Game, input client.InputSource, web WebDialer) (*Remote, error) {
	r := &Remote{pkts: make(chan []byte, remoteBuffers), free: make(chan []byte, remoteBuffers)}
	pool := make([]byte, remoteBuffers*RemoteBufferSize)
	for i := range remoteBuffers {
		r.free <- pool[i*RemoteBufferSize : (i+1)*RemoteBufferSize]
	}
	var (
		srv netip.AddrPort
		err error
	)
	if IsWebURL(addr) {
		if web == nil {
			web = dialBrowser
		}
		srv = webServer
		r.link, err = web(addr, r.deliver)
	} else {
		srv, r.link, err = dialUDP(addr, r)
	}
	if err != nil {
		return nil, err
	}
	r.cl, err = client.New(cfg, g, input, client.SendFunc(func(to netip.AddrPort, p []byte) { r.link.Send(p) }))
	if err != nil {
		r.link.Close()
		return nil, err
	}
	r.cl.Connect(0, srv)
	return r, nil
}

// Client is the player's client.
func (r *Remote) Client() *client.Client { return r.cl }

// deliver queues p (copied into a pool buffer) for the client, or drops
// it when every buffer is queued: never blocks (a browser callback must
// not).
func (r *Remote) deliver(p []byte) {
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

func dialUDP(addr string, r *Remote) (netip.AddrPort, Link, error) {
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

func (u *udpLink) Send(p []byte) { u.conn.WriteToUDPAddrPort(p, u.srv) }

func (u *udpLink) read(r *Remote) {
	defer close(u.done)
	buf := make([]byte, RemoteBufferSize)
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

func (u *udpLink) Close() error {
	err := u.conn.Close()
	<-u.done
	return err
}

// Step hands the client the packets that arrived and advances it to now.
func (r *Remote) Step(now time.Duration) {
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

// Close disconnects cleanly at now and closes the link.
func (r *Remote) Close(now time.Duration) error {
	if r.cl.State() == client.Connected {
		r.cl.Disconnect(now)
	}
	return r.link.Close()
}

// LoopbackURL reports whether url's host is a loopback address or
// "localhost".
func LoopbackURL(url string) bool {
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
