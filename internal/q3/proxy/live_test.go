package proxy

import (
	"context"
	"net"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/snapwire/snapwire/internal/acceptance"
	"github.com/snapwire/snapwire/internal/oaserver"
	"github.com/snapwire/snapwire/internal/q3/client"
	"github.com/snapwire/snapwire/netsim"
)

// TestLiveProxy puts the proxy, with latency, jitter and 5% loss each
// way, between our client and a real OpenArena server in plain protocol
// 68 (legacy framing: the tap must recover the XOR keys) for 8 s.
func TestLiveProxy(t *testing.T) {
	acceptance.Require(t, "q3live")
	oaserver.Need(t, oaserver.Binary)
	srv := oaserver.Start(t, oaserver.Options{Protocol68: true, Bots: []string{"Liz"}})
	ln, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	link := netsim.LinkConfig{Latency: 20 * time.Millisecond, Jitter: 5 * time.Millisecond, Loss: 0.05}
	var log strings.Builder
	p, err := New(Config{Target: srv.Addr, Up: link, Down: link, Seed: 1, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); Run(ctx, ln, p) }()

	paddr := ln.LocalAddr().(*net.UDPAddr).AddrPort()
	cn, err := client.Dial(client.Config{Name: "proxied", Protocol: 68, Seed: 3, Commands: []string{"say through the proxy"}}, netip.AddrPort{}, paddr)
	if err != nil {
		t.Fatal(err)
	}
	defer cn.Close()
	rctx, rcancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer rcancel()
	runErr := cn.Run(rctx, 8*time.Second, nil)
	time.Sleep(100 * time.Millisecond) // let the disconnect cross the link
	cancel()
	wg.Wait()
	if runErr != nil {
		t.Fatal(runErr)
	}
	cs, ts, ls := cn.Stats(), p.Tap().Stats(), p.Link()
	t.Logf("client: %d snapshots, %d parse errors, %d dropped, ping %d ms; tap: %+v; link: sent %d lost %d delivered %d",
		cs.Snapshots, cs.ParseErrors, cs.Dropped, cs.PingMs, ts, ls.Sent, ls.Lost, ls.Delivered)
	// A lost gamestate fragment costs seconds (the client asks again once
	// a second before the gamestate, as ioq3's does): modest floors.
	if cs.ParseErrors != 0 || cs.NetchanErrors != 0 || cs.Snapshots < 40 {
		t.Errorf("client %+v", cs)
	}
	if ts.ParseErrors != 0 || ts.NetchanErrors != 0 || ts.Snapshots < cs.Snapshots || ts.ClientMessages < 100 || ls.Lost == 0 {
		t.Errorf("tap %+v link %+v\n%s", ts, ls, log.String()[:min(log.Len(), 2000)])
	}
	if !strings.Contains(log.String(), `clc_clientCommand 1 "say through the proxy"`) {
		t.Error("tap log lacks our say command")
	}
	wctx, wcancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer wcancel()
	if !srv.WaitLog(wctx, "say: proxied: through the proxy") {
		t.Error("server log lacks our chat line")
	}
}
