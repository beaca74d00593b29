//go:build !js

package play

import (
	"context"
	"net/netip"
	"time"

	"github.com/snapwire/snapwire/cmd/internal/rtc"
)

// rtcLink is a WebRTC data channel to a "snapwire serve --web" (pion; in
// the browser, remote_js.go uses the browser's RTCPeerConnection).
type rtcLink struct {
	conn *rtc.Conn
	done chan struct{}
}

// dialWeb connects to the signalling URL within 10 s. ICE uses the
// loopback address when the URL's host is loopback.
func dialWeb(url string, r *remote) (link, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var cfg rtc.DialConfig
	if loopbackURL(url) {
		cfg.HostIPs = []netip.Addr{netip.MustParseAddr("127.0.0.1")}
	}
	conn, err := rtc.Dial(ctx, url, cfg)
	if err != nil {
		return nil, err
	}
	l := &rtcLink{conn: conn, done: make(chan struct{})}
	go l.read(r)
	return l, nil
}

func (l *rtcLink) send(p []byte) { l.conn.Write(p) }

func (l *rtcLink) read(r *remote) {
	defer close(l.done)
	buf := make([]byte, rtc.MaxMessage)
	for {
		n, err := l.conn.Read(buf)
		if err != nil {
			return
		}
		r.deliver(buf[:n])
	}
}

func (l *rtcLink) close() error {
	err := l.conn.Close()
	<-l.done
	return err
}
