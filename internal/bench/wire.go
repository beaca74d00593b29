package bench

import (
	"encoding/binary"
	"fmt"
	"net/netip"
	"time"

	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/netsim"
)

// wire is one client's link in both directions, simulated by package netsim: the link's
// loss and one-way delay are netsim's, decided per packet by its seeded generator as for
// any other snapwire test in virtual time. A packet here is a bundle (one snapshot in every
// pipeline and both schemes, or one acknowledgement in every pipeline), so the bundle waits
// in a queue at the sending end and only a 4-byte handle crosses the simulated network; the
// handle that arrives names the bundle, and the bundles queued before it were lost (the link
// has no jitter or reordering, so it delivers in order).
type wire struct {
	net      *netsim.Network
	srv, cli *netsim.Endpoint
	oneWay   game.Frame

	down     []*packet // snapshots sent, oldest first, neither delivered nor known lost
	downBase uint32    // handle of down[0]
	up       []ackPkt  // acknowledgements likewise
	upBase   uint32
	buf      [8]byte
}

var (
	wireServer = netip.MustParseAddrPort("10.0.0.1:27960")
	wireClient = netip.MustParseAddrPort("10.0.1.1:50000")
)

// newWire makes a link with the given loss (both directions) and one-way delay in frames.
func newWire(seed uint64, loss float64, oneWay game.Frame) (*wire, error) {
	n := netsim.New(seed)
	cfg := netsim.LinkConfig{Latency: frameTime(oneWay), Loss: loss}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	n.SetDefault(cfg)
	srv, err := n.Listen(wireServer)
	if err != nil {
		return nil, err
	}
	cli, err := n.Listen(wireClient)
	if err != nil {
		return nil, err
	}
	return &wire{net: n, srv: srv, cli: cli, oneWay: oneWay}, nil
}

// advance moves the link's clock to frame f, delivering what arrives by then.
func (w *wire) advance(f game.Frame) { w.net.AdvanceTo(frameTime(f)) }

// sendDown sends snapshot p to the client at the link's current time.
func (w *wire) sendDown(p *packet) error {
	binary.LittleEndian.PutUint32(w.buf[:], w.downBase+uint32(len(w.down)))
	w.down = append(w.down, p)
	return w.srv.WriteTo(w.buf[:4], wireClient)
}

// sendUp sends acknowledgement a to the server at the link's current time.
func (w *wire) sendUp(a ackPkt) error {
	binary.LittleEndian.PutUint32(w.buf[:], w.upBase+uint32(len(w.up)))
	w.up = append(w.up, a)
	return w.cli.WriteTo(w.buf[:4], wireServer)
}

// recvDown returns the next snapshot that has reached the client, and the snapshots lost
// before it (lost receives them, for reuse); ok is false when none has arrived.
func (w *wire) recvDown(lost func(*packet)) (p *packet, ok bool, err error) {
	k, ok, err := w.read(w.cli, wireServer, w.downBase, len(w.down))
	if !ok || err != nil {
		return nil, false, err
	}
	for _, q := range w.down[:k] {
		lost(q)
	}
	p = w.down[k]
	clear(w.down[:k+1])
	w.down = w.down[k+1:]
	w.downBase += uint32(k + 1)
	return p, true, nil
}

// recvUp returns the next acknowledgement that has reached the server; ok is false when
// none has arrived.
func (w *wire) recvUp() (a ackPkt, ok bool, err error) {
	k, ok, err := w.read(w.srv, wireClient, w.upBase, len(w.up))
	if !ok || err != nil {
		return ackPkt{}, false, err
	}
	a = w.up[k]
	clear(w.up[:k+1])
	w.up = w.up[k+1:]
	w.upBase += uint32(k + 1)
	return a, true, nil
}

// read takes one handle from e's inbox and returns its index in a queue of n bundles whose
// first has handle base.
func (w *wire) read(e *netsim.Endpoint, from netip.AddrPort, base uint32, n int) (int, bool, error) {
	m, src, ok := e.ReadFrom(w.buf[:])
	if !ok {
		return 0, false, nil
	}
	k := binary.LittleEndian.Uint32(w.buf[:]) - base
	if m != 4 || src != from || int64(k) >= int64(n) {
		return 0, false, fmt.Errorf("bench link: packet %x from %v is no queued bundle (%d queued)", w.buf[:m], src, n)
	}
	return int(k), true, nil
}

// frameTime is frame f's virtual time, the channel's and the link's clock.
func frameTime(f game.Frame) time.Duration { return time.Duration(f) * time.Second / FrameRate }
