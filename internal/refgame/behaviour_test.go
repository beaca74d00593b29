package refgame

import (
	"testing"

	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/game"
)

// place puts player c at (x, y) standing still, alive with full health and no armor.
func place(w *World, c int, x, y float32) {
	p := &w.Players[c]
	*p = Player{X: x, Y: y, Health: SpawnHealth, ShotSeq: p.ShotSeq}
}

// runCmd runs frame f with one command for player 0 (and none for the others).
func runCmd(m *match, f game.Frame, cmd game.UserCmd) {
	m.run(f, []game.PlayerCmd{{Entity: 0, Cmd: cmd}})
}

func doorEvents(m *match) []game.Event {
	var out []game.Event
	for _, e := range m.ev.Events() {
		if e.ID == EventDoor {
			out = append(out, e)
		}
	}
	return out
}

func TestDoorCycle(t *testing.T) {
	cfg := Config{RoomsX: 2, RoomsY: 1, RoomTiles: 8, MaxPlayers: 2}
	m := newMatch(t, cfg, 1, BotDeathmatch)
	w := m.w
	d := &w.Map.Doors[0]
	if !d.Vertical || d.Rooms != [2]int{0, 1} {
		t.Fatalf("door %+v", d)
	}
	wallX := float32(d.TX * TileSize)
	place(w, 0, d.CX-40, d.CY)
	use := game.UserCmd{Buttons: ButtonUse}
	run := game.UserCmd{Forward: 127} // yaw 0: east, into the door
	var f game.Frame
	expect := func(cmd game.UserCmd, state DoorState, event bool) {
		t.Helper()
		f++
		runCmd(m, f, cmd)
		if got := w.Doors[0].State; got != state {
			t.Fatalf("frame %d: door %v, want %v", f, got, state)
		}
		evs := doorEvents(m)
		if event != (len(evs) == 1) {
			t.Fatalf("frame %d: %d door events, want event=%v", f, len(evs), event)
		}
		if event {
			e := evs[0]
			if !e.Reliable || !e.Save || e.Entity != game.EntityNum(w.Map.FirstDoor) || e.Frame != f {
				t.Fatalf("frame %d: event %+v", f, e)
			}
			// The payload replays the transition on a client's door.
			var cd Door
			var r bitmsg.Reader
			e.Payload(&r)
			cd.ReceiveEvent(e.ID, e.Frame, &r)
			if cd != w.Doors[0] {
				t.Fatalf("frame %d: event gives %+v, door is %+v", f, cd, w.Doors[0])
			}
		}
	}
	expect(use, DoorOpening, true)
	expect(use, DoorOpening, false) // holding Use does nothing more
	// Running into the opening door: it is solid until open.
	for f < DoorMoveFrames {
		expect(run, DoorOpening, false)
		if p := &w.Players[0]; float32(p.X+PlayerRadius) >= wallX {
			t.Fatalf("frame %d: player at %v went into the opening door (wall at %v)", f, p.X, wallX)
		}
	}
	expect(run, DoorOpen, true)
	if w.Doors[0].Since != DoorMoveFrames+1 {
		t.Fatalf("opened at %d", w.Doors[0].Since)
	}
	// Walk into the doorway and stop there: the door stays open past its time.
	for w.Players[0].X < wallX {
		expect(run, DoorOpen, false)
	}
	for i := 0; i < DoorStayFrames+30; i++ {
		expect(game.UserCmd{}, DoorOpen, false)
	}
	if p := &w.Players[0]; !w.boxOverlapsDoor(vec2{p.X, p.Y}, PlayerRadius, 0) {
		t.Fatalf("player at %v stopped outside the doorway", p.X)
	}
	// Leave into room 1: it starts closing the first frame the doorway is clear.
	for {
		f++
		runCmd(m, f, run)
		if w.Doors[0].State == DoorClosing {
			break
		}
		if w.Doors[0].State != DoorOpen || f > 1000 {
			t.Fatalf("frame %d: door %v", f, w.Doors[0].State)
		}
	}
	if r, _ := w.Map.RoomAt(w.Players[0].X, w.Players[0].Y); r != 1 || w.doorwayBusy(0) {
		t.Fatalf("closing with the player in room %d", r)
	}
	// Use on a closing door opens it again (the player is within reach of the door).
	expect(game.UserCmd{Yaw: 32768, Buttons: ButtonUse}, DoorOpening, true)
	for i := 0; i < DoorMoveFrames-1; i++ {
		expect(game.UserCmd{}, DoorOpening, false)
	}
	expect(game.UserCmd{}, DoorOpen, true)
	for i := 0; i < DoorStayFrames-1; i++ {
		expect(game.UserCmd{}, DoorOpen, false)
	}
	expect(game.UserCmd{}, DoorClosing, true)
	for i := 0; i < DoorMoveFrames-1; i++ {
		expect(game.UserCmd{}, DoorClosing, false)
	}
	expect(game.UserCmd{}, DoorClosed, true)
	// A closed door is a wall from room 1 too.
	place(w, 0, d.CX+40, d.CY)
	for i := 0; i < 60; i++ {
		expect(game.UserCmd{Yaw: 32768, Forward: 127}, DoorClosed, false)
	}
	if p := &w.Players[0]; float32(p.X-PlayerRadius) < wallX+TileSize {
		t.Fatalf("player at %v passed the closed door", p.X)
	}
}

