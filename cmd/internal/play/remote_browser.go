//go:build js

package play

import "github.com/snapwire/snapwire/internal/playview"

// webDialer is nil in the browser: playview's link is the browser's own
// RTCPeerConnection.
var webDialer playview.WebDialer
