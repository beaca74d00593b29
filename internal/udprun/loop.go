package udprun

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"sync/atomic"
	"time"
)

// Core is a protocol core as a Loop drives it. Every method runs on the
// goroutine that called Loop.Run.
type Core interface {
	// Start is called once when Run starts, before any packet or Do.
	Start(now time.Duration)
	// HandlePacket handles one datagram from from. pkt is valid only
	// during the call: its buffer goes back to the pool when the call
	// returns, so the core must copy what it keeps.
	HandlePacket(now time.Duration, from netip.AddrPort, pkt []byte)
	// Advance runs what is due by now and returns the time the core next
	// needs Advance, or done with the error Run returns.
	Advance(now time.Duration) (next time.Duration, done bool, err error)
	// Stop is called when Run's context is cancelled, before the socket
	// closes (a server sends its disconnects here).
	Stop(now time.Duration)
}

// Config tunes a Loop. The zero value is usable.
type Config struct {
	// Buffers is the number of packet buffers in the pool: how many
	// datagrams may wait for the owner before the reader drops. Default
	// 256.
	Buffers int
	// BufferSize is each buffer's size, the largest datagram received
	// whole (a longer one is truncated by the socket). Default 2048.
	BufferSize int
	// Filter, if set, is called on the reader goroutine for every
	// datagram; those it rejects are discarded without using a buffer and
	// counted in Stats.Filtered. It must be safe to call concurrently with
	// the owner (a client compares with its server's fixed address).
	Filter func(from netip.AddrPort) bool
}

const (
	defaultBuffers    = 256
	defaultBufferSize = 2048
)

// Stats are a Loop's reader counters. Stats may be called from any
// goroutine.
type Stats struct {
	Received   uint64 // datagrams queued for the owner
	Dropped    uint64 // datagrams dropped because every buffer was in use
	Injected   uint64 // packets Inject queued for the owner
	InjectDrop uint64 // packets Inject dropped: no free buffer, or too long
	Filtered   uint64 // datagrams Config.Filter rejected
	ReadErrors uint64 // socket read errors other than the socket closing
}

// ErrRunTwice is returned by a second call to Run: the first one closed
// the socket.
var ErrRunTwice = errors.New("udprun: Run called twice")

// Loop drives a Core of type C on a UDP socket in real time. Create it with
// New, run it with Run on the goroutine that is to own the core, and call
// Do from any other goroutine.
type Loop[C Core] struct {
	conn   *net.UDPConn
	core   C
	filter func(netip.AddrPort) bool

	calls   chan call[C]
	free    chan []byte // buffers the reader may fill
	pkts    chan packet // filled buffers for the owner
	scratch []byte      // the reader's buffer for datagrams it drops

	ran        atomic.Bool
	quit       chan struct{} // closed by the owner before it closes the socket
	readerDone chan struct{} // closed by the reader when it exits
	exited     chan struct{} // closed when Run has returned (or is about to)

	received, dropped, filtered, readErrors atomic.Uint64
	injected, injectDrop                    atomic.Uint64
}

type call[C Core] struct {
	f    func(now time.Duration, c C)
	done chan struct{}
}

// packet is a pool buffer holding n bytes from from.
type packet struct {
	buf  []byte
	n    int
	from netip.AddrPort
}

// New returns a Loop that will drive core on conn. The Loop owns conn from
// now on: Run closes it.
func New[C Core](conn *net.UDPConn, core C, cfg Config) *Loop[C] {
	if cfg.Buffers <= 0 {
		cfg.Buffers = defaultBuffers
	}
	if cfg.BufferSize <= 0 {
		cfg.BufferSize = defaultBufferSize
	}
	l := &Loop[C]{
		conn:       conn,
		core:       core,
		filter:     cfg.Filter,
		calls:      make(chan call[C]),
		free:       make(chan []byte, cfg.Buffers),
		pkts:       make(chan packet, cfg.Buffers),
		scratch:    make([]byte, cfg.BufferSize),
		quit:       make(chan struct{}),
		readerDone: make(chan struct{}),
		exited:     make(chan struct{}),
	}
	// One allocation for the whole pool. Every buffer is always in exactly
	// one place: the free list, the reader's hand, the packet queue or the
	// owner's hand. Both channels hold Buffers, so neither send blocks.
	pool := make([]byte, cfg.Buffers*cfg.BufferSize)
	for i := range cfg.Buffers {
		l.free <- pool[i*cfg.BufferSize : (i+1)*cfg.BufferSize : (i+1)*cfg.BufferSize]
	}
	return l
}

// Stats returns the reader's counters.
func (l *Loop[C]) Stats() Stats {
	return Stats{
		Received:   l.received.Load(),
		Dropped:    l.dropped.Load(),
		Filtered:   l.filtered.Load(),
		ReadErrors: l.readErrors.Load(),
		Injected:   l.injected.Load(),
		InjectDrop: l.injectDrop.Load(),
	}
}

