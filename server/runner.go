package server

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"sync/atomic"
	"time"

	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/transport"
	"github.com/snapwire/snapwire/internal/udprun"
)

// Runner serves a Server (Listen), or a Host's many matches (ListenHost),
// on a UDP socket in real time. One goroutine (the one calling Run) owns
// the core: it runs frames on a timer and handles
// the packets a reader goroutine passes it through a channel (docs/ARCHITECTURE.md:
// "one goroutine owns a match"). Wall-clock time exists only here: the
// core's now is the time since Run started. The loop is internal/udprun's.
type Runner struct {
	conn *net.UDPConn
	host *Host
	loop *udprun.Loop[udpCore]
	// writeErrs counts sends the socket refused (a full buffer, an
	// unreachable network): the protocol treats them as losses.
	writeErrs udprun.WriteErrors
	// extra is the transport attached for addresses outside UDP, set
	// before Run (attach) and only read after.
	extra   transport.Transport
	started atomic.Bool
}

// runnerHost is a Runner as the host a second transport attaches to
// (internal/transport: the contract sits below the server, so a transport
// does not import it). Only the tools attach one (cmd/internal/rtc), so
// the runner's side stays off its public API and is reached through
// serverhook.Host.
type runnerHost struct{ r *Runner }

var _ transport.Host = runnerHost{}

func (h runnerHost) Attach(prefix netip.Prefix, send func(to netip.AddrPort, p []byte)) error {
	return h.r.attach(prefix, send)
}

func (h runnerHost) Inject(from netip.AddrPort, pkt []byte) bool { return h.r.inject(from, pkt) }

// attached is the transport given to attach, by its prefix and its send.
type attached struct {
	prefix netip.Prefix
	send   func(to netip.AddrPort, p []byte)
}

func (a attached) Prefix() netip.Prefix             { return a.prefix }
func (a attached) Send(to netip.AddrPort, p []byte) { a.send(to, p) }

// udpCore adapts a Host to udprun.Core.
//
// Packet buffers are reused once HandlePacket returns (udprun.Core). The
// server keeps no slice of a packet: session.Parse* copy strings and fixed
// fields out of it; netchan.Channel.Receive copies fragments into its
// reassembly buffer and decompresses into its own body buffer, and passes
// Handler slices valid only during the call; the channel handler
// (chanHandler, conn.go) parses commands into values through a
// bitmsg.Reader, whose methods only copy out (its stale buffer is Reset
// before its next use); Advanced.OnConnectionless's payload is documented as
// valid only during the call.
type udpCore struct{ h *Host }

func (c udpCore) Start(now time.Duration) {}

func (c udpCore) HandlePacket(now time.Duration, from netip.AddrPort, pkt []byte) {
	c.h.HandlePacket(now, from, pkt)
}

func (c udpCore) Advance(now time.Duration) (time.Duration, bool, error) {
	c.h.Advance(now)
	return c.h.Next(), false, nil
}

func (c udpCore) Stop(now time.Duration) { c.h.Shutdown(now) }

// Listen binds a UDP socket on addr ("127.0.0.1:27960", port 0 for any)
// and creates a server on it running g loaded with settings: a Host whose
// one match is the default one, named "".
func Listen(addr string, cfg Config, g game.Game, settings string) (*Runner, error) {
	r, err := ListenHost(addr, cfg)
	if err != nil {
		return nil, err
	}
	if _, err := r.host.Create(0, "", r.host.cfg, g, settings); err != nil {
		r.conn.Close()
		return nil, err
	}
	return r, nil
}

// ListenHost binds a UDP socket on addr and serves a Host on it, with no
// match yet: create them with DoHost (Host.Create), before Run or while it
// runs. cfg is the host's (NewHost).
func ListenHost(addr string, cfg Config) (*Runner, error) {
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
	r.host, err = NewHost(cfg, SendFunc(func(to netip.AddrPort, p []byte) {
		if r.extra != nil && r.extra.Prefix().Contains(to.Addr()) {
			r.extra.Send(to, p)
			return
		}
		_, err := conn.WriteToUDPAddrPort(p, to)
		r.writeErrs.Add(err)
	}))
	if err != nil {
		conn.Close()
		return nil, err
	}
	r.loop = udprun.New(conn, udpCore{r.host}, udprun.Config{Filter: r.fromSocket})
	return r, nil
}

// fromSocket is the socket reader's filter: a datagram whose source is in
// the attached transport's range is a spoof, dropped.
func (r *Runner) fromSocket(from netip.AddrPort) bool {
	return r.extra == nil || !r.extra.Prefix().Contains(from.Addr().Unmap())
}

// errAttach is attach's error once Run has started or with a second
// transport.
var errAttach = errors.New("server: Attach must be called once, before Run")

// attach adds a second transport beside the UDP socket, such as WebRTC
// data channels to browsers, whose peers have synthetic addresses in
// prefix: the server's sends to those addresses go to send instead of the
// socket (send runs on the goroutine that owns the server, must not block
// and must not keep p), and the socket drops datagrams from them, so a
// spoofed datagram cannot speak for a peer of the transport. The
// transport's peers' packets enter through inject. It must be called
// before Run, at most once.
func (r *Runner) attach(prefix netip.Prefix, send func(to netip.AddrPort, p []byte)) error {
	if r.extra != nil || r.started.Load() {
		return errAttach
	}
	r.extra = attached{prefix, send}
	return nil
}

// inject hands the server a packet from from, an address of the attached
// transport, on the goroutine that owns it, as if the socket had read it.
// It copies pkt (the caller may reuse it at once), never blocks, and
// returns false when it drops the packet: no transport owns from, the
// packet buffer pool is full or pkt is longer than a buffer (2048 bytes).
// Safe from any goroutine; it allocates nothing.
func (r *Runner) inject(from netip.AddrPort, pkt []byte) bool {
	if r.extra == nil || !r.extra.Prefix().Contains(from.Addr()) {
		return false
	}
	return r.loop.Inject(from, pkt)
}

// Addr is the socket's address.
func (r *Runner) Addr() netip.AddrPort { return r.conn.LocalAddr().(*net.UDPAddr).AddrPort() }

// Do runs f on the goroutine that owns the server (for example ChangeMap,
// or reading statistics and the game's world for another goroutine: the
// race-free way, see the package doc) and waits for it to return. Before
// Run starts it waits for it; it returns false, without running f, if ctx
// is done or Run has returned before f's turn. On a Runner from ListenHost
// s is the default match (named ""), and f does not run when there is none.
func (r *Runner) Do(ctx context.Context, f func(now time.Duration, s *Server)) bool {
	ran := false
	ok := r.loop.Do(ctx, func(now time.Duration, c udpCore) {
		if s := c.h.Match(""); s != nil {
			f(now, s)
			ran = true
		}
	})
	return ok && ran
}

// DoHost runs f on the goroutine that owns the host, as Do, with the
// Host itself: to create and end matches, or read any of them.
func (r *Runner) DoHost(ctx context.Context, f func(now time.Duration, h *Host)) bool {
	return r.loop.Do(ctx, func(now time.Duration, c udpCore) { f(now, c.h) })
}

// Run serves until ctx is cancelled; then it drops every client with a
// disconnect message, closes the socket, waits for the reader and returns
// nil.
func (r *Runner) Run(ctx context.Context) error {
	r.started.Store(true)
	return r.loop.Run(ctx)
}

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