// An older door event does not undo a newer state.
func TestDoorEventOrder(t *testing.T) {
	var buf [8]byte
	send := func(d *Door, s DoorState, f game.Frame) {
		var w bitmsg.Writer
		w.Reset(buf[:])
		w.WriteBits(uint32(s), 2)
		w.WriteUint32(uint32(f))
		r := bitmsg.NewReader(w.Bytes(), w.Len())
		d.ReceiveEvent(EventDoor, f, r)
	}
	var d Door
	send(&d, DoorOpen, 50)
	send(&d, DoorOpening, 30)
	if d != (Door{State: DoorOpen, Since: 50}) {
		t.Fatalf("door %+v", d)
	}
	send(&d, DoorClosing, 230)
	if d != (Door{State: DoorClosing, Since: 230}) {
		t.Fatalf("door %+v", d)
	}
	// A truncated payload changes nothing.
	d.ReceiveEvent(EventDoor, 300, bitmsg.NewReader([]byte{3}, 2))
	if d != (Door{State: DoorClosing, Since: 230}) {
		t.Fatalf("door after a truncated event %+v", d)
	}
}

func TestLightToggle(t *testing.T) {
	cfg := Config{RoomsX: 1, RoomsY: 1, RoomTiles: 12, MaxPlayers: 2}
	m := newMatch(t, cfg, 1, BotDeathmatch)
	w := m.w
	lp := w.Map.lights[0].Pos
	place(w, 0, lp.X+40, lp.Y)
	lightEvent := func() (on bool, n int) {
		for _, e := range m.ev.Events() {
			if e.ID != EventLight {
				continue
			}
			if !e.Reliable || e.Save || e.Entity != game.EntityNum(w.Map.FirstLight) {
				t.Fatalf("light event %+v", e)
			}
			var r bitmsg.Reader
			e.Payload(&r)
			on, n = r.ReadBool(), n+1
		}
		return on, n
	}
	if !w.Lights[0].On {
		t.Fatal("light starts off")
	}
	var f game.Frame
	for i, st := range []struct {
		b    game.Buttons
		want bool
	}{{ButtonUse, false}, {ButtonUse, false}, {0, false}, {ButtonUse, true}, {ButtonUse, true}, {0, true}, {ButtonUse, false}} {
		f++
		runCmd(m, f, game.UserCmd{Buttons: st.b})
		if w.Lights[0].On != st.want {
			t.Fatalf("step %d: light %v, want %v", i, w.Lights[0].On, st.want)
		}
		on, n := lightEvent()
		if pressed := st.b != 0 && (i == 0 || i == 3 || i == 6); pressed != (n == 1) || n == 1 && on != st.want {
			t.Fatalf("step %d: %d events (on=%v)", i, n, on)
		}
	}
	// A rocket exploding on the wall next to the light toggles it.
	place(w, 0, lp.X+150, lp.Y)
	before := w.Lights[0].On
	toggled := false
	for i := 0; i < 60 && !toggled; i++ {
		f++
		runCmd(m, f, game.UserCmd{Yaw: 32768, Buttons: ButtonAttack * game.Buttons(1-min(i, 1))})
		if on, n := lightEvent(); n == 1 {
			toggled = true
			if on == before || w.Lights[0].On == before {
				t.Fatalf("rocket did not toggle the light")
			}
		}
	}
	if !toggled {
		t.Fatal("no light event after the rocket")
	}
}

