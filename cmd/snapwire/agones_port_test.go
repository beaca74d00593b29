package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/snapwire/snapwire/agones"
	"github.com/snapwire/snapwire/internal/acceptance"
	"github.com/snapwire/snapwire/internal/agonestest"
)

// The server's public address under Agones is the GameServer's status
// address and port (the "default" one, else the first), once the sidecar
// reports an address.
func TestAgonesPublicAddr(t *testing.T) {
	f := agonestest.New()
	defer f.Close()
	c := agones.New(f.URL)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, tc := range []struct {
		address string
		ports   map[string]int
		want    string // "": no public address; "error ..."
	}{
		{"203.0.113.7", map[string]int{"default": 7777, "metrics": 9000}, "203.0.113.7:7777"},
		{"203.0.113.7", map[string]int{"game": 7001, "zmetrics": 9000}, "203.0.113.7:7001"},
		{"2001:db8::7", map[string]int{"default": 7002}, "[2001:db8::7]:7002"},
		{"localhost", map[string]int{"default": 7003}, "127.0.0.1:7003"},
		{"203.0.113.7", nil, ""},
		{"203.0.113.7", map[string]int{"default": 70000}, "error port 70000"},
	} {
		f.SetAddress(tc.address, tc.ports)
		ap, ok, err := agonesPublicAddr(ctx, c, time.Millisecond)
		got := ""
		switch {
		case err != nil:
			got = "error " + err.Error()
		case ok:
			got = ap.String()
		}
		if got != tc.want && !(strings.HasPrefix(tc.want, "error ") && strings.Contains(got, strings.TrimPrefix(tc.want, "error "))) {
			t.Errorf("address %q ports %v: %q, want %q", tc.address, tc.ports, got, tc.want)
		}
	}
	// A pod not scheduled yet: wait for the address.
	f.SetAddress("", map[string]int{"default": 7004})
	go func() {
		for len(f.Calls()) < 10 { // a few polls without an address first
			time.Sleep(time.Millisecond)
		}
		f.SetAddress("198.51.100.4", map[string]int{"default": 7004})
	}()
	if ap, ok, err := agonesPublicAddr(ctx, c, time.Millisecond); err != nil || !ok || ap != netip.MustParseAddrPort("198.51.100.4:7004") {
		t.Errorf("after scheduling: %v, %v, %v", ap, ok, err)
	}
	// Never scheduled: the wait ends with ctx, naming what is missing.
	f.SetAddress("", nil)
	short, cancelShort := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancelShort()
	if _, _, err := agonesPublicAddr(short, c, time.Millisecond); err == nil || !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "no address") {
		t.Errorf("never scheduled: %v", err)
	}
}

// hostPort stands in for a node's host port under a Dynamic port policy:
// it forwards each client's datagrams to target (set once the server
// listens) from a socket of its own, and the answers back, as the node
// forwards the host port to the pod's container port.
type hostPort struct {
	conn   *net.UDPConn
	target atomic.Pointer[netip.AddrPort]
	mu     sync.Mutex
	up     map[netip.AddrPort]*net.UDPConn
}

func newHostPort(t *testing.T) *hostPort {
	t.Helper()
	c, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	h := &hostPort{conn: c, up: map[netip.AddrPort]*net.UDPConn{}}
	t.Cleanup(h.close)
	go h.run()
	return h
}

func (h *hostPort) addr() netip.AddrPort { return h.conn.LocalAddr().(*net.UDPAddr).AddrPort() }

func (h *hostPort) close() {
	h.conn.Close()
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, u := range h.up {
		u.Close()
	}
}

func (h *hostPort) run() {
	buf := make([]byte, 2048)
	for {
		n, from, err := h.conn.ReadFromUDPAddrPort(buf)
		if err != nil {
			return
		}
		to := h.target.Load()
		if to == nil {
			continue
		}
		h.mu.Lock()
		u, ok := h.up[from]
		if !ok {
			if u, err = net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)}); err != nil {
				h.mu.Unlock()
				continue
			}
			h.up[from] = u
			go func() {
				b := make([]byte, 2048)
				for {
					n, _, err := u.ReadFromUDPAddrPort(b)
					if err != nil {
						return
					}
					h.conn.WriteToUDPAddrPort(b[:n], from)
				}
			}()
		}
		h.mu.Unlock()
		u.WriteToUDPAddrPort(buf[:n], *to)
	}
}

// Acceptance (issue 25, Agones with dynamic ports): serve --agones
// listens on its container port (127.0.0.1:0) while the GameServer's
// status names the host port players reach, forwarded to it; a bot with a
// token naming that host port plays. Guards against: a server that
// checks tokens against its listen address only (it refused every
// player under a Dynamic port policy).
func TestServeAgonesDynamicPort(t *testing.T) {
	acceptance.Require(t, "agones-process")
	hp := newHostPort(t)
	f := agonestest.New()
	defer f.Close()
	f.SetAddress("127.0.0.1", map[string]int{"default": int(hp.addr().Port())})
	u, _ := url.Parse(f.URL)
	t.Setenv(agones.EnvPort, u.Port())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	keyFile := writeKeyFile(t)
	var srvOut syncBuffer
	srvDone := make(chan error, 1)
	o, err := parseServeFlags([]string{"--listen", "127.0.0.1:0", "--key-file", keyFile, "--status", "0"})
	if err != nil || !o.agones {
		t.Fatalf("flags: %v, agones %v", err, o.agones)
	}
	srvCtx, stopSrv := context.WithCancel(ctx)
	go func() { srvDone <- serve(srvCtx, o, &srvOut) }()
	addr := waitMatch(&srvOut, listenRE, 5*time.Second)
	if addr == "" {
		t.Fatalf("server did not start:\n%s", srvOut.String())
	}
	listen := netip.MustParseAddrPort(addr)
	hp.target.Store(&listen)
	var out bytes.Buffer
	err = playBot(ctx, botOptions{connect: hp.addr().String(), name: "dyn", seed: 5, duration: 3 * time.Second, json: true, keyFile: keyFile}, &out)
	stopSrv()
	if err := <-srvDone; err != nil {
		t.Error(err)
	}
	var s botSummary
	if err != nil || json.Unmarshal(out.Bytes(), &s) != nil || s.SnapshotsReceived < 40 {
		t.Errorf("bot through the host port %v: %v\n%s\nserver:\n%s", hp.addr(), err, out.String(), srvOut.String())
	}
	if !strings.Contains(srvOut.String(), "public_addr="+hp.addr().String()) {
		t.Errorf("the server did not log its Agones public address %v:\n%s", hp.addr(), srvOut.String())
	}
}
