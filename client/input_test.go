package client_test

import (
	"fmt"
	"net/netip"
	"testing"
	"time"

	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/testgame"
	"github.com/snapwire/snapwire/netsim"
	"github.com/snapwire/snapwire/server"
)

// inputLog checks every Input one client's InputSource is given.
type inputLog struct {
	c         *client.Client
	g         *testgame.Game
	calls     int
	last      game.Frame
	wrong     int
	firstErr  string
	playerHit int // calls whose Player held the client's own player entity
}

func (l *inputLog) Command(in client.Input) game.UserCmd {
	l.calls++
	want, ok := l.g.PlayerEntity(l.c.ClientNum())
	switch {
	case in.Client != l.c.ClientNum():
		l.fail("client %d, want %d", in.Client, l.c.ClientNum())
	case in.Player != want || in.HasPlayer != ok:
		l.fail("player %d/%v, want %d/%v", in.Player, in.HasPlayer, want, ok)
	case l.last != 0 && in.Frame != l.last+1:
		l.fail("frame %d after %d", in.Frame, l.last)
	}
	l.last = in.Frame
	if e, typ := l.g.Entity(in.Player); e != nil && typ == testgame.TypePlayer {
		l.playerHit++
	}
	// Each client drives its own player: forward for client 0, back for
	// the others, so the server's players show whose commands they ran.
	if in.Client == 0 {
		return game.UserCmd{Forward: 100}
	}
	return game.UserCmd{Forward: -100}
}

func (l *inputLog) fail(format string, args ...any) {
	l.wrong++
	if l.firstErr == "" {
		l.firstErr = fmt.Sprintf(format, args...)
	}
}

// The input callback knows the client it serves and that client's player
// entity (issue 24): two clients share one input type, each is told its
// own slot and player at every frame, frames follow one another, and each
// player moves by its own client's commands on the server.
func TestInputKnowsClientAndPlayer(t *testing.T) {
	s := newSim(t, 3, netsim.LinkConfig{Latency: 40 * time.Millisecond, Jitter: 5 * time.Millisecond, Loss: 0.05}, server.Config{})
	var logs []*inputLog
	for i := range 2 {
		ep, err := s.net.Listen(clientAddr(i))
		if err != nil {
			t.Fatal(err)
		}
		l := &inputLog{g: testgame.New()}
		l.c, err = client.New(client.Config{Name: "p"}, l.g, l, client.SendFunc(func(to netip.AddrPort, p []byte) { ep.WriteTo(p, to) }))
		if err != nil {
			t.Fatal(err)
		}
		l.c.Connect(s.now, serverAddr)
		s.cls = append(s.cls, &simClient{c: l.c, g: l.g, ep: ep})
		logs = append(logs, l)
	}
	s.run(3 * time.Second)
	for i, l := range logs {
		if l.c.State() != client.Connected {
			t.Fatalf("client %d: %v %v", i, l.c.State(), l.c.Err())
		}
		if l.calls < 100 || l.wrong != 0 || l.playerHit < l.calls/2 {
			t.Errorf("client %d: %d calls, %d wrong (%s), %d with the player in the world", i, l.calls, l.wrong, l.firstErr, l.playerHit)
		}
		e, _ := s.sg.Entity(game.EntityNum(l.c.ClientNum()))
		x0, _ := testgame.SpawnPoint(l.c.ClientNum())
		p := e.(*testgame.Player)
		if moved := p.X - x0; (l.c.ClientNum() == 0) != (moved > 0) || moved == 0 {
			t.Errorf("client %d's player moved %v along X on the server", l.c.ClientNum(), moved)
		}
	}
}
