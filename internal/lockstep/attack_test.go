package lockstep

// Attacks on a match (issue 22 item 7). The attacker hands a peer (or the
// packet server) packets in another sender's name, which is what a
// spoofed source address amounts to: the transport names the sender by
// address. It lacks the match key (key_test.go's forgePeer and
// forgeServer seal under another one) but is otherwise omniscient: it
// reads the frame numbers it needs from the victims.
//
// Each test failed on the package before authentication (version 1): run
// with a key_test.go whose keyed, relayKeyed return their argument, whose
// forgers write version-1 packets and whose counters read 0.

import (
	"errors"
	"net/netip"
	"testing"
	"time"

	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/netsim"
)

// marker is the command the attacker plays: no bot makes it.
var marker = game.UserCmd{Forward: -77, Right: 33, Up: 55, Yaw: 0xBEEF, Pitch: 0x1234}

func isMarker(c game.UserCmd) bool {
	return c.Forward == marker.Forward && c.Right == marker.Right && c.Up == marker.Up && c.Yaw == marker.Yaw && c.Pitch == marker.Pitch
}

// markers counts the frames a game ran with the attacker's command for
// any player.
type markers struct {
	game.Game
	n *int
}

func (m markers) RunFrame(t *game.Tick) {
	for _, c := range t.Cmds {
		if isMarker(c.Cmd) {
			*m.n++
		}
	}
	m.Game.RunFrame(t)
}

// watched is newMatch with every peer's game counting marker commands.
func watched(t *testing.T, n int, link netsim.LinkConfig, cfg Config) (*match, *int) {
	count := new(int)
	m := newMatch(t, n, link, cfg, func(i int, g game.Game) game.Game { return markers{g, count} })
	return m, count
}

func markerCmds(first game.Frame, n int) []game.UserCmd {
	cmds := make([]game.UserCmd, n)
	for i := range cmds {
		cmds[i] = marker
		cmds[i].Frame = first + game.Frame(i)
	}
	return cmds
}

// Peer to peer, for 3 s: an off-path attacker hands peer 0 a packet in
// peer 1's name every 10 ms (a forged source address), claiming a state
// hash that differs from every peer's and commands for the coming frames;
// and an on-path one flips a bit of the state hash in one of every five
// genuine packets from peer 2 to peer 0 (a peer's real address, forged
// contents). Every such packet is counted and ignored: no desync, no
// forged command runs, the match plays on.
//
// Guards against: one spoofed packet ending a match with a DesyncError,
// or its commands being run for a player (version 1 took both).
func TestLockstepSpoofedPacketsIgnored(t *testing.T) {
	m, ran := watched(t, 3, netsim.LinkConfig{Latency: 20 * time.Millisecond}, Config{HashEvery: 15})
	var captured [][]byte
	k := 0
	m.net.SetDropFilter(func(from, to netip.AddrPort, p []byte) bool {
		if from != peerAddr(2) || to != peerAddr(0) || m.now < time.Second || m.now > 4*time.Second {
			return false
		}
		if k++; k%5 != 0 {
			return false
		}
		c := append([]byte(nil), p...)
		tamper(c)
		captured = append(captured, c)
		return true // the tampered copy arrives instead
	})
	forged, tampered := 0, 0
	m.attack = func(now time.Duration) {
		for _, c := range captured {
			m.peers[0].HandlePacket(2, c)
		}
		tampered += len(captured)
		captured = captured[:0]
		if now < time.Second || now > 4*time.Second || now%(10*time.Millisecond) != 0 {
			return
		}
		v := m.peers[0]
		hf := v.lastHash // a frame peer 0 hashed: its hash is compared
		pkt := forgePeer(1, 0, 3, v.sampled, v.contiguous[1]+1, markerCmds(v.contiguous[1]+1, 64), hf, 0xDEADBEEF)
		v.HandlePacket(1, pkt)
		forged++
	}
	m.run(5 * time.Second)
	for i, p := range m.peers {
		if p.Err() != nil {
			t.Fatalf("peer %d: %v", i, p.Err())
		}
		if p.Frame() < 280 {
			t.Errorf("peer %d ran %d frames in 5 s", i, p.Frame())
		}
	}
	if *ran != 0 {
		t.Errorf("%d forged commands run", *ran)
	}
	if got := authFailures(m.peers[0]); got != uint64(forged+tampered) || forged < 300 || tampered < 30 {
		t.Errorf("peer 0 counted %d auth failures, %d forged and %d tampered packets", got, forged, tampered)
	}
	if m.peers[0].Stats().HashesChecked < 30 {
		t.Errorf("peer 0 compared %d hashes", m.peers[0].Stats().HashesChecked)
	}
	t.Logf("%d forged and %d tampered packets dropped; peer 0 at frame %d, %d hashes compared", forged, tampered, m.peers[0].Frame(), m.peers[0].Stats().HashesChecked)
}

