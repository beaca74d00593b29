package lockstep

// The packet server (DOOM III network architecture, §1.1): peers send
// their commands to one server, which forwards every frame's commands to
// everybody. It does not run the game. When a peer's command for a frame
// has not come by the frame's deadline, the server duplicates that
// peer's last command and the match goes on for the others: a slow peer
// no longer sets everyone's pace, it only plays with stale input itself.
//
// Server packet (little-endian), to one peer; each frame one with the
// latest decided frames, one with the oldest unacknowledged, and up to two
// with frames decided in a burst (Relay.send):
//
//	'S' 1 | version 1 | from 0xFF | to 1 | counter 8 | sealed(ack 4 | first 4 | count 1 | peers 1 | count x peers x command 11) | tag 16
//
// ack is the last frame up to which the server holds that peer's commands
// (or decided the frame without them); the frames first..first+count-1
// each carry every peer's command, in peer order. The server compares the
// state hashes peers send and records a DesyncError on the first mismatch.
//
// The server holds the match key and seals its packets with its own key
// (auth.go, sender 0xFF): the frames it decides, duplicated commands
// included, are its word, and a peer believes them because they open with
// the server's key. It opens each peer's packets with that peer's key, so
// nobody without the match key can send commands, acknowledgements or
// leaves in a peer's name. The server could play for any peer (it decides
// the commands by design): it must be run by someone the players trust.

import (
	"encoding/binary"
	"fmt"
	"time"

	"github.com/snapwire/snapwire/game"
)

// bundleHeader is a server packet body's header: ack, first, count, peers.
const bundleHeader = 4 + 4 + 1 + 1

// maxBundleFrames is how many decided frames fit a packet of at most
// maxServerPacket bytes, header and tag included.
func maxBundleFrames(peers int) int {
	return min(MaxCmdsPerPacket, (maxServerPacket-clearHeader-tagBytes-bundleHeader)/(peers*cmdBytes))
}

// parseBundles reads an opened server packet's body.
func parseBundles(body []byte) (ack, first game.Frame, n, peers int, cmds []byte, ok bool) {
	if len(body) < bundleHeader {
		return 0, 0, 0, 0, nil, false
	}
	ack = game.Frame(binary.LittleEndian.Uint32(body))
	first = game.Frame(binary.LittleEndian.Uint32(body[4:]))
	n, peers = int(body[8]), int(body[9])
	if peers < 2 || peers > MaxPeers || n > maxBundleFrames(peers) || first < 1 || first > 1<<30 ||
		len(body) != bundleHeader+n*peers*cmdBytes {
		return 0, 0, 0, 0, nil, false
	}
	return ack, first, n, peers, body[bundleHeader:], true
}

// RelayConfig configures a Relay; zero fields take the defaults in brackets.
type RelayConfig struct {
	Peers      int
	FrameDur   time.Duration // [1/60 s]
	InputDelay int           // the peers' [4]
	// Grace is how long before a frame is due the server decides it, with
	// or without every command [2 frames]: the time the decided frame
	// needs to reach the peers.
	Grace time.Duration
	// Key and Insecure are the peers' (Config.Key, Config.Insecure).
	Key      MatchKey
	Insecure bool
}

// RelayStats are the server's counters.
type RelayStats struct {
	Decided       game.Frame
	Duplicated    [MaxPeers]uint64 // frames run with a peer's previous command
	LateCmds      uint64           // commands that came after their frame was decided
	PacketsOut    uint64
	BytesOut      uint64
	PacketsIn     uint64
	BytesIn       uint64
	Malformed     uint64
	HashesChecked uint64
	Leaves        uint64 // leave packets received (Peer.Leave)
	AuthFailures  uint64 // packets that did not open with their sender's key
	Replayed      uint64 // packets whose counter was seen already or is too old
}

