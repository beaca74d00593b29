package clienthook_test

import (
	"net/netip"
	"testing"
	"time"

	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/clienthook"
	"github.com/snapwire/snapwire/internal/snapshot"
	"github.com/snapwire/snapwire/internal/testgame"
)

// TestHooksReachTheClient: hooks set on a Config travel with it by value
// into the client, and the accessors answer for a client that has not
// loaded a game yet.
func TestHooksReachTheClient(t *testing.T) {
	var cfg client.Config
	if h := clienthook.Get(&cfg); h.MaxSlew != 0 || h.OnSnapshot != nil {
		t.Fatalf("zero Config has hooks %+v", h)
	}
	clienthook.Set(&cfg, clienthook.Hooks{MaxSlew: 0.5, CoarseAfter: 7})
	copied := cfg
	if h := clienthook.Get(&copied); h.MaxSlew != 0.5 || h.CoarseAfter != 7 {
		t.Fatalf("copied Config has hooks %+v", h)
	}
	var sent int
	c, err := client.New(cfg, testgame.New(), client.InputFunc(func(in client.Input) game.UserCmd { return game.UserCmd{Frame: in.Frame} }),
		client.SendFunc(func(netip.AddrPort, []byte) { sent++ }))
	if err != nil {
		t.Fatal(err)
	}
	c.Connect(0, netip.MustParseAddrPort("127.0.0.1:27960"))
	c.Advance(time.Millisecond)
	var base snapshot.CommonBase
	pvs := clienthook.PVS(c)
	if clienthook.CopyBase(c, &base) || pvs.Len() != 0 || sent == 0 {
		t.Errorf("before a game: base copied, PVS %d, %d packets sent", pvs.Len(), sent)
	}
	if ct, ch := clienthook.CountersOf(c), clienthook.ChannelStats(c); ct.SnapshotsReceived != 0 || ch.PacketsOut != 0 {
		t.Errorf("before a session: counters %+v, channel %+v", ct, ch)
	}
	if _, _, _, ok := clienthook.PredictedPosition(c, 0, 0); ok {
		t.Error("a position recorded before the first frame")
	}
}
