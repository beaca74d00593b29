package client

// A hostile server against the client: it cannot make the client do
// unbounded work. Each test drives a real client connected to a real
// server core, then hands the client what a hostile server would send.

import (
	"bytes"
	"errors"
	"net/netip"
	"testing"
	"time"

	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/clienthook"
	"github.com/snapwire/snapwire/internal/session"
	"github.com/snapwire/snapwire/internal/snapshot"
	"github.com/snapwire/snapwire/internal/testgame"
	"github.com/snapwire/snapwire/server"
)

type hostileRig struct {
	c   *Client
	srv *server.Server
	now time.Duration
	toC [][]byte
	toS [][]byte
}

var rigServer = netip.MustParseAddrPort("10.0.0.1:27960")

func newHostileRig(t *testing.T, slots int) *hostileRig {
	t.Helper()
	r := &hostileRig{}
	var err error
	r.srv, err = server.New(server.Config{MaxClients: slots}, testgame.New(), testgame.DefaultSettings, server.SendFunc(func(to netip.AddrPort, p []byte) {
		r.toC = append(r.toC, bytes.Clone(p))
	}))
	if err != nil {
		t.Fatal(err)
	}
	r.c, err = New(Config{}, testgame.New(), InputFunc(func(in Input) game.UserCmd { return game.UserCmd{Forward: 9} }),
		SendFunc(func(to netip.AddrPort, p []byte) { r.toS = append(r.toS, bytes.Clone(p)) }))
	if err != nil {
		t.Fatal(err)
	}
	r.c.Connect(0, rigServer)
	r.run(time.Second)
	if r.c.State() != Connected || !r.c.haveSnap {
		t.Fatalf("rig: client %v %v", r.c.State(), r.c.Err())
	}
	return r
}

func (r *hostileRig) run(d time.Duration) {
	for end := r.now + d; r.now < end; r.now += 5 * time.Millisecond {
		for _, p := range r.toS {
			r.srv.HandlePacket(r.now, netip.MustParseAddrPort("10.0.0.2:40000"), p)
		}
		r.toS = r.toS[:0]
		for _, p := range r.toC {
			r.c.HandlePacket(r.now, p)
		}
		r.toC = r.toC[:0]
		r.srv.Advance(r.now)
		r.c.Advance(r.now)
	}
}

// Acceptance: a snapshot whose frame jumps to 2^31-5000 and then back
// cannot make the client re-predict billions of frames: the jump ahead is
// a protocol error, and so is a frame that goes back.
//
// Guards against: the re-prediction loop bounded only by the snapshot's
// frame number.
func TestHostileFrameJumps(t *testing.T) { forServerSlots(t, hostileFrameJumps) }

func hostileFrameJumps(t *testing.T, slots int) {
	r := newHostileRig(t, slots)
	before := r.c.stats.Repredicted
	r.c.snap.Header.Frame = 1<<31 - 5000
	r.c.onSnapshot(r.now)
	if !errors.Is(r.c.Err(), ErrProtocol) || r.c.State() != Disconnected {
		t.Fatalf("after a jump ahead: %v %v", r.c.State(), r.c.Err())
	}
	t.Logf("jump ahead: %v", r.c.Err())
	r.c.snap.Header.Frame = r.c.snapFrame - 10
	r.c.onSnapshot(r.now)
	if !errors.Is(r.c.Err(), ErrProtocol) || r.c.State() != Disconnected {
		t.Fatalf("after a frame jump: %v %v", r.c.State(), r.c.Err())
	}
	if n := r.c.stats.Repredicted - before; n > cmdRing {
		t.Fatalf("re-predicted %d frames", n)
	}
	t.Logf("frame jump: %v", r.c.Err())

	// A frame that goes back within a game.
	r = newHostileRig(t, slots)
	r.c.snap.Header.Frame = r.c.snapFrame - 1
	r.c.onSnapshot(r.now)
	if !errors.Is(r.c.Err(), ErrProtocol) {
		t.Fatalf("frame back: %v %v", r.c.State(), r.c.Err())
	}
	t.Logf("frame back: %v", r.c.Err())
}