func TestPickups(t *testing.T) {
	cfg := Config{RoomsX: 1, RoomsY: 1, RoomTiles: 12, MaxPlayers: 2, Seed: 77}
	m := newMatch(t, cfg, 2, BotDeathmatch)
	w := m.w
	hp, ap := w.Map.pickups[0], w.Map.pickups[1]
	if hp.Kind != PickupHealth || ap.Kind != PickupArmor {
		t.Fatal("pickup kinds")
	}
	// Player 1 at full health stands on the health pickup: nothing happens.
	place(w, 1, hp.Pos.X, hp.Pos.Y)
	w.Players[1].Health = MaxHealth
	place(w, 0, ap.Pos.X+100, ap.Pos.Y)
	m.run(1, nil)
	if !w.Pickups[0].Available() {
		t.Fatal("health taken by a player at full health")
	}
	// Player 0 hurt steps on it.
	place(w, 0, hp.Pos.X+PlayerRadius+PickupRadius-1, hp.Pos.Y)
	w.Players[0].Health = 50
	m.run(2, nil)
	if w.Players[0].Health != 50+PickupHealthAmount || w.Players[1].Health != MaxHealth {
		t.Fatalf("health %d", w.Players[0].Health)
	}
	n := game.EntityNum(w.Map.FirstPickup)
	want := game.Frame(2 + PickupRespawn + hash64(cfg.Seed, 2, n, saltPickup)%PickupJitter)
	if w.Pickups[0].Respawn != want {
		t.Fatalf("respawn frame %d, want %d", w.Pickups[0].Respawn, want)
	}
	for f := game.Frame(3); f < want; f++ {
		m.run(f, nil)
		if w.Players[0].Health != 75 || w.Pickups[0].Available() {
			t.Fatalf("frame %d: health %d, pickup %+v", f, w.Players[0].Health, w.Pickups[0])
		}
	}
	m.run(want, nil) // back, and taken again at once by player 0 still standing on it
	if w.Players[0].Health != 100 || w.Pickups[0].Available() {
		t.Fatalf("at respawn: health %d, pickup %+v", w.Players[0].Health, w.Pickups[0])
	}
	// Armor: +50 up to MaxArmor.
	place(w, 0, ap.Pos.X, ap.Pos.Y)
	w.Players[0].Armor = 180
	m.run(want+1, nil)
	if w.Players[0].Armor != MaxArmor {
		t.Fatalf("armor %d", w.Players[0].Armor)
	}
	// The jitter differs between frames (a stateless hash, not a constant).
	seen := map[uint64]bool{}
	for f := game.Frame(0); f < 50; f++ {
		seen[hash64(cfg.Seed, f, n, saltPickup)%PickupJitter] = true
	}
	if len(seen) < 20 {
		t.Fatalf("jitter takes %d values", len(seen))
	}
}

