package main

import (
	"context"
	"net"
	"net/netip"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/snapwire/snapwire/internal/acceptance"
	"github.com/snapwire/snapwire/internal/oaserver"
	"github.com/snapwire/snapwire/internal/q3/master"
	"github.com/snapwire/snapwire/internal/session"
)

// masterList asks the master for protocol p's servers (empty and full).
func masterList(t *testing.T, m netip.AddrPort, p string) []netip.AddrPort {
	t.Helper()
	conn, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.WriteToUDPAddrPort([]byte("\xff\xff\xff\xffgetservers "+p+" empty full\n"), m)
	var out []netip.AddrPort
	buf := make([]byte, 2048)
	for range 64 {
		conn.SetReadDeadline(time.Now().Add(time.Second))
		n, _, err := conn.ReadFromUDPAddrPort(buf)
		if err != nil {
			return out
		}
		addrs, last, ok := master.ParseServersResponse(buf[:n])
		out = append(out, addrs...)
		if !ok || last {
			return out
		}
	}
	return out
}

// Acceptance (master): eight "snapwire serve" processes with
// --master and one real openarena-server (dedicated 2, sv_master1 our
// master) all appear in "quakestat -q3m" through "snapwire master" and in
// "snapwire servers"; spoofed heartbeats and infoResponses list nothing.
//
// Guards against: a master that lists on a heartbeat alone (the spoofed
// heartbeats from 127.0.0.5, where nothing answers, would be listed), a
// getserversResponse quakestat cannot read, serve not heartbeating from
// its game socket.
func TestMasterLive(t *testing.T) {
	acceptance.Require(t, "q3live")
	if testing.Short() {
		t.Skip("processes and a real server")
	}
	quakestat := oaserver.Need(t, "quakestat")
	bin := buildSnapwire(t)
	maddr := freeFixedPort(t)
	mAP := netip.MustParseAddrPort(maddr)
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	var masterOut syncBuffer
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		serveMaster(ctx, maddr, time.Minute, newLogger("text", &masterOut))
	}()
	defer func() { cancel(); wg.Wait() }()
	for end := time.Now().Add(5 * time.Second); !strings.Contains(masterOut.String(), "msg=listening") && time.Now().Before(end); {
		time.Sleep(10 * time.Millisecond)
	}

	// Spoofed: heartbeats from an address nobody answers at, and an
	// infoResponse with a challenge of our own making.
	spoof, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 5)})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		spoof.WriteToUDPAddrPort([]byte("\xff\xff\xff\xffheartbeat QuakeArena-1\n"), mAP)
	}
	spoof.WriteToUDPAddrPort([]byte("\xff\xff\xff\xffinfoResponse\n\\challenge\\guess\\protocol\\2\\hostname\\fake"), mAP)
	spoof.Close() // the master's getinfo finds nobody

	oa := oaserver.Start(t, oaserver.Options{Hostname: "oa-listed", Stock: true,
		Args: []string{"+set", "dedicated", "2", "+set", "sv_master1", maddr}})
	for i := range 8 {
		cmd := exec.CommandContext(ctx, bin, "serve", "--insecure", "--listen", "127.0.0.1:0", "--status", "0",
			"--hostname", "sw"+string(rune('a'+i)), "--master", maddr)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { cmd.Process.Kill(); cmd.Wait() }()
	}
	var ours, theirs []netip.AddrPort
	for end := time.Now().Add(15 * time.Second); time.Now().Before(end); time.Sleep(1500 * time.Millisecond) {
		ours, theirs = masterList(t, mAP, strconv.Itoa(int(session.Version))), masterList(t, mAP, "71")
		if len(ours) >= 8 && len(theirs) >= 1 {
			break
		}
	}
	if len(ours) != 8 || len(theirs) != 1 || theirs[0] != oa.Addr {
		t.Fatalf("master lists %v (protocol %d) and %v (protocol 71); want 8 serves and %v", ours, session.Version, theirs, oa.Addr)
	}
	for _, a := range ours {
		if a.Addr() != netip.MustParseAddr("127.0.0.1") {
			t.Errorf("spoofed or foreign address listed: %v", a)
		}
	}

	// quakestat through our master: the master line and one Q3S line per
	// server, with its name.
	for _, c := range []struct {
		proto string
		n     int
		name  string
	}{{strconv.Itoa(int(session.Version)), 8, "swa"}, {"71", 1, "oa-listed"}} {
		out, err := exec.CommandContext(ctx, quakestat, "-q3m,"+c.proto, maddr).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "Q3M "+maddr) || strings.Count(string(out), "\nQ3S ") != c.n || !strings.Contains(string(out), c.name) {
			t.Errorf("quakestat -q3m,%s: %v\n%s", c.proto, err, out)
		}
	}
	code, out, errOut := cliRun("servers", "--master", maddr)
	if code != 0 || strings.Count(out, "127.0.0.1:") != 9 || !strings.Contains(out, "oa-listed") || !strings.Contains(out, "oa_dm1") ||
		!strings.Contains(out, "swh") || !strings.Contains(out, "arena3x3") || strings.Contains(out, "fake") {
		t.Errorf("snapwire servers: exit %d\n%s%s", code, out, errOut)
	}
	t.Logf("snapwire servers:\n%s", out)
}
