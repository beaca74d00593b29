// Package oaserver runs a real OpenArena dedicated server (Debian's
// openarena-server, the ioquake3 engine) for integration tests: on
// 127.0.0.1 only, without master servers, sv_pure 0, with bots, its
// console output in a file, stopped by its process group id. Tests skip
// when the server is not installed, and fail instead when the environment
// sets SNAPWIRE_REQUIRE_Q3=1 (CI installs it).
package oaserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/snapwire/snapwire/internal/q3/oob"
)

// Binary is the Debian wrapper of the OpenArena dedicated server.
const Binary = "/usr/games/openarena-server"

// RequireEnv makes missing Quake 3 tools a failure instead of a skip.
const RequireEnv = "SNAPWIRE_REQUIRE_Q3"

// Need skips (or, with SNAPWIRE_REQUIRE_Q3=1, fails) the test when prog
// is not installed, and returns its path.
func Need(t testing.TB, prog string) string {
	t.Helper()
	p, err := exec.LookPath(prog)
	if err == nil {
		return p
	}
	msg := fmt.Sprintf("%s not installed (apt-get install openarena-server qstat); set %s=1 to make this a failure", prog, RequireEnv)
	if os.Getenv(RequireEnv) == "1" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// Options configure a server.
type Options struct {
	Map string // default oa_dm1
	// Protocol68 runs plain protocol 68 (com_protocol 68, com_legacyprotocol
	// 68). Otherwise the server is dual mode: com_protocol 71 with ioq3's
	// checksummed netchan, and 68 legacy clients (com_legacyprotocol 68).
	Protocol68 bool
	// Stock leaves the protocol settings at the package's defaults: Debian's
	// openarena-server announces protocol 71 with com_legacyprotocol 71, so
	// it frames protocol 71 clients the legacy way. Protocol68 is ignored.
	Stock    bool
	Bots     []string // added with "addbot NAME 1" once the server answers
	Hostname string
	Args     []string // more "+set k v" arguments
}

// Server is a running OpenArena dedicated server.
type Server struct {
	Addr    netip.AddrPort
	LogPath string
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	mu      sync.Mutex
	stopped bool
}

// Start starts a server on a free 127.0.0.1 port, waits until it answers
// getinfo, adds the bots and registers its stop with t.Cleanup.
func Start(t testing.TB, opt Options) *Server {
	t.Helper()
	Need(t, Binary)
	if opt.Map == "" {
		opt.Map = "oa_dm1"
	}
	if opt.Hostname == "" {
		opt.Hostname = "snapwire-test"
	}
	dir := t.TempDir()
	port := freePort(t)
	args := []string{
		"+set", "dedicated", "1", "+set", "net_enabled", "1",
		"+set", "net_ip", "127.0.0.1", "+set", "net_port", strconv.Itoa(port),
		"+set", "sv_master1", "", "+set", "sv_master2", "", "+set", "sv_master3", "",
		"+set", "sv_master4", "", "+set", "sv_master5", "",
		"+set", "sv_pure", "0", "+set", "sv_allowDownload", "0", "+set", "sv_dlURL", "",
		"+set", "fs_homepath", filepath.Join(dir, "home"),
		"+set", "sv_hostname", opt.Hostname, "+set", "g_gametype", "0", "+set", "sv_fps", "20",
		"+set", "bot_minplayers", "0", "+set", "g_doWarmup", "0",
	}
	switch {
	case opt.Stock:
	case opt.Protocol68:
		args = append(args, "+set", "com_protocol", "68", "+set", "com_legacyprotocol", "68")
	default:
		args = append(args, "+set", "com_legacyprotocol", "68")
	}
	args = append(args, opt.Args...)
	args = append(args, "+map", opt.Map)
	s := &Server{Addr: netip.AddrPortFrom(netip.AddrFrom4([4]byte{127, 0, 0, 1}), uint16(port)), LogPath: filepath.Join(dir, "server.log")}
	logf, err := os.Create(s.LogPath)
	if err != nil {
		t.Fatal(err)
	}
	s.cmd = exec.Command(Binary, args...)
	s.cmd.Env = append(os.Environ(), "HOME="+dir)
	s.cmd.Stdout, s.cmd.Stderr = logf, logf
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if s.stdin, err = s.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	logf.Close()
	t.Cleanup(func() {
		s.Stop()
		if t.Failed() {
			t.Logf("server log %s (last 3000 bytes):\n%s", s.LogPath, tail(s.Log(), 3000))
		}
	})
	if err := s.waitReady(20 * time.Second); err != nil {
		t.Fatalf("openarena-server on %v: %v\n%s", s.Addr, err, tail(s.Log(), 3000))
	}
	for _, b := range opt.Bots {
		s.Command("addbot " + b + " 1")
	}
	return s
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// freePort picks a random port in 28000..39999 that is free for UDP now.
func freePort(t testing.TB) int {
	for range 50 {
		p := 28000 + rand.IntN(12000)
		c, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: p})
		if err == nil {
			c.Close()
			return p
		}
	}
	t.Fatal("no free UDP port")
	return 0
}

// waitReady polls getinfo until the server answers.
func (s *Server) waitReady(limit time.Duration) error {
	conn, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		return err
	}
	defer conn.Close()
	q, _ := (&oob.GetInfo{Challenge: "ready"}).Append(nil)
	buf := make([]byte, 4096)
	end := time.Now().Add(limit)
	for time.Now().Before(end) {
		if s.cmd.ProcessState != nil {
			return errors.New("server exited")
		}
		conn.WriteToUDPAddrPort(q, s.Addr)
		conn.SetReadDeadline(time.Now().Add(250 * time.Millisecond))
		n, _, err := conn.ReadFromUDPAddrPort(buf)
		if err == nil && bytes.Contains(buf[:n], []byte("infoResponse")) {
			return nil
		}
		if err == nil { // rate limited or other: wait a little
			time.Sleep(250 * time.Millisecond)
		}
	}
	return fmt.Errorf("no infoResponse within %v", limit)
}

// Command writes one console command to the server's standard input.
func (s *Server) Command(line string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.stopped {
		io.WriteString(s.stdin, line+"\n")
	}
}

// Log returns the console output so far.
func (s *Server) Log() string {
	b, _ := os.ReadFile(s.LogPath)
	return string(b)
}

// WaitLog waits until the console output contains substr.
func (s *Server) WaitLog(ctx context.Context, substr string) bool {
	for {
		if strings.Contains(s.Log(), substr) {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// Stop ends the server: SIGTERM to its process group, SIGKILL after 5 s.
func (s *Server) Stop() {
	s.mu.Lock()
	if s.stopped {
		s.mu.Unlock()
		return
	}
	s.stopped = true
	s.stdin.Close()
	s.mu.Unlock()
	pgid := s.cmd.Process.Pid
	syscall.Kill(-pgid, syscall.SIGTERM)
	done := make(chan struct{})
	go func() { s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		syscall.Kill(-pgid, syscall.SIGKILL)
		<-done
	}
}