// Peer to peer, peer 2 never shows up (its packets are lost); an
// attacker sends peers 0 and 1 packets in peer 2's name carrying commands
// for every frame they wait for. They do not play with them: they wait
// for peer 2 and, after the peer timeout, stop naming it.
//
// Guards against: forged commands driving an absent peer, and forged
// packets keeping it "heard from" (version 1 played on with them).
func TestLockstepForgedCommandsCannotDriveAbsentPeer(t *testing.T) {
	m, ran := watched(t, 3, netsim.LinkConfig{Latency: 20 * time.Millisecond}, Config{PeerTimeout: 2 * time.Second})
	m.net.SetDropFilter(func(from, to netip.AddrPort, p []byte) bool { return from == peerAddr(2) })
	m.attack = func(now time.Duration) {
		if now%(5*time.Millisecond) != 0 {
			return
		}
		for i := range 2 {
			v := m.peers[i]
			first := v.contiguous[2] + 1
			v.HandlePacket(2, forgePeer(2, i, 3, v.sampled, first, markerCmds(first, 64), 0, 0))
		}
	}
	m.run(3 * time.Second)
	for i := range 2 {
		p := m.peers[i]
		var gone *PeerGoneError
		if !errors.As(p.Err(), &gone) || gone.Peer != 2 || gone.Left {
			t.Errorf("peer %d: err %v, want peer 2 gone", i, p.Err())
		}
		if p.Frame() > game.Frame(p.cfg.InputDelay) || authFailures(p) < 300 {
			t.Errorf("peer %d: ran %d frames, %d auth failures", i, p.Frame(), authFailures(p))
		}
	}
	if *ran != 0 {
		t.Errorf("%d forged commands run", *ran)
	}
}

// Through the packet server: an attacker sends the server, in peer 1's
// name, commands for the frames it is about to decide (before peer 1's
// own arrive), and sends peer 0, in the server's name, decided frames
// with its commands. No forged command runs: the server decides with
// peer 1's commands, peer 0 runs the server's frames, and nothing shows
// a desync.
//
// Guards against: a player taken over through the packet server without
// any desync showing (version 1: the first command to arrive for a
// frame was the one decided, and every peer ran it).
func TestPacketServerForgedCommandsCannotTakeOver(t *testing.T) {
	m, ran := watched(t, 3, netsim.LinkConfig{Latency: 20 * time.Millisecond}, Config{ViaServer: true, HashEvery: 15})
	m.attack = func(now time.Duration) {
		if now < 500*time.Millisecond || now%(2*time.Millisecond) != 0 {
			return
		}
		first := m.relay.decided + 1
		m.relay.HandlePacket(1, forgePeer(1, 3, 3, 0, first, markerCmds(first, 64), 0, 0))
		v := m.peers[0]
		frames := make([][]game.UserCmd, 20)
		for i := range frames {
			frames[i] = markerCmds(v.bundled+1+game.Frame(i), 1)
			frames[i] = append(frames[i], frames[i][0], frames[i][0])
		}
		v.HandlePacket(3, forgeServer(0, 3, v.sampled, v.bundled+1, frames))
	}
	m.run(4 * time.Second)
	if *ran != 0 {
		t.Errorf("%d forged commands run", *ran)
	}
	if err := m.relay.Err(); err != nil {
		t.Errorf("server: %v", err)
	}
	for i, p := range m.peers {
		if p.Err() != nil || p.Frame() < 220 {
			t.Errorf("peer %d: %v, %d frames", i, p.Err(), p.Frame())
		}
	}
	if relayAuthFailures(m.relay) < 1000 || authFailures(m.peers[0]) < 1000 {
		t.Errorf("auth failures: server %d, peer 0 %d", relayAuthFailures(m.relay), authFailures(m.peers[0]))
	}
	if m.relay.Stats().HashesChecked < 20 {
		t.Errorf("server compared %d hashes", m.relay.Stats().HashesChecked)
	}
}

