package refgame

import (
	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/game"
)

// RunFrame implements game.Game: it advances the world one fixed frame (DOOM III §2). The order
// is fixed: players in entity number order (respawn, view, Use, fire, move), rockets in number
// order, pickups, doors, props, then the match rules. On a predicting client (t.Predicting) it
// neither spawns nor removes entities: a shot still costs the cooldown but its rocket appears with
// the server's snapshot, and an exploded rocket stays, inert, until the server removes it.
func (w *World) RunFrame(t *game.Tick) { w.runFrame(t, game.CoarseStep{Frames: 1}) }

// runFrame runs frame t.Frame with every entity but s.Exact advancing s.Frames frames (1 in an
// ordinary frame; coarse.go).
func (w *World) runFrame(t *game.Tick, s game.CoarseStep) {
	if w.Map == nil {
		return
	}
	f := t.Frame
	w.frame = f
	ev := t.Events
	if ev == nil {
		ev = game.Discard
	}
	ci := 0
	for i := range w.Players {
		n := game.EntityNum(i)
		for ci < len(t.Cmds) && t.Cmds[ci].Entity < n {
			ci++
		}
		exact := s.HasExact && n == s.Exact
		if !w.isPresent(n) || s.Frames == 0 && !exact {
			continue
		}
		p := &w.Players[i]
		cmd := game.UserCmd{Yaw: p.Yaw} // no command known: stand still
		if ci < len(t.Cmds) && t.Cmds[ci].Entity == n {
			cmd = t.Cmds[ci].Cmd
		}
		steps := s.Frames
		if exact {
			steps = 1
		}
		w.touch(n) // view, buttons, cooldown, movement: a running player changes every frame
		w.playerFrame(n, p, &cmd, f, ev, t.Predicting, steps)
	}
	if s.Frames == 0 {
		return // inside a coarse step: only the exact entity ran
	}
	for i := range w.Rockets {
		n := game.EntityNum(w.Map.FirstRocket + i)
		if !w.isPresent(n) {
			continue
		}
		w.touch(n) // in flight it moves; exploded, it may go
		if s.Frames == 1 {
			w.rocketFrame(n, &w.Rockets[i], f, ev, t.Predicting)
		} else {
			w.rocketSteps(n, &w.Rockets[i], f, s.Frames, ev)
		}
	}
	// A pickup is taken by players whose centre is in its room (all pickups lie inside a room's
	// floor, so this only excludes players standing in a doorway); the per-room player lists
	// keep the 4096-entity maps cheap.
	w.indexPlayersByRoom()
	for i := range w.Pickups {
		if pk := &w.Pickups[i]; pk.Respawn != 0 && f >= pk.Respawn && w.isPresent(game.EntityNum(w.Map.FirstPickup+i)) {
			pk.Respawn = 0
			w.touch(game.EntityNum(w.Map.FirstPickup + i))
		}
	}
	for r := range w.Map.Rooms {
		if w.roomHead[r] < 0 {
			continue
		}
		for _, i := range w.Map.roomPickups[r] {
			if w.Pickups[i].Respawn == 0 && w.isPresent(game.EntityNum(w.Map.FirstPickup+i)) {
				w.pickupFrame(i, f)
			}
		}
	}
	for i := range w.Doors {
		if w.isPresent(game.EntityNum(w.Map.FirstDoor + i)) {
			w.doorFrame(i, f, ev)
		}
	}
	for i := range w.Props {
		if spin := w.Map.props[i].Spin; spin != 0 && w.isPresent(game.EntityNum(w.Map.FirstProp+i)) {
			w.Props[i].Yaw += spin * uint16(s.Frames)
			w.touch(game.EntityNum(w.Map.FirstProp + i))
		}
	}
	w.matchFrame(f)
}

// intermission reports whether the match is over and frags are about to reset.
func (w *World) intermission() bool { return w.Score.Winner >= 0 }

