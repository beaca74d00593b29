package udpproxy

import (
	"context"
	"errors"
	"math/rand/v2"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/snapwire/snapwire/internal/netsimhook"
	"github.com/snapwire/snapwire/netsim"
)

// Proxy defaults.
const (
	defaultIdleTimeout = 60 * time.Second // a client mapping without traffic expires
	defaultMaxClients  = 1024             // at most this many client mappings at once
)

// maxDatagram is the largest UDP payload.
const maxDatagram = 65535

// Config configures a real-time UDP link simulator between clients
// and one server.
type Config struct {
	Listen, Target netip.AddrPort
	Up, Down       netsim.LinkConfig // Up: client -> server, Down: server -> client
	Seed           uint64

	IdleTimeout time.Duration // 0 = 60 s
	MaxClients  int           // 0 = 1024
}

// Stats counts what the proxy did. Up and Down follow the meaning of
// netsim.Stats for each direction (Sent: packets received by the proxy; Delivered:
// packets written on).
type Stats struct {
	Up, Down    netsim.Stats
	Clients     int    // current client mappings
	Opened      uint64 // client mappings created
	Expired     uint64 // client mappings closed for idleness
	Refused     uint64 // client packets dropped: mapping table full or upstream socket failed (in Up.Sent, not Up.Dropped)
	WriteErrors uint64 // packets the operating system refused to send (in Sent, not Dropped)
}

// Proxy is a real-time UDP proxy applying netsim.LinkConfigs to real programs'
// traffic: clients send to Addr, the proxy forwards each client's packets
// to Target from an upstream socket of its own (so the server's replies
// find their way back to that client), delaying, dropping, duplicating and
// reordering packets in each direction. One goroutine (Run's) owns the
// schedule, a timer-driven heap; one reader goroutine per socket feeds it.
type Proxy struct {
	cfg     Config
	conn    *net.UDPConn
	addr    netip.AddrPort
	network string
	started atomic.Bool

	mu    sync.Mutex
	stats Stats
}

// ErrRunning is returned by a second call of Run, or Run after Close.
var ErrRunning = errors.New("udpproxy: proxy already run or closed")

// New validates cfg and binds the listening socket, so Addr is known
// (cfg.Listen may have port 0) before Run.
func New(cfg Config) (*Proxy, error) {
	if !cfg.Listen.IsValid() || !cfg.Target.IsValid() {
		return nil, netsim.ErrInvalidAddr
	}
	if err := cfg.Up.Validate(); err != nil {
		return nil, err
	}
	if err := cfg.Down.Validate(); err != nil {
		return nil, err
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = defaultIdleTimeout
	}
	if cfg.MaxClients <= 0 {
		cfg.MaxClients = defaultMaxClients
	}
	network := "udp"
	if cfg.Listen.Addr().Unmap().Is4() {
		network = "udp4"
	}
	conn, err := net.ListenUDP(network, net.UDPAddrFromAddrPort(cfg.Listen))
	if err != nil {
		return nil, err
	}
	la := conn.LocalAddr().(*net.UDPAddr).AddrPort()
	return &Proxy{
		cfg:     cfg,
		conn:    conn,
		addr:    netip.AddrPortFrom(la.Addr().Unmap(), la.Port()),
		network: network,
	}, nil
}

// Addr is the address clients send to.
func (p *Proxy) Addr() netip.AddrPort { return p.addr }

// Close releases the listening socket of a proxy whose Run was never
// called. Once Run has started it does nothing: cancel Run's context.
func (p *Proxy) Close() error {
	if p.started.CompareAndSwap(false, true) {
		return p.conn.Close()
	}
	return nil
}

// Stats returns a snapshot of the counters; safe to call while Run runs.
func (p *Proxy) Stats() Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stats
}

// mapping is one client's path through the proxy. Its fields other than
// conn belong to the Run goroutine.
type mapping struct {
	client   netip.AddrPort
	conn     *net.UDPConn    // connected to Target; immutable
	up, down netsimhook.Plan // netsim's link model, one per direction
	lastSeen time.Duration
	closed   bool
}