// Forged acknowledgements: an attacker tells a sender, in the receiver's
// name, that the receiver holds everything sent so far, while the link to
// the receiver loses 10% of the packets. Peer to peer the sender is peer
// 0 and the receiver peer 1; through the packet server the sender is the
// server and the receiver peer 1. The forged acks are dropped, lost
// packets are resent, and peer 1 keeps the pace.
//
// Guards against: forged acks freezing a peer (version 1: the sender
// believed them, never resent what was lost, and peer 1 waited for ever).
func TestForgedAcksCannotFreezePeer(t *testing.T) {
	for _, via := range []bool{false, true} {
		name := "peer to peer"
		if via {
			name = "packet server"
		}
		t.Run(name, func(t *testing.T) {
			m := newMatch(t, 3, netsim.LinkConfig{Latency: 20 * time.Millisecond}, Config{ViaServer: via}, nil)
			lossy := netsim.LinkConfig{Latency: 20 * time.Millisecond, Loss: 0.1}
			if via {
				m.net.SetLink(relayAddr, peerAddr(1), lossy)
			} else {
				m.net.SetLink(peerAddr(0), peerAddr(1), lossy)
			}
			m.attack = func(now time.Duration) {
				if via {
					m.relay.HandlePacket(1, forgePeer(1, 3, 3, m.relay.decided, 1, nil, 0, 0))
				} else {
					v := m.peers[0]
					v.HandlePacket(1, forgePeer(1, 0, 3, v.sampled, 1, nil, 0, 0))
				}
			}
			m.run(6 * time.Second)
			p0, p1 := m.peers[0], m.peers[1]
			if p0.Err() != nil || p1.Err() != nil || p1.Frame() < 340 || p0.Frame()-p1.Frame() > 12 {
				t.Fatalf("peer 0 at frame %d (%v), peer 1 at %d (%v)", p0.Frame(), p0.Err(), p1.Frame(), p1.Err())
			}
			got := authFailures(p0)
			if via {
				got = relayAuthFailures(m.relay)
			}
			if got < 5000 {
				t.Errorf("%d forged acks counted", got)
			}
		})
	}
}

// Peer 2 goes silent; an attacker replays peer 2's genuine packets,
// recorded earlier, to peers 0 and 1. The replays are dropped and counted
// (they open, but their counters were seen), they do not keep peer 2
// "heard from", and the peers stop, naming it, after the peer timeout.
//
// Guards against: replays of genuine packets accepted (version 1 had no
// counter: a replay kept a departed peer alive, and the match hung).
func TestLockstepReplayDropped(t *testing.T) {
	m := newMatch(t, 3, netsim.LinkConfig{Latency: 20 * time.Millisecond}, Config{PeerTimeout: 2 * time.Second}, nil)
	var rec [2][][]byte
	m.net.SetDropFilter(func(from, to netip.AddrPort, p []byte) bool {
		if from != peerAddr(2) {
			return false
		}
		if m.now < time.Second {
			for i := range 2 {
				if to == peerAddr(i) {
					rec[i] = append(rec[i], append([]byte(nil), p...))
				}
			}
			return false
		}
		return true // peer 2 is gone
	})
	next := 0
	m.attack = func(now time.Duration) {
		if now < time.Second || now%(5*time.Millisecond) != 0 {
			return
		}
		for i := range 2 {
			m.peers[i].HandlePacket(2, rec[i][next%len(rec[i])])
		}
		next++
	}
	m.run(4 * time.Second)
	for i := range 2 {
		p := m.peers[i]
		var gone *PeerGoneError
		if !errors.As(p.Err(), &gone) || gone.Peer != 2 {
			t.Errorf("peer %d: err %v, want peer 2 gone", i, p.Err())
		}
		if replayed(p) < 300 || authFailures(p) != 0 {
			t.Errorf("peer %d: %d replays dropped, %d auth failures", i, replayed(p), authFailures(p))
		}
	}
}
