package lockstep

import (
	"errors"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/snapwire/snapwire/netsim"
)

// runUntilGone steps m in 10 ms slices until peer i stops with an error
// or limit passes, and returns the virtual time it came and the error.
func (m *match) runUntilGone(i int, limit time.Duration) (time.Duration, error) {
	for end := m.now + limit; m.now < end; {
		m.run(10 * time.Millisecond)
		if err := m.peers[i].Err(); err != nil {
			return m.now, err
		}
	}
	return m.now, nil
}

// A peer whose partner quits without a word (its packets stop) ends the
// match PeerTimeout after the last packet, with an error that names the
// peer and the silence, and sends nothing more.
//
// Guards against: a peer that stalls for ever and keeps sending its
// commands (~22 KB/s) to a partner that left (issue 21).
func TestLockstepPartnerSilentEnds(t *testing.T) {
	m := newMatch(t, 2, netsim.LinkConfig{Latency: 30 * time.Millisecond}, Config{PeerTimeout: 2 * time.Second}, nil)
	m.run(time.Second)
	quit := m.now
	m.net.SetDropFilter(func(from, to netip.AddrPort, p []byte) bool { return from == peerAddr(1) })
	at, err := m.runUntilGone(0, 10*time.Second)
	var gone *PeerGoneError
	if !errors.As(err, &gone) || gone.Peer != 1 || gone.Left || gone.Server || gone.Silence < 2*time.Second {
		t.Fatalf("peer 0 after its partner went silent at %v: err %v (at %v)", quit, err, at)
	}
	if at < quit+2*time.Second || at > quit+2*time.Second+100*time.Millisecond {
		t.Errorf("gave up at %v, the partner went silent at %v: want the 2 s peer timeout", at, quit)
	}
	if want := "peer 1 sent nothing for 2"; !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "left the match") {
		t.Errorf("error %q", err)
	}
	sent := m.peers[0].Stats().PacketsOut
	m.run(3 * time.Second)
	if n := m.peers[0].Stats().PacketsOut - sent; n != 0 {
		t.Errorf("peer 0 sent %d packets after it gave up", n)
	}
}

// A peer that quits says so: the others stop at once (within the
// latency), naming it, and send nothing more.
func TestLockstepLeaveEndsPartners(t *testing.T) {
	m := newMatch(t, 3, netsim.LinkConfig{Latency: 30 * time.Millisecond}, Config{}, nil)
	m.run(time.Second)
	m.peers[2].Leave()
	left := m.now
	for i := range 2 {
		at, err := m.runUntilGone(i, time.Second)
		var gone *PeerGoneError
		if !errors.As(err, &gone) || gone.Peer != 2 || !gone.Left || !strings.Contains(err.Error(), "peer 2 left the match") {
			t.Fatalf("peer %d: err %v", i, err)
		}
		if at > left+100*time.Millisecond {
			t.Errorf("peer %d stopped at %v, its partner left at %v", i, at, left)
		}
	}
	var before [3]uint64
	for i, p := range m.peers {
		before[i] = p.Stats().PacketsOut
	}
	m.run(time.Second)
	for i, p := range m.peers {
		if n := p.Stats().PacketsOut - before[i]; n != 0 {
			t.Errorf("peer %d sent %d packets after the match ended", i, n)
		}
	}
	if m.peers[2].Err() != nil {
		t.Errorf("the peer that left: %v", m.peers[2].Err())
	}
}

// Through a packet server that goes silent, a peer names the server.
func TestLockstepServerSilentEnds(t *testing.T) {
	m := newMatch(t, 2, netsim.LinkConfig{Latency: 15 * time.Millisecond}, Config{ViaServer: true, PeerTimeout: time.Second}, nil)
	m.run(time.Second)
	m.net.SetDropFilter(func(from, to netip.AddrPort, p []byte) bool { return from == relayAddr })
	_, err := m.runUntilGone(0, 5*time.Second)
	var gone *PeerGoneError
	if !errors.As(err, &gone) || !gone.Server || !strings.Contains(err.Error(), "the packet server sent nothing for 1") {
		t.Fatalf("err %v", err)
	}
	if m.relay.Stats().Malformed != 0 {
		t.Errorf("%d malformed packets at the server", m.relay.Stats().Malformed)
	}
}

// Through a packet server, a peer that leaves tells the server, which
// counts it and goes on (a missing peer's command is duplicated).
func TestLockstepLeaveViaServer(t *testing.T) {
	m := newMatch(t, 3, netsim.LinkConfig{Latency: 15 * time.Millisecond}, Config{ViaServer: true}, nil)
	m.run(time.Second)
	m.peers[2].Leave()
	f := m.peers[0].Frame()
	m.run(time.Second)
	if st := m.relay.Stats(); st.Leaves == 0 || st.Malformed != 0 {
		t.Errorf("server: %d leaves, %d malformed", st.Leaves, st.Malformed)
	}
	if m.peers[0].Err() != nil || m.peers[0].Frame() < f+50 {
		t.Errorf("peer 0 after peer 2 left: %v, frame %d (was %d)", m.peers[0].Err(), m.peers[0].Frame(), f)
	}
}
