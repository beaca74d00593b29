package tanks

import (
	"github.com/snapwire/snapwire/game"
)

// RunFrame advances the match one fixed frame (DOOM III §2), the same on
// the server and on a predicting client: tanks in entity number order
// (respawn, turn, move, reload, fire), then shells (fly, hit), then crates
// (respawn). A predicting client neither spawns nor removes entities: its
// shots appear with the server's snapshot, and a spent shell stays, inert,
// until the server removes it.
func (g *Game) RunFrame(t *game.Tick) {
	if g.EntityTable == nil {
		return
	}
	g.frame, g.sink, g.predict = t.Frame, t.Events, t.Predicting
	if g.sink == nil {
		g.sink = game.Discard
	}
	g.fired, g.spent = g.fired[:0], g.spent[:0]
	ci := 0
	for n, e := range g.Entities() {
		switch e := e.(type) {
		case *Tank:
			for ci < len(t.Cmds) && t.Cmds[ci].Entity < n {
				ci++
			}
			var cmd game.UserCmd // no command known: stand still
			if ci < len(t.Cmds) && t.Cmds[ci].Entity == n {
				cmd = t.Cmds[ci].Cmd
			}
			g.tankFrame(n, e, &cmd)
		case *Shell:
			g.shellFrame(n, e)
		case *Crate:
			if !e.Solid() && e.Respawn != 0 && g.frame >= e.Respawn {
				e.HP, e.Respawn = MaxHP, 0
			}
		}
	}
	if g.predict {
		return
	}
	for _, n := range g.spent {
		g.Remove(n)
	}
	for _, n := range g.fired {
		g.fire(n)
	}
}

func (g *Game) tankFrame(n game.EntityNum, t *Tank, cmd *game.UserCmd) {
	if !t.Alive() {
		if t.Respawn != 0 && g.frame >= t.Respawn {
			t.X, t.Y, t.Heading = spawnPoint(t.Driver)
			t.HP, t.Respawn, t.Reload = MaxHP, 0, 0
		}
		return
	}
	// Right turns clockwise (screen coordinates, +Y down): headings
	// decrease.
	t.Heading -= uint8(int32(cmd.Right) * TurnRate / 127)
	d := dirs[t.Heading]
	speed := int32(cmd.Forward) * TankSpeed / 127
	// Move one axis at a time, so a tank slides along a crate's side.
	x, y := sixteenths(t.X), sixteenths(t.Y)
	if nx := x + d[0]*speed/256; g.tankFree(units(nx), t.Y) {
		x = nx
	}
	if ny := y + d[1]*speed/256; g.tankFree(units(x), units(ny)) {
		y = ny
	}
	t.X, t.Y = units(x), units(y)
	if t.Reload > 0 {
		t.Reload--
	}
	if cmd.Buttons&ButtonFire != 0 && t.Reload == 0 {
		t.Reload = ReloadFrames
		if !g.predict && len(g.fired) < cap(g.fired) {
			g.fired = append(g.fired, n)
		}
	}
}

// tankFree reports whether a tank centred at (x, y) is inside the field and
// clear of every standing crate.
func (g *Game) tankFree(x, y float32) bool {
	if x < TankRadius || y < TankRadius || x > FieldSize-TankRadius || y > FieldSize-TankRadius {
		return false
	}
	for _, e := range g.Entities() {
		if c, ok := e.(*Crate); ok && c.Solid() && abs(x-c.X) < CrateHalf+TankRadius && abs(y-c.Y) < CrateHalf+TankRadius {
			return false
		}
	}
	return true
}

// fire spawns tank n's shell at its muzzle (server only).
func (g *Game) fire(n game.EntityNum) {
	t := g.tankAt(n)
	if t == nil {
		return
	}
	_, e, err := g.Add(g.shell)
	if err != nil {
		return // every number is taken: this shell misfires
	}
	s := e.(*Shell)
	d := dirs[t.Heading]
	s.VX, s.VY = d[0]*ShellSpeed/256, d[1]*ShellSpeed/256
	s.X = units(sixteenths(t.X) + d[0]*(TankRadius+4)*16/256)
	s.Y = units(sixteenths(t.Y) + d[1]*(TankRadius+4)*16/256)
	s.Expire, s.FiredBy = g.frame+ShellFrames, n
}

func (g *Game) shellFrame(n game.EntityNum, s *Shell) {
	if g.frame >= s.Expire {
		g.spend(n)
		return
	}
	x, y := sixteenths(s.X)+s.VX, sixteenths(s.Y)+s.VY
	if x < 0 || y < 0 || x > FieldSize*16 || y > FieldSize*16 {
		s.Expire = g.frame
		g.spend(n)
		return
	}
	s.X, s.Y = units(x), units(y)
	for m, e := range g.Entities() {
		switch e := e.(type) {
		case *Crate:
			if e.Solid() && abs(s.X-e.X) < CrateHalf && abs(s.Y-e.Y) < CrateHalf {
				s.Expire = g.frame
				g.spend(n)
				g.hitCrate(m, e)
				return
			}
		case *Tank:
			if m != s.FiredBy && e.Alive() && abs(s.X-e.X) < TankRadius && abs(s.Y-e.Y) < TankRadius {
				s.Expire = g.frame
				g.spend(n)
				g.hitTank(s.FiredBy, e)
				return
			}
		}
	}
}

func (g *Game) spend(n game.EntityNum) {
	if !g.predict && len(g.spent) < cap(g.spent) {
		g.spent = append(g.spent, n)
	}
}

func (g *Game) hitCrate(n game.EntityNum, c *Crate) {
	c.HP--
	if c.HP == 0 {
		c.Respawn = g.frame + CrateRespawn
	}
	g.sink.SendUnreliableEvent(n, EventCrateHit, nil)
}

func (g *Game) hitTank(by game.EntityNum, t *Tank) {
	t.HP--
	if t.HP > 0 {
		return
	}
	t.Respawn = g.frame + RespawnDelay
	killer := g.tankAt(by)
	if killer == nil || g.predict {
		return
	}
	killer.Score = min(killer.Score+1, 999)
	if g.Announce != nil {
		g.killFeed = KillFeed{Killer: killer.Driver, Victim: t.Driver}
		g.Announce(&g.killFeed)
	}
}

func abs(v float32) float32 {
	if v < 0 {
		return -v
	}
	return v
}
