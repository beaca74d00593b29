package refgame

import (
	"testing"

	"github.com/snapwire/snapwire/game"
)

func TestBotsDeathmatch(t *testing.T) {
	m := newMatch(t, Config{Seed: 21}, 16, BotDeathmatch)
	rooms := make([]map[int]bool, 16)
	for i := range rooms {
		rooms[i] = map[int]bool{}
	}
	fired, used := make([]int, 16), 0
	for f := game.Frame(1); f <= 6000; f++ {
		cmds := m.commands(f)
		for i, pc := range cmds {
			c := pc.Cmd
			if c.Frame != f || c.Forward < -127 || c.Right < -127 || c.Up != 0 || c.Buttons&^(ButtonAttack|ButtonUse) != 0 {
				t.Fatalf("frame %d: bot %d command %+v", f, i, c)
			}
			if c.Buttons&ButtonUse != 0 {
				used++
			}
		}
		m.run(f, cmds)
		for i := range m.w.Players {
			p := &m.w.Players[i]
			if r, _ := m.w.Map.RoomAt(p.X, p.Y); r >= 0 {
				rooms[i][r] = true
			}
		}
		for _, e := range m.ev.Events() {
			if e.ID == EventExplode {
				fired[(int(e.Entity)-m.w.Map.FirstRocket)/RocketSlots]++
			}
		}
	}
	var kills int32
	for i := range m.bots {
		if len(rooms[i]) < 3 || fired[i] == 0 {
			t.Errorf("bot %d visited %d rooms and fired %d rockets", i, len(rooms[i]), fired[i])
		}
		kills += m.w.Stats[i].Kills
	}
	if used == 0 || kills == 0 {
		t.Errorf("bots pressed Use %d times, killed %d", used, kills)
	}
	t.Logf("6000 frames: %d kills, %d Use presses", kills, used)
}

// Bots only see through their client's view: a bot given a world holding just its PVS behaves
// sanely (no enemy: it wanders).
func TestBotSeesOnlyItsView(t *testing.T) {
	cfg := Config{Seed: 4, RoomsX: 2, RoomsY: 1}
	srv := newMatch(t, cfg, 2, BotDeathmatch)
	w := srv.w
	cx, cy := w.Map.Rooms[1].Center()
	place(w, 1, cx, cy)
	bx, by := w.Map.Rooms[0].Center()
	place(w, 0, bx, by)
	b := NewBot(1, 0, BotDeathmatch)
	// Door closed: player 1 is invisible, so no attack and no aim at it.
	for f := game.Frame(1); f < 30; f++ {
		if c := b.Command(w, f); c.Buttons&ButtonAttack != 0 {
			t.Fatalf("frame %d: bot fires at an enemy it cannot see", f)
		}
	}
	// Same room: it aims at the enemy and fires.
	place(w, 0, cx-150, cy)
	fired := false
	for f := game.Frame(30); f < 40; f++ {
		c := b.Command(w, f)
		if c.Yaw != 0 {
			t.Fatalf("aim %d, want 0 (enemy due east)", c.Yaw)
		}
		fired = fired || c.Buttons&ButtonAttack != 0
	}
	if !fired {
		t.Fatal("bot never fired at an enemy in plain sight")
	}
}

// NeverTouch players keep to their rows and rooms, never press a button and never meet.
func TestBotsNeverTouch(t *testing.T) {
	m := newMatch(t, Config{Seed: 8}, 16, BotNeverTouch)
	type lane struct {
		y          float32
		room       int
		minX, maxX float32
	}
	lanes := make([]lane, 16)
	for i := range lanes {
		p := &m.w.Players[i]
		r, _ := m.w.Map.RoomAt(p.X, p.Y)
		lanes[i] = lane{y: p.Y, room: r, minX: p.X, maxX: p.X}
	}
	for f := game.Frame(1); f <= 5000; f++ {
		cmds := m.commands(f)
		for _, pc := range cmds {
			if pc.Cmd.Buttons != 0 || pc.Cmd.Right != 0 {
				t.Fatalf("NeverTouch command %+v", pc.Cmd)
			}
		}
		m.run(f, cmds)
		for i := range m.w.Players {
			p := &m.w.Players[i]
			l := &lanes[i]
			if r, _ := m.w.Map.RoomAt(p.X, p.Y); r != l.room || p.Y != l.y || p.VY != 0 {
				t.Fatalf("frame %d: player %d left its lane: (%v,%v) room %d", f, i, p.X, p.Y, r)
			}
			l.minX, l.maxX = min(l.minX, p.X), max(l.maxX, p.X)
			for j := range i {
				o := &m.w.Players[j]
				if d := (vec2{p.X, p.Y}).sub(vec2{o.X, o.Y}).lenSq(); d < 4*PlayerRadius*PlayerRadius {
					t.Fatalf("frame %d: players %d and %d touch", f, i, j)
				}
			}
		}
	}
	for i, l := range lanes {
		if l.maxX-l.minX < 100 {
			t.Errorf("player %d ran only %v units", i, l.maxX-l.minX)
		}
	}
	for n := range m.w.Entities() {
		if typ, _ := m.w.typeOf(n); typ == TypeRocket {
			t.Fatal("rocket in a NeverTouch match")
		}
	}
}
