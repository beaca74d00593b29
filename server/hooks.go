package server

import (
	"net/netip"

	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/serverhook"
	"github.com/snapwire/snapwire/internal/snapshot"
	"github.com/snapwire/snapwire/internal/transport"
)

// The internal hooks and counters (internal/serverhook), for tests,
// harnesses and the tools' metrics: registered here because that package
// cannot import this one.
func init() {
	serverhook.Register(serverhook.Funcs{
		Edit: func(cfg any, f func(*serverhook.Hooks)) {
			c := cfg.(*Config)
			var h serverhook.Hooks
			if c.hooks != nil {
				h = *c.hooks
			}
			f(&h)
			c.hooks = &h
		},
		Stats:  func(s any) serverhook.Stats { return s.(*Server).fullStats() },
		Client: func(s any, n game.ClientNum) (serverhook.ClientStats, bool) { return s.(*Server).clientFull(n) },
		Clients: func(s any) []serverhook.ClientStats {
			var out []serverhook.ClientStats
			for _, c := range s.(*Server).slots {
				if c != nil && !c.reserve.reserved {
					out = append(out, c.statsCopy())
				}
			}
			return out
		},
		BaseHash: func(s any, n game.ClientNum) (uint64, snapshot.Seq, bool) { return s.(*Server).baseHash(n) },
		SendConnectionless: func(s any, to netip.AddrPort, payload []byte) {
			s.(*Server).sendOOB(to, payload)
		},
		Host: func(r any) transport.Host { return runnerHost{r.(*Runner)} },
	})
}

// clientFull returns all of client n's figures (serverhook.Client).
func (s *Server) clientFull(n game.ClientNum) (serverhook.ClientStats, bool) {
	if int(n) >= len(s.slots) || s.slots[n] == nil || s.slots[n].reserve.reserved {
		return serverhook.ClientStats{}, false
	}
	return s.slots[n].statsCopy(), true
}
