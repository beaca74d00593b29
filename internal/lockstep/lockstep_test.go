package lockstep

import (
	"errors"
	"fmt"
	"net/netip"
	"testing"
	"time"

	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/refgame"
	"github.com/snapwire/snapwire/netsim"
)

// match is n lockstep peers over netsim, each with its own arena world and
// a deterministic bot.
type match struct {
	t     *testing.T
	net   *netsim.Network
	relay *Relay
	relEP *netsim.Endpoint
	peers []*Peer
	eps   []*netsim.Endpoint
	games []*refgame.World
	now   time.Duration
	// attack, when set, runs every step before the packets are read: a
	// test's attacker, which hands peers (or the server) packets in the
	// name of whichever sender it spoofs.
	attack func(now time.Duration)
}

func peerAddr(i int) netip.AddrPort {
	return netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 0, 0, byte(i + 1)}), 26000)
}

var relayAddr = netip.MustParseAddrPort("10.0.0.100:26000")

func newMatch(t *testing.T, n int, link netsim.LinkConfig, cfg Config, wrap func(i int, g game.Game) game.Game) *match {
	t.Helper()
	m := &match{t: t, net: netsim.New(7)}
	m.net.SetDefault(link)
	if cfg.ViaServer {
		var err error
		if m.relEP, err = m.net.Listen(relayAddr); err != nil {
			t.Fatal(err)
		}
		m.relay, err = NewRelay(relayKeyed(RelayConfig{Peers: n, InputDelay: cfg.InputDelay}), func(to int, pkt []byte) { m.relEP.WriteTo(pkt, peerAddr(to)) })
		if err != nil {
			t.Fatal(err)
		}
	}
	mp, err := refgame.NewMap(refgame.Config{MaxPlayers: 16})
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		w := refgame.NewGame()
		if err := w.Load(mp.Config().String()); err != nil {
			t.Fatal(err)
		}
		ep, err := m.net.Listen(peerAddr(i))
		if err != nil {
			t.Fatal(err)
		}
		bot := refgame.NewBot(uint64(100+i), game.ClientNum(i), refgame.BotDeathmatch)
		var g game.Game = w
		if wrap != nil {
			g = wrap(i, w)
		}
		c := keyed(cfg)
		c.Peers, c.Me = n, i
		p, err := New(c, g, func(f game.Frame) game.UserCmd { return bot.Command(w, f) },
			func(to int, pkt []byte) {
				if to == n {
					ep.WriteTo(pkt, relayAddr)
				} else {
					ep.WriteTo(pkt, peerAddr(to))
				}
			})
		if err != nil {
			t.Fatal(err)
		}
		m.peers, m.eps, m.games = append(m.peers, p), append(m.eps, ep), append(m.games, w)
	}
	return m
}

// run steps the match by 1 ms for d of virtual time.
func (m *match) run(d time.Duration) {
	buf := make([]byte, 2048)
	for end := m.now + d; m.now < end; {
		m.now += time.Millisecond
		m.net.AdvanceTo(m.now)
		if m.attack != nil {
			m.attack(m.now)
		}
		if m.relay != nil {
			for {
				k, from, ok := m.relEP.ReadFrom(buf)
				if !ok {
					break
				}
				m.relay.HandlePacket(int(from.Addr().As4()[3])-1, buf[:k])
			}
			m.relay.Advance(m.now)
		}
		for i, ep := range m.eps {
			for {
				k, from, ok := ep.ReadFrom(buf)
				if !ok {
					break
				}
				src := int(from.Addr().As4()[3]) - 1
				if from == relayAddr {
					src = len(m.peers)
				}
				m.peers[i].HandlePacket(src, buf[:k])
			}
			m.peers[i].Advance(m.now)
		}
	}
}