// Relay is the packet server of a lockstep match. I/O-free.
type Relay struct {
	cfg        RelayConfig
	cmds       [MaxPeers][Window]cmdSlot
	contiguous [MaxPeers]game.Frame // peer's commands held (or decided without)
	last       [MaxPeers]game.UserCmd
	acked      [MaxPeers]game.Frame // decided frames the peer holds
	sent       [MaxPeers]game.Frame // decided frames sent to the peer at least once
	bundles    [Window][MaxPeers]game.UserCmd
	decided    game.Frame
	hashes     [Window]struct {
		frame game.Frame
		hash  uint64
		peer  int
	}
	lastEqual game.Frame
	err       error
	lastSend  time.Duration
	sentOnce  bool
	stats     RelayStats
	out       []byte
	sendFn    func(peer int, p []byte)
	seal      *sealer
}

// NewRelay returns a packet server for cfg.Peers peers.
func NewRelay(cfg RelayConfig, send func(peer int, p []byte)) (*Relay, error) {
	if cfg.Peers < 2 || cfg.Peers > MaxPeers {
		return nil, fmt.Errorf("lockstep: relay for %d peers: want 2..%d", cfg.Peers, MaxPeers)
	}
	if !cfg.Insecure && cfg.Key == (MatchKey{}) {
		return nil, errNoKey
	}
	if cfg.FrameDur <= 0 {
		cfg.FrameDur = time.Second / 60
	}
	if cfg.InputDelay <= 0 {
		cfg.InputDelay = 4
	}
	if cfg.Grace <= 0 {
		cfg.Grace = 2 * cfg.FrameDur
	}
	r := &Relay{cfg: cfg, sendFn: send, out: make([]byte, 0, maxServerPacket),
		seal: newSealer(&cfg.Key, cfg.Insecure, serverID, cfg.Peers, MaxPacket)}
	d := game.Frame(cfg.InputDelay)
	r.decided = d
	for c := range cfg.Peers {
		r.contiguous[c], r.acked[c], r.sent[c] = d, d, d
	}
	return r, nil
}

// Err is the first desync the server saw, or nil.
func (r *Relay) Err() error { return r.err }

// Stats returns the counters.
func (r *Relay) Stats() RelayStats { return r.stats }

// Advance decides the frames whose commands are all here or whose
// deadline passed, and sends each peer the decided frames it lacks.
func (r *Relay) Advance(now time.Duration) {
	for {
		f := r.decided + 1
		minAck := r.acked[0]
		all := true
		for c := range r.cfg.Peers {
			minAck = min(minAck, r.acked[c])
			all = all && r.contiguous[c] >= f
		}
		deadline := time.Duration(f)*r.cfg.FrameDur - r.cfg.Grace
		if f-minAck >= Window-MaxCmdsPerPacket || (!all && now < deadline) {
			break
		}
		k := int(f) % Window
		for c := range r.cfg.Peers {
			if s := &r.cmds[c][k]; s.frame == f {
				r.last[c] = s.cmd
			} else {
				r.stats.Duplicated[c]++ // DOOM III §1.1: the slow peer's last command again
				r.contiguous[c] = max(r.contiguous[c], f)
			}
			cmd := r.last[c]
			cmd.Frame = f
			r.bundles[k][c] = cmd
		}
		r.decided = f
		r.stats.Decided = f
	}
	if !r.sentOnce || now-r.lastSend >= r.cfg.FrameDur {
		r.sentOnce, r.lastSend = true, now
		for c := range r.cfg.Peers {
			r.send(c)
		}
	}
}

// send sends peer c, each frame: the latest decided frames (one packet
// of maxBundleFrames, 7 with 16 peers, so every frame goes out in that
// many consecutive packets, as peers send their commands), any frames
// decided since the last send that this packet does not reach, and the
// oldest frames the peer has not acknowledged (one packet). A peer far
// away gets frames at the rate they are decided, and a loss rarely waits
// for a round trip.
func (r *Relay) send(c int) {
	latest := max(r.acked[c]+1, r.decided-game.Frame(maxBundleFrames(r.cfg.Peers))+1)
	packets := 0
	for f := max(r.sent[c], r.acked[c]) + 1; f < latest && packets < maxBundlePackets-2; packets++ {
		f = r.sendFrom(c, f)
	}
	r.sendFrom(c, latest) // also carries our ack when there is nothing new
	r.sent[c] = r.decided
	if r.acked[c]+1 < latest {
		r.sendFrom(c, r.acked[c]+1)
	}
}