func TestRocket(t *testing.T) {
	cfg := Config{RoomsX: 1, RoomsY: 1, RoomTiles: 16, MaxPlayers: 2}
	m := newMatch(t, cfg, 2, BotDeathmatch)
	w := m.w
	cx, cy := w.Map.Rooms[0].Center()
	place(w, 0, cx-100, cy)
	place(w, 1, cx+100, cy)
	w.Players[1].Armor = 30
	fire := []game.PlayerCmd{{Entity: 0, Cmd: game.UserCmd{Buttons: ButtonAttack}}}
	m.run(1, fire)
	rn := game.EntityNum(w.Map.FirstRocket)
	if _, typ := w.Entity(rn); typ != TypeRocket || w.Players[0].ShotSeq != 1 || w.Players[0].Cooldown != RocketCooldown {
		t.Fatalf("no rocket: type %d, player %+v", typ, w.Players[0])
	}
	var hit game.Frame
	for f := game.Frame(2); f < 60 && hit == 0; f++ {
		m.run(f, nil)
		if w.Rockets[0].Exploded != 0 {
			hit = f
		}
	}
	// Direct hit: 100 damage, armor absorbs two thirds up to its 30.
	if p := &w.Players[1]; hit == 0 || p.Health != SpawnHealth-(RocketDamage-30) || p.Armor != 0 || p.VX <= 0 {
		t.Fatalf("after hit at %d: %+v", hit, w.Players[1])
	}
	if w.Stats[0].DamageGiven != RocketDamage || w.Stats[1].DamageTaken != RocketDamage || w.Stats[1].LastAttacker != 0 {
		t.Fatalf("stats %+v %+v", w.Stats[0], w.Stats[1])
	}
	// The exploded rocket lingers, inert, then the server removes it.
	for f := hit + 1; f <= hit+RocketLinger; f++ {
		present := w.isPresent(rn)
		m.run(f, nil)
		if f < hit+RocketLinger && !w.isPresent(rn) || !present {
			t.Fatalf("frame %d: rocket present %v", f, w.isPresent(rn))
		}
	}
	if w.isPresent(rn) {
		t.Fatal("rocket not removed")
	}
	// A second direct hit kills: frag, death, respawn after RespawnDelay.
	f := hit + RocketLinger + 1
	place(w, 0, cx-100, cy)
	w.Players[0].Cooldown = 0
	w.Players[1].X, w.Players[1].Y, w.Players[1].VX, w.Players[1].VY = cx+100, cy, 0, 0
	m.run(f, fire)
	if w.Players[0].ShotSeq != 2 || !w.isPresent(rn+1) {
		t.Fatal("second rocket not in slot 1")
	}
	var died game.Frame
	for f++; f < hit+200 && died == 0; f++ {
		m.run(f, nil)
		if !w.Players[1].Alive() {
			died = f
		}
	}
	if died == 0 || w.Score.Slots[0].Frags != 1 || w.Score.Slots[1].Deaths != 1 || w.Players[1].Respawn != died+RespawnDelay {
		t.Fatalf("died %d frags %d deaths %d respawn %d", died, w.Score.Slots[0].Frags, w.Score.Slots[1].Deaths, w.Players[1].Respawn)
	}
	for f = died + 1; f < died+RespawnDelay; f++ {
		m.run(f, nil)
		if w.Players[1].Alive() {
			t.Fatalf("respawned early at %d", f)
		}
	}
	m.run(f, nil)
	p := &w.Players[1]
	if !p.Alive() || p.Health != SpawnHealth || p.Armor != 0 || p.VX != 0 {
		t.Fatalf("after respawn %+v", *p)
	}
	onSpawn := false
	for _, s := range w.Map.Spawns {
		onSpawn = onSpawn || (s.X == p.X && s.Y == p.Y)
	}
	if !onSpawn {
		t.Fatalf("respawned at (%v,%v), not a spawn point", p.X, p.Y)
	}
}

// Splash damage falls off linearly; the owner takes half; knockback pushes away from the blast.
func TestSplash(t *testing.T) {
	cfg := Config{RoomsX: 1, RoomsY: 1, RoomTiles: 16, MaxPlayers: 3}
	m := newMatch(t, cfg, 3, BotDeathmatch)
	w := m.w
	cx, cy := w.Map.Rooms[0].Center()
	at := vec2{cx, cy}
	place(w, 0, cx-30, cy)  // owner, 30 away: 75/2
	place(w, 1, cx, cy+60)  // 60 away: 50
	place(w, 2, cx+130, cy) // outside the radius
	k := &w.Rockets[1]      // owner 0, slot 1
	*k = Rocket{X: cx, Y: cy, VX: RocketSpeed}
	w.setPresent(game.EntityNum(w.Map.FirstRocket+1), true)
	w.explode(game.EntityNum(w.Map.FirstRocket+1), k, at, -1, 5, &m.ev)
	want := []int32{SpawnHealth - 37, SpawnHealth - 50, SpawnHealth}
	for i, h := range want {
		if w.Players[i].Health != h {
			t.Fatalf("player %d health %d, want %d", i, w.Players[i].Health, h)
		}
	}
	if w.Players[0].VX != -37*Knockback || w.Players[0].VY != 0 || w.Players[1].VY != 50*Knockback || w.Players[2].VX != 0 {
		t.Fatalf("knockback %v %v %v", w.Players[0].VX, w.Players[1].VY, w.Players[2].VX)
	}
	if w.Score.Slots[0].Frags != 0 || k.Exploded != 5 {
		t.Fatal("splash bookkeeping")
	}
	// An own kill costs a frag.
	w.Players[0].Health = 10
	place(w, 1, cx+300, cy)
	*k = Rocket{X: cx, Y: cy, VX: RocketSpeed}
	w.explode(game.EntityNum(w.Map.FirstRocket+1), k, at, -1, 6, &m.ev)
	if w.Players[0].Alive() || w.Score.Slots[0].Frags != -1 || w.Score.Slots[0].Deaths != 1 {
		t.Fatalf("suicide: %+v frags %d", w.Players[0], w.Score.Slots[0].Frags)
	}
}