// A snapshot further behind the client's clock than the command ring
// reaches restarts the clock instead of re-predicting past the commands
// kept; the client goes on playing.
//
// Guards against: re-prediction over more frames than there are commands.
func TestFarBehindSnapshotResetsClock(t *testing.T) { forServerSlots(t, farBehindSnapshotResetsClock) }

func farBehindSnapshotResetsClock(t *testing.T, slots int) {
	r := newHostileRig(t, slots)
	r.c.cf += 5 * cmdRing
	r.c.clock += 5 * cmdRing * r.c.frameDur
	before := r.c.stats.Repredicted
	r.run(500 * time.Millisecond)
	if r.c.State() != Connected || r.c.stats.ClockResets == 0 {
		t.Fatalf("client %v %v, %d clock resets", r.c.State(), r.c.Err(), r.c.stats.ClockResets)
	}
	if n := r.c.stats.Repredicted - before; n > 2*cmdRing {
		t.Fatalf("re-predicted %d frames in 0.5 s", n)
	}
	snaps := r.c.stats.SnapshotsReceived
	r.run(time.Second)
	if r.c.State() != Connected || r.c.stats.SnapshotsReceived < snaps+15 {
		t.Fatalf("after the reset: %v, %d snapshots", r.c.State(), r.c.stats.SnapshotsReceived-snaps)
	}
}

// Acceptance: a server that asks for one game load after another makes
// the client give up after maxLoads in loadWindow, with a clear error.
//
// Guards against: unbounded game reloads.
func TestHostileEndlessReloads(t *testing.T) { forServerSlots(t, hostileEndlessReloads) }

func hostileEndlessReloads(t *testing.T, slots int) {
	r := newHostileRig(t, slots)
	h := (*handler)(r.c)
	loads := r.c.stats.LoadGames
	for i := range 1000 {
		msg := session.AppendLoadGame(nil, game.GameID(1000+i), testgame.DefaultSettings)
		h.Unreliable(session.TypeLoadGame, msg)
		if r.c.State() != Connected {
			break
		}
	}
	n := r.c.stats.LoadGames - loads
	if !errors.Is(r.c.Err(), ErrProtocol) || n > maxLoads {
		t.Fatalf("after 1000 reload requests: %d loads, %v %v", n, r.c.State(), r.c.Err())
	}
	t.Logf("%d loads, then: %v", n, r.c.Err())
}

// PVS and CopyBase hand out copies: changing them leaves the client's PVS
// and common base as they were (a caller could otherwise break the base
// both ends keep in step).
//
// Guards against: accessors returning the client's own PVS or base.
func TestAccessorsReturnCopies(t *testing.T) { forServerSlots(t, accessorsReturnCopies) }

func accessorsReturnCopies(t *testing.T, slots int) {
	r := newHostileRig(t, slots)
	pvs := clienthook.PVS(r.c)
	n := 0
	for range r.c.Visible() {
		n++
	}
	if n == 0 || pvs.Len() != n {
		t.Fatalf("PVS copy has %d entities, Visible yields %d", pvs.Len(), n)
	}
	pvs.Clear()
	if !r.c.InPVS(func() game.EntityNum {
		for e := range r.c.Visible() {
			return e
		}
		return 0
	}()) || len(slicesOf(r.c.Visible())) != n {
		t.Error("clearing the copy changed the client's PVS")
	}
	h, ok := r.c.BaseHash()
	base := snapshot.NewCommonBase(r.c.dec.Base().NumStates())
	if !ok || !clienthook.CopyBase(r.c, base) || base.Hash() != h {
		t.Fatalf("CopyBase: ok %v, hash %x vs %x", ok, base.Hash(), h)
	}
	base.Reset()
	if h2, _ := r.c.BaseHash(); h2 != h {
		t.Error("resetting the copy changed the client's base")
	}
	var fresh Client
	if clienthook.CopyBase(&fresh, base) {
		t.Error("CopyBase before a game is loaded")
	}
}

func slicesOf(seq func(func(game.EntityNum) bool)) []game.EntityNum {
	var out []game.EntityNum
	for e := range seq {
		out = append(out, e)
	}
	return out
}
