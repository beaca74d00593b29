package proxy

import (
	"errors"
	"io"
	"net/netip"
	"time"

	"github.com/snapwire/snapwire/internal/q3/netchan"
	"github.com/snapwire/snapwire/netsim"
)

// Defaults.
const (
	DefaultMaxClients  = 64
	DefaultIdleTimeout = 60 * time.Second
	maxDatagram        = 65535
)

// ErrFull is returned by FromClient when MaxClients are already mapped.
var ErrFull = errors.New("proxy: too many clients")

// Config configures a Proxy.
type Config struct {
	Target      netip.AddrPort    // the server
	Up, Down    netsim.LinkConfig // client -> server, server -> client
	Seed        uint64
	Log         io.Writer // the tap's log; nil logs nothing
	MaxClients  int       // 0: DefaultMaxClients
	IdleTimeout time.Duration
}

// Delivery is a packet leaving the proxy.
type Delivery struct {
	Client netip.AddrPort // whose packet it is
	Dir    Direction      // ClientToServer: write it to the server from the client's upstream socket
	Data   []byte         // valid until the next Advance
}

// Proxy is the I/O-free core: a netsim.Network between clients and the
// server, with a Tap on what comes out.
type Proxy struct {
	cfg     Config
	net     *netsim.Network
	server  *netsim.Endpoint
	clients map[netip.AddrPort]*peer
	tap     *Tap
	buf     []byte
	out     []Delivery
	bufs    [][]byte
}

type peer struct {
	ep       *netsim.Endpoint
	lastSeen time.Duration
}

// New returns a proxy for cfg.Target.
func New(cfg Config) (*Proxy, error) {
	if !cfg.Target.IsValid() {
		return nil, netsim.ErrInvalidAddr
	}
	if err := cfg.Up.Validate(); err != nil {
		return nil, err
	}
	if err := cfg.Down.Validate(); err != nil {
		return nil, err
	}
	if cfg.MaxClients <= 0 {
		cfg.MaxClients = DefaultMaxClients
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = DefaultIdleTimeout
	}
	p := &Proxy{
		cfg: cfg, net: netsim.New(cfg.Seed), clients: make(map[netip.AddrPort]*peer),
		tap: NewTap(cfg.Log, cfg.MaxClients), buf: make([]byte, maxDatagram),
	}
	var err error
	if p.server, err = p.net.Listen(cfg.Target); err != nil {
		return nil, err
	}
	return p, nil
}

// Tap is the decoder of the delivered packets.
func (p *Proxy) Tap() *Tap { return p.tap }

// Link returns the link counters (both directions).
func (p *Proxy) Link() netsim.Stats { return p.net.Stats() }

// Clients is the number of clients mapped.
func (p *Proxy) Clients() int { return len(p.clients) }

// FromClient takes a packet a client sent to the proxy at now.
func (p *Proxy) FromClient(now time.Duration, from netip.AddrPort, pkt []byte) error {
	p.net.AdvanceTo(now)
	c := p.clients[from]
	if c == nil {
		if len(p.clients) >= p.cfg.MaxClients {
			return ErrFull
		}
		ep, err := p.net.Listen(from)
		if err != nil {
			return err
		}
		p.net.SetLink(from, p.cfg.Target, p.cfg.Up)
		p.net.SetLink(p.cfg.Target, from, p.cfg.Down)
		c = &peer{ep: ep}
		p.clients[from] = c
	}
	c.lastSeen = now
	return c.ep.WriteTo(pkt, p.cfg.Target)
}

// FromServer takes a packet the server sent at now to the proxy's
// upstream socket of client.
func (p *Proxy) FromServer(now time.Duration, client netip.AddrPort, pkt []byte) error {
	p.net.AdvanceTo(now)
	if p.clients[client] == nil {
		return nil // expired: nobody to deliver to
	}
	return p.server.WriteTo(pkt, client)
}

// Advance delivers the packets due at now: it returns them (valid until
// the next call), logs them through the tap, and reports when the next
// one is due (ok false: nothing in flight). Clients idle for IdleTimeout
// are forgotten; expired lists them so the runner can close their sockets.
func (p *Proxy) Advance(now time.Duration) (out []Delivery, expired []netip.AddrPort, next time.Duration, ok bool) {
	p.net.AdvanceTo(now)
	p.out = p.out[:0]
	nb := 0
	take := func(d Delivery, n int) {
		if nb == len(p.bufs) {
			p.bufs = append(p.bufs, nil)
		}
		p.bufs[nb] = append(p.bufs[nb][:0], p.buf[:n]...)
		d.Data = p.bufs[nb]
		nb++
		p.out = append(p.out, d)
		p.tap.Packet(now, d.Client, d.Dir, d.Data)
	}
	for {
		n, from, ok := p.server.ReadFrom(p.buf)
		if !ok {
			break
		}
		take(Delivery{Client: from, Dir: netchan.ClientToServer}, n)
	}
	for addr, c := range p.clients {
		for {
			n, _, ok := c.ep.ReadFrom(p.buf)
			if !ok {
				break
			}
			take(Delivery{Client: addr, Dir: netchan.ServerToClient}, n)
		}
		if now-c.lastSeen >= p.cfg.IdleTimeout {
			c.ep.Close()
			delete(p.clients, addr)
			p.tap.Forget(addr)
			expired = append(expired, addr)
		}
	}
	next, ok = p.net.NextDelivery()
	return p.out, expired, next, ok
}
