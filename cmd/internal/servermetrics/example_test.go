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

// core is a Source over a host core that the caller drives in virtual
// time; in production it is the *server.Runner, whose DoHost runs f on the
// game loop's goroutine.
type core struct {
	host *server.Host
	now  time.Duration
}

func (c *core) DoHost(_ context.Context, f func(time.Duration, *server.Host)) bool {
	f(c.now, c.host)
	return true
}
func (c *core) ReadStats() (received, dropped uint64) { return 0, 0 }

// A scrape of a server that ran 2 s with nobody connected and got one
// stray datagram: the Collector reads the core's own counters, so the
// frames and the rejected packet show up without the loop doing any
// metric work. The non-zero counters and gauges are listed: the process's
// totals, and the match's own under its name (the default match's, "").
func Example() {
	host, _ := server.NewHost(server.Config{}, server.SendFunc(func(netip.AddrPort, []byte) {}))
	srv, _ := host.Create(0, "", server.Config{}, guide.New(), "")
	src := &core{host: host}
	reg := prometheus.NewRegistry()
	reg.MustRegister(servermetrics.New(src))

	for ; src.now <= 2*time.Second; src.now = srv.Next() {
		srv.Advance(src.now) // each frame when due
	}
	host.HandlePacket(src.now, netip.MustParseAddrPort("203.0.113.9:4000"), []byte("not a snapwire packet"))

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
	// snapwire_match_frames_total match=: 120
	// snapwire_matches: 1
	// snapwire_packets_rejected_total reason=malformed: 1
	// snapwire_up: 1
	// <nil>
}
