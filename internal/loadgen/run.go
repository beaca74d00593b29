package loadgen

// The real-time driver: many light clients over real UDP, one socket each.

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"runtime"
	"sync"
	"time"

	"github.com/snapwire/snapwire/internal/session"
)

// RunConfig configures Run. Zero fields take the defaults in brackets.
type RunConfig struct {
	// Server is the server's address.
	Server netip.AddrPort
	// Clients is the number of light clients.
	Clients int
	// Duration is how long the clients play once the first connects
	// (0: until ctx is done).
	Duration time.Duration
	// Config returns client i's configuration (its token, seed, name).
	Config func(i int) (Config, error)
	// Bases builds the game's map bases.
	Bases *Bases
	// Ramp is the interval between two clients' connects [2 ms]: a
	// server bounds the handshakes it answers.
	Ramp time.Duration
	// Workers is the number of tick goroutines [GOMAXPROCS]; Tick their
	// period [4 ms], the granularity of the clients' command schedule.
	Workers int
	Tick    time.Duration
}

func (c *RunConfig) defaults() {
	if c.Ramp <= 0 {
		c.Ramp = 2 * time.Millisecond
	}
	if c.Workers <= 0 {
		c.Workers = runtime.GOMAXPROCS(0)
	}
	c.Workers = min(c.Workers, max(c.Clients, 1))
	if c.Tick <= 0 {
		c.Tick = 4 * time.Millisecond
	}
}

// Result is what Run measured.
type Result struct {
	// Elapsed is the time from the first connect to the end of the run.
	Elapsed time.Duration
	// Clients holds each client's counters, taken at the end of the run
	// before it disconnected, and Errs the reason each one that was not
	// connected then had ended (nil for those still connected).
	Clients []Stats
	Errs    []error
	// Matches is the match each client joined (its Config.Match, "" the
	// default), by client index.
	Matches []string
}

// SourceAddr is the local address client i binds: a distinct address of
// 127.0.0.0/8 for a server on IPv4 loopback (127.1.0.1 to 127.1.0.250,
// then 127.1.1.1 and on, for 16 million clients; a
// server bounds the clients of one address, Advanced.MaxClientsPerIP), ::1
// for one on IPv6 loopback (one address: raise the server's per-address
// bound), the unspecified address otherwise.
func SourceAddr(server netip.Addr, i int) netip.Addr {
	server = server.Unmap()
	switch {
	case server.Is4() && server.IsLoopback():
		k := i / 250
		return netip.AddrFrom4([4]byte{127, byte(1 + k/256%254), byte(k % 256), byte(1 + i%250)})
	case server.IsLoopback():
		return netip.IPv6Loopback()
	case server.Is4():
		return netip.IPv4Unspecified()
	}
	return netip.IPv6Unspecified()
}

// slot is one light client with its socket. mu serialises the socket's
// reader goroutine and the worker that owns the slot: the core is not
// safe for concurrent use.
type slot struct {
	mu        sync.Mutex
	c         *Client
	conn      *net.UDPConn
	connectAt time.Duration
	started   bool
	match     string
}

// Run connects cfg.Clients light clients to cfg.Server, one every Ramp,
// plays for cfg.Duration (or until ctx is done), takes every client's
// counters, disconnects them cleanly and returns. An error means the run
// could not start (a socket, a configuration); a client that failed is in
// the Result.
func Run(ctx context.Context, cfg RunConfig) (Result, error) {
	cfg.defaults()
	if cfg.Clients <= 0 || cfg.Bases == nil || cfg.Config == nil {
		return Result{}, errors.New("loadgen: clients, bases and config are required")
	}
	slots := make([]*slot, cfg.Clients)
	defer func() {
		for _, s := range slots {
			if s != nil {
				s.conn.Close()
			}
		}
	}()
	for i := range slots {
		s, err := newSlot(cfg, i)
		if err != nil {
			return Result{}, err
		}
		slots[i] = s
	}
	start := time.Now()
	since := func() time.Duration { return time.Since(start) }
	var readers sync.WaitGroup
	for _, s := range slots {
		readers.Add(1)
		go func() {
			defer readers.Done()
			s.read(cfg.Server, since)
		}()
	}
	runCtx := ctx
	if cfg.Duration > 0 {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithTimeout(ctx, cfg.Duration)
		defer cancel()
	}
	var workers sync.WaitGroup
	for w := range cfg.Workers {
		workers.Add(1)
		go func() {
			defer workers.Done()
			tick(runCtx, cfg, slots, w, since)
		}()
	}
	workers.Wait()
	res := Result{Elapsed: since(), Clients: make([]Stats, len(slots)), Errs: make([]error, len(slots)), Matches: make([]string, len(slots))}
	now := since()
	for i, s := range slots {
		s.mu.Lock()
		res.Clients[i], res.Errs[i], res.Matches[i] = s.c.Stats(), s.c.Err(), s.match
		if !s.started {
			res.Errs[i] = errors.New("loadgen: not started before the run ended")
		}
		s.c.Disconnect(now)
		s.mu.Unlock()
	}
	for _, s := range slots {
		s.conn.Close()
	}
	readers.Wait()
	return res, nil
}

// newSlot binds client i's socket and creates the client.
func newSlot(cfg RunConfig, i int) (*slot, error) {
	ccfg, err := cfg.Config(i)
	if err != nil {
		return nil, err
	}
	src := SourceAddr(cfg.Server.Addr(), i)
	conn, err := net.ListenUDP("udp", net.UDPAddrFromAddrPort(netip.AddrPortFrom(src, 0)))
	if err != nil {
		return nil, fmt.Errorf("loadgen: client %d: %w", i, err)
	}
	s := &slot{conn: conn, connectAt: time.Duration(i) * cfg.Ramp, match: ccfg.Match}
	s.c, err = New(ccfg, cfg.Bases, session.SendFunc(func(to netip.AddrPort, p []byte) {
		_, _ = conn.WriteToUDPAddrPort(p, to) // a failed send is a lost packet to the protocol
	}))
	if err != nil {
		conn.Close()
		return nil, err
	}
	return s, nil
}

// read hands the slot's client every datagram from the server until the
// socket closes. Its one buffer is reused: the client copies what it
// keeps (as client.Client does, client/runner.go).
func (s *slot) read(server netip.AddrPort, since func() time.Duration) {
	var buf [2048]byte
	srv := server.Addr().Unmap()
	for {
		n, from, err := s.conn.ReadFromUDPAddrPort(buf[:])
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue
		}
		if from.Addr().Unmap() != srv || from.Port() != server.Port() {
			continue
		}
		s.mu.Lock()
		if s.started {
			s.c.HandlePacket(since(), buf[:n])
		}
		s.mu.Unlock()
	}
}

// tick is worker w: every cfg.Tick it connects the clients i ≡ w (mod
// Workers) whose turn came and advances those that are due, until ctx is
// done.
func tick(ctx context.Context, cfg RunConfig, slots []*slot, w int, since func() time.Duration) {
	t := time.NewTicker(cfg.Tick)
	defer t.Stop()
	for {
		now := since()
		for i := w; i < len(slots); i += cfg.Workers {
			s := slots[i]
			s.mu.Lock()
			switch {
			case !s.started && now >= s.connectAt:
				s.started = true
				s.c.Connect(now, cfg.Server)
			case s.started && now >= s.c.Next():
				s.c.Advance(now)
			}
			s.mu.Unlock()
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
