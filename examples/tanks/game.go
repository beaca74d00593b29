package tanks

import (
	"fmt"

	"github.com/snapwire/snapwire/game"
)

// Game is the tanks game; the server and every client each make one with
// New.
type Game struct {
	*game.EntityTable
	reg                *game.Registry
	tank, shell, crate game.TypeID

	// tanks maps a client to its tank's entity number (+1; 0 = none), on
	// the server from ClientConnected, on a client from the tanks' Client
	// fields.
	tanks [MaxPlayers]game.EntityNum

	// Scratch of RunFrame: what it spawns and removes after the entities
	// ran, so every entity runs on the state the frame began with.
	fired   []game.EntityNum
	spent   []game.EntityNum
	frame   game.Frame
	sink    game.EventSink
	predict bool

	// Announce, on the server, sends a message to every client (the server
	// program sets it to server.Server.BroadcastMessage); nil on clients.
	Announce func(m game.Message) error
	// Feed holds, on a client, the last FeedLines kill-feed and chat lines
	// the server sent (ClientMessage), oldest first, for the HUD.
	Feed []string
	// Chat holds the last FeedLines chat lines alone, which kills push
	// out of Feed.
	Chat     []string
	killFeed KillFeed // scratch of hitTank
	chatLine ChatLine // scratch of ServerMessage
}

// New returns the game with its registry.
func New() *Game {
	g := &Game{reg: game.NewRegistry(), fired: make([]game.EntityNum, 0, MaxPlayers), spent: make([]game.EntityNum, 0, 64)}
	g.tank = g.reg.MustRegister(game.EntityType{Name: "tanks.Tank", New: func() game.Entity { return &Tank{} }, Mode: game.PredictOwner})
	g.shell = g.reg.MustRegister(game.EntityType{Name: "tanks.Shell", New: func() game.Entity { return &Shell{} }, Mode: game.Predict})
	g.crate = g.reg.MustRegister(game.EntityType{Name: "tanks.Crate", New: func() game.Entity { return &Crate{} }, Mode: game.Predict})
	for _, m := range []struct {
		name string
		new  func() game.Message
	}{
		{"tanks.Chat", func() game.Message { return &Chat{} }},
		{"tanks.ChatLine", func() game.Message { return &ChatLine{} }},
		{"tanks.KillFeed", func() game.Message { return &KillFeed{} }},
	} {
		if err := g.reg.RegisterMessage(m.name, m.new); err != nil {
			panic(err)
		}
	}
	return g
}

// Registry implements game.Game.
func (g *Game) Registry() *game.Registry { return g.reg }

// Load starts a match: the crates, in a fixed order so that the server and
// every client number them alike.
func (g *Game) Load(settings string) error {
	g.EntityTable = game.NewEntityTable(g.reg)
	g.tanks = [MaxPlayers]game.EntityNum{}
	for _, at := range crateSpots {
		_, e, err := g.Add(g.crate)
		if err != nil {
			return err
		}
		c := e.(*Crate)
		c.X, c.Y, c.HP = at[0], at[1], MaxHP
	}
	return nil
}

// ClientConnected spawns client c's tank at its spawn point.
func (g *Game) ClientConnected(c game.ClientNum) error {
	if int(c) >= MaxPlayers {
		return game.ErrRange
	}
	n, e, err := g.Add(g.tank)
	if err != nil {
		return err
	}
	t := e.(*Tank)
	t.X, t.Y, t.Heading = spawnPoint(c)
	t.HP, t.Driver = MaxHP, c
	g.tanks[c] = n + 1
	return nil
}

// ClientDisconnected removes client c's tank.
func (g *Game) ClientDisconnected(c game.ClientNum) {
	if n, ok := g.PlayerEntity(c); ok {
		g.Remove(n)
	}
	if int(c) < MaxPlayers {
		g.tanks[c] = 0
	}
}

// PlayerEntity returns client c's tank. On a client, which never ran
// ClientConnected, it is the tank whose Driver is c.
func (g *Game) PlayerEntity(c game.ClientNum) (game.EntityNum, bool) {
	if int(c) >= MaxPlayers || g.EntityTable == nil {
		return 0, false
	}
	if n := g.tanks[c]; n != 0 {
		if e, typ := g.Entity(n - 1); typ == g.tank && e.(*Tank).Driver == c {
			return n - 1, true
		}
	}
	for n, e := range g.Entities() {
		if t, ok := e.(*Tank); ok && t.Driver == c {
			g.tanks[c] = n + 1
			return n, true
		}
	}
	return 0, false
}

// Visible adds what client c's tank can see: everything within ViewRange,
// and the tank itself.
func (g *Game) Visible(c game.ClientNum, set game.EntitySet) {
	n, ok := g.PlayerEntity(c)
	if !ok {
		return
	}
	me := g.tankAt(n)
	set.Add(n)
	for m, e := range g.Entities() {
		x, y, _ := position(e)
		if dx, dy := x-me.X, y-me.Y; dx*dx+dy*dy <= ViewRange*ViewRange {
			set.Add(m)
		}
	}
}

// ServerMessage handles a client's message on the server (the server
// program passes it as server.Config.OnMessage): a chat line is relayed to
// everyone with its sender.
func (g *Game) ServerMessage(from game.ClientNum, m game.Message) {
	if chat, ok := m.(*Chat); ok && g.Announce != nil {
		g.chatLine = ChatLine{From: from, Text: chat.Text}
		g.Announce(&g.chatLine) // a full queue skips a slow client's line
	}
}

// FeedLines is how many lines Game.Feed keeps.
const FeedLines = 6

// ClientMessage handles a server's message on a client (the client program
// passes it as client.Config.OnMessage): kill-feed and chat lines go to
// Feed, chat lines to Chat too.
func (g *Game) ClientMessage(m game.Message) {
	var line string
	switch m := m.(type) {
	case *KillFeed:
		line = fmt.Sprintf("player %d destroyed player %d", m.Killer, m.Victim)
	case *ChatLine:
		line = fmt.Sprintf("player %d: %s", m.From, m.Text)
		g.Chat = appendLine(g.Chat, line)
	default:
		return
	}
	g.Feed = appendLine(g.Feed, line)
}

// appendLine appends line to lines, dropping the oldest beyond FeedLines.
func appendLine(lines []string, line string) []string {
	if len(lines) == FeedLines {
		lines = append(lines[:0], lines[1:]...)
	}
	return append(lines, line)
}

// State implements game.Game: the tanks have no state outside entities.
func (g *Game) State(c game.ClientNum, id game.StateID) game.Snapshotter { return nil }

func (g *Game) tankAt(n game.EntityNum) *Tank {
	e, typ := g.Entity(n)
	if typ != g.tank {
		return nil
	}
	return e.(*Tank)
}

func position(e game.Entity) (x, y float32, ok bool) {
	switch e := e.(type) {
	case *Tank:
		return e.X, e.Y, true
	case *Shell:
		return e.X, e.Y, true
	case *Crate:
		return e.X, e.Y, true
	}
	return 0, 0, false
}
