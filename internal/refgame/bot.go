package refgame

import "github.com/snapwire/snapwire/game"

// BotMode selects a bot's behaviour.
type BotMode uint8

const (
	// BotDeathmatch wanders between rooms (opening doors on the way), picks up health when hurt,
	// chases the nearest enemy it can see, aims and fires when it has a clear shot.
	BotDeathmatch BotMode = iota
	// BotNeverTouch keeps its view along the X axis and runs back and forth along the row it
	// spawned on, never pressing a button. Spawn points in a room lie on distinct rows more than
	// two player radii apart and a row never lines up with a doorway, so NeverTouch players never
	// meet, never leave their room and never change anything but themselves: everything they do
	// is exactly predictable (the engine's exact-prediction tests use them).
	BotNeverTouch
)

// Bot produces one user command per frame for one client from what that client sees: its
// world view (on a client, the predicted world holding its PVS). It is deterministic given its
// seed and the sequence of views and frames it is given: every random choice is a stateless
// hash of (seed, frame, entity), and its only memory is its current goal room and Use toggle.
type Bot struct {
	Seed   uint64
	Client game.ClientNum
	Mode   BotMode

	goal      int        // room it is heading for, -1 none
	goalUntil game.Frame // pick a new goal after this frame
	usedLast  bool       // it pressed Use in its last command (Use acts on the press edge)
	yaw       uint16
}

// NewBot returns a bot playing client c.
func NewBot(seed uint64, c game.ClientNum, mode BotMode) *Bot {
	return &Bot{Seed: seed, Client: c, Mode: mode, goal: -1}
}

// Command returns the bot's command for frame f, seen from view.
func (b *Bot) Command(view *World, f game.Frame) game.UserCmd {
	cmd := game.UserCmd{Frame: f, Yaw: b.yaw}
	if view == nil || view.Map == nil || int(b.Client) >= len(view.Players) || !view.isPresent(game.EntityNum(b.Client)) {
		return cmd
	}
	me := &view.Players[b.Client]
	if b.Mode == BotNeverTouch {
		return b.neverTouch(cmd, f)
	}
	if !me.Alive() {
		b.usedLast = false
		return cmd
	}
	pos := vec2{me.X, me.Y}
	if t, ok := b.enemy(view, pos); ok {
		return b.fight(view, cmd, me, pos, t, f)
	}
	return b.wander(view, cmd, me, pos, f)
}

func (b *Bot) neverTouch(cmd game.UserCmd, f game.Frame) game.UserCmd {
	period := game.Frame(40 + hash64(b.Seed, 0, game.EntityNum(b.Client), saltBotLane)%80)
	cmd.Yaw = 0
	b.yaw = 0
	if (f/period)%2 == 0 {
		cmd.Forward = 127
	} else {
		cmd.Forward = -127
	}
	return cmd
}

// enemy returns the nearest live enemy in a visible room, preferring one in clear line of sight.
func (b *Bot) enemy(view *World, pos vec2) (vec2, bool) {
	rooms := view.VisibleRooms(pos.X, pos.Y)
	best, bestScore := vec2{}, float32(0)
	found := false
	for j := range view.Players {
		o := &view.Players[j]
		if j == int(b.Client) || !o.Alive() || !view.isPresent(game.EntityNum(j)) || !view.posVisible(&rooms, o.X, o.Y) {
			continue
		}
		op := vec2{o.X, o.Y}
		score := op.sub(pos).lenSq()
		if !view.lineClear(pos, op) {
			score = float32(score * 4)
		}
		if !found || score < bestScore {
			best, bestScore, found = op, score, true
		}
	}
	return best, found
}

// lineClear reports whether the segment a-b crosses no solid tile (sampled every 8 units).
func (w *World) lineClear(a, b vec2) bool {
	d := b.sub(a)
	steps := int(d.length()/8) + 1
	if steps > 512 {
		return false
	}
	inv := float32(1) / float32(steps)
	for i := 1; i < steps; i++ {
		p := a.addScaled(d, float32(float32(i)*inv))
		if w.solidTile(tileCoord(p.X), tileCoord(p.Y)) {
			return false
		}
	}
	return true
}

func (b *Bot) fight(view *World, cmd game.UserCmd, me *Player, pos, t vec2, f game.Frame) game.UserCmd {
	if !view.lineClear(pos, t) {
		// Seen through a door but not in a clear line: go to its room.
		room, door := view.Map.RoomAt(t.X, t.Y)
		if room < 0 && door >= 0 {
			room = view.Map.Doors[door].Rooms[0]
		}
		if room >= 0 {
			b.goal, b.goalUntil = room, f+120
		}
		return b.wander(view, cmd, me, pos, f)
	}
	d := t.sub(pos)
	aim := yawOf(d.X, d.Y)
	cmd.Yaw, b.yaw = aim, aim
	dist := d.length()
	switch {
	case dist > 200:
		cmd.Forward = 127
	case dist < 100:
		cmd.Forward = -90
	}
	if hash64(b.Seed, f/30, game.EntityNum(b.Client), saltBotStrafe)&1 == 0 {
		cmd.Right = 100
	} else {
		cmd.Right = -100
	}
	// Fire when aimed (the yaw is exact here) and reloaded; skip a seeded fraction of chances so
	// bots do not all fire on the same frame.
	if me.Cooldown == 0 && dist < 700 && hash64(b.Seed, f, game.EntityNum(b.Client), saltBotFire)%4 != 0 {
		cmd.Buttons |= ButtonAttack
	}
	b.usedLast = false
	return cmd
}