// event is one packet read from a socket (or a fatal read error).
type event struct {
	m    *mapping // nil: from the listening socket
	from netip.AddrPort
	p    *netsimhook.Packet
	err  error
}

var packetPool = sync.Pool{New: func() any { return new(netsimhook.Packet) }}

func getPacket() *netsimhook.Packet { return packetPool.Get().(*netsimhook.Packet) }

func putPacket(p *netsimhook.Packet) {
	if cap(p.Buf) > 4*1500 {
		p.Buf = nil // do not keep jumbo buffers around
	}
	p.Buf = p.Buf[:0]
	packetPool.Put(p)
}

// Run forwards packets until ctx is cancelled, then closes every socket,
// waits for its goroutines and returns nil. It returns an error if the
// listening socket fails. Run may be called once.
func (p *Proxy) Run(ctx context.Context) error {
	if !p.started.CompareAndSwap(false, true) {
		return ErrRunning
	}
	r := &proxyRun{
		p:       p,
		start:   time.Now(),
		events:  make(chan event, 256),
		done:    make(chan struct{}),
		clients: make(map[netip.AddrPort]*mapping),
		upRng:   rand.New(rand.NewPCG(p.cfg.Seed, 0x5eed0001)),
		downRng: rand.New(rand.NewPCG(p.cfg.Seed, 0x5eed0002)),
	}
	defer r.shutdown()
	r.wg.Add(1)
	go r.read(p.conn, nil)
	return r.loop(ctx)
}

// proxyRun is the state of one Run, owned by its goroutine.
type proxyRun struct {
	p       *Proxy
	start   time.Time
	events  chan event
	done    chan struct{}
	wg      sync.WaitGroup
	clients map[netip.AddrPort]*mapping
	flight  netsimhook.Schedule
	seq     uint64
	upRng   *rand.Rand
	downRng *rand.Rand
}

func (r *proxyRun) now() time.Duration { return time.Since(r.start) }

func (r *proxyRun) loop(ctx context.Context) error {
	sweepEvery := max(r.p.cfg.IdleTimeout/4, 10*time.Millisecond)
	nextSweep := sweepEvery
	timer := time.NewTimer(sweepEvery)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev := <-r.events:
			if ev.err != nil {
				return ev.err
			}
			r.receive(ev, r.now())
		case <-timer.C:
		}
		now := r.now()
		r.flush(now)
		if now >= nextSweep {
			r.p.mu.Lock()
			r.sweep(now)
			r.p.mu.Unlock()
			nextSweep = now + sweepEvery
		}
		wake := nextSweep
		if pk, ok := r.flight.Peek(); ok && pk.At < wake {
			wake = pk.At
		}
		timer.Reset(max(wake-now, 0))
	}
}

// read feeds the packets of one socket to the Run goroutine until the
// socket is closed.
func (r *proxyRun) read(conn *net.UDPConn, m *mapping) {
	defer r.wg.Done()
	buf := make([]byte, maxDatagram)
	failures := 0
	for {
		n, from, err := conn.ReadFromUDPAddrPort(buf)
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			// A connected UDP socket reports ICMP port unreachable
			// (the server is not up yet) as a read error: keep going.
			if errors.Is(err, syscall.ECONNREFUSED) {
				continue
			}
			// Other errors: retry, unless the socket fails persistently.
			if failures++; failures < 100 {
				continue
			}
			if m != nil {
				return
			}
			select {
			case r.events <- event{err: err}:
			case <-r.done:
			}
			return
		}
		failures = 0
		pk := getPacket()
		pk.Buf = append(pk.Buf[:0], buf[:n]...)
		ev := event{m: m, from: netip.AddrPortFrom(from.Addr().Unmap(), from.Port()), p: pk}
		select {
		case r.events <- ev:
		case <-r.done:
			putPacket(pk)
			return
		}
	}
}

