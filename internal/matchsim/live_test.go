package matchsim

import (
	"testing"
	"time"

	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/refgame"
	"github.com/snapwire/snapwire/netsim"
)

// A live match stepped like a 60 Hz display (virtual time): the player's
// client, driven by its own input, gets its snapshots with every check
// clean; raising its link's latency raises its round trip while the bots'
// stay; the series of Run are not kept.
func TestLive(t *testing.T) {
	opt := DefaultOptions()
	opt.Clients = 3
	var l *Live
	ai := refgame.NewBot(99, 0, refgame.BotDeathmatch)
	input := client.InputFunc(func(in client.Input) game.UserCmd {
		ai.Client = in.Client
		return ai.Command(l.World(), in.Frame)
	})
	l, err := NewLive(opt, "you", input)
	if err != nil {
		t.Fatal(err)
	}
	step := time.Second / 60
	for now := step; now <= 10*time.Second; now += step {
		l.Step(now)
	}
	low := l.Client().Stats().RTT
	if err := l.SetLink(netsim.LinkConfig{Latency: 150 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	for now := 10 * time.Second; now <= 20*time.Second; now += step {
		l.Step(now)
	}
	high := l.Client().Stats().RTT
	c, bots := l.Checks(), l.BotChecks()
	t.Logf("player %+v, bots %+v, rtt %v then %v", c, bots, low, high)
	if c.Snapshots < 300 || c.BaseMismatches != 0 || c.StateMismatches != 0 || c.BaseChecks < 100 || c.StateChecks < 300 {
		t.Errorf("player: %+v", c)
	}
	if bots.Snapshots < 900 || bots.BaseMismatches != 0 || bots.StateMismatches != 0 {
		t.Errorf("bots: %+v", bots)
	}
	if low > 120*time.Millisecond || high < 280*time.Millisecond {
		t.Errorf("round trip %v at 80 ms, %v at 300 ms", low, high)
	}
	if n := len(l.h.allSelf) + len(l.h.allOthers) + len(l.h.secLead); n != 0 {
		t.Errorf("%d series samples kept", n)
	}
	if l.Now() < 19*time.Second || l.ServerFrame() < 1190 || l.Server().Map == nil {
		t.Errorf("now %v, server frame %d", l.Now(), l.ServerFrame())
	}
	if err := l.SetLink(netsim.LinkConfig{Loss: 2}); err == nil {
		t.Error("loss 2 accepted")
	}
	if _, err := NewLive(opt, "x", nil); err == nil {
		t.Error("no input accepted")
	}
}