// wander heads for the goal room through the doors on the shortest room path, pressing Use at
// closed doors, and detours to a health pickup in its room when hurt.
func (b *Bot) wander(view *World, cmd game.UserCmd, me *Player, pos vec2, f game.Frame) game.UserCmd {
	m := view.Map
	room, door := m.RoomAt(pos.X, pos.Y)
	if b.goal < 0 || b.goal >= len(m.Rooms) || f > b.goalUntil || b.goal == room {
		h := hash64(b.Seed, f, game.EntityNum(b.Client), saltBotWander)
		b.goal = int(h % uint64(len(m.Rooms)))
		b.goalUntil = f + 600 + game.Frame(h>>32%600)
	}
	var target vec2
	use := false
	switch {
	case room < 0 && door >= 0:
		// In a doorway: walk into the room on the goal's side.
		d := &m.Doors[door]
		next := d.Rooms[1]
		if m.roomDist(d.Rooms[0], b.goal) < m.roomDist(d.Rooms[1], b.goal) {
			next = d.Rooms[0]
		}
		target = m.doorApproach(door, next)
	case room < 0:
		target = pos // stuck in a wall (cannot happen): stand
	default:
		if hp, ok := b.healthNearby(view, room, me); ok {
			target = hp
			break
		}
		next := m.nextRoom(room, b.goal)
		if next < 0 {
			cx, cy := m.Rooms[room].Center()
			target = vec2{cx, cy}
			break
		}
		d := m.doorBetween(room, next)
		dd := &m.Doors[d]
		in := m.doorApproach(d, room)
		// Line up with the doorway first, then go through.
		off := pos.X - dd.CX // a door in an east-west wall is passed along Y
		if dd.Vertical {
			off = pos.Y - dd.CY
		}
		if abs32(off) > 12 {
			target = in
		} else {
			target = m.doorApproach(d, next)
		}
		if view.Doors[d].State == DoorClosed || view.Doors[d].State == DoorClosing {
			if pos.sub(vec2{dd.CX, dd.CY}).lenSq() < (UseRange-8)*(UseRange-8) {
				use = !b.usedLast
				target = in
			}
		}
	}
	d := target.sub(pos)
	if d.lenSq() > 4 {
		y := yawOf(d.X, d.Y)
		cmd.Yaw, b.yaw = y, y
		cmd.Forward = 127
		if d.lenSq() < 24*24 {
			cmd.Forward = 40
		}
	}
	if use {
		cmd.Buttons |= ButtonUse
	}
	b.usedLast = use
	return cmd
}

// healthNearby returns an available health pickup in room r when the player is hurt.
func (b *Bot) healthNearby(view *World, r int, me *Player) (vec2, bool) {
	if me.Health >= SpawnHealth {
		return vec2{}, false
	}
	m := view.Map
	for i := range m.pickups {
		pd := &m.pickups[i]
		if pd.Room == r && pd.Kind == PickupHealth && view.isPresent(game.EntityNum(m.FirstPickup+i)) && view.Pickups[i].Available() {
			return pd.Pos, true
		}
	}
	return vec2{}, false
}

// doorApproach returns the point 40 units in front of door d on room r's side.
func (m *Map) doorApproach(d, r int) vec2 {
	dd := &m.Doors[d]
	p := vec2{dd.CX, dd.CY}
	sign := float32(40)
	if r == dd.Rooms[0] {
		sign = -40 // room 0 lies west (or south) of the door
	}
	if dd.Vertical {
		p.X += sign
	} else {
		p.Y += sign
	}
	return p
}

// roomDist is the number of doors between rooms a and b (rooms form a grid, all neighbours
// joined).
func (m *Map) roomDist(a, b int) int {
	ra, rb := &m.Rooms[a], &m.Rooms[b]
	dx, dy := ra.GX-rb.GX, ra.GY-rb.GY
	if dx < 0 {
		dx = -dx
	}
	if dy < 0 {
		dy = -dy
	}
	return dx + dy
}

// nextRoom returns the neighbour of a on a shortest path to b (X first), or -1 when a == b.
func (m *Map) nextRoom(a, b int) int {
	ra, rb := &m.Rooms[a], &m.Rooms[b]
	rx := m.cfg.RoomsX
	switch {
	case rb.GX > ra.GX:
		return a + 1
	case rb.GX < ra.GX:
		return a - 1
	case rb.GY > ra.GY:
		return a + rx
	case rb.GY < ra.GY:
		return a - rx
	}
	return -1
}
