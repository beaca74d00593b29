package rtc

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"runtime"
	"testing"
	"time"

	"github.com/snapwire/snapwire/internal/acceptance"
)

// Closing the server and the client leaves no goroutine of ours or pion's
// behind (pion's test.CheckRoutines, with a bounded wait: pion's
// goroutines exit shortly after Close returns).
//
// Guards against: a reader, a connect-timeout watcher or a peer
// connection left running after its peer or the server closed.
func TestCloseLeavesNoGoroutines(t *testing.T) {
	acceptance.Require(t, "webrtc")
	if testing.Short() {
		t.Skip("real WebRTC connection")
	}
	loop := []netip.Addr{netip.MustParseAddr("127.0.0.1")}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	before := runtime.NumGoroutine()
	s, err := NewServer(Config{HostIPs: loop, Inject: func(netip.AddrPort, []byte) bool { return true }})
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: s}
	served := make(chan struct{})
	go func() { hs.Serve(ln); close(served) }()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for range 2 {
		c, err := Dial(ctx, "http://"+ln.Addr().String()+"/rtc", DialConfig{HostIPs: loop, HTTP: &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Write([]byte("x")); err != nil {
			t.Fatal(err)
		}
		c.Close()
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	hs.Close()
	<-served
	var n int
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if n = runtime.NumGoroutine(); n <= before {
			return
		}
	}
	buf := make([]byte, 1<<20)
	t.Errorf("%d goroutines before, %d after closing:\n%s", before, n, buf[:runtime.Stack(buf, true)])
}
