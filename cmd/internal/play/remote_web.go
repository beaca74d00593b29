//go:build !js

package play

import (
	"context"
	"net/netip"
	"time"

	"github.com/snapwire/snapwire/cmd/internal/rtc"
	"github.com/snapwire/snapwire/internal/playview"
)

// webDialer is pion's WebRTC (in the browser, nil: playview's link uses
// the browser's RTCPeerConnection).
var webDialer playview.WebDialer = dialWeb

// rtcLink is a WebRTC data channel to a "snapwire serve --web".
type rtcLink struct {
	conn *rtc.Conn
	done chan struct{}
}

// dialWeb connects to the signalling URL within 10 s. ICE uses the
// loopback address when the URL's host is loopback.
func dialWeb(url string, deliver func(p []byte)) (playview.Link, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var cfg rtc.DialConfig
	if playview.LoopbackURL(url) {
		cfg.HostIPs = []netip.Addr{netip.MustParseAddr("127.0.0.1")}
	}
	conn, err := rtc.Dial(ctx, url, cfg)
	if err != nil {
		return nil, err
	}
	l := &rtcLink{conn: conn, done: make(chan struct{})}
	go l.read(deliver)
	return l, nil
}

func (l *rtcLink) Send(p []byte) { l.conn.Write(p) }

func (l *rtcLink) read(deliver func(p []byte)) {
	defer close(l.done)
	buf := make([]byte, rtc.MaxMessage)
	for {
		n, err := l.conn.Read(buf)
		if err != nil {
			return
		}
		deliver(buf[:n])
	}
}

func (l *rtcLink) Close() error {
	err := l.conn.Close()
	<-l.done
	return err
}
