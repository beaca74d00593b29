package play

import (
	"time"

	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/playview"
)

// Local starts a match in this process: a server running srv (loaded with
// settings) and the player's client playing cl (a second instance of the
// same game) with input, joined by the link simulator, whose latency,
// jitter and loss the window's knobs set. Its session has the ghost: the
// server's position of the player's entity (srv.PlayerEntity), when that
// entity is a client.Positioner. The server sends its common base's hash
// with each "apply S" (server.Advanced.VerifyBase), so that the net
// graph's "base bad" counts any divergence (DOOM III §4.2).
func Local(srv, cl game.Game, settings string, input client.InputSource) (Session, error) {
	l, err := playview.NewLocal(srv, cl, settings, input)
	if err != nil {
		return nil, err
	}
	return l, nil
}

// remote is Dial's session.
type remote struct {
	r   *playview.Remote
	now time.Duration
}

// Dial connects a client of cfg, playing g with input, to a server at
// addr: "host:port" over UDP (server.Listen, "snapwire serve"), or, in a
// browser (the program built with GOOS=js GOARCH=wasm), the server's
// signalling URL over a WebRTC data channel ("snapwire serve --web":
// http://HOST:PORT/rtc). A native program reaches a server over UDP.
func Dial(addr string, cfg client.Config, g game.Game, input client.InputSource) (Session, error) {
	r, err := playview.Dial(addr, cfg, g, input, nil)
	if err != nil {
		return nil, err
	}
	return &remote{r: r}, nil
}

func (r *remote) Client() *client.Client { return r.r.Client() }

func (r *remote) Step(now time.Duration) {
	r.now = max(r.now, now)
	r.r.Step(r.now)
}

func (r *remote) Close() error { return r.r.Close(r.now) }