// playerFrame runs player n's frame f; with steps > 1 (coarse re-prediction, coarse.go) it
// advances the player steps frames at once.
func (w *World) playerFrame(n game.EntityNum, p *Player, cmd *game.UserCmd, f game.Frame, ev game.EventSink, predicting bool, steps int) {
	p.Yaw = cmd.Yaw
	buttons := cmd.Buttons & buttonMask
	pressed := buttons &^ p.Buttons
	p.Buttons = buttons
	if !p.Alive() {
		if f >= p.Respawn {
			// A step of several frames respawns at the frame the frame-by-frame run would: the
			// spawn point is hashed from it.
			w.respawn(n, max(f-game.Frame(steps-1), p.Respawn))
		}
		return
	}
	if p.Cooldown > 0 {
		p.Cooldown = max(p.Cooldown-int32(steps), 0)
	}
	if pressed&ButtonUse != 0 {
		w.use(p, f, ev)
	}
	if buttons&ButtonAttack != 0 && p.Cooldown == 0 && !w.intermission() {
		w.fire(n, p, f, predicting)
	}
	w.movePlayer(n, p, cmd, steps)
}

// movePlayer applies Quake-style friction and acceleration, then moves with collision. Movement
// is relative to the view: Forward along Yaw, Right 90 degrees clockwise of it (yaw 0 looks
// along +X, yaw 16384 along +Y). steps > 1 integrates that many frames in one step (coarse.go);
// steps = 1 multiplies by dt exactly as a fixed 1/60 s step.
func (w *World) movePlayer(n game.EntityNum, p *Player, cmd *game.UserCmd, steps int) {
	dt := dt
	if steps > 1 {
		dt = float32(dt * float32(steps))
	}
	v := vec2{p.VX, p.VY}
	v0 := v // a step of several frames moves as if the velocity went from v0 to the new one linearly
	// Friction.
	if speed := v.length(); speed > 0 {
		control := speed
		if control < StopSpeed {
			control = StopSpeed
		}
		drop := float32(float32(control*Friction) * dt)
		ns := float32(speed - drop)
		if ns < 0 {
			ns = 0
		}
		v = v.scale(float32(ns / speed))
	}
	// Acceleration towards the wished velocity.
	fwd := yawDir(p.Yaw)
	right := vec2{fwd.Y, -fwd.X}
	fm, rm := axisInput(cmd.Forward), axisInput(cmd.Right)
	wish := vec2{float32(float32(fwd.X*fm) + float32(right.X*rm)), float32(float32(fwd.Y*fm) + float32(right.Y*rm))}
	if wl := wish.length(); wl > 0 {
		dir := wish.scale(float32(1 / wl))
		if wl > 1 {
			wl = 1
		}
		wishSpeed := float32(wl * MaxSpeed)
		add := float32(wishSpeed - v.dot(dir))
		if add > 0 {
			acc := float32(float32(Accelerate*dt) * wishSpeed)
			if acc > add {
				acc = add
			}
			v = v.addScaled(dir, acc)
		}
	}
	p.VX, p.VY = quantVel(v.X), quantVel(v.Y)
	// Slide along other players: drop the part of the move that goes into one.
	pos := vec2{p.X, p.Y}
	d := vec2{p.VX, p.VY}.scale(dt)
	if steps > 1 {
		d = v0.addScaled(vec2{p.VX, p.VY}.sub(v0), float32(steps+1)/float32(2*steps)).scale(dt)
	}
	for j := range w.Players {
		o := &w.Players[j]
		if j == int(n) || !o.Alive() || !w.isPresent(game.EntityNum(j)) {
			continue
		}
		to := vec2{o.X, o.Y}.sub(pos)
		if pos.add(d).sub(vec2{o.X, o.Y}).lenSq() >= (2*PlayerRadius)*(2*PlayerRadius) {
			continue
		}
		if dn := d.dot(to); dn > 0 {
			if tl := to.lenSq(); tl > 0 {
				d = d.addScaled(to, -float32(dn/tl))
			}
		}
	}
	var np vec2
	var bx, by bool
	if steps == 1 {
		np, bx, by = w.moveBox(pos, d, PlayerRadius)
	} else {
		np, bx, by = w.moveBoxLong(pos, d, PlayerRadius)
	}
	if bx {
		p.VX = 0
	}
	if by {
		p.VY = 0
	}
	// Only a hostile snapshot can put a player outside the map; keep it inside.
	p.X = min(max(np.X, PlayerRadius), float32(w.Map.W*TileSize-PlayerRadius))
	p.Y = min(max(np.Y, PlayerRadius), float32(w.Map.H*TileSize-PlayerRadius))
}

// axisInput maps a -127..127 command axis to -1..1.
func axisInput(v int8) float32 {
	if v < -127 {
		v = -127
	}
	return float32(v) / 127
}

