package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/snapwire/snapwire/internal/q3/master"
	"github.com/snapwire/snapwire/internal/tokenwire"
	"github.com/snapwire/snapwire/token"
)

// The tests below give host names ("localhost:P") wherever a command takes
// an address; each command used to refuse them (netip.ParseAddrPort).

// udpPeer is a loopback UDP socket on port 0 standing in for the other end.
func udpPeer(t *testing.T) (*net.UDPConn, uint16) {
	t.Helper()
	c, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, uint16(c.LocalAddr().(*net.UDPAddr).Port)
}

// readPacket reads one datagram; the deadline only bounds a failing test.
func readPacket(t *testing.T, c *net.UDPConn) ([]byte, netip.AddrPort) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	buf := make([]byte, 2048)
	n, from, err := c.ReadFromUDPAddrPort(buf)
	if err != nil {
		t.Fatal(err)
	}
	return buf[:n], from
}

func TestHostNamesTokenIssue(t *testing.T) {
	key, err := token.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	// issueFor serves token issue --server and bot --key-file --connect.
	tok, err := issueFor(key, []string{"localhost:27960", " [::1]:27961", "127.0.0.1:27962"}, 1, time.Minute, time.Second, "")
	if err != nil {
		t.Fatal(err)
	}
	want := []netip.AddrPort{netip.MustParseAddrPort("127.0.0.1:27960"), netip.MustParseAddrPort("[::1]:27961"), netip.MustParseAddrPort("127.0.0.1:27962")}
	if fmt.Sprint(tokenwire.Of(tok).Servers) != fmt.Sprint(want) {
		t.Errorf("token servers %v, want %v", tokenwire.Of(tok).Servers, want)
	}
	keyFile := writeKeyFile(t)
	code, out, errOut := cliRun("token", "issue", "--key-file", keyFile, "--server", "localhost:27960")
	if code != 0 || strings.TrimSpace(out) == "" {
		t.Errorf("token issue --server localhost:27960: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	code, _, errOut = cliRun("token", "issue", "--key-file", keyFile, "--server", "localhost")
	if code != 1 || !strings.Contains(errOut, `"localhost"`) || !strings.Contains(errOut, "HOST:PORT") {
		t.Errorf("token issue --server localhost: exit %d, stderr %q", code, errOut)
	}
}

func TestHostNamesProxy(t *testing.T) {
	opt, err := parseProxyFlags(strings.Fields("--listen localhost:0 --to localhost:27960"), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if opt.cfg.Listen != netip.MustParseAddrPort("127.0.0.1:0") || opt.cfg.Target != netip.MustParseAddrPort("127.0.0.1:27960") {
		t.Errorf("listen %v to %v", opt.cfg.Listen, opt.cfg.Target)
	}
	opt, err = parseProxyFlags(strings.Fields("--listen [::1]:0 --to [::1]:27960"), io.Discard)
	if err != nil || opt.cfg.Listen != netip.MustParseAddrPort("[::1]:0") || opt.cfg.Target != netip.MustParseAddrPort("[::1]:27960") {
		t.Errorf("IPv6 literals: %v, %v", opt.cfg, err)
	}
}

func TestHostNamesQ3(t *testing.T) {
	for in, want := range map[string]string{
		"localhost:27961": "127.0.0.1:27961", "localhost": "127.0.0.1:27960",
		"127.0.0.1": "127.0.0.1:27960", "[::1]:5": "[::1]:5", "::1": "[::1]:27960",
	} {
		got, err := parseQ3Addr(in)
		if err != nil || got != netip.MustParseAddrPort(want) {
			t.Errorf("parseQ3Addr(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	// q3 connect reaches a server named by host name: its first packet
	// asks for a challenge.
	srv, port := udpPeer(t)
	done := make(chan int, 1)
	go func() {
		code, _, _ := cliRun("q3", "connect", "--duration", "1ms", "--json", fmt.Sprintf("localhost:%d", port))
		done <- code
	}()
	if p, _ := readPacket(t, srv); !bytes.HasPrefix(p, []byte("\xff\xff\xff\xffgetchallenge ")) {
		t.Errorf("first packet %q", p)
	}
	<-done // exit 1: no snapshot from this server
}

func TestHostNamesMaster(t *testing.T) {
	// master --listen: a cancelled context stops it at once.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := serveMaster(ctx, "localhost:0", time.Minute, slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil {
		t.Errorf("master --listen localhost:0: %v", err)
	}
	// servers --master: a master core on our socket answers the getservers.
	sock, port := udpPeer(t)
	m := master.New(master.Config{}, func(to netip.AddrPort, p []byte) { sock.WriteToUDPAddrPort(p, to) })
	done := make(chan struct{})
	var code int
	var out, errOut string
	go func() {
		defer close(done)
		code, out, errOut = cliRun("servers", "--master", fmt.Sprintf("localhost:%d", port), "--protocol", "68", "--timeout", "10s")
	}()
	// The master answers until the command is done: it asks for a cookie
	// first (getserversCookie), then for the list with it.
	buf := make([]byte, 2048)
	for {
		select {
		case <-done:
		default:
			sock.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
			if n, from, err := sock.ReadFromUDPAddrPort(buf); err == nil {
				m.HandlePacket(0, from, buf[:n])
			}
			continue
		}
		break
	}
	if code != 0 || !strings.Contains(out, "lists no servers") {
		t.Errorf("servers --master localhost: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

func TestHostNamesServe(t *testing.T) {
	// serve --listen, --metrics, --public-addr and --master by name: the
	// heartbeat reaches the master's socket; a cancelled context then stops
	// the server.
	masterSock, port := udpPeer(t)
	o, err := parseServeFlags([]string{"--insecure", "--listen", "localhost:0", "--status", "0", "--metrics", "localhost:0",
		"--public-addr", "localhost:27960", "--master", fmt.Sprintf("localhost:%d", port)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel() // stops the server if the test fails before the end
	done := make(chan error, 1)
	go func() { done <- serve(ctx, o, io.Discard) }()
	p, _ := readPacket(t, masterSock)
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if string(p) != "\xff\xff\xff\xffheartbeat QuakeArena-1\n" {
		t.Errorf("heartbeat %q", p)
	}
}

func TestHostNamesLockstep(t *testing.T) {
	// The packet server on a named address for named peers; it runs its
	// (short) duration and reports.
	code, out, errOut := cliRun("lockstep", "--serve", "localhost:0", "--peers", "localhost:1,localhost:2", "--duration", "1ms", "--insecure")
	if code != 0 || !strings.Contains(out, "packet server for 2 peers") {
		t.Errorf("lockstep --serve localhost:0: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	code, _, errOut = cliRun("lockstep", "--me", "0", "--peers", "localhost:1,nohost", "--duration", "1ms", "--insecure") // no port: refused before any lookup
	if code != 1 || !strings.Contains(errOut, `--peers: address "nohost"`) {
		t.Errorf("a bad peer: exit %d, stderr %q", code, errOut)
	}
}
