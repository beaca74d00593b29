// Package signalling is the client's half of snapwire's WebRTC signalling
// (docs/PROTOCOL.md, "WebRTC transport"): one POST of a complete SDP offer,
// its candidates gathered, answered with the SDP answer (non-trickle, RFC
// 8829 §3.5.1). It imports no WebRTC stack, so the Go client (cmd/internal/rtc,
// pion) and the browser's client (internal/playview under js/wasm, the
// browser's RTCPeerConnection) share it.
package signalling

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// MaxAnswer bounds the answer read from the server, in bytes.
const MaxAnswer = 64 << 10

// Exchange posts offer to the signalling endpoint at url with hc, within
// ctx, and returns the server's answer. A status other than 200 is an
// error carrying the server's reason.
func Exchange(ctx context.Context, hc *http.Client, url, offer string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(offer))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/sdp")
	resp, err := hc.Do(req)
	if err != nil {
		return "", err
	}
	ans, err := io.ReadAll(io.LimitReader(resp.Body, MaxAnswer))
	resp.Body.Close()
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("signalling: %s: %s", resp.Status, bytes.TrimSpace(ans))
	}
	return string(ans), nil
}