// quantVel clamps a velocity component to MaxVelocity and rounds it to the half float it is sent
// as (DOOM III §4.1: velocities as 16-bit floats), so the game runs on exactly what clients get.
func quantVel(v float32) float32 {
	if v > MaxVelocity {
		v = MaxVelocity
	} else if v < -MaxVelocity {
		v = -MaxVelocity
	}
	return bitmsg.QuantizeHalf(v)
}

// use acts on the nearest door or light switch within UseRange: a closed or closing door opens,
// a light toggles.
func (w *World) use(p *Player, f game.Frame, ev game.EventSink) {
	pos := vec2{p.X, p.Y}
	best, bestD := -1, float32(UseRange*UseRange)
	for i := range w.Doors {
		d := &w.Map.Doors[i]
		if dd := pos.sub(vec2{d.CX, d.CY}).lenSq(); dd < bestD && w.isPresent(game.EntityNum(w.Map.FirstDoor+i)) {
			best, bestD = i, dd
		}
	}
	light := -1
	for i := range w.Lights {
		if dd := pos.sub(w.Map.lights[i].Pos).lenSq(); dd < bestD && w.isPresent(game.EntityNum(w.Map.FirstLight+i)) {
			light, bestD = i, dd
		}
	}
	switch {
	case light >= 0:
		w.toggleLight(light, f, ev)
	case best >= 0:
		if s := w.Doors[best].State; s == DoorClosed || s == DoorClosing {
			w.setDoor(best, DoorOpening, f, ev)
		}
	}
}

func (w *World) setDoor(i int, s DoorState, f game.Frame, ev game.EventSink) {
	w.Doors[i] = Door{State: s, Since: f}
	w.touch(game.EntityNum(w.Map.FirstDoor + i))
	w.ev.Reset(w.evBuf[:])
	w.ev.WriteBits(uint32(s), 2)
	w.ev.WriteUint32(uint32(f))
	ev.ServerSendEvent(game.EntityNum(w.Map.FirstDoor+i), EventDoor, &w.ev, true)
}

func (w *World) toggleLight(i int, f game.Frame, ev game.EventSink) {
	l := &w.Lights[i]
	l.On = !l.On
	w.touch(game.EntityNum(w.Map.FirstLight + i))
	w.ev.Reset(w.evBuf[:])
	w.ev.WriteBool(l.On)
	w.ev.WriteUint32(uint32(f))
	ev.ServerSendEvent(game.EntityNum(w.Map.FirstLight+i), EventLight, &w.ev, false)
}

// fire launches a rocket from the player's next rocket slot.
func (w *World) fire(n game.EntityNum, p *Player, f game.Frame, predicting bool) {
	slot := int(n)*RocketSlots + int(p.ShotSeq)
	p.ShotSeq = (p.ShotSeq + 1) % RocketSlots
	p.Cooldown = RocketCooldown
	if predicting {
		return // the server spawns it; it arrives with a snapshot
	}
	dir := yawDir(p.Yaw)
	w.Rockets[slot] = Rocket{
		X:      float32(p.X + float32(dir.X*(PlayerRadius+RocketRadius+4))),
		Y:      float32(p.Y + float32(dir.Y*(PlayerRadius+RocketRadius+4))),
		VX:     quantVel(float32(dir.X * RocketSpeed)),
		VY:     quantVel(float32(dir.Y * RocketSpeed)),
		Expire: f + RocketLife,
	}
	w.setPresent(game.EntityNum(w.Map.FirstRocket+slot), true)
}

// rocketOwner returns the player entity owning rocket slot n.
func (w *World) rocketOwner(n game.EntityNum) game.EntityNum {
	return game.EntityNum((int(n) - w.Map.FirstRocket) / RocketSlots)
}

func (w *World) rocketFrame(n game.EntityNum, k *Rocket, f game.Frame, ev game.EventSink, predicting bool) {
	if k.Exploded != 0 {
		if !predicting && f >= k.Exploded+RocketLinger {
			w.setPresent(n, false)
		}
		return
	}
	pos := vec2{k.X, k.Y}
	np := pos.add(vec2{k.VX, k.VY}.scale(dt))
	owner := w.rocketOwner(n)
	// Direct hit on a player other than the owner.
	for j := range w.Players {
		o := &w.Players[j]
		if game.EntityNum(j) == owner || !o.Alive() || !w.isPresent(game.EntityNum(j)) {
			continue
		}
		if np.sub(vec2{o.X, o.Y}).lenSq() < (PlayerRadius+RocketRadius)*(PlayerRadius+RocketRadius) {
			w.explode(n, k, np, j, f, ev)
			return
		}
	}
	if w.solidTile(tileCoord(np.X), tileCoord(np.Y)) {
		w.explode(n, k, pos, -1, f, ev)
		return
	}
	k.X, k.Y = np.X, np.Y
	if f >= k.Expire {
		w.explode(n, k, np, -1, f, ev)
	}
}

