package client_test

import (
	"bytes"
	"errors"
	"net/netip"
	"testing"
	"time"

	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/netchan"
	"github.com/snapwire/snapwire/internal/serverhook"
	"github.com/snapwire/snapwire/internal/session"
	"github.com/snapwire/snapwire/internal/testgame"
	"github.com/snapwire/snapwire/netsim"
	"github.com/snapwire/snapwire/server"
)

func TestRefusedAndTimeouts(t *testing.T) {
	s := newSim(t, 61, netsim.LinkConfig{Latency: 20 * time.Millisecond}, server.Config{Password: "secret", Timeout: 3 * time.Second})
	bad := s.addClient(0, botLane, client.Config{Password: "wrong"})
	good := s.addClient(1, botLane, client.Config{Password: "secret", Timeout: 2 * time.Second})
	s.run(2 * time.Second)
	var ref *client.RefusedError
	if bad.c.State() != client.Disconnected || !errors.As(bad.c.Err(), &ref) || ref.Reason != client.ReasonWrongPassword {
		t.Fatalf("wrong password: %v %v", bad.c.State(), bad.c.Err())
	}
	if good.c.State() != client.Connected {
		t.Fatalf("good client: %v %v", good.c.State(), good.c.Err())
	}
	// The server goes silent: the client times out.
	s.net.SetDropFilter(func(from, to netip.AddrPort, p []byte) bool { return from == serverAddr })
	s.run(4500 * time.Millisecond)
	if good.c.State() != client.Disconnected || !errors.Is(good.c.Err(), client.ErrTimeout) {
		t.Fatalf("client did not time out: %v %v", good.c.State(), good.c.Err())
	}
	// And the server drops the silent client.
	s.run(8 * time.Second)
	if s.srv.NumClients() != 0 || serverhook.ServerStats(s.srv).Timeouts != 1 {
		t.Fatalf("server kept %d clients", s.srv.NumClients())
	}
	// No server at all: connect gives up.
	lone := s.addClient(2, botLane, client.Config{ConnectTimeout: time.Second})
	s.run(s.now + 1500*time.Millisecond)
	if !errors.Is(lone.c.Err(), client.ErrConnectTimeout) {
		t.Fatalf("connect without answer: %v", lone.c.Err())
	}
}

// The server kicks a client: it receives the reliable disconnect.
func TestKick(t *testing.T) {
	s := newSim(t, 62, netsim.LinkConfig{Latency: 20 * time.Millisecond, Loss: 0.2}, server.Config{})
	sc := s.addClient(0, botLane, client.Config{})
	s.run(2 * time.Second)
	if err := s.srv.Kick(s.now, sc.c.ClientNum()); err != nil {
		t.Fatal(err)
	}
	if err := s.srv.Kick(s.now, sc.c.ClientNum()); err != server.ErrNoClient {
		t.Errorf("second kick: %v", err)
	}
	s.run(3 * time.Second)
	var ref *client.RefusedError
	if !errors.As(sc.c.Err(), &ref) || ref.Reason != client.ReasonKicked {
		t.Fatalf("kicked client: %v %v", sc.c.State(), sc.c.Err())
	}
}

// A disconnect is not waited for: when all three of its packets are lost,
// the client notices by its timeout (docs/PROTOCOL.md, Behaviour).
func TestShutdownLost(t *testing.T) {
	s := newSim(t, 63, netsim.LinkConfig{Latency: 20 * time.Millisecond}, server.Config{})
	sc := s.addClient(0, botLane, client.Config{Timeout: 2 * time.Second})
	s.run(2 * time.Second)
	cut := sc.ep.Addr()
	s.net.SetDropFilter(func(from, to netip.AddrPort, p []byte) bool { return to == cut })
	s.srv.Shutdown(s.now)
	if s.srv.NumClients() != 0 {
		t.Fatal("shutdown kept a client")
	}
	s.run(s.now + 1900*time.Millisecond)
	if sc.c.State() != client.Connected {
		t.Fatalf("client gone before its timeout: %v", sc.c.Err())
	}
	s.run(s.now + 200*time.Millisecond)
	if !errors.Is(sc.c.Err(), client.ErrTimeout) {
		t.Fatalf("client after a lost shutdown: %v %v", sc.c.State(), sc.c.Err())
	}
}

// pair connects a client core to a server core through in-memory queues
// (no loss, no delay) and runs them for d; it returns the client and the
// server's packets to it.
func pair(t testing.TB, d time.Duration) (*client.Client, [][]byte) {
	var toC, toS, all [][]byte
	srv, err := server.New(serverhook.With(server.Config{}, serverhook.Hooks{Seed: 1}), testgame.New(), testgame.DefaultSettings, server.SendFunc(func(to netip.AddrPort, p []byte) {
		toC = append(toC, bytes.Clone(p))
	}))
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New(client.Config{}, testgame.New(), client.InputFunc(func(in client.Input) game.UserCmd { return game.UserCmd{Forward: 9} }),
		client.SendFunc(func(to netip.AddrPort, p []byte) {
			if len(p) > 1500 {
				t.Fatalf("client sent %d bytes", len(p))
			}
			toS = append(toS, bytes.Clone(p))
		}))
	if err != nil {
		t.Fatal(err)
	}
	c.Connect(0, serverAddr)
	for now := time.Duration(0); now < d; now += 5 * time.Millisecond {
		for _, p := range toS {
			srv.HandlePacket(now, clientAddr(0), p)
		}
		toS = toS[:0]
		for _, p := range toC {
			c.HandlePacket(now, p)
		}
		all = append(all, toC...)
		toC = toC[:0]
		srv.Advance(now)
		c.Advance(now)
	}
	if c.State() != client.Connected {
		t.Fatalf("pair: client %v %v", c.State(), c.Err())
	}
	return c, all
}

// FuzzClientHandlePacket feeds a connected client hostile packets, seeded
// with the server's real packets: no panic, bounded packets out, and the
// client keeps working.
func FuzzClientHandlePacket(f *testing.F) {
	_, seeds := pair(f, 300*time.Millisecond)
	for _, p := range seeds[len(seeds)-8:] {
		f.Add(p)
	}
	f.Add(netchan.AppendConnectionless(nil, session.Refuse{Nonce: 1, Reason: 1}.Append(nil)))
	f.Add(netchan.AppendConnectionless(nil, session.Accept{Nonce: 1, FrameDur: 1}.Append(nil)))
	f.Fuzz(func(t *testing.T, pkt []byte) {
		c, _ := pair(t, 100*time.Millisecond)
		c.HandlePacket(100*time.Millisecond, pkt)
		c.Advance(150 * time.Millisecond)
		c.HandlePacket(160*time.Millisecond, pkt)
		c.Advance(200 * time.Millisecond)
	})
}

// State.String names every state and does not panic on a value outside them.
func TestStateString(t *testing.T) {
	for s, want := range map[client.State]string{client.Idle: "idle", client.Connected: "connected", client.Disconnected: "disconnected", client.State(200): "state 200"} {
		if got := s.String(); got != want {
			t.Errorf("State(%d).String() = %q, want %q", uint8(s), got, want)
		}
	}
}
