package netsim

import (
	"errors"
	"math/rand/v2"
	"net/netip"
	"time"
)

// Errors returned by the simulator.
var (
	ErrAddrInUse   = errors.New("netsim: address already in use")
	ErrInvalidAddr = errors.New("netsim: invalid address")
	ErrClosed      = errors.New("netsim: endpoint closed")
)

// defaultInboxLimit is the number of packets an endpoint's inbox holds
// before further arrivals are dropped (a full socket receive buffer).
const defaultInboxLimit = 1024

// linkKey names one direction of a link.
type linkKey struct{ from, to netip.AddrPort }

// Network is a simulated packet network in virtual time. Endpoints send
// datagrams to each other's addresses; each direction between two
// addresses behaves as its LinkConfig says. Time only moves when the
// caller calls AdvanceTo or Advance, and every random choice comes from a
// PCG generator seeded by New, so a given seed and call sequence always
// produce the same deliveries.
//
// A Network is not safe for concurrent use: one goroutine owns it (the
// test loop, or the goroutine that ticks a match).
type Network struct {
	rng   *rand.Rand
	now   time.Duration
	seq   uint64
	def   LinkConfig
	links map[linkKey]*link
	eps   map[netip.AddrPort]*Endpoint

	flight     schedule
	free       []*packet
	stats      Stats
	inboxLimit int
	filter     func(from, to netip.AddrPort, payload []byte) bool
}

// New returns an empty network at virtual time 0 whose random choices are
// drawn from a PCG generator seeded with seed.
func New(seed uint64) *Network {
	return &Network{
		rng:        rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		links:      make(map[linkKey]*link),
		eps:        make(map[netip.AddrPort]*Endpoint),
		inboxLimit: defaultInboxLimit,
	}
}

// SetDefault sets the configuration of every direction not set by SetLink,
// including those already used.
func (n *Network) SetDefault(cfg LinkConfig) {
	n.def = cfg
	for _, l := range n.links {
		if !l.custom {
			l.cfg = cfg
		}
	}
}

// SetLink sets the configuration of the direction from -> to, overriding
// the default. The bandwidth queue of that direction is kept.
func (n *Network) SetLink(from, to netip.AddrPort, cfg LinkConfig) {
	l := n.link(from, to)
	l.cfg = cfg
	l.custom = true
}

func (n *Network) link(from, to netip.AddrPort) *link {
	k := linkKey{from, to}
	l := n.links[k]
	if l == nil {
		l = &link{cfg: n.def}
		n.links[k] = l
	}
	return l
}

// SetInboxLimit sets how many packets an endpoint's inbox holds (default
// 1024); k < 1 is treated as 1.
func (n *Network) SetInboxLimit(k int) { n.inboxLimit = max(k, 1) }

// SetDropFilter installs a filter consulted for every packet sent: when it
// returns true the packet is dropped and counted in Stats.Filtered. It is
// for targeted drops in tests ("lose the third packet from the server").
// payload must not be retained. nil removes the filter.
func (n *Network) SetDropFilter(f func(from, to netip.AddrPort, payload []byte) bool) {
	n.filter = f
}

// Listen creates an endpoint bound to addr.
func (n *Network) Listen(addr netip.AddrPort) (*Endpoint, error) {
	if !addr.IsValid() {
		return nil, ErrInvalidAddr
	}
	if _, used := n.eps[addr]; used {
		return nil, ErrAddrInUse
	}
	e := &Endpoint{net: n, addr: addr}
	n.eps[addr] = e
	return e, nil
}

// Now is the current virtual time.
func (n *Network) Now() time.Duration { return n.now }

// AdvanceTo moves virtual time to t, delivering every packet due at or
// before t into its destination's inbox in (time, send order) order. A t
// earlier than Now is ignored: time never goes back.
func (n *Network) AdvanceTo(t time.Duration) {
	if t < n.now {
		return
	}
	for {
		p, ok := n.flight.Peek()
		if !ok || p.At > t {
			break
		}
		n.flight.Pop()
		n.now = p.At
		n.deliver(p)
	}
	n.now = t
}

// Advance moves virtual time forward by d.
func (n *Network) Advance(d time.Duration) { n.AdvanceTo(n.now + d) }

// NextDelivery returns the time the next packet in flight is due, and false
// when nothing is in flight. A test loop can step with
//
//	for t, ok := n.NextDelivery(); ok && t <= end; t, ok = n.NextDelivery() {
//		n.AdvanceTo(t)
//		// read inboxes, respond
//	}
func (n *Network) NextDelivery() (time.Duration, bool) {
	p, ok := n.flight.Peek()
	if !ok {
		return 0, false
	}
	return p.At, true
}

