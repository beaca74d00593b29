package client_test

// Issue 24's acceptance for field layouts: a client built with one field's
// width changed is refused at connect with the entity type and field
// named; a hand-written codec that reads one bit too many (or too few)
// ends the session with a named error.

import (
	"errors"
	"fmt"
	"net/netip"
	"testing"
	"time"

	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/clienthook"
	"github.com/snapwire/snapwire/netsim"
	"github.com/snapwire/snapwire/server"
	"github.com/snapwire/snapwire/token"
)

// ballCodec is one build of the ball game's codec: Health's width, and how
// many bits more (or fewer) ReadSnapshot reads it with than WriteSnapshot
// writes.
type ballCodec struct {
	healthBits int
	readSkew   int
}

// ball is the game's player: a position and a health, hand-written.
type ball struct {
	X      int32
	Health uint32
	codec  *ballCodec
}

func (b *ball) WriteSnapshot(w *bitmsg.DeltaWriter) {
	w.WriteInt(b.X, 20)
	w.WriteBits(b.Health, b.codec.healthBits)
}

func (b *ball) ReadSnapshot(r *bitmsg.DeltaReader) {
	b.X = r.ReadInt(20)
	b.Health = r.ReadBits(b.codec.healthBits + b.codec.readSkew)
}

// declaredBall is the same ball with declared fields: its SnapFields is
// written by hand here, as the generator would write it.
type declaredBall struct{ ball }

func (b *declaredBall) SnapFields() string {
	return fmt.Sprintf("X int20;Health uint%d", b.codec.healthBits)
}

// ballGame: one ball per client, moved by its commands, a health that
// counts frames; every client sees every ball.
type ballGame struct {
	*game.EntityTable
	reg  *game.Registry
	ball game.TypeID
}

func newBallGame(codec ballCodec, declared bool) *ballGame {
	g := &ballGame{reg: game.NewRegistry()}
	c := &codec
	g.reg.MustRegister(game.EntityType{Name: "pitch.Wall", New: func() game.Entity { return &ball{codec: &ballCodec{healthBits: 1}} }})
	newBall := func() game.Entity { return &ball{codec: c} }
	if declared {
		newBall = func() game.Entity { return &declaredBall{ball{codec: c}} }
	}
	g.ball = g.reg.MustRegister(game.EntityType{Name: "pitch.Ball", New: newBall})
	return g
}

func (g *ballGame) Registry() *game.Registry { return g.reg }
func (g *ballGame) Load(string) error {
	g.EntityTable = game.NewEntityTable(g.reg)
	return nil
}
func (g *ballGame) ClientConnected(c game.ClientNum) error {
	_, err := g.Spawn(game.EntityNum(12+c), g.ball)
	return err
}
func (g *ballGame) ClientDisconnected(c game.ClientNum) { g.Remove(game.EntityNum(12 + c)) }
func (g *ballGame) PlayerEntity(c game.ClientNum) (game.EntityNum, bool) {
	return game.EntityNum(12 + c), true
}
func (g *ballGame) RunFrame(t *game.Tick) {
	for _, pc := range t.Cmds {
		if e, typ := g.Entity(pc.Entity); typ == g.ball {
			b := e.(interface{ self() *ball }).self()
			b.X += int32(pc.Cmd.Forward)
			b.Health = uint32(t.Frame) & (1<<b.codec.healthBits - 1)
		}
	}
}
func (g *ballGame) Visible(_ game.ClientNum, set game.EntitySet) {
	for n := range g.Entities() {
		set.Add(n)
	}
}
func (g *ballGame) State(game.ClientNum, game.StateID) game.Snapshotter { return nil }

func (b *ball) self() *ball { return b }

// playBall runs a server of srv and one client of cli over a clean
// simulated link for d of virtual time, and returns the client.
func playBall(t *testing.T, srv, cli *ballGame, scfg server.Config, ccfg client.Config, d time.Duration) *client.Client {
	t.Helper()
	net := netsim.New(5)
	net.SetDefault(netsim.LinkConfig{Latency: 20 * time.Millisecond})
	srvEP, _ := net.Listen(serverAddr)
	cliEP, _ := net.Listen(netip.MustParseAddrPort("10.0.0.2:50000"))
	s, err := server.New(scfg, srv, "", server.SendFunc(func(to netip.AddrPort, p []byte) { srvEP.WriteTo(p, to) }))
	if err != nil {
		t.Fatal(err)
	}
	input := client.InputFunc(func(client.Input) game.UserCmd { return game.UserCmd{Forward: 3} })
	c, err := client.New(ccfg, cli, input, client.SendFunc(func(to netip.AddrPort, p []byte) { cliEP.WriteTo(p, to) }))
	if err != nil {
		t.Fatal(err)
	}
	c.Connect(0, srvEP.Addr())
	buf := make([]byte, 2048)
	for now := time.Duration(0); now <= d; {
		net.AdvanceTo(now)
		for n, _, ok := cliEP.ReadFrom(buf); ok; n, _, ok = cliEP.ReadFrom(buf) {
			c.HandlePacket(now, buf[:n])
		}
		c.Advance(now)
		for n, from, ok := srvEP.ReadFrom(buf); ok; n, from, ok = srvEP.ReadFrom(buf) {
			s.HandlePacket(now, from, buf[:n])
		}
		s.Advance(now)
		now = min(s.Next(), c.Next())
		if at, ok := net.NextDelivery(); ok && at < now {
			now = at
		}
	}
	return c
}

