package playview

import (
	"fmt"
	"net/netip"
	"time"

	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/netsim"
	"github.com/snapwire/snapwire/server"
)

// Addresses of the in-process match on the link simulator.
var (
	localServer = netip.MustParseAddrPort("10.0.0.1:27960")
	localClient = netip.MustParseAddrPort("10.0.0.2:50000")
)

// Local is a match in this process: a server and the player's client over
// the link simulator (package netsim), in virtual time that Step moves to
// the window's clock. It is package play's Local.
type Local struct {
	net     *netsim.Network
	srvEP   *netsim.Endpoint
	cliEP   *netsim.Endpoint
	srv     *server.Server
	srvGame game.Game
	cl      *client.Client
	now     time.Duration
	buf     []byte
}

// NewLocal starts a server running srv (loaded with settings) and the
// player's client playing cl with input, over a perfect link until
// SetLink. The server sends its common base's hash with each "apply S"
// (server.Advanced.VerifyBase), so that the client counts any divergence
// (DOOM III §4.2).
func NewLocal(srv, cl game.Game, settings string, input client.InputSource) (*Local, error) {
	l := &Local{net: netsim.New(1), srvGame: srv, buf: make([]byte, 2048)}
	var err error
	if l.srvEP, err = l.net.Listen(localServer); err != nil {
		return nil, err
	}
	if l.cliEP, err = l.net.Listen(localClient); err != nil {
		return nil, err
	}
	l.srv, err = server.New(server.Config{Advanced: server.Advanced{VerifyBase: true}}, srv, settings,
		server.SendFunc(func(to netip.AddrPort, p []byte) { l.srvEP.WriteTo(p, to) }))
	if err != nil {
		return nil, fmt.Errorf("play: the server: %w", err)
	}
	l.cl, err = client.New(client.Config{Name: "player"}, cl, input,
		client.SendFunc(func(to netip.AddrPort, p []byte) { l.cliEP.WriteTo(p, to) }))
	if err != nil {
		return nil, fmt.Errorf("play: the client: %w", err)
	}
	l.cl.Connect(0, localServer)
	return l, nil
}

// Client is the player's client.
func (l *Local) Client() *client.Client { return l.cl }

// Server is the server.
func (l *Local) Server() *server.Server { return l.srv }

// maxCatchUp bounds the virtual time Step plays in 1 ms steps; beyond it
// (the window was stalled) the match jumps ahead.
const maxCatchUp = time.Second

// Step plays the match to now in steps of a millisecond, as the netsim
// tests do; time never goes back.
func (l *Local) Step(now time.Duration) {
	if now-l.now > maxCatchUp {
		l.now = now - maxCatchUp
	}
	for l.now < now {
		l.now = min(l.now+time.Millisecond, now)
		l.net.AdvanceTo(l.now)
		for n, from, ok := l.srvEP.ReadFrom(l.buf); ok; n, from, ok = l.srvEP.ReadFrom(l.buf) {
			l.srv.HandlePacket(l.now, from, l.buf[:n])
		}
		for n, _, ok := l.cliEP.ReadFrom(l.buf); ok; n, _, ok = l.cliEP.ReadFrom(l.buf) {
			l.cl.HandlePacket(l.now, l.buf[:n])
		}
		l.srv.Advance(l.now)
		l.cl.Advance(l.now)
	}
}

// SetLink sets both directions of the link (the latency is one way).
func (l *Local) SetLink(cfg netsim.LinkConfig) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	l.net.SetLink(localClient, localServer, cfg)
	l.net.SetLink(localServer, localClient, cfg)
	return nil
}

// Ghost is the server's position of the player's entity
// (srv.PlayerEntity), when it is a client.Positioner.
func (l *Local) Ghost() (x, y, z float32, ok bool) {
	if l.cl.State() != client.Connected {
		return 0, 0, 0, false
	}
	n, ok := l.srvGame.PlayerEntity(l.cl.ClientNum())
	if !ok {
		return 0, 0, 0, false
	}
	e, _ := l.srvGame.Entity(n)
	p, ok := e.(client.Positioner)
	if !ok {
		return 0, 0, 0, false
	}
	x, y, z = p.Position()
	return x, y, z, true
}

// Close leaves the server.
func (l *Local) Close() error {
	if l.cl.State() == client.Connected {
		l.cl.Disconnect(l.now)
	}
	return nil
}
