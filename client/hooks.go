package client

// The accessors of package internal/clienthook: what the tests, the match
// harness and the tools reach in a client beyond its public API.

import (
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/clienthook"
	"github.com/snapwire/snapwire/internal/netchan"
	"github.com/snapwire/snapwire/internal/snapshot"
)

func init() {
	clienthook.Install(clienthook.Access{
		SetHooks:     func(cfg any, h clienthook.Hooks) { cfg.(*Config).hooks = h },
		GetHooks:     func(cfg any) clienthook.Hooks { return cfg.(*Config).hooks },
		PVS:          func(c any) snapshot.PVS { return c.(*Client).pvs },
		CopyBase:     func(c any, dst *snapshot.CommonBase) bool { return c.(*Client).copyBase(dst) },
		ChannelStats: func(c any) netchan.Stats { return c.(*Client).channelStats() },
		Counters:     func(c any) clienthook.Counters { return c.(*Client).counters() },
		PredictedPosition: func(c any, n game.EntityNum, f game.Frame) (x, y, z float32, ok bool) {
			return c.(*Client).predictedPosition(n, f)
		},
	})
}
