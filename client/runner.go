package client

import (
	"context"
	"net"
	"net/netip"
	"sync/atomic"
	"time"

	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/udprun"
)

// Runner runs a Client on a UDP socket in real time. One goroutine (Run's)
// owns the core; a reader goroutine passes packets through a channel. The
// wall clock exists only here: the core's now is the time since Run
// started. The loop is internal/udprun's.
type Runner struct {
	conn   *net.UDPConn
	cl     *Client
	server netip.AddrPort
	loop   *udprun.Loop[udpCore]
	// writeErrs counts sends the socket refused: lost packets to the
	// protocol.
	writeErrs udprun.WriteErrors
	// ended is set once Run has returned: the client is nobody's then,
	// and After may read it.
	ended atomic.Bool
}

// udpCore adapts a Client to udprun.Core: Run connects, plays until the
// client is disconnected, and disconnects cleanly on cancellation.
//
// Packet buffers are reused once HandlePacket returns (udprun.Core). The
// client keeps no slice of a packet: session.Parse* copy strings and fixed
// fields out of it (Accept.Settings is a string); netchan.Channel.Receive
// copies fragments into its reassembly buffer and decompresses into its
// own body buffer, and passes Handler slices valid only during the call;
// the handler (client.go) reads snapshots and events through a
// bitmsg.Reader, whose methods only copy out, and the snapshot decoder and
// events.Read copy entity states and event payloads into their own
// buffers (the Reader's stale buffer is Reset before its next use);
// clienthook.Hooks.OnSnapshotData's data is documented as valid only during the
// call.
type udpCore struct {
	c      *Client
	server netip.AddrPort
}

func (u udpCore) Start(now time.Duration) { u.c.Connect(now, u.server) }

// HandlePacket ignores from: the loop's filter passes only the server's
// datagrams.
func (u udpCore) HandlePacket(now time.Duration, from netip.AddrPort, pkt []byte) {
	u.c.HandlePacket(now, pkt)
}

func (u udpCore) Advance(now time.Duration) (time.Duration, bool, error) {
	u.c.Advance(now)
	if u.c.State() == Disconnected {
		return 0, true, u.c.Err()
	}
	return u.c.Next(), false, nil
}

func (u udpCore) Stop(now time.Duration) { u.c.Disconnect(now) }

// Dial binds a UDP socket (on the loopback of the server's address family,
// 127.0.0.1 or ::1, when the server is on loopback, else on all
// interfaces) and creates a client of game g for the server at addr
// ("127.0.0.1:27960", "[::1]:27960" or a host name with a port); Run
// connects and plays.
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
	if a := srv.Addr().Unmap(); a.IsLoopback() {
		// The loopback of the server's own family: a socket bound to
		// 127.0.0.1 cannot reach a server on ::1.
		local.IP = net.IPv4(127, 0, 0, 1)
		if a.Is6() {
			local.IP = net.IPv6loopback
		}
	}
	conn, err := net.ListenUDP("udp", local)
	if err != nil {
		return nil, err
	}
	r := &Runner{conn: conn, server: srv}
	r.cl, err = New(cfg, g, input, SendFunc(func(to netip.AddrPort, p []byte) {
		_, err := conn.WriteToUDPAddrPort(p, to)
		r.writeErrs.Add(err)
	}))
	if err != nil {
		conn.Close()
		return nil, err
	}
	r.loop = udprun.New(conn, udpCore{c: r.cl, server: srv}, udprun.Config{
		Filter: func(from netip.AddrPort) bool { return fromServer(from, srv) },
	})
	return r, nil
}

// fromServer reports whether a datagram from from comes from the server
// at srv (an IPv4-mapped address matches its IPv4 form).
func fromServer(from, srv netip.AddrPort) bool {
	return from.Addr().Unmap() == srv.Addr().Unmap() && from.Port() == srv.Port()
}

// Do runs f on the goroutine that owns the client and waits for it: the
// race-free way for another goroutine (a renderer, an HTTP handler) to
// read the client's world and statistics (see the package doc). It waits
// for f to return; before Run starts it waits for Run; false, without
// running f, if ctx is done or Run has returned before f's turn (After
// reads the client then).
func (r *Runner) Do(ctx context.Context, f func(now time.Duration, c *Client)) bool {
	return r.loop.Do(ctx, func(now time.Duration, u udpCore) { f(now, u.c) })
}

// Run connects and plays until ctx is cancelled (then it disconnects
// cleanly and returns nil) or the client is disconnected (it returns the
// reason). It closes the socket and waits for its reader before returning.
func (r *Runner) Run(ctx context.Context) error {
	err := r.loop.Run(ctx)
	if err != udprun.ErrRunTwice {
		r.ended.Store(true)
	}
	return err
}

// After runs f on the client once Run has returned, on the caller's
// goroutine, and reports whether it did: false while Run is running or
// before it ran. It gives the client's last state, statistics and error
// after the server ended the session, when Do no longer can.
func (r *Runner) After(f func(c *Client)) bool {
	if !r.ended.Load() {
		return false
	}
	f(r.cl)
	return true
}

// WriteErrors returns how many packets the socket failed to send and the
// last error; the protocol treats them as lost packets.
func (r *Runner) WriteErrors() (n uint64, last error) { return r.writeErrs.Get() }

// Close releases the socket of a Runner whose Run was never called. Once
// Run has started it does nothing: Run closes the socket when it returns.
func (r *Runner) Close() error { return r.loop.Close() }
