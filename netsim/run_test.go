package netsim

import (
	"net/netip"
	"testing"
	"time"
)

// pinger is a core that sends a packet to its peer every period and echoes
// every packet it receives, noting when each arrived.
type pinger struct {
	ep      *Endpoint
	peer    netip.AddrPort
	period  time.Duration
	next    time.Duration
	echo    bool
	arrived []time.Duration
}

func (p *pinger) receive(now time.Duration, from netip.AddrPort, b []byte) {
	p.arrived = append(p.arrived, now)
	if p.echo && from == p.peer {
		p.ep.WriteTo(b, from)
	}
}

func (p *pinger) advance(now time.Duration) {
	for p.period > 0 && p.next <= now {
		p.ep.WriteTo([]byte{1}, p.peer)
		p.next += p.period
	}
}

func (p *pinger) nextAt() time.Duration {
	if p.period == 0 {
		return 1 << 62
	}
	return p.next
}

// Run delivers each packet at the time the link decides and steps to the
// cores' own Next: a ping every 50 ms over a 20 ms link is echoed back and
// arrives 40 ms after it was sent, with no step in between needed.
func TestRunSteps(t *testing.T) {
	n := New(1)
	n.SetDefault(LinkConfig{Latency: 20 * time.Millisecond})
	a, _ := n.Listen(netip.MustParseAddrPort("10.0.0.1:1"))
	b, _ := n.Listen(netip.MustParseAddrPort("10.0.0.2:1"))
	pa := &pinger{ep: a, peer: b.Addr(), period: 50 * time.Millisecond}
	pb := &pinger{ep: b, peer: a.Addr(), echo: true}
	nodes := []Node{
		{Endpoint: a, Receive: pa.receive, Advance: pa.advance, Next: pa.nextAt},
		{Endpoint: b, Receive: pb.receive, Advance: pb.advance, Next: pb.nextAt},
	}
	if got := n.Run(0, time.Second, nodes, make([]byte, 64)); got != time.Second {
		t.Fatalf("Run returned %v", got)
	}
	if len(pb.arrived) != 20 || len(pa.arrived) != 20 {
		t.Fatalf("b got %d pings, a %d echoes; want 20 and 20", len(pb.arrived), len(pa.arrived))
	}
	for i, at := range pa.arrived {
		if want := time.Duration(i)*50*time.Millisecond + 40*time.Millisecond; at != want {
			t.Fatalf("echo %d arrived at %v, want %v", i, at, want)
		}
	}
}

// A node whose Next is always in the past cannot stall Run: time still
// moves by at least a microsecond per step. Run itself allocates nothing.
func TestRunBoundedAndAllocFree(t *testing.T) {
	n := New(1)
	a, _ := n.Listen(netip.MustParseAddrPort("10.0.0.1:1"))
	steps := 0
	nodes := []Node{{Endpoint: a,
		Receive: func(time.Duration, netip.AddrPort, []byte) {},
		Advance: func(time.Duration) { steps++ },
		Next:    func() time.Duration { return 0 }}}
	n.Run(0, time.Millisecond, nodes, make([]byte, 64))
	if steps != 1000 {
		t.Fatalf("%d steps in 1 ms, want 1000 (one per microsecond)", steps)
	}
	buf := make([]byte, 64)
	now := time.Millisecond
	if allocs := testing.AllocsPerRun(10, func() { now = n.Run(now, now+100*time.Microsecond, nodes, buf) }); allocs != 0 {
		t.Fatalf("Run allocates %v times per call", allocs)
	}
}
