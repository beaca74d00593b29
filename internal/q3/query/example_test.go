package query_test

import (
	"fmt"
	"net/netip"
	"time"

	"github.com/snapwire/snapwire/internal/q3/oob"
	"github.com/snapwire/snapwire/internal/q3/query"
)

// A server browser's getinfo, answered from what the game reports, read
// back as a browser reads it; then the same address asking faster than
// the ioq3 rate limit allows (a burst of 10, then one a second).
func ExampleResponder() {
	r := query.NewResponder(query.SourceFunc(func(st *query.Status) {
		st.Hostname, st.MapName, st.Protocol, st.MaxClients = "snapwire", "q3dm17", 68, 16
		st.Players = append(st.Players[:0], query.Player{Name: "ranger", Score: 12, Ping: 40}, query.Player{Name: "bot", Bot: true})
	}), query.Config{})
	browser := netip.MustParseAddrPort("198.51.100.5:40000")

	getinfo, _ := (&oob.GetInfo{Challenge: "xyz"}).Append(nil)
	reply, ok := r.Handle(0, browser, getinfo, nil)
	m, err := oob.ParseServerPacket(reply)
	info, _ := oob.ParseInfo(m.(*oob.InfoResponse).Info, oob.MaxInfoString)
	fmt.Println(ok, err, info.Value("hostname"), info.Value("mapname"), "clients", info.Value("clients"),
		"humans", info.Value("g_humanplayers"), "challenge", info.Value("challenge"))

	for range 20 {
		r.Handle(time.Millisecond, browser, getinfo, nil)
	}
	fmt.Printf("%+v\n", r.Stats())
	// Output:
	// true <nil> snapwire q3dm17 clients 2 humans 1 challenge xyz
	// {Info:10 Status:0 LimitedAddress:11 LimitedGlobal:0 Ignored:0}
}
