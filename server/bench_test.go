package server

import (
	"encoding/binary"
	"fmt"
	"net/netip"
	"testing"
	"time"

	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/netchan"
	"github.com/snapwire/snapwire/internal/serverhook"
	"github.com/snapwire/snapwire/internal/session"
	"github.com/snapwire/snapwire/internal/snapshot"
	"github.com/snapwire/snapwire/internal/testgame"
	"github.com/snapwire/snapwire/internal/usercmd"
)

// steadySettings: 30 movers (bouncing: unreliable events), 10 doors
// (toggling: reliable saved events), 4 drones.
const steadySettings = "map=one,movers=30,doors=10,drones=4,period=97"

// fakeClient is a minimal client on the server's other side: one channel,
// a command message per frame for the next frame, acknowledging the last
// snapshot it received (so the server applies snapshots to its base and
// queues "apply S" as with a real client). It allocates nothing per frame.
type fakeClient struct {
	s    *Server
	ch   *netchan.Channel
	addr netip.AddrPort
	now  time.Duration
	ack  snapshot.Seq
	snap int
	buf  []byte
	w    bitmsg.Writer
	msg  usercmd.Message
	emit func([]byte)
	h    fakeHandler
}

type fakeHandler struct{ fc *fakeClient }

func (h *fakeHandler) Reliable([]byte) {}
func (h *fakeHandler) Unreliable(typ netchan.MessageType, m []byte) {
	if typ == session.TypeSnapshot && len(m) >= 8 {
		// game id u32, then the snapshot's seq: 32 bits LSB first at a
		// byte boundary, hence little-endian bytes.
		h.fc.ack = snapshot.Seq(binary.LittleEndian.Uint32(m[4:]))
		h.fc.snap++
	}
}

// steadyServer connects n fake clients to a server running steadySettings
// and delivers packets synchronously both ways.
func steadyServer(tb testing.TB, n int) (*Server, []*fakeClient) {
	tb.Helper()
	r := &rec{}
	s, err := New(serverhook.With(Config{MaxClients: n}, serverhook.Hooks{Seed: 1}), testgame.New(), steadySettings, r)
	if err != nil {
		tb.Fatal(err)
	}
	byAddr := map[netip.AddrPort]*fakeClient{}
	var fakes []*fakeClient
	for i := range n {
		a := netip.AddrPortFrom(netip.AddrFrom4([4]byte{192, 0, 2, byte(i + 1)}), uint16(1000+i))
		acc, err := session.ParseAccept(handshake(tb, s, r, 0, a, goodConnect(uint64(i+1))))
		if err != nil {
			tb.Fatal(err)
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
	return s, fakes
}

// steadyFrame runs one server frame: every fake client's command for the
// frame arrives 1 ms before it is due, then the frame runs (and the
// snapshots due go out).
func steadyFrame(s *Server, fakes []*fakeClient) {
	due := s.Next()
	f := s.Frame() + 1
	for i, fc := range fakes {
		fc.now = due - time.Millisecond
		fc.w.Reset(fc.buf)
		fc.w.WriteUint32(uint32(s.GameID()))
		fc.w.WriteUint32(uint32(fc.ack))
		// Back and forth with a period of 600 frames: a stationary scenario.
		fwd := int8(40 + i%40)
		if int(f)/300%2 == 1 {
			fwd = -fwd
		}
		fc.msg.Cmds[0] = game.UserCmd{Frame: f, Forward: fwd, Right: int8(int(f)/50%3 - 1)}
		fc.msg.Lead = 20 * time.Millisecond
		fc.msg.Append(&fc.w, game.UserCmd{})
		fc.ch.Send(fc.now, session.TypeCommands, fc.w.Bytes(), fc.emit)
	}
	for _, fc := range fakes {
		fc.now = due
	}
	s.Advance(due)
}

// Project rule: a server frame with connected clients sending commands and
// snapshots going out allocates nothing in steady state. Events (bounces,
// door toggles) are part of the scenario; only connects and map changes
// may allocate.
func TestSteadyStateAllocs(t *testing.T) {
	for _, n := range []int{8, 64} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			if testing.Short() && n > 8 {
				t.Skip("90 s of game with 64 clients")
			}
			s, fakes := steadyServer(t, n)
			// 90 s of game: the scenario repeats every 10 s, but the
			// movers' phases do not, so snapshot sizes reach new highs
			// for a while; the buffers of packages snapshot (pending
			// ring slots) and netchan (packet bodies) grow at each new
			// high (amortised, not steady state).
			for range 5400 {
				steadyFrame(s, fakes)
			}
			st := s.fullStats()
			if st.ReliableEvents == 0 || st.UnreliableEvents == 0 {
				t.Fatalf("no events in the warm-up: %+v", st)
			}
			before := fakes[0].snap
			allocs := testing.AllocsPerRun(300, func() { steadyFrame(s, fakes) })
			if allocs != 0 {
				t.Errorf("%v allocations per frame with %d clients", allocs, n)
			}
			if fakes[0].snap-before < 100 {
				t.Errorf("%d snapshots in 300 frames", fakes[0].snap-before)
			}
			cs, _ := s.clientFull(0)
			if cs.AcksApplied < 100 || s.NumClients() != n {
				t.Errorf("acks applied %d, %d clients", cs.AcksApplied, s.NumClients())
			}
		})
	}
}

// BenchmarkFrame: one server frame (60 Hz) with N clients each sending a
// command message per frame and acknowledging snapshots; snapshots at
// 20 Hz. The fake clients' channel work (a small send and the snapshot
// receive) is included.
func BenchmarkFrame(b *testing.B) {
	for _, n := range []int{8, 64} {
		b.Run(fmt.Sprintf("clients=%d", n), func(b *testing.B) {
			s, fakes := steadyServer(b, n)
			for range 600 {
				steadyFrame(s, fakes)
			}
			bits0 := uint64(0)
			for n := range s.slots {
				c, _ := s.clientFull(game.ClientNum(n))
				bits0 += c.SnapshotBits
			}
			b.ReportAllocs()
			for b.Loop() {
				steadyFrame(s, fakes)
			}
			bits := uint64(0)
			for n := range s.slots {
				c, _ := s.clientFull(game.ClientNum(n))
				bits += c.SnapshotBits
			}
			b.ReportMetric(float64(bits-bits0)/8/float64(b.N), "snapbytes/frame")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/client")
		})
	}
}
