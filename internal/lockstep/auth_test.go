package lockstep

import (
	"testing"
	"time"

	"github.com/snapwire/snapwire/examples/guide"
	"github.com/snapwire/snapwire/game"
)

// The replay window accepts each counter once, in any order within 64
// of the highest, and nothing older.
func TestReplayWindow(t *testing.T) {
	var w replayWindow
	for i, c := range []struct {
		counter uint64
		fresh   bool
	}{
		{1000, true}, {1000, false}, {999, true}, {999, false}, {1001, true}, {938, true}, // 1001-63: the oldest in the window
		{937, false}, {938, false}, {1100, true}, {1037, true}, {1036, false}, {1001, false}, {5000, true}, {4999, true}, {1100, false},
	} {
		if got := w.fresh(c.counter); got != c.fresh {
			t.Fatalf("step %d: counter %d fresh %v, want %v (top %d, bits %064b)", i, c.counter, got, c.fresh, w.top, w.bits)
		}
		if c.fresh {
			w.mark(c.counter)
		}
	}
}

// A packet opens only under its sender's key, as the receiver it names,
// once, and with every byte as sent; the sender keys differ.
func TestSealerOpen(t *testing.T) {
	a := newSealer(&testKey, false, 1, 3, maxServerPacket)
	b := newSealer(&testKey, false, 0, 3, maxServerPacket)
	c := newSealer(&testKey, false, 2, 3, maxServerPacket)
	pkt := a.seal(append(a.header(nil, 'L', 0), "body"...))
	if len(pkt) != clearHeader+4+tagBytes {
		t.Fatalf("packet of %d bytes", len(pkt))
	}
	if _, _, err := c.open(pkt, 1, "LQ"); err != ErrMalformed {
		t.Errorf("opened by another receiver: %v", err)
	}
	if _, _, err := b.open(pkt, 2, "LQ"); err != ErrMalformed {
		t.Errorf("opened as another sender's: %v", err)
	}
	if _, _, err := b.open(pkt, 1, "SQ"); err != ErrMalformed {
		t.Errorf("opened as another kind: %v", err)
	}
	for i := range pkt {
		bad := append([]byte(nil), pkt...)
		bad[i] ^= 1
		if _, _, err := b.open(bad, 1, "LQ"); err == nil {
			t.Fatalf("opened with byte %d flipped", i)
		}
	}
	for n := range len(pkt) {
		if _, _, err := b.open(pkt[:n], 1, "LQ"); err == nil {
			t.Fatalf("opened its %d-byte prefix", n)
		}
	}
	kind, body, err := b.open(pkt, 1, "LQ")
	if err != nil || kind != 'L' || string(body) != "body" {
		t.Fatalf("open: %c %q %v", kind, body, err)
	}
	if _, _, err := b.open(pkt, 1, "LQ"); err != ErrReplay {
		t.Errorf("second open: %v", err)
	}
	forged := newSealer(&attackerKey, false, 1, 3, maxServerPacket)
	if _, _, err := b.open(forged.seal(append(forged.header(nil, 'L', 0), "body"...)), 1, "LQ"); err != ErrAuth {
		t.Errorf("packet under another key: %v", err)
	}
	if senderKey(&testKey, 0) == senderKey(&testKey, 1) || senderKey(&testKey, 0) == senderKey(&testKey, serverID) {
		t.Error("two senders share a key")
	}
}

// A match in its steady state allocates nothing per packet: two peers of
// the guide game, packets handed over directly, sealed and opened.
func TestLockstepNoAllocsPerPacket(t *testing.T) {
	var peers [2]*Peer
	for i := range 2 {
		g := guide.New()
		g.Load("")
		p, err := New(keyed(Config{Peers: 2, Me: i}), g, func(f game.Frame) game.UserCmd { return game.UserCmd{Forward: 1} },
			func(to int, pkt []byte) { peers[to].HandlePacket(i, pkt) })
		if err != nil {
			t.Fatal(err)
		}
		peers[i] = p
	}
	now := time.Duration(0)
	step := func() {
		now += time.Second / 60
		peers[0].Advance(now)
		peers[1].Advance(now)
	}
	for range 120 {
		step()
	}
	if n := testing.AllocsPerRun(200, step); n != 0 {
		t.Errorf("%.1f allocations per frame (two packets sealed and opened)", n)
	}
	if st := peers[0].Stats(); st.AuthFailures != 0 || st.Replayed != 0 || st.Malformed != 0 || peers[0].Frame() < 300 {
		t.Errorf("peer 0 at frame %d: %+v", peers[0].Frame(), st)
	}
}