// sendFrom sends one packet of decided frames from first and returns the
// frame after the last one it carried.
func (r *Relay) sendFrom(c int, first game.Frame) game.Frame {
	n := max(0, min(int(r.decided-first+1), maxBundleFrames(r.cfg.Peers)))
	b := r.seal.header(r.out, 'S', byte(c))
	b = binary.LittleEndian.AppendUint32(b, uint32(r.contiguous[c]))
	b = binary.LittleEndian.AppendUint32(b, uint32(first))
	b = append(b, byte(n), byte(r.cfg.Peers))
	for f := first; f < first+game.Frame(n); f++ {
		for p := range r.cfg.Peers {
			b = appendCmd(b, r.bundles[int(f)%Window][p])
		}
	}
	b = r.seal.seal(b)
	r.out = b
	r.stats.PacketsOut++
	r.stats.BytesOut += uint64(len(b))
	r.sendFn(c, b)
	return first + game.Frame(n)
}

// maxBundlePackets bounds the packets a peer is sent per frame.
const maxBundlePackets = 4

// HandlePacket takes a peer's packet.
func (r *Relay) HandlePacket(from int, pkt []byte) error {
	r.stats.PacketsIn++
	r.stats.BytesIn += uint64(len(pkt))
	if from < 0 || from >= r.cfg.Peers {
		r.stats.Malformed++
		return ErrMalformed
	}
	kind, body, err := r.seal.open(pkt, byte(from), "LQ")
	if err != nil {
		countDrop(err, &r.stats.Malformed, &r.stats.AuthFailures, &r.stats.Replayed)
		return err
	}
	if kind == 'Q' && len(body) == 0 {
		// The peer quit (Peer.Leave): its commands stop coming, and the
		// server duplicates its last one as for any late peer.
		r.stats.Leaves++
		return nil
	}
	pp, ok := parsePeerBody(body)
	if !ok || kind != 'L' {
		r.stats.Malformed++
		return ErrMalformed
	}
	ack, first, n, cmds := pp.ack, pp.first, pp.n, pp.cmds
	if ack > r.acked[from] && ack <= r.decided {
		r.acked[from] = ack
	}
	for i := range n {
		f := first + game.Frame(i)
		if f <= r.decided {
			// Decided without it (duplicated) the first time it arrives late.
			if s := &r.cmds[from][int(f)%Window]; s.frame != f && f+Window > r.decided {
				s.frame = f
				r.stats.LateCmds++
			}
			continue
		}
		if f <= r.contiguous[from] {
			continue
		}
		if f >= r.decided+Window {
			continue
		}
		s := &r.cmds[from][int(f)%Window]
		s.frame, s.cmd = f, readCmd(cmds[i*cmdBytes:], f)
	}
	for r.contiguous[from]+1 < r.decided+Window && r.cmds[from][int(r.contiguous[from]+1)%Window].frame == r.contiguous[from]+1 {
		r.contiguous[from]++
	}
	// Hashes: the first report of a frame is kept; another peer's must equal it.
	hf, hv := pp.hashFrame, pp.hash
	if hf > 0 && hf <= r.decided && hf+Window > r.decided && r.err == nil {
		e := &r.hashes[int(hf)%Window]
		switch {
		case e.frame != hf:
			e.frame, e.hash, e.peer = hf, hv, from
		case e.peer != from:
			r.stats.HashesChecked++
			if e.hash != hv {
				r.err = &DesyncError{Peer: from, Frame: hf, LastEqual: r.lastEqual, Ours: e.hash, Them: hv}
				return r.err
			}
			r.lastEqual = max(r.lastEqual, hf)
		}
	}
	return nil
}
