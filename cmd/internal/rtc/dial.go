package rtc

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"sync"

	"github.com/pion/datachannel"
	"github.com/pion/webrtc/v4"

	"github.com/snapwire/snapwire/internal/signalling"
)

// DialConfig configures Dial.
type DialConfig struct {
	// HostIPs restricts the client's ICE candidates as Config.HostIPs
	// does the server's.
	HostIPs []netip.Addr
	// HTTP is the client for the signalling request [http.DefaultClient].
	HTTP *http.Client
	// Logger gets pion's log lines at debug level; nil discards them.
	Logger *slog.Logger
}

// Conn is a client's data channel to a Server: each Write is one message
// (one netchan packet), each Read returns one.
type Conn struct {
	pc *webrtc.PeerConnection
	rw datachannel.ReadWriteCloser

	closeOnce sync.Once
}

// Dial connects to the signalling endpoint at url (a Server's handler):
// it gathers its ICE candidates, POSTs the offer, applies the answer and
// waits for the data channel to open, all within ctx.
func Dial(ctx context.Context, url string, cfg DialConfig) (*Conn, error) {
	hc := cfg.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	pc, err := newAPI(cfg.HostIPs, cfg.Logger).NewPeerConnection(webrtc.Configuration{})
	if err != nil {
		return nil, err
	}
	c := &Conn{pc: pc}
	fail := func(err error) (*Conn, error) {
		pc.Close()
		return nil, err
	}
	dc, err := pc.CreateDataChannel(Channel, channelInit())
	if err != nil {
		return fail(err)
	}
	type detached struct {
		rw  datachannel.ReadWriteCloser
		err error
	}
	open := make(chan detached, 1)
	dc.OnOpen(func() {
		rw, err := dc.Detach()
		open <- detached{rw, err}
	})
	offer, err := pc.CreateOffer(nil)
	if err != nil {
		return fail(err)
	}
	gathered := webrtc.GatheringCompletePromise(pc)
	if err := pc.SetLocalDescription(offer); err != nil {
		return fail(err)
	}
	select {
	case <-gathered:
	case <-ctx.Done():
		return fail(fmt.Errorf("rtc: gathering candidates: %w", ctx.Err()))
	}
	ans, err := signalling.Exchange(ctx, hc, url, pc.LocalDescription().SDP)
	if err != nil {
		return fail(fmt.Errorf("rtc: %w", err))
	}
	if err := pc.SetRemoteDescription(webrtc.SessionDescription{Type: webrtc.SDPTypeAnswer, SDP: ans}); err != nil {
		return fail(err)
	}
	select {
	case d := <-open:
		if d.err != nil {
			return fail(d.err)
		}
		c.rw = d.rw
		return c, nil
	case <-ctx.Done():
		return fail(fmt.Errorf("rtc: data channel did not open: %w", ctx.Err()))
	}
}

// Write sends p as one message. It does not block: a message SCTP cannot
// queue is an error, a lost packet to the protocol.
func (c *Conn) Write(p []byte) (int, error) { return c.rw.Write(p) }

// Read reads one message into p (MaxMessage bytes hold any). A text
// message is an error.
func (c *Conn) Read(p []byte) (int, error) {
	n, isString, err := c.rw.ReadDataChannel(p)
	if err == nil && isString {
		return 0, errors.New("rtc: text message")
	}
	return n, err
}

// Close closes the channel and the peer connection; a blocked Read
// returns.
func (c *Conn) Close() error {
	var err error
	c.closeOnce.Do(func() {
		c.rw.Close()
		err = c.pc.Close()
	})
	return err
}
