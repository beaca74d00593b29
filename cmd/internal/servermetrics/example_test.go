package servermetrics_test

import (
	"context"
	"fmt"
	"net/netip"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/snapwire/snapwire/cmd/internal/servermetrics"
	"github.com/snapwire/snapwire/examples/guide"
	"github.com/snapwire/snapwire/server"
)

// core is a Source over a server core that the caller drives in virtual
// time; in production it is the *server.Runner, whose Do runs f on the
// game loop's goroutine.
type core struct {
	srv *server.Server
	now time.Duration
}

func (c *core) Do(_ context.Context, f func(time.Duration, *server.Server)) bool {
	f(c.now, c.srv)
	return true
}
func (c *core) ReadStats() (received, dropped uint64) { return 0, 0 }

// A scrape of a server that ran 2 s with nobody connected and got one
// stray datagram: the Collector reads the core's own counters, so the
// frames and the rejected packet show up without the loop doing any
// metric work. The non-zero counters and gauges are listed.
func Example() {
	srv, _ := server.New(server.Config{}, guide.New(), "", server.SendFunc(func(netip.AddrPort, []byte) {}))
	src := &core{srv: srv}
	reg := prometheus.NewRegistry()
	reg.MustRegister(servermetrics.New(src))

	for ; src.now <= 2*time.Second; src.now = srv.Next() {
		srv.Advance(src.now) // each frame when due
	}
	srv.HandlePacket(src.now, netip.MustParseAddrPort("203.0.113.9:4000"), []byte("not a snapwire packet"))

	families, err := reg.Gather()
	for _, mf := range families {
		for _, m := range mf.GetMetric() {
			if v := m.GetCounter().GetValue() + m.GetGauge().GetValue(); v != 0 {
				fmt.Print(mf.GetName())
				for _, l := range m.GetLabel() {
					fmt.Printf(" %s=%s", l.GetName(), l.GetValue())
				}
				fmt.Println(":", v)
			}
		}
	}
	fmt.Println(err)
	// Output:
	// snapwire_frames_total: 120
	// snapwire_packets_rejected_total reason=malformed: 1
	// snapwire_up: 1
	// <nil>
}