// explode applies splash damage with linear falloff and knockback to every live player within
// SplashRadius (a direct hit takes RocketDamage, the owner half), toggles lights within the
// radius, and leaves the rocket inert at the explosion point.
func (w *World) explode(n game.EntityNum, k *Rocket, at vec2, direct int, f game.Frame, ev game.EventSink) {
	k.X, k.Y, k.Exploded = at.X, at.Y, f
	w.touch(n)
	owner := w.rocketOwner(n)
	for j := range w.Players {
		o := &w.Players[j]
		if !o.Alive() || !w.isPresent(game.EntityNum(j)) {
			continue
		}
		off := vec2{o.X, o.Y}.sub(at)
		dist := off.length()
		var dmg int32
		if j == direct {
			dmg = RocketDamage
		} else if dist < SplashRadius {
			dmg = int32(float32(RocketDamage * float32(1-float32(dist/SplashRadius))))
		}
		if dmg <= 0 {
			continue
		}
		if game.EntityNum(j) == owner {
			dmg /= 2
		}
		dir := vec2{k.VX, k.VY}
		if dist >= 1 {
			dir = off
		}
		if dl := dir.length(); dl > 0 {
			kick := float32(float32(dmg*Knockback) / dl)
			o.VX, o.VY = quantVel(float32(o.VX+float32(dir.X*kick))), quantVel(float32(o.VY+float32(dir.Y*kick)))
		}
		w.damage(game.EntityNum(j), o, owner, dmg, f)
	}
	for i := range w.Lights {
		if w.isPresent(game.EntityNum(w.Map.FirstLight+i)) && w.Map.lights[i].Pos.sub(at).lenSq() < SplashRadius*SplashRadius {
			w.toggleLight(i, f, ev)
		}
	}
	w.ev.Reset(w.evBuf[:])
	w.ev.WriteFloat(at.X)
	w.ev.WriteFloat(at.Y)
	ev.SendUnreliableEvent(n, EventExplode, &w.ev)
}

// damage takes dmg from a player, armor absorbing two thirds while it lasts, and scores a death.
func (w *World) damage(victim game.EntityNum, o *Player, attacker game.EntityNum, dmg int32, f game.Frame) {
	w.touch(victim) // and its knockback (explode)
	save := dmg * 2 / 3
	if save > o.Armor {
		save = o.Armor
	}
	o.Armor -= save
	o.Health -= dmg - save
	w.Stats[victim].DamageTaken += uint16(dmg)
	w.Stats[victim].LastAttacker = int32(attacker)
	if victim != attacker {
		w.Stats[attacker].DamageGiven += uint16(dmg)
	}
	if o.Health > 0 {
		return
	}
	o.Health, o.VX, o.VY, o.Cooldown = 0, 0, 0, 0
	o.Respawn = f + RespawnDelay
	sc := &w.Score
	sc.Slots[victim].Deaths = min(sc.Slots[victim].Deaths+1, maxFrags)
	if victim == attacker {
		sc.Slots[attacker].Frags = max(sc.Slots[attacker].Frags-1, -maxFrags)
	} else {
		sc.Slots[attacker].Frags = min(sc.Slots[attacker].Frags+1, maxFrags)
		w.Stats[attacker].Kills = min(w.Stats[attacker].Kills+1, maxFrags)
	}
}

// respawn puts player n back at a spawn point chosen by a stateless hash of (seed, frame,
// entity), moving on to the next point while the chosen one is occupied by a live player.
func (w *World) respawn(n game.EntityNum, f game.Frame) {
	p := &w.Players[n]
	sp := w.Map.Spawns
	start := int(hash64(w.Map.cfg.Seed, f, n, saltSpawn) % uint64(len(sp)))
	pick := sp[start]
	for k := 0; k < len(sp); k++ {
		c := sp[(start+k)%len(sp)]
		if w.spawnFree(n, c) {
			pick = c
			break
		}
	}
	*p = Player{X: pick.X, Y: pick.Y, Yaw: p.Yaw, Buttons: p.Buttons, ShotSeq: p.ShotSeq, Health: SpawnHealth}
}