// InFlight is the number of packets sent but not yet delivered or dropped.
func (n *Network) inFlight() int { return len(n.flight) }

// Stats returns the counters of the whole network.
func (n *Network) Stats() Stats { return n.stats }

func (n *Network) deliver(p *packet) {
	e := n.eps[p.To]
	switch {
	case e == nil:
		n.stats.DroppedUnbound++
		n.release(p)
	case len(e.inbox)-e.head >= n.inboxLimit:
		n.stats.DroppedInbox++
		n.release(p)
	default:
		n.stats.Delivered++
		n.stats.BytesDelivered += uint64(len(p.Buf))
		e.inbox = append(e.inbox, p)
	}
}

func (n *Network) send(from, to netip.AddrPort, b []byte) {
	n.stats.Sent++
	n.stats.BytesSent += uint64(len(b))
	if n.filter != nil && n.filter(from, to, b) {
		n.stats.Filtered++
		return
	}
	k, at := n.link(from, to).plan(n.rng, n.now, len(b), &n.stats)
	for i := range k {
		p := n.acquire()
		p.At = at[i]
		p.Seq = n.seq
		n.seq++
		p.From, p.To = from, to
		p.Buf = append(p.Buf[:0], b...)
		n.flight.Push(p)
	}
}

func (n *Network) acquire() *packet {
	if k := len(n.free); k > 0 {
		p := n.free[k-1]
		n.free[k-1] = nil
		n.free = n.free[:k-1]
		return p
	}
	return new(packet)
}

func (n *Network) release(p *packet) {
	p.Buf = p.Buf[:0]
	n.free = append(n.free, p)
}

// Endpoint is a datagram socket on a Network, shaped like a
// net.PacketConn but non-blocking and addressed by netip.AddrPort.
type Endpoint struct {
	net    *Network
	addr   netip.AddrPort
	inbox  []*packet // FIFO: inbox[head:] are waiting
	head   int
	closed bool
}

// Addr is the endpoint's current address.
func (e *Endpoint) Addr() netip.AddrPort { return e.addr }

// WriteTo sends a copy of p to the address to at the network's current
// time. Whether and when it arrives is decided now by the link from this
// endpoint's address to to; an unbound destination is only noticed (and
// counted) when the packet arrives.
func (e *Endpoint) WriteTo(p []byte, to netip.AddrPort) error {
	if e.closed {
		return ErrClosed
	}
	if !to.IsValid() {
		return ErrInvalidAddr
	}
	e.net.send(e.addr, to, p)
	return nil
}

// ReadFrom takes the oldest packet from the inbox, copying it into p. Like
// a UDP socket it truncates a packet longer than p (n is the bytes copied).
// It never blocks: ok is false when the inbox is empty.
func (e *Endpoint) ReadFrom(p []byte) (n int, from netip.AddrPort, ok bool) {
	if e.head == len(e.inbox) {
		return 0, netip.AddrPort{}, false
	}
	pk := e.inbox[e.head]
	e.inbox[e.head] = nil
	e.head++
	if e.head == len(e.inbox) {
		e.inbox = e.inbox[:0]
		e.head = 0
	} else if e.head >= 64 && e.head*2 >= len(e.inbox) {
		k := copy(e.inbox, e.inbox[e.head:])
		clear(e.inbox[k:])
		e.inbox = e.inbox[:k]
		e.head = 0
	}
	n = copy(p, pk.Buf)
	from = pk.From
	e.net.release(pk)
	return n, from, true
}

// Pending is the number of packets waiting in the inbox.
func (e *Endpoint) Pending() int { return len(e.inbox) - e.head }

// Rebind moves the endpoint to addr, as a NAT that changes a client's
// port: packets sent to the old address from now on (including those in
// flight that arrive later) are dropped as unbound, and the peer sees
// packets sent from now on come from addr. Links configured with SetLink
// are keyed by address and do not follow the endpoint.
func (e *Endpoint) Rebind(addr netip.AddrPort) error {
	if e.closed {
		return ErrClosed
	}
	if !addr.IsValid() {
		return ErrInvalidAddr
	}
	if addr == e.addr {
		return nil
	}
	if _, used := e.net.eps[addr]; used {
		return ErrAddrInUse
	}
	delete(e.net.eps, e.addr)
	e.net.eps[addr] = e
	e.addr = addr
	return nil
}

// Close unbinds the endpoint and discards its inbox. Closing twice returns
// ErrClosed.
func (e *Endpoint) Close() error {
	if e.closed {
		return ErrClosed
	}
	e.closed = true
	delete(e.net.eps, e.addr)
	for i := e.head; i < len(e.inbox); i++ {
		e.net.release(e.inbox[i])
		e.inbox[i] = nil
	}
	e.inbox = e.inbox[:0]
	e.head = 0
	return nil
}