// receive applies the link of the packet's direction and schedules its
// copies.
func (r *proxyRun) receive(ev event, now time.Duration) {
	p := r.p
	p.mu.Lock()
	defer p.mu.Unlock()
	pk := ev.p
	if ev.m != nil {
		// server -> client
		m := ev.m
		st := &p.stats.Down
		st.Sent++
		st.BytesSent += uint64(len(pk.Buf))
		if m.closed {
			st.DroppedUnbound++
			putPacket(pk)
			return
		}
		m.lastSeen = now
		r.schedule(m.down, r.downRng, now, pk, p.cfg.Target, m.client, true)
		return
	}
	// client -> server
	st := &p.stats.Up
	st.Sent++
	st.BytesSent += uint64(len(pk.Buf))
	m := r.clients[ev.from]
	if m == nil {
		if len(r.clients) >= p.cfg.MaxClients {
			r.sweep(now)
		}
		if len(r.clients) >= p.cfg.MaxClients {
			p.stats.Refused++
			putPacket(pk)
			return
		}
		conn, err := net.DialUDP(r.p.network, nil, net.UDPAddrFromAddrPort(p.cfg.Target))
		if err != nil {
			p.stats.Refused++
			putPacket(pk)
			return
		}
		m = &mapping{client: ev.from, conn: conn, up: netsimhook.NewLink(p.cfg.Up, &p.stats.Up), down: netsimhook.NewLink(p.cfg.Down, &p.stats.Down)}
		r.clients[ev.from] = m
		p.stats.Opened++
		p.stats.Clients = len(r.clients)
		r.wg.Add(1)
		go r.read(conn, m)
	}
	m.lastSeen = now
	r.schedule(m.up, r.upRng, now, pk, ev.from, p.cfg.Target, false)
}

func (r *proxyRun) schedule(plan netsimhook.Plan, rng *rand.Rand, now time.Duration, pk *netsimhook.Packet, from, to netip.AddrPort, down bool) {
	k, at := plan(rng, now, len(pk.Buf))
	if k == 0 {
		putPacket(pk)
		return
	}
	for i := range k {
		c := pk
		if i > 0 {
			c = getPacket()
			c.Buf = append(c.Buf[:0], pk.Buf...)
		}
		c.At, c.Seq, c.From, c.To, c.Down = at[i], r.seq, from, to, down
		r.seq++
		r.flight.Push(c)
	}
}

// flush writes every packet due at or before now.
func (r *proxyRun) flush(now time.Duration) {
	p := r.p
	p.mu.Lock()
	defer p.mu.Unlock()
	for {
		pk, ok := r.flight.Peek()
		if !ok || pk.At > now {
			return
		}
		r.flight.Pop()
		var err error
		st := &p.stats.Up
		if pk.Down {
			st = &p.stats.Down
			if r.clients[pk.To] == nil {
				st.DroppedUnbound++
				putPacket(pk)
				continue
			}
			_, err = p.conn.WriteToUDPAddrPort(pk.Buf, pk.To)
		} else {
			m := r.clients[pk.From]
			if m == nil {
				st.DroppedUnbound++
				putPacket(pk)
				continue
			}
			_, err = m.conn.Write(pk.Buf)
		}
		if err != nil {
			p.stats.WriteErrors++
		} else {
			st.Delivered++
			st.BytesDelivered += uint64(len(pk.Buf))
		}
		putPacket(pk)
	}
}

// sweep closes client mappings idle for IdleTimeout. The caller holds p.mu.
func (r *proxyRun) sweep(now time.Duration) {
	expired := 0
	for addr, m := range r.clients {
		if now-m.lastSeen >= r.p.cfg.IdleTimeout {
			m.closed = true
			m.conn.Close()
			delete(r.clients, addr)
			expired++
		}
	}
	if expired == 0 {
		return
	}
	r.p.stats.Expired += uint64(expired)
	r.p.stats.Clients = len(r.clients)
}

// shutdown closes every socket and waits for the readers.
func (r *proxyRun) shutdown() {
	close(r.done)
	r.p.conn.Close()
	for _, m := range r.clients {
		m.conn.Close()
	}
	r.wg.Wait()
	r.p.mu.Lock()
	r.p.stats.Clients = 0
	r.p.mu.Unlock()
	for len(r.flight) > 0 {
		putPacket(r.flight.Pop())
	}
}
