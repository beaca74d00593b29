package main

import (
	"fmt"
	"net/netip"
	"time"

	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/examples/tanks"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/serverhook"
	"github.com/snapwire/snapwire/internal/statecheck"
	"github.com/snapwire/snapwire/netsim"
	"github.com/snapwire/snapwire/server"
)

// Addresses of the in-process match on the link simulator.
var (
	serverAddr = netip.MustParseAddrPort("10.0.0.1:27960")
	playerAddr = netip.MustParseAddrPort("10.0.0.2:50000")
)

// botAddr is bot i's address.
func botAddr(i int) netip.AddrPort {
	return netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 0, 1, byte(i + 1)}), 50000)
}

// recordFrames is how many frames of the server's states the in-process
// match keeps for the state check: 4 s at 60 Hz, far more than a snapshot
// spends on the way at the largest latency the knobs set.
const recordFrames = 240

// local is the in-process match, a play.Session of this program's own: a
// tanks server (its OnMessage the game's, its Announce the server's
// BroadcastMessage, as the netsim test sets them up), bots, and the
// player's client, joined by the link simulator in virtual time that Step
// moves to the window's clock (as play.Local, which takes no server
// configuration and no bots). The server records its states after every
// frame, and the player's client checks each snapshot against them.
type local struct {
	net     *netsim.Network
	srvEP   *netsim.Endpoint
	srv     *server.Server
	srvGame *tanks.Game
	rec     *statecheck.Recorder
	player  *client.Client
	nodes   []localNode
	now     time.Duration
	buf     []byte
}

// localNode is a client on the link simulator: the player's or a bot's.
type localNode struct {
	ep *netsim.Endpoint
	cl *client.Client
}

// newLocal starts the match: the server, bots bots playing
// tanks.Game.BotCommand, and the player's client of cfg playing g with
// input (cfg's hooks are kept; the state check is added to them).
func newLocal(cfg client.Config, g *tanks.Game, input client.InputSource, bots int, check *checker) (*local, error) {
	l := &local{net: netsim.New(1), srvGame: tanks.New(), rec: statecheck.NewRecorder(recordFrames), buf: make([]byte, 2048)}
	var err error
	if l.srvEP, err = l.net.Listen(serverAddr); err != nil {
		return nil, err
	}
	scfg := serverhook.With(server.Config{OnMessage: l.srvGame.ServerMessage, MaxClients: bots + 1,
		Advanced: server.Advanced{VerifyBase: true}},
		serverhook.Hooks{OnFrame: func(f game.Frame) { l.rec.Record(f, l.srvGame) }})
	l.srv, err = server.New(scfg, l.srvGame, "", server.SendFunc(func(to netip.AddrPort, p []byte) { l.srvEP.WriteTo(p, to) }))
	if err != nil {
		return nil, fmt.Errorf("tanks: the server: %w", err)
	}
	l.srvGame.Announce = l.srv.BroadcastMessage
	check.rec = l.rec
	if l.player, err = l.join(playerAddr, cfg, g, input); err != nil {
		return nil, err
	}
	for i := range bots {
		bg := tanks.New()
		if _, err := l.join(botAddr(i), client.Config{Name: fmt.Sprintf("bot%d", i)}, bg, client.InputFunc(bg.BotCommand)); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// join connects a client of cfg playing g with input from addr.
func (l *local) join(addr netip.AddrPort, cfg client.Config, g game.Game, input client.InputSource) (*client.Client, error) {
	ep, err := l.net.Listen(addr)
	if err != nil {
		return nil, err
	}
	cl, err := client.New(cfg, g, input, client.SendFunc(func(to netip.AddrPort, p []byte) { ep.WriteTo(p, to) }))
	if err != nil {
		return nil, fmt.Errorf("tanks: client %s: %w", cfg.Name, err)
	}
	cl.Connect(l.now, serverAddr)
	l.nodes = append(l.nodes, localNode{ep, cl})
	return cl, nil
}

// Client is the player's client.
func (l *local) Client() *client.Client { return l.player }

// maxCatchUp bounds the virtual time Step plays in 1 ms steps; beyond it
// (the window was stalled) the match jumps ahead.
const maxCatchUp = time.Second

// Step plays the match to now in steps of a millisecond, as the netsim
// tests do; time never goes back.
func (l *local) Step(now time.Duration) {
	if now-l.now > maxCatchUp {
		l.now = now - maxCatchUp
	}
	for l.now < now {
		l.now = min(l.now+time.Millisecond, now)
		l.net.AdvanceTo(l.now)
		for n, from, ok := l.srvEP.ReadFrom(l.buf); ok; n, from, ok = l.srvEP.ReadFrom(l.buf) {
			l.srv.HandlePacket(l.now, from, l.buf[:n])
		}
		for _, nd := range l.nodes {
			for n, _, ok := nd.ep.ReadFrom(l.buf); ok; n, _, ok = nd.ep.ReadFrom(l.buf) {
				nd.cl.HandlePacket(l.now, l.buf[:n])
			}
		}
		l.srv.Advance(l.now)
		for _, nd := range l.nodes {
			nd.cl.Advance(l.now)
		}
	}
}

// SetLink sets both directions of the player's link (the latency is one
// way); the bots' links stay perfect.
func (l *local) SetLink(cfg netsim.LinkConfig) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	l.net.SetLink(playerAddr, serverAddr, cfg)
	l.net.SetLink(serverAddr, playerAddr, cfg)
	return nil
}

// Ghost is the server's position of the player's tank.
func (l *local) Ghost() (x, y, z float32, ok bool) {
	if l.player.State() != client.Connected {
		return 0, 0, 0, false
	}
	n, ok := l.srvGame.PlayerEntity(l.player.ClientNum())
	if !ok {
		return 0, 0, 0, false
	}
	e, _ := l.srvGame.Entity(n)
	t, ok := e.(*tanks.Tank)
	if !ok {
		return 0, 0, 0, false
	}
	return t.X, t.Y, 0, true
}

// Close leaves the server, the player and the bots.
func (l *local) Close() error {
	for _, nd := range l.nodes {
		if nd.cl.State() == client.Connected {
			nd.cl.Disconnect(l.now)
		}
	}
	return nil
}
