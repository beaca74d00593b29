//go:build !js

package play

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"testing"
	"time"

	"github.com/snapwire/snapwire/cmd/internal/rtc"
	"github.com/snapwire/snapwire/internal/acceptance"
	"github.com/snapwire/snapwire/internal/refgame"
	"github.com/snapwire/snapwire/internal/serverhook"
	"github.com/snapwire/snapwire/server"
)

// WebRTC: a session joins through the server's data-channel transport
// (pion on both ends, ICE on 127.0.0.1) while another joins over UDP, the
// same match and server core; each sees the other player move.
func TestSessionWebRTC(t *testing.T) {
	acceptance.Require(t, "webrtc")
	if testing.Short() {
		t.Skip("real WebRTC and UDP on loopback")
	}
	settings := refgame.Config{Seed: 3, MaxPlayers: 4, RoomsX: 1, RoomsY: 1}.String()
	r, err := server.Listen("127.0.0.1:0", serverhook.With(server.Config{MaxClients: 4, Advanced: server.Advanced{VerifyBase: true}}, serverhook.Hooks{Seed: 3}), refgame.NewGame(), settings)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := rtc.Attach(serverhook.Host(r), rtc.Config{HostIPs: []netip.Addr{netip.MustParseAddr("127.0.0.1")}})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: rs, ReadHeaderTimeout: 5 * time.Second}
	go hs.Serve(ln)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	defer func() {
		cancel()
		<-done
		hs.Close()
		rs.Close()
	}()
	var sessions []*Session
	for i, connect := range []string{"http://" + ln.Addr().String() + "/rtc", r.Addr().String()} {
		opt := DefaultOptions()
		opt.Connect, opt.Autoplay, opt.Seed = connect, true, uint64(i+1)
		s, err := New(opt)
		if err != nil {
			t.Fatal(err)
		}
		sessions = append(sessions, s)
	}
	start := time.Now()
	for time.Since(start) < 4*time.Second {
		for _, s := range sessions {
			s.Step(time.Since(start), Input{})
		}
		time.Sleep(5 * time.Millisecond)
	}
	for i, s := range sessions {
		sum := s.Summary()
		if err := s.Close(); err != nil {
			t.Error(err)
		}
		t.Logf("%+v", sum)
		mode := []string{"webrtc", "udp"}[i]
		if err := sum.Check(); err != nil || sum.Mode != mode || sum.Snapshots < 40 || sum.BaseChecks < 10 || sum.OthersMoved != 1 {
			t.Errorf("%s: %v: %+v", mode, err, sum)
		}
	}
	if st := rs.Stats(); st.Opened != 1 || st.MsgsIn < 100 || st.MsgsOut < 40 {
		t.Errorf("rtc stats %+v", st)
	}
}