// Acceptance (lockstep): 4 peers over 50 ms one-way links with 5% loss
// play 20 s of the arena: every peer runs the same frames with the same
// state (hashes compared and equal), the frame rate holds, and the bytes
// a peer sends are its commands to each of the 3 others.
//
// Guards against: a peer running a frame without every command (states
// would diverge: the hash check fails), commands lost for good to the
// loss (a peer would stall for ever), unacknowledged commands not resent.
func TestLockstepConverges(t *testing.T) {
	m := newMatch(t, 4, netsim.LinkConfig{Latency: 50 * time.Millisecond, Jitter: 5 * time.Millisecond, Loss: 0.05}, Config{}, nil)
	m.run(20 * time.Second)
	want := m.peers[0].Frame()
	for i, p := range m.peers {
		if p.Err() != nil {
			t.Fatalf("peer %d: %v", i, p.Err())
		}
		st := p.Stats()
		if d := int(want) - int(p.Frame()); d < -8 || d > 8 || p.Frame() < 1150 || st.HashesChecked < 100 {
			t.Errorf("peer %d: frame %d (peer 0: %d), %d hashes checked, stats %+v", i, p.Frame(), want, st.HashesChecked, st)
		}
	}
	// Same frame, same state: run everyone to the same frame and compare.
	h0 := m.peers[0].stateHash()
	for i, p := range m.peers[1:] {
		if p.Frame() == m.peers[0].Frame() && p.stateHash() != h0 {
			t.Errorf("peer %d: state differs at frame %d", i+1, p.Frame())
		}
	}
	st := m.peers[0].Stats()
	t.Logf("4 peers, 50 ms, 5%% loss, 20 s: %d frames, %d stalls (mean lag %v), %.0f bytes/s sent per peer, %d hashes checked",
		st.Frames, st.Stalls, st.Lag/time.Duration(st.Frames), float64(st.BytesOut)/20, st.HashesChecked)
}

// perturbed is a game whose frame 300 sees one command changed: a bug of
// non-determinism on one peer.
type perturbed struct {
	game.Game
	at game.Frame
}

func (p perturbed) RunFrame(t *game.Tick) {
	if t.Frame == p.at {
		t.Cmds[0].Cmd.Forward ^= 0x40
		t.Cmds[0].Cmd.Buttons ^= 1
	}
	p.Game.RunFrame(t)
}

// Acceptance (lockstep): a desync is detected and named: the first hashed
// frame at or after the divergence, and the last frame known equal before
// it.
func TestLockstepDesyncNamesFrame(t *testing.T) {
	m := newMatch(t, 3, netsim.LinkConfig{Latency: 20 * time.Millisecond}, Config{HashEvery: 15},
		func(i int, g game.Game) game.Game {
			if i == 2 {
				return perturbed{g, 300}
			}
			return g
		})
	m.run(8 * time.Second)
	var de *DesyncError
	found := false
	for i, p := range m.peers {
		if errors.As(p.Err(), &de) {
			found = true
			if de.Frame < 300 || de.Frame > 330 || de.LastEqual >= 300 || de.LastEqual < 270 {
				t.Errorf("peer %d: %v", i, de)
			}
			t.Logf("peer %d: %v", i, de)
		}
	}
	if !found {
		t.Fatal("no peer noticed the desync")
	}
}

// Acceptance (lockstep): the match runs at the pace of the slowest
// connection. With 30 ms links the 4-frame input delay (67 ms) hides the
// latency: frames run when due. With one peer 150 ms away every peer runs
// every frame about 150 - 67 = 83 ms late, so every player's actions reach
// the screen as late as the slowest link allows.
func TestLockstepSlowestPeerSetsPace(t *testing.T) {
	meanLag := func(p *Peer) time.Duration { st := p.Stats(); return st.Lag / time.Duration(st.Frames) }
	fast := newMatch(t, 4, netsim.LinkConfig{Latency: 30 * time.Millisecond}, Config{}, nil)
	fast.run(10 * time.Second)
	slow := newMatch(t, 4, netsim.LinkConfig{Latency: 30 * time.Millisecond}, Config{}, nil)
	for i := range 3 {
		slow.net.SetLink(peerAddr(3), peerAddr(i), netsim.LinkConfig{Latency: 150 * time.Millisecond})
		slow.net.SetLink(peerAddr(i), peerAddr(3), netsim.LinkConfig{Latency: 150 * time.Millisecond})
	}
	slow.run(10 * time.Second)
	for i := range 4 {
		fl, sl := meanLag(fast.peers[i]), meanLag(slow.peers[i])
		t.Logf("peer %d: mean lag %v with 30 ms links, %v with one peer at 150 ms", i, fl, sl)
		if fl > 2*time.Millisecond || sl < 70*time.Millisecond || sl > 100*time.Millisecond {
			t.Errorf("peer %d: mean lag %v fast, %v with the slow peer", i, fl, sl)
		}
	}
}