func (w *World) spawnFree(n game.EntityNum, c vec2) bool {
	for j := range w.Players {
		o := &w.Players[j]
		if j == int(n) || !o.Alive() || !w.isPresent(game.EntityNum(j)) {
			continue
		}
		if c.sub(vec2{o.X, o.Y}).lenSq() < (4*PlayerRadius)*(4*PlayerRadius) {
			return false
		}
	}
	return true
}

// indexPlayersByRoom lists the live players of each room, in ascending entity order.
func (w *World) indexPlayersByRoom() {
	for i := range w.roomHead {
		w.roomHead[i] = -1
	}
	for i := len(w.Players) - 1; i >= 0; i-- {
		w.roomNext[i] = -1
		if p := &w.Players[i]; p.Alive() && w.isPresent(game.EntityNum(i)) {
			if r, _ := w.Map.RoomAt(p.X, p.Y); r >= 0 {
				w.roomNext[i] = w.roomHead[r]
				w.roomHead[r] = int8(i)
			}
		}
	}
}

// pickupFrame gives available pickup i to the first live player (in entity order) in its room
// touching it who can use it. It becomes available again after PickupRespawn frames plus a jitter
// hashed from (seed, frame, entity). Pickups are handled room by room, in entity order within a
// room; players in different rooms never compete, so the order of rooms does not matter.
func (w *World) pickupFrame(i int, f game.Frame) {
	pk := &w.Pickups[i]
	def := &w.Map.pickups[i]
	for j := int(w.roomHead[def.Room]); j >= 0; j = int(w.roomNext[j]) {
		o := &w.Players[j]
		if def.Pos.sub(vec2{o.X, o.Y}).lenSq() >= (PlayerRadius+PickupRadius)*(PlayerRadius+PickupRadius) {
			continue
		}
		switch def.Kind {
		case PickupHealth:
			if o.Health >= MaxHealth {
				continue
			}
			o.Health = min(o.Health+PickupHealthAmount, MaxHealth)
		case PickupArmor:
			if o.Armor >= MaxArmor {
				continue
			}
			o.Armor = min(o.Armor+PickupArmorAmount, MaxArmor)
		}
		n := game.EntityNum(w.Map.FirstPickup + i)
		pk.Respawn = f + PickupRespawn + game.Frame(hash64(w.Map.cfg.Seed, f, n, saltPickup)%PickupJitter)
		w.touch(n)
		w.touch(game.EntityNum(j))
		return
	}
}

// doorFrame moves a door through its cycle: opening -> open after DoorMoveFrames; open ->
// closing after DoorStayFrames once no live player is in the doorway; closing -> closed after
// DoorMoveFrames. Every transition is a saved reliable event (DOOM III §5).
func (w *World) doorFrame(i int, f game.Frame, ev game.EventSink) {
	d := &w.Doors[i]
	switch d.State {
	case DoorOpening:
		if f >= d.Since+DoorMoveFrames {
			w.setDoor(i, DoorOpen, f, ev)
		}
	case DoorOpen:
		if f >= d.Since+DoorStayFrames && !w.doorwayBusy(i) {
			w.setDoor(i, DoorClosing, f, ev)
		}
	case DoorClosing:
		if f >= d.Since+DoorMoveFrames {
			w.setDoor(i, DoorClosed, f, ev)
		}
	}
}

func (w *World) doorwayBusy(i int) bool {
	for j := range w.Players {
		o := &w.Players[j]
		if o.Alive() && w.isPresent(game.EntityNum(j)) && w.boxOverlapsDoor(vec2{o.X, o.Y}, PlayerRadius+wallSkin, i) {
			return true
		}
	}
	return false
}

// matchFrame applies the frag limit: the first player to reach it wins; IntermissionFrames later
// the scores reset. During the intermission nobody can fire.
func (w *World) matchFrame(f game.Frame) {
	sc := &w.Score
	if sc.Winner >= 0 {
		if f >= sc.EndFrame+IntermissionFrames {
			clear(sc.Slots[:])
			sc.Winner, sc.EndFrame = -1, 0
		}
		return
	}
	if sc.FragLimit <= 0 {
		return
	}
	for i, slot := range sc.Slots[:len(w.Players)] {
		if slot.Frags >= sc.FragLimit && w.isPresent(game.EntityNum(i)) {
			sc.Winner, sc.EndFrame = int32(i), f
			return
		}
	}
}
