package server

import (
	"net/netip"
	"testing"
	"time"

	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/netchan"
	"github.com/snapwire/snapwire/internal/session"
	"github.com/snapwire/snapwire/internal/snapshot"
	"github.com/snapwire/snapwire/internal/testgame"
)

// recycleGame records the server's Recycle calls.
type recycleGame struct {
	*testgame.Game
	frame, applied game.Frame
	calls          int
}

func (g *recycleGame) Recycle(frame, applied game.Frame) {
	g.frame, g.applied = frame, applied
	g.calls++
	g.Game.Recycle(frame, applied)
}

// TestRecycleApplied: before each frame the server passes the game the
// oldest frame every in-game client's base holds: the frame itself with
// no client; from a client's entry, the frame after it; then the frame of
// the last snapshot applied to its base, the laggard's among several; a
// client that stops acknowledging holds it until it leaves.
func TestRecycleApplied(t *testing.T) {
	g := &recycleGame{Game: testgame.New()}
	r := &rec{}
	s, err := New(Config{}, g, testgame.DefaultSettings, r)
	if err != nil {
		t.Fatal(err)
	}
	step := func() {
		t.Helper()
		s.Advance(s.Next())
		if g.frame != s.Frame() {
			t.Fatalf("Recycle was told frame %d, ran %d", g.frame, s.Frame())
		}
	}
	for range 10 {
		step()
		if g.applied != g.frame {
			t.Fatalf("no client: applied %d before frame %d", g.applied, g.frame)
		}
	}

	// Two fake clients acknowledging what they receive, delivered at once.
	byAddr := map[netip.AddrPort]*fakeClient{}
	var fakes []*fakeClient
	for i := range 2 {
		a := addr(50 + i)
		acc, err := session.ParseAccept(handshake(t, s, r, s.now, a, goodConnect(uint64(i+1))))
		if err != nil {
			t.Fatal(err)
		}
		fc := &fakeClient{s: s, ch: netchan.New(netchan.Config{}, acc.ConnID), addr: a, buf: make([]byte, 512)}
		fc.h.fc = fc
		fc.emit = func(p []byte) { fc.s.HandlePacket(fc.now, fc.addr, p) }
		fc.msg.Cmds = make([]game.UserCmd, 1)
		fakes = append(fakes, fc)
		byAddr[a] = fc
	}
	s.send = SendFunc(func(to netip.AddrPort, p []byte) {
		if fc := byAddr[to]; fc != nil {
			fc.ch.Receive(fc.now, p, &fc.h)
		}
	})
	entered := s.Frame() + 1
	step()
	if g.applied != entered {
		t.Fatalf("clients on the map base since frame %d: applied %d", entered, g.applied)
	}

	// snapFrame maps the snapshots sent to their frames, as the fake
	// clients' acks name them.
	snapFrame := map[snapshot.Seq]game.Frame{}
	lagging := fakes[1]
	var held game.Frame
	for k := range 120 {
		if k == 60 {
			fakes = fakes[:1] // fakes[1] goes silent: its acks stop
			held = snapFrame[lagging.ack]
		}
		for _, fc := range fakes {
			fc.now = s.Next() - time.Millisecond
			fc.w.Reset(fc.buf)
			fc.w.WriteUint32(uint32(s.GameID()))
			fc.w.WriteUint32(uint32(fc.ack))
			fc.msg.Cmds[0] = game.UserCmd{Frame: s.Frame() + 1}
			fc.msg.Append(&fc.w, game.UserCmd{})
			fc.ch.Send(fc.now, session.TypeCommands, fc.w.Bytes(), fc.emit)
		}
		acks := map[*fakeClient]snapshot.Seq{} // as the server has them when the frame starts
		for _, fc := range byAddr {
			fc.now = s.Next()
			acks[fc] = fc.ack
		}
		step()
		for i := range s.slots {
			if c := s.slots[i]; c != nil {
				for _, sn := range c.snapFrames {
					snapFrame[sn.seq] = sn.frame
				}
			}
		}
		want := g.frame
		for _, fc := range byAddr {
			f, ok := snapFrame[acks[fc]]
			if fc == lagging && k >= 60 {
				f, ok = held, true
			}
			if ok {
				want = min(want, f)
			}
		}
		if k > 10 && g.applied != want {
			t.Fatalf("frame %d: applied %d, want %d (the oldest acknowledged snapshot's frame)", g.frame, g.applied, want)
		}
	}
	if held == 0 || g.applied != held || g.frame-held < 60 {
		t.Fatalf("a silent client holds frame %d, applied %d at frame %d", held, g.applied, g.frame)
	}
	for _, c := range s.slots {
		if c != nil && c.addr == lagging.addr {
			s.drop(c, session.ReasonKicked, false)
		}
	}
	ack := fakes[0].ack
	step()
	if f := snapFrame[ack]; g.applied != f {
		t.Fatalf("the silent client gone: applied %d, want %d", g.applied, f)
	}
}