// Acceptance (lockstep): bytes per peer grow with the number of players:
// every peer sends its commands to every other.
func TestLockstepBytesGrowWithPlayers(t *testing.T) {
	var prev float64
	for _, n := range []int{2, 4, 8} {
		m := newMatch(t, n, netsim.LinkConfig{Latency: 30 * time.Millisecond}, Config{}, nil)
		m.run(5 * time.Second)
		b := float64(m.peers[0].Stats().BytesOut) / 5
		t.Logf("%d peers: %.0f bytes/s sent by each peer", n, b)
		if prev > 0 && (b < prev*1.8 || b > prev*3) {
			t.Errorf("%d peers: %.0f bytes/s, %.0f with half as many", n, b, prev)
		}
		prev = b
	}
}

func FuzzHandlePacket(f *testing.F) {
	w := refgame.NewGame()
	mp, _ := refgame.NewMap(refgame.Config{MaxPlayers: 16})
	w.Load(mp.Config().String())
	var sent [][]byte
	p, err := New(keyed(Config{Peers: 3, Me: 1}), w, func(game.Frame) game.UserCmd { return game.UserCmd{Forward: 5} },
		func(to int, pkt []byte) { sent = append(sent, append([]byte(nil), pkt...)) })
	if err != nil {
		f.Fatal(err)
	}
	p.Advance(time.Second)
	for _, s := range sent {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, pkt []byte) {
		w := refgame.NewGame()
		w.Load(mp.Config().String())
		q, _ := New(keyed(Config{Peers: 3, Me: 0}), w, func(game.Frame) game.UserCmd { return game.UserCmd{} }, func(int, []byte) {})
		q.HandlePacket(1, pkt)
		q.Advance(500 * time.Millisecond)
		if q.Frame() > 30 {
			t.Fatalf("ran %d frames in 500 ms", q.Frame())
		}
	})
}

// sameHashes checks that every peer hashed the last frames they all ran
// to the same state (their hash rings, HashEvery 1).
func (m *match) sameHashes(t *testing.T) int {
	t.Helper()
	low, high := m.peers[0].Frame(), m.peers[0].Frame()
	for _, p := range m.peers {
		low, high = min(low, p.Frame()), max(high, p.Frame())
	}
	checked := 0
	for f := max(1, high-Window+1); f <= low; f++ { // frames still in every peer's ring
		ref := m.peers[0].hashes[int(f)%Window]
		for i, p := range m.peers[1:] {
			h := p.hashes[int(f)%Window]
			if ref.frame != f || h.frame != f || h.hash != ref.hash {
				t.Fatalf("frame %d: peer 0 %+v, peer %d %+v", f, ref, i+1, h)
			}
		}
		checked++
	}
	return checked
}

// Acceptance: lockstep and packet-server matches of 2 and 16
// bots over netsim with 5% loss stay in lockstep for 60 s of game: state
// hashed every frame, compared during the match (peers with each other,
// or the server across peers) and, at the end, the last 256 frames equal
// on every peer.
func TestLockstepSixtySecondsEveryFrameHashed(t *testing.T) {
	if testing.Short() {
		t.Skip("60 s of 16-player game, four times")
	}
	for _, via := range []bool{false, true} {
		for _, n := range []int{2, 16} {
			t.Run(fmt.Sprintf("server=%v/peers=%d", via, n), func(t *testing.T) {
				m := newMatch(t, n, netsim.LinkConfig{Latency: 40 * time.Millisecond, Jitter: 5 * time.Millisecond, Loss: 0.05},
					Config{HashEvery: 1, ViaServer: via}, nil)
				m.run(60 * time.Second)
				var checked uint64
				for i, p := range m.peers {
					if p.Err() != nil {
						t.Fatalf("peer %d: %v", i, p.Err())
					}
					if p.Frame() < 3550 {
						t.Errorf("peer %d ran %d frames in 60 s", i, p.Frame())
					}
					checked += p.Stats().HashesChecked
				}
				if m.relay != nil {
					if m.relay.Err() != nil {
						t.Fatal(m.relay.Err())
					}
					checked += m.relay.Stats().HashesChecked
				}
				if checked < 1000 {
					t.Errorf("%d hash comparisons during the match", checked)
				}
				t.Logf("%d frames, %d hash comparisons during the match, last %d frames equal at the end; peer 0 sent %.0f bytes/s",
					m.peers[0].Frame(), checked, m.sameHashes(t), float64(m.peers[0].Stats().BytesOut)/60)
			})
		}
	}
}

