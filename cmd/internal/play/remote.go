package play

import (
	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/internal/playview"
	"github.com/snapwire/snapwire/internal/refgame"
)

// isWebURL reports whether Options.Connect names a signalling URL.
func isWebURL(s string) bool { return playview.IsWebURL(s) }

// dial connects the player's client to a "snapwire serve": over UDP, or
// over a WebRTC data channel when Options.Connect is the server's
// signalling URL (http://HOST/rtc): pion's here (remote_web.go), the
// browser's under js (webDialer nil).
func dial(opt Options, w *refgame.World, input client.InputSource) (*playview.Remote, error) {
	cfg := client.Config{Name: opt.Name, Password: opt.Password, Token: opt.Token}
	return playview.Dial(opt.Connect, cfg, w, input, webDialer)
}
