package server

import (
	"net/netip"

	"github.com/snapwire/snapwire/game"
)

// ipCounts counts the clients at each IP address (their current address,
// client.addr), so that a connect checks Config.MaxClientsPerIP in constant
// time instead of scanning every slot: with 1,024 slots a burst of
// connects would otherwise cost slots² comparisons.
type ipCounts map[netip.Addr]int

// add counts one more client at a.
func (m ipCounts) add(a netip.Addr) { m[a]++ }

// remove counts one client fewer at a, forgetting a at zero so the map
// holds no more entries than there are clients.
func (m ipCounts) remove(a netip.Addr) {
	if m[a] <= 1 {
		delete(m, a)
		return
	}
	m[a]--
}

// moveTo sets c's current address to to, keeping the server's count of
// clients per IP address in step.
func (c *client) moveTo(to netip.AddrPort) {
	if c.s.slots[c.num] == c && c.addr.Addr() != to.Addr() {
		c.s.perIP.remove(c.addr.Addr())
		c.s.perIP.add(to.Addr())
	}
	c.addr = to
}

// gatherRelayCmds collects the latest command of every player in the game
// into s.relayCmds, ascending by entity, once for all the snapshots of the
// frame just run: each client's snapshot relays those of the players in
// its PVS but its own (DOOM III §3.2; snapshot.Input's Own), so the cost
// of a frame grows with the players once, not once per client.
func (s *Server) gatherRelayCmds() {
	cmds := s.relayCmds[:0]
	for _, o := range s.slots {
		if o == nil || !o.inGame {
			continue
		}
		if ent, ok := s.g.PlayerEntity(o.num); ok {
			cmd := o.lastCmd
			cmd.Frame = s.frame
			cmds = append(cmds, game.PlayerCmd{Entity: ent, Cmd: cmd})
		}
	}
	sortCmds(cmds)
	s.relayCmds = cmds
}