// Acceptance: with a packet server, one slow peer no longer
// sets everyone's pace: the server duplicates its last command when its
// commands miss their deadline, and the others run on time.
func TestPacketServerSlowPeer(t *testing.T) {
	meanLag := func(p *Peer) time.Duration { st := p.Stats(); return st.Lag / time.Duration(st.Frames) }
	m := newMatch(t, 4, netsim.LinkConfig{Latency: 15 * time.Millisecond}, Config{ViaServer: true}, nil)
	m.net.SetLink(peerAddr(3), relayAddr, netsim.LinkConfig{Latency: 135 * time.Millisecond})
	m.net.SetLink(relayAddr, peerAddr(3), netsim.LinkConfig{Latency: 135 * time.Millisecond})
	m.run(10 * time.Second)
	st := m.relay.Stats()
	for i := range 3 {
		if l := meanLag(m.peers[i]); l > 5*time.Millisecond || st.Duplicated[i] > 10 {
			t.Errorf("peer %d: mean lag %v, %d commands duplicated", i, l, st.Duplicated[i])
		}
	}
	t.Logf("packet server, peer 3 at 135 ms: peers 0-2 mean lag %v, peer 3 %v; duplicated commands %v, late %d",
		meanLag(m.peers[0]), meanLag(m.peers[3]), st.Duplicated[:4], st.LateCmds)
	if st.Duplicated[3] < 500 || m.peers[3].Frame() < 580 {
		t.Errorf("slow peer: %d commands duplicated, %d frames run", st.Duplicated[3], m.peers[3].Frame())
	}
	if d := m.peers[0].Frame() - m.peers[3].Frame(); d < 0 || d > 12 {
		t.Errorf("peer 0 at frame %d, slow peer at %d", m.peers[0].Frame(), m.peers[3].Frame())
	}
}

// A desync through the packet server is named by the server.
func TestPacketServerDesync(t *testing.T) {
	m := newMatch(t, 3, netsim.LinkConfig{Latency: 20 * time.Millisecond}, Config{HashEvery: 15, ViaServer: true},
		func(i int, g game.Game) game.Game {
			if i == 1 {
				return perturbed{g, 300}
			}
			return g
		})
	m.run(8 * time.Second)
	var de *DesyncError
	if !errors.As(m.relay.Err(), &de) || de.Frame != 300 || de.LastEqual != 285 {
		t.Fatalf("relay: %v", m.relay.Err())
	}
	t.Log(de)
}

func FuzzRelayHandlePacket(f *testing.F) {
	w := refgame.NewGame()
	mp, _ := refgame.NewMap(refgame.Config{MaxPlayers: 16})
	w.Load(mp.Config().String())
	var sent [][]byte
	p, err := New(keyed(Config{Peers: 3, Me: 1, ViaServer: true}), w, func(game.Frame) game.UserCmd { return game.UserCmd{Right: 3} },
		func(to int, pkt []byte) { sent = append(sent, append([]byte(nil), pkt...)) })
	if err != nil {
		f.Fatal(err)
	}
	p.Advance(time.Second)
	for _, s := range sent {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, pkt []byte) {
		var out [][]byte
		r, _ := NewRelay(relayKeyed(RelayConfig{Peers: 3}), func(to int, b []byte) {
			if to == 0 { // peer 0's packets: the one below takes them
				out = append(out, append([]byte(nil), b...))
			}
		})
		r.HandlePacket(1, pkt)
		r.Advance(500 * time.Millisecond)
		if r.Stats().Decided > 33 { // due by 500 ms plus the 2-frame grace
			t.Fatalf("decided %d frames by 500 ms", r.Stats().Decided)
		}
		// The relay's own packets parse, and a peer takes them.
		w := refgame.NewGame()
		w.Load(mp.Config().String())
		q, _ := New(keyed(Config{Peers: 3, Me: 0, ViaServer: true}), w, func(game.Frame) game.UserCmd { return game.UserCmd{} }, func(int, []byte) {})
		for _, b := range out {
			if len(b) > 1400 {
				t.Fatalf("relay packet of %d bytes", len(b))
			}
			if err := q.HandlePacket(3, b); err != nil {
				t.Fatalf("peer rejects the relay's packet: %v", err)
			}
		}
		q.HandlePacket(3, pkt) // and hostile server packets
	})
}