// FuzzPacketDecode feeds the packet decoder (sealer.open, then the body
// parsers) packets as peer 0 receives them from peer 1 and from the
// server, under the match key and insecure. Seeded with real encodings of
// every kind, both ways. Checks: no packet opens under the key unless it
// is one a key holder sealed (a seed); a packet that opened is a replay
// the second time; a body that parses re-encodes to one that parses to
// the same values.
func FuzzPacketDecode(f *testing.F) {
	genuine := map[string]bool{}
	for _, insecure := range []bool{false, true} {
		for _, via := range []bool{false, true} {
			var pkts [][]byte
			keep := func(to int, pkt []byte) {
				if to == 0 {
					pkts = append(pkts, append([]byte(nil), pkt...))
				}
			}
			g := guide.New()
			g.Load("")
			cfg := Config{Peers: 3, Me: 1, ViaServer: via, Key: testKey, Insecure: insecure}
			p, err := New(cfg, g, func(game.Frame) game.UserCmd { return game.UserCmd{Forward: 3, Yaw: 77} }, keep)
			if err != nil {
				f.Fatal(err)
			}
			p.seal.counter = 1 << 40 // not random: every fuzz worker makes the same seeds
			p.Advance(time.Second)
			if via {
				r, _ := NewRelay(RelayConfig{Peers: 3, Key: testKey, Insecure: insecure}, keep)
				r.seal.counter = 1 << 50
				r.HandlePacket(1, nil)
				r.Advance(time.Second)
				p.Leave() // to the server: not peer 0's
			} else {
				p.Leave()
			}
			for _, pkt := range pkts {
				f.Add(pkt)
				if !insecure {
					genuine[string(pkt)] = true
				}
			}
		}
	}
	f.Fuzz(func(t *testing.T, pkt []byte) {
		for _, insecure := range []bool{false, true} {
			for _, from := range []byte{1, serverID} {
				kinds := "LQ"
				if from == serverID {
					kinds = "SQ"
				}
				s := newSealer(&testKey, insecure, 0, 3, maxServerPacket)
				kind, body, err := s.open(pkt, from, kinds)
				if err != nil {
					continue
				}
				if !insecure && !genuine[string(pkt)] {
					t.Fatalf("a packet no key holder sealed opened: %x", pkt)
				}
				body = append([]byte(nil), body...)
				if _, _, err := s.open(pkt, from, kinds); err != ErrReplay {
					t.Fatalf("opened twice: %v", err)
				}
				switch kind {
				case 'L':
					checkPeerBody(t, body)
				case 'S':
					checkBundles(t, body)
				}
			}
		}
	})
}

func checkPeerBody(t *testing.T, body []byte) {
	pp, ok := parsePeerBody(body)
	if !ok {
		return
	}
	// Commands re-encode with zero spare bytes: compare them decoded.
	var cmds []byte
	for i := range pp.n {
		cmds = appendCmd(cmds, readCmd(pp.cmds[i*cmdBytes:], 0))
	}
	pp.cmds = cmds
	again, ok := parsePeerBody(appendPeerBody(nil, &pp))
	if !ok || again.ack != pp.ack || again.first != pp.first || again.n != pp.n || again.hashFrame != pp.hashFrame ||
		again.hash != pp.hash || string(again.cmds) != string(pp.cmds) {
		t.Fatalf("peer body %x: %+v, again %+v", body, pp, again)
	}
}

func checkBundles(t *testing.T, body []byte) {
	ack, first, n, peers, cmds, ok := parseBundles(body)
	if !ok {
		return
	}
	b := append(body[:0:0], body[:bundleHeader]...)
	for i := range n * peers {
		b = appendCmd(b, readCmd(cmds[i*cmdBytes:], 0))
	}
	ack2, first2, n2, peers2, cmds2, ok := parseBundles(b)
	if !ok || ack2 != ack || first2 != first || n2 != n || peers2 != peers || string(cmds2) != string(b[bundleHeader:]) {
		t.Fatalf("server body %x does not round-trip", body)
	}
}
