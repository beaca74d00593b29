package server

import (
	"context"
	"net"
	"net/netip"
	"time"

	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/udprun"
)

// Runner serves a Server on a UDP socket in real time. One goroutine (the
// one calling Run) owns the core: it runs frames on a timer and handles
// the packets a reader goroutine passes it through a channel (docs/ARCHITECTURE.md:
// "one goroutine owns a match"). Wall-clock time exists only here: the
// core's now is the time since Run started. The loop is internal/udprun's.
type Runner struct {
	conn *net.UDPConn
	srv  *Server
	loop *udprun.Loop[udpCore]
	// writeErrs counts sends the socket refused (a full buffer, an
	// unreachable network): the protocol treats them as losses.
	writeErrs udprun.WriteErrors
}

// udpCore adapts a Server to udprun.Core.
//
// Packet buffers are reused once HandlePacket returns (udprun.Core). The
// server keeps no slice of a packet: proto.Parse* copy strings and fixed
// fields out of it; netchan.Channel.Receive copies fragments into its
// reassembly buffer and decompresses into its own body buffer, and passes
// Handler slices valid only during the call; the channel handler
// (chanHandler, conn.go) parses commands into values through a
// bitmsg.Reader, whose methods only copy out (its stale buffer is Reset
// before its next use); Config.OnConnectionless's payload is documented as
// valid only during the call.
type udpCore struct{ s *Server }

func (c udpCore) Start(now time.Duration) {}

func (c udpCore) HandlePacket(now time.Duration, from netip.AddrPort, pkt []byte) {
	c.s.HandlePacket(now, from, pkt)
}

func (c udpCore) Advance(now time.Duration) (time.Duration, bool, error) {
	c.s.Advance(now)
	return c.s.Next(), false, nil
}

func (c udpCore) Stop(now time.Duration) { c.s.Shutdown(now) }

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
	r := &Runner{conn: conn}
	// Tokens name the server by its address: the one it listens on counts.
	local := conn.LocalAddr().(*net.UDPAddr).AddrPort()
	cfg.PublicAddrs = append(append([]netip.AddrPort(nil), cfg.PublicAddrs...),
		netip.AddrPortFrom(local.Addr().Unmap(), local.Port()))
	r.srv, err = New(cfg, g, settings, SendFunc(func(to netip.AddrPort, p []byte) {
		_, err := conn.WriteToUDPAddrPort(p, to)
		r.writeErrs.Add(err)
	}))
	if err != nil {
		conn.Close()
		return nil, err
	}
	r.loop = udprun.New(conn, udpCore{r.srv}, udprun.Config{})
	return r, nil
}

// Addr is the socket's address.
func (r *Runner) Addr() netip.AddrPort { return r.conn.LocalAddr().(*net.UDPAddr).AddrPort() }

// Do runs f on the goroutine that owns the server (for example ChangeMap
// or reading statistics) and waits for it; it returns false if Run is not
// running.
func (r *Runner) Do(ctx context.Context, f func(now time.Duration, s *Server)) bool {
	return r.loop.Do(ctx, func(now time.Duration, c udpCore) { f(now, c.s) })
}

// Run serves until ctx is cancelled; then it drops every client with a
// disconnect message, closes the socket, waits for the reader and returns
// nil.
func (r *Runner) Run(ctx context.Context) error { return r.loop.Run(ctx) }

// ReadStats are the socket reader's counters: datagrams received, and
// those dropped because the owner had not taken the earlier ones yet (its
// buffer pool was empty).
func (r *Runner) ReadStats() (received, dropped uint64) {
	st := r.loop.Stats()
	return st.Received, st.Dropped
}

// WriteErrors returns how many packets the socket failed to send and the
// last error; the protocol treats them as lost packets.
func (r *Runner) WriteErrors() (n uint64, last error) { return r.writeErrs.Get() }

// Close releases the socket of a Runner whose Run was never called (after
// Listen, when the program gives up before serving). Once Run has started
// it does nothing: Run closes the socket when its context ends.
func (r *Runner) Close() error { return r.loop.Close() }
