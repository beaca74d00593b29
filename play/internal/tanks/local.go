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

// serverAddr is the server's address on the link simulator.
const serverAddr = "10.0.0.1:27960"

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
	net        *netsim.Network
	srv        *server.Server
	srvGame    *tanks.Game
	rec        *statecheck.Recorder
	player     *client.Client
	playerAddr netip.AddrPort
	clients    []*client.Client // the player's and the bots'
	nodes      []netsim.Node    // the server's, then the clients'
	now        time.Duration
	buf        []byte
}

// newLocal starts the match: the server, bots bots playing
// tanks.Game.BotCommand, and the player's client of cfg playing g with
// input (cfg's hooks are kept; the state check is added to them).
func newLocal(cfg client.Config, g *tanks.Game, input client.InputSource, bots int, check *checker) (*local, error) {
	l := &local{net: netsim.New(1), srvGame: tanks.New(), rec: statecheck.NewRecorder(recordFrames), buf: make([]byte, 2048)}
	scfg := serverhook.With(server.Config{OnMessage: l.srvGame.ServerMessage, MaxClients: bots + 1,
		Advanced: server.Advanced{VerifyBase: true}},
		serverhook.Hooks{OnFrame: func(f game.Frame) { l.rec.Record(f, l.srvGame) }})
	srv, node, err := server.ListenSim(l.net, serverAddr, scfg, l.srvGame, "")
	if err != nil {
		return nil, fmt.Errorf("tanks: the server: %w", err)
	}
	l.srv, l.nodes = srv, []netsim.Node{node}
	l.srvGame.Announce = l.srv.BroadcastMessage
	check.rec = l.rec
	if l.player, err = l.join(cfg, g, input); err != nil {
		return nil, err
	}
	l.playerAddr = l.nodes[1].Endpoint.Addr()
	for i := range bots {
		bg := tanks.New()
		if _, err := l.join(client.Config{Name: fmt.Sprintf("bot%d", i)}, bg, client.InputFunc(bg.BotCommand)); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// join connects a client of cfg playing g with input.
func (l *local) join(cfg client.Config, g game.Game, input client.InputSource) (*client.Client, error) {
	cl, node, err := client.DialSim(l.net, serverAddr, cfg, g, input)
	if err != nil {
		return nil, fmt.Errorf("tanks: client %s: %w", cfg.Name, err)
	}
	l.clients, l.nodes = append(l.clients, cl), append(l.nodes, node)
	return cl, nil
}

// Client is the player's client.
func (l *local) Client() *client.Client { return l.player }

// maxCatchUp bounds the virtual time Step plays at once; beyond it
// (the window was stalled) the match jumps ahead.
const maxCatchUp = time.Second

// Step plays the match to now (netsim.Network.Run); time never goes
// back.
func (l *local) Step(now time.Duration) {
	if now-l.now > maxCatchUp {
		l.now = now - maxCatchUp
	}
	if now > l.now {
		l.now = l.net.Run(l.now, now, l.nodes, l.buf)
	}
}

// SetLink sets both directions of the player's link (the latency is one
// way); the bots' links stay perfect.
func (l *local) SetLink(cfg netsim.LinkConfig) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	srv := netip.MustParseAddrPort(serverAddr)
	l.net.SetLink(l.playerAddr, srv, cfg)
	l.net.SetLink(srv, l.playerAddr, cfg)
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
	for _, cl := range l.clients {
		if cl.State() == client.Connected {
			cl.Disconnect(l.now)
		}
	}
	return nil
}