// A predicting client neither spawns nor removes rockets, but the shot still costs the cooldown
// and takes the slot; the rocket's flight, explosion and lingering are predicted exactly.
func TestPredictingRockets(t *testing.T) {
	cfg := Config{RoomsX: 1, RoomsY: 1, RoomTiles: 16, MaxPlayers: 2}
	m := newMatch(t, cfg, 2, BotDeathmatch)
	w := m.w
	cx, cy := w.Map.Rooms[0].Center()
	place(w, 0, cx-100, cy)
	place(w, 1, cx+100, cy)
	tick := game.Tick{Frame: 1, Cmds: []game.PlayerCmd{{Entity: 0, Cmd: game.UserCmd{Buttons: ButtonAttack}}}, Events: game.Discard, Predicting: true}
	w.RunFrame(&tick)
	if w.isPresent(game.EntityNum(w.Map.FirstRocket)) || w.Players[0].ShotSeq != 1 || w.Players[0].Cooldown != RocketCooldown {
		t.Fatalf("predicted shot: %+v", w.Players[0])
	}
	// A server rocket arrives in a snapshot and the client predicts it to the end.
	srv := newMatch(t, cfg, 2, BotDeathmatch)
	place(srv.w, 0, cx-100, cy)
	place(srv.w, 1, cx+100, cy)
	srv.run(1, tick.Cmds)
	copyWorld(t, w, srv.w, nil)
	for f := game.Frame(2); f < 100; f++ {
		srv.run(f, nil)
		tick = game.Tick{Frame: f, Events: game.Discard, Predicting: true}
		w.RunFrame(&tick)
		rn := game.EntityNum(w.Map.FirstRocket)
		if !w.isPresent(rn) {
			t.Fatalf("frame %d: predicting client removed the rocket", f)
		}
		if srv.w.isPresent(rn) && w.Rockets[0] != srv.w.Rockets[0] || w.Players[1] != srv.w.Players[1] {
			t.Fatalf("frame %d: prediction %+v %+v, server %+v %+v", f, w.Rockets[0], w.Players[1], srv.w.Rockets[0], srv.w.Players[1])
		}
	}
}

// Holding attack fires every RocketCooldown frames.
func TestFireRate(t *testing.T) {
	cfg := Config{RoomsX: 1, RoomsY: 1, RoomTiles: 16, MaxPlayers: 1}
	m := newMatch(t, cfg, 1, BotDeathmatch)
	cx, cy := m.w.Map.Rooms[0].Center()
	place(m.w, 0, cx, cy)
	var shots []game.Frame
	seq := m.w.Players[0].ShotSeq
	for f := game.Frame(1); f <= 200; f++ {
		runCmd(m, f, game.UserCmd{Buttons: ButtonAttack, Yaw: 16384})
		if s := m.w.Players[0].ShotSeq; s != seq {
			shots, seq = append(shots, f), s
		}
	}
	want := []game.Frame{1, 1 + RocketCooldown, 1 + 2*RocketCooldown, 1 + 3*RocketCooldown, 1 + 4*RocketCooldown}
	if len(shots) != len(want) {
		t.Fatalf("shots at %v, want %v", shots, want)
	}
	for i := range want {
		if shots[i] != want[i] {
			t.Fatalf("shots at %v, want %v", shots, want)
		}
	}
}