// A client whose declared Health is 8 bits wide where the server's is 7
// is refused at connect, and its error names the type and the field, on
// an insecure server (plain refuse) and a secure one (sealed refuse).
func TestRefusedNamesTypeAndField(t *testing.T) {
	const want = `client: server: wrong entity registry: entity type "pitch.Ball" field "Health" differs (client: "Health uint8")`
	insecure := playBall(t, newBallGame(ballCodec{healthBits: 7}, true), newBallGame(ballCodec{healthBits: 8}, true),
		server.Config{}, client.Config{}, 2*time.Second)
	s := &sim{} // secureConfig's wall clock: wallStart, as virtual time stays 0 in it
	tok := issueToken(t, token.Params{ClientID: 1}, wallStart)
	secure := playBall(t, newBallGame(ballCodec{healthBits: 7}, true), newBallGame(ballCodec{healthBits: 8}, true),
		secureConfig(&s), client.Config{Token: tok}, 300*time.Millisecond) // a sealed refuse is believed at once, a plain one after 500 ms
	for name, c := range map[string]*client.Client{"insecure": insecure, "secure": secure} {
		var re *client.RefusedError
		if c.State() != client.Disconnected || !errors.As(c.Err(), &re) || re.Reason != client.ReasonWrongRegistry {
			t.Fatalf("%s: %v %v", name, c.State(), c.Err())
		}
		if c.Err().Error() != want || re.Detail != want[len("client: server: wrong entity registry: "):] {
			t.Errorf("%s:\n got %v\nwant %s", name, c.Err(), want)
		}
	}
	// The same builds with equal widths play.
	if c := playBall(t, newBallGame(ballCodec{healthBits: 7}, true), newBallGame(ballCodec{healthBits: 7}, true),
		server.Config{}, client.Config{}, 2*time.Second); c.State() != client.Connected || c.Stats().SnapshotsReceived == 0 {
		t.Fatalf("equal layouts: %v %v", c.State(), c.Err())
	}
}

// A hand-written ReadSnapshot that reads Health one bit wider (or
// narrower) than WriteSnapshot writes it ends the session at the first
// snapshot that carries the ball, with the entity, its type and the bits
// named; the symmetric codec plays on.
func TestCodecMismatchEndsSession(t *testing.T) {
	for _, c := range []struct {
		skew int
		want string
	}{
		{+1, `client: snapshot: entity 12 of type "pitch.Ball": ReadSnapshot read 28 bits, WriteSnapshot wrote 27`},
		{-1, `client: snapshot: entity 12 of type "pitch.Ball": ReadSnapshot read 26 bits, WriteSnapshot wrote 27`},
	} {
		cl := playBall(t, newBallGame(ballCodec{healthBits: 7}, false), newBallGame(ballCodec{healthBits: 7, readSkew: c.skew}, false),
			server.Config{}, client.Config{}, 3*time.Second)
		if cl.State() != client.Disconnected || !errors.Is(cl.Err(), client.ErrCodecMismatch) || cl.Err().Error() != c.want {
			t.Errorf("skew %+d: %v, %v\nwant %s", c.skew, cl.State(), cl.Err(), c.want)
		}
	}
	cl := playBall(t, newBallGame(ballCodec{healthBits: 7}, false), newBallGame(ballCodec{healthBits: 7}, false),
		server.Config{}, client.Config{}, 3*time.Second)
	if st := clienthook.CountersOf(cl); cl.State() != client.Connected || cl.Err() != nil || st.DecodeErrors != 0 || cl.Stats().SnapshotsReceived < 50 {
		t.Fatalf("symmetric codec: %v %v %d decode errors, %d snapshots", cl.State(), cl.Err(), st.DecodeErrors, cl.Stats().SnapshotsReceived)
	}
}