// Inject queues pkt from from for the owner as if the socket had read
// it: the owner hands it to the core's HandlePacket like any datagram.
// It is the entry of packets that arrive by another transport (WebRTC
// data channels) into the one goroutine that owns the core. It copies
// pkt into a pool buffer, so pkt may be reused once it returns, and never
// blocks: with no free buffer, or a pkt longer than a buffer, it drops
// the packet (Stats.InjectDrop) and returns false, as the socket reader
// does. It may be called from any goroutine, before or after Run (once
// Run has returned the packet is never handled). It allocates nothing.
func (l *Loop[C]) Inject(from netip.AddrPort, pkt []byte) bool {
	var buf []byte
	select {
	case buf = <-l.free:
	default:
		l.injectDrop.Add(1)
		return false
	}
	if len(pkt) > len(buf) {
		l.free <- buf // never blocks: the buffer came from free
		l.injectDrop.Add(1)
		return false
	}
	n := copy(buf, pkt)
	l.injected.Add(1)
	l.pkts <- packet{buf: buf, n: n, from: from} // never blocks: see New
	return true
}

// Do runs f on the goroutine that owns the core, between packets and
// timer events, and waits for it. It returns true once f has returned,
// false without running f if ctx is done or Run has returned before the
// owner takes f. Once the owner has taken f (the hand-off is unbuffered:
// the owner runs f at once), Do waits for f to return even if ctx ends
// meanwhile, so f never runs after Do returns and whatever f wrote may be
// read once Do has returned, whatever it returned: the race-free reading
// of the packages' docs. Before Run starts, Do waits for it. f must not
// call Do.
func (l *Loop[C]) Do(ctx context.Context, f func(now time.Duration, c C)) bool {
	if ctx.Err() != nil {
		return false
	}
	done := make(chan struct{})
	select {
	case l.calls <- call[C]{f: f, done: done}:
	case <-ctx.Done():
		return false
	case <-l.exited:
		return false
	}
	<-done
	return true
}

// Run owns and drives the core until ctx is cancelled (it calls Stop and
// returns nil) or Advance reports done (it returns Advance's error). Before
// returning it closes the socket and waits for the reader goroutine. now,
// as the core sees it, is the wall-clock time since Run started.
func (l *Loop[C]) Run(ctx context.Context) error {
	if !l.ran.CompareAndSwap(false, true) {
		return ErrRunTwice
	}
	start := time.Now()
	go l.read()
	defer l.shutdown()

	l.core.Start(time.Since(start))
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			l.core.Stop(time.Since(start))
			return nil
		case p := <-l.pkts:
			l.core.HandlePacket(time.Since(start), p.from, p.buf[:p.n:p.n])
			l.free <- p.buf // the core no longer holds it (Core.HandlePacket)
		case c := <-l.calls:
			c.f(time.Since(start), l.core)
			close(c.done)
		case <-timer.C:
		}
		next, done, err := l.core.Advance(time.Since(start))
		if done {
			return err
		}
		// Go 1.23 timers: Reset needs no drain.
		timer.Reset(max(next-time.Since(start), 0))
	}
}

// Close releases the socket of a Loop whose Run was never called: Do
// returns false from then on and a later Run returns ErrRunTwice. Once Run
// has started it does nothing and returns nil (Run closes the socket when
// its context ends).
func (l *Loop[C]) Close() error {
	if !l.ran.CompareAndSwap(false, true) {
		return nil
	}
	close(l.exited)
	return l.conn.Close()
}

// WriteErrors counts a failed socket write, for the runners' senders.
type WriteErrors struct {
	n    atomic.Uint64
	last atomic.Value // error
}

// Add counts err if it is not nil.
func (w *WriteErrors) Add(err error) {
	if err != nil {
		w.n.Add(1)
		w.last.Store(errBox{err})
	}
}

type errBox struct{ err error }

// Get returns the number of failed writes and the last error.
func (w *WriteErrors) Get() (uint64, error) {
	b, _ := w.last.Load().(errBox)
	return w.n.Load(), b.err
}

// shutdown closes the socket, waits for the reader and marks Run returned.
func (l *Loop[C]) shutdown() {
	close(l.quit)
	l.conn.Close()
	<-l.readerDone
	close(l.exited)
}

// read is the reader goroutine: it fills pool buffers from the socket and
// queues them for the owner, dropping datagrams while the pool is empty.
func (l *Loop[C]) read() {
	defer close(l.readerDone)
	var buf []byte // the pool buffer in hand, nil if none was free
	for {
		if buf == nil {
			select {
			case buf = <-l.free:
			default:
			}
		}
		dst := buf
		if dst == nil {
			dst = l.scratch
		}
		n, from, err := l.conn.ReadFromUDPAddrPort(dst)
		if err != nil {
			if errors.Is(err, net.ErrClosed) || l.quitting() {
				return
			}
			l.readErrors.Add(1)
			continue
		}
		if l.filter != nil && !l.filter(from) {
			l.filtered.Add(1)
			continue // dst is reused for the next read
		}
		if buf == nil {
			// The read began with the pool empty; the owner may have
			// freed a buffer since.
			select {
			case buf = <-l.free:
				copy(buf, dst[:n])
			default:
				l.dropped.Add(1)
				continue
			}
		}
		l.received.Add(1)
		l.pkts <- packet{buf: buf, n: n, from: from} // never blocks: see New
		buf = nil
	}
}

func (l *Loop[C]) quitting() bool {
	select {
	case <-l.quit:
		return true
	default:
		return false
	}
}
