// Package lockstep is the network model of DOOM (1994) that the DOOM III
// paper starts from (DOOM III network architecture, van Waveren 2006,
// §1.1; and the client-side prediction text's "Peer-to-Peer Lockstep"):
// every peer runs the whole game deterministically and advances a frame
// only when it holds every peer's command for that frame. Nothing but
// commands crosses the network, so the bytes grow with the number of
// players (each peer sends its commands to every other), and the game runs
// at the pace of the slowest connection: a peer whose commands are late
// stalls everyone.
//
// A Peer is I/O-free: Advance(now) samples this peer's command for the
// frame InputDelay ahead, runs the frames whose commands are all here and
// whose time has come, and returns the packets to send; HandlePacket takes
// a peer's packet. Commands are sent to every other peer, redundantly in
// every packet until that peer acknowledges them (its packets carry the
// last frame up to which it holds all of ours). Every HashEvery frames a
// peer hashes its game state (FNV-1a 64 of the snapshot encoding of every
// entity and state, hash.go) and sends the latest hash; a peer that
// finds another's hash for a frame different from its own stops with a
// DesyncError naming that frame and the last frame known equal. New
// players cannot join a running match, as in DOOM.
//
// The packet-server variant (Config.ViaServer, Relay in relay.go) sends
// commands through one server that decides every frame's commands,
// duplicating a late peer's last command so the others keep their pace.
//
// Every packet is authenticated (auth.go): the clear header, the body
// sealed with ChaCha20-Poly1305 under the sender's key derived from the
// match key (Config.Key), and the tag; a forged, corrupted or replayed
// packet is dropped and counted before it changes anything.
//
// Peer packet (little-endian), sent by peer from to one other peer:
//
//	'L' 1 | version 1 | from 1 | to 1 | counter 8 | sealed(ack 4 | first 4 | count 1 | count x command 11 | hash frame 4 | hash 8) | tag 16
//
// ack is the last frame up to which the sender holds all of the
// receiver's commands; the commands are the sender's own for frames
// first..first+count-1; a command is buttons 2, forward, right, up 1 each,
// yaw and pitch 2 each, and 2 spare bytes; hash frame 0 means no hash yet.
//
// A peer that quits says so (Peer.Leave), three times, to every other
// peer (or to the server):
//
//	'Q' 1 | version 1 | from 1 | to 1 | counter 8 | tag 16
//
// A peer that hears it, or nothing at all from another peer (from the
// server, in packet-server mode) for Config.PeerTimeout, stops with a
// PeerGoneError and sends nothing more: lockstep cannot go on without
// every peer's commands.
//
// The package is the comparison the DOOM III model is measured against,
// not part of the library's API: "snapwire lockstep" plays it over UDP and
// "snapwire models" (internal/netmodels) runs it beside the other models.
package lockstep

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/snapwire/snapwire/game"
)

// Limits of the format and of a peer's memory.
const (
	MaxPeers = 16
	// Window is how many frames of commands a peer keeps: a peer cannot run
	// more than Window frames ahead of the slowest one's commands.
	Window = 256
	// MaxCmdsPerPacket bounds the unacknowledged commands a packet carries.
	MaxCmdsPerPacket = 64
	cmdBytes         = 11
	bodyHeader       = 4 + 4 + 1 // ack, first, count
	hashBytes        = 4 + 8
	// version 2: authenticated packets (auth.go).
	version = 2
	// maxServerPacket bounds a server packet, and so any packet.
	maxServerPacket = 1400
)

// MaxPacket is the largest packet a peer sends.
const MaxPacket = clearHeader + bodyHeader + MaxCmdsPerPacket*cmdBytes + hashBytes + tagBytes

// Errors.
var (
	ErrMalformed = errors.New("lockstep: malformed packet")
	errNoKey     = errors.New("lockstep: no match key: set Config.Key (or Insecure, for tests and trusted networks only)")
)

// DesyncError reports game states that diverged.
type DesyncError struct {
	Peer       int        // the peer whose hash differs from ours
	Frame      game.Frame // first frame compared whose hashes differ
	LastEqual  game.Frame // last frame whose hashes were compared equal (0: none)
	Ours, Them uint64
}

func (e *DesyncError) Error() string {
	return fmt.Sprintf("lockstep: desync with peer %d at frame %d (last frame known equal %d): state hash %016x, theirs %016x",
		e.Peer, e.Frame, e.LastEqual, e.Ours, e.Them)
}

// PeerGoneError reports a peer that left the match: it said so (Left),
// or nothing came from it for Silence. Peer is the peer's index, or
// Config.Peers for the packet server.
type PeerGoneError struct {
	Peer    int
	Server  bool // the packet server (Config.ViaServer)
	Left    bool
	Silence time.Duration
}

func (e *PeerGoneError) Error() string {
	who := fmt.Sprintf("peer %d", e.Peer)
	if e.Server {
		who = "the packet server"
	}
	if e.Left {
		return "lockstep: " + who + " left the match"
	}
	return fmt.Sprintf("lockstep: %s sent nothing for %v: it left the match", who, e.Silence)
}

// Config configures a Peer; zero fields take the defaults in brackets.
type Config struct {
	Peers      int           // players, 2..MaxPeers
	Me         int           // this peer's index, 0..Peers-1
	FrameDur   time.Duration // [1/60 s]
	InputDelay int           // frames between sampling a command and running it [4]
	HashEvery  int           // frames between state hashes [15]
	// MaxCatchUp bounds the frames one Advance runs [8].
	MaxCatchUp int
	// PeerTimeout ends the match with a PeerGoneError when nothing has
	// come from a peer (from the server, with ViaServer) for this long,
	// counted from the first Advance [5s].
	PeerTimeout time.Duration
	// ViaServer plays through a packet server (Relay, relay.go): the peer
	// sends its commands to the server only (send's peer index is
	// Peers) and runs each frame with the commands the server decided for
	// it, its own included.
	ViaServer bool
	// Key is the match key every peer and the packet server share, handed
	// out by whoever starts the match; every packet is authenticated with
	// a key derived from it (auth.go). Required unless Insecure.
	Key MatchKey
	// Insecure plays without authentication: anyone who can send a packet
	// with a peer's address can end the match or play for that peer. For
	// tests and trusted networks only.
	Insecure bool
}

// Input gives this peer's command for frame f, from its world.
type Input func(f game.Frame) game.UserCmd

// Stats are a peer's counters.
type Stats struct {
	Frames game.Frame // frames run
	Stalls uint64     // times the next frame was due but a command was missing
	// Lag sums, over the frames run, how late each ran after it was due
	// (waiting for a command): Lag/Frames is the delay lockstep adds to
	// every player's input-to-screen time beyond the input delay.
	Lag           time.Duration
	PacketsOut    uint64
	BytesOut      uint64
	PacketsIn     uint64
	BytesIn       uint64
	Malformed     uint64
	HashesChecked uint64
	// AuthFailures counts packets dropped because they did not open with
	// their sender's key (forged or corrupted); Replayed, packets dropped
	// because their counter was seen already or is too old.
	AuthFailures uint64
	Replayed     uint64
}

type cmdSlot struct {
	frame game.Frame // the frame the slot holds (0: empty)
	cmd   game.UserCmd
}

// Peer is one player of a lockstep match.
type Peer struct {
	cfg   Config
	g     game.Game
	input Input
	ents  []game.EntityNum // player entity of each peer

	next    game.Frame // next frame to run
	sampled game.Frame // last frame our command was sampled for
	cmds    [MaxPeers][Window]cmdSlot
	// contiguous[p]: last frame up to which we hold all of p's commands.
	contiguous [MaxPeers]game.Frame
	// acked[p]: last frame up to which p holds all of our commands.
	acked [MaxPeers]game.Frame

	// Packet-server mode: the frames the server decided (bundles) and
	// the last frame up to which we hold them all; srvAcked is the
	// server's ack of our commands.
	bundles     [Window][MaxPeers]game.UserCmd
	bundleFrame [Window]game.Frame
	bundled     game.Frame
	srvAcked    game.Frame

	hashes [Window]struct {
		frame game.Frame
		hash  uint64
	}
	lastHash  game.Frame
	lastEqual [MaxPeers]game.Frame
	lastSend  time.Duration
	sentOnce  bool
	hasher    stateHasher

	// heard[c]: a packet came from c (peer, or Peers for the server)
	// since the last Advance, which notes the time in lastHeard[c].
	heard     [MaxPeers + 1]bool
	lastHeard [MaxPeers + 1]time.Duration
	clockSet  bool
	left      bool // Leave was called

	tick    game.Tick
	stalled bool
	err     error
	stats   Stats
	out     [MaxPeers][]byte
	sendFn  func(peer int, p []byte)
	seal    *sealer
}

// New returns peer cfg.Me of a match of g, which must be loaded; it adds
// every player (game.Game.ClientConnected, client number = peer index) in
// the same order on every peer.
func New(cfg Config, g game.Game, input Input, send func(peer int, p []byte)) (*Peer, error) {
	if cfg.Peers < 2 || cfg.Peers > MaxPeers || cfg.Me < 0 || cfg.Me >= cfg.Peers {
		return nil, fmt.Errorf("lockstep: %d peers, me %d: want 2..%d peers", cfg.Peers, cfg.Me, MaxPeers)
	}
	if cfg.FrameDur <= 0 {
		cfg.FrameDur = time.Second / 60
	}
	if cfg.InputDelay <= 0 {
		cfg.InputDelay = 4
	}
	if cfg.HashEvery <= 0 {
		cfg.HashEvery = 15
	}
	if cfg.MaxCatchUp <= 0 {
		cfg.MaxCatchUp = 8
	}
	if cfg.PeerTimeout <= 0 {
		cfg.PeerTimeout = 5 * time.Second
	}
	if !cfg.Insecure && cfg.Key == (MatchKey{}) {
		return nil, errNoKey
	}
	if cfg.InputDelay >= Window-MaxCmdsPerPacket {
		return nil, fmt.Errorf("lockstep: input delay %d too large", cfg.InputDelay)
	}
	p := &Peer{cfg: cfg, g: g, input: input, sendFn: send, next: 1}
	for c := range cfg.Peers {
		if err := g.ClientConnected(game.ClientNum(c)); err != nil {
			return nil, err
		}
		e, ok := g.PlayerEntity(game.ClientNum(c))
		if !ok {
			return nil, fmt.Errorf("lockstep: no player entity for peer %d", c)
		}
		p.ents = append(p.ents, e)
	}
	// Frames 1..InputDelay have no sampled command: every peer runs them
	// with the empty command, so they count as held.
	for c := range cfg.Peers {
		p.contiguous[c] = game.Frame(cfg.InputDelay)
		p.acked[c] = game.Frame(cfg.InputDelay)
	}
	p.sampled = game.Frame(cfg.InputDelay)
	p.bundled, p.srvAcked = game.Frame(cfg.InputDelay), game.Frame(cfg.InputDelay)
	p.tick.Cmds = make([]game.PlayerCmd, cfg.Peers)
	p.tick.Events = game.Discard
	for i := range p.out {
		p.out[i] = make([]byte, 0, MaxPacket)
	}
	p.seal = newSealer(&cfg.Key, cfg.Insecure, byte(cfg.Me), cfg.Peers, maxServerPacket)
	return p, nil
}

// Err is the error that stopped the peer (a DesyncError), or nil.
func (p *Peer) Err() error { return p.err }

// Frame is the last frame run.
func (p *Peer) Frame() game.Frame { return p.next - 1 }

// Stats returns the counters.
func (p *Peer) Stats() Stats { return p.stats }

func (p *Peer) slot(peer int, f game.Frame) *cmdSlot { return &p.cmds[peer][int(f)%Window] }

// Advance samples our commands due by now, runs the frames that are due
// and complete, and sends a packet to every other peer.
func (p *Peer) Advance(now time.Duration) {
	if p.err != nil || p.left {
		return
	}
	if p.checkSilence(now) {
		return
	}
	// Our command for frame t+InputDelay is sampled when frame t is due.
	due := game.Frame(now/p.cfg.FrameDur) + game.Frame(p.cfg.InputDelay)
	// A slot of ours is reused only once every peer has acknowledged the
	// command in it, and our own run frames stay within the window.
	for p.sampled < due && p.sampled-p.next+1 < Window-MaxCmdsPerPacket && p.sampled+1-p.minAcked() < Window {
		f := p.sampled + 1
		s := p.slot(p.cfg.Me, f)
		s.frame, s.cmd = f, p.input(f)
		s.cmd.Frame = f
		p.sampled = f
		p.contiguous[p.cfg.Me] = f
	}
	ran := 0
	for ran < p.cfg.MaxCatchUp && time.Duration(p.next)*p.cfg.FrameDur <= now {
		if !p.complete(p.next) {
			if !p.stalled {
				p.stalled = true
				p.stats.Stalls++
			}
			break
		}
		p.stalled = false
		p.stats.Lag += now - time.Duration(p.next)*p.cfg.FrameDur
		p.run(p.next)
		p.next++
		ran++
	}
	// One packet per peer per frame duration (commands are sampled once a
	// frame), however often the driver calls Advance.
	if !p.sentOnce || now-p.lastSend >= p.cfg.FrameDur {
		p.sentOnce, p.lastSend = true, now
		p.send()
	}
}

// checkSilence notes when each peer was last heard from and ends the
// match with a PeerGoneError when one has been silent for PeerTimeout.
func (p *Peer) checkSilence(now time.Duration) bool {
	if !p.clockSet {
		p.clockSet = true
		for c := range p.lastHeard {
			p.lastHeard[c] = now
		}
	}
	for c := range p.cfg.Peers + 1 {
		if c == p.cfg.Me || (c == p.cfg.Peers) != p.cfg.ViaServer {
			continue // every other peer, or the server only
		}
		if p.heard[c] {
			p.heard[c], p.lastHeard[c] = false, now
		}
		if d := now - p.lastHeard[c]; d >= p.cfg.PeerTimeout {
			p.err = &PeerGoneError{Peer: c, Server: c == p.cfg.Peers, Silence: d}
			return true
		}
	}
	return false
}

// Leave tells every other peer (or the server) that this peer quits, in
// three packets, and stops the peer: Advance sends nothing more.
func (p *Peer) Leave() {
	if p.left {
		return
	}
	p.left = true
	for c := range p.cfg.Peers + 1 {
		if c == p.cfg.Me || (c == p.cfg.Peers) != p.cfg.ViaServer {
			continue
		}
		for range 3 { // each its own counter: not a replay of the first
			b := p.seal.seal(p.seal.header(p.out[0], 'Q', p.wireID(c)))
			p.out[0] = b
			p.stats.PacketsOut++
			p.stats.BytesOut += uint64(len(b))
			p.sendFn(c, b)
		}
	}
}

// wireID is peer index c on the wire: c, or serverID for the server.
func (p *Peer) wireID(c int) byte {
	if c == p.cfg.Peers {
		return serverID
	}
	return byte(c)
}

// minAcked is the lowest frame up to which every other peer holds our
// commands.
func (p *Peer) minAcked() game.Frame {
	if p.cfg.ViaServer {
		return p.srvAcked
	}
	m := p.sampled
	for c := range p.cfg.Peers {
		if c != p.cfg.Me && p.acked[c] < m {
			m = p.acked[c]
		}
	}
	return m
}

// complete reports whether every peer's command for f is here.
func (p *Peer) complete(f game.Frame) bool {
	if p.cfg.ViaServer {
		return p.bundled >= f
	}
	for c := range p.cfg.Peers {
		if p.contiguous[c] < f {
			return false
		}
	}
	return true
}

func (p *Peer) run(f game.Frame) {
	for c := range p.cfg.Peers {
		pc := game.PlayerCmd{Entity: p.ents[c], Cmd: game.UserCmd{Frame: f}}
		if p.cfg.ViaServer {
			if p.bundleFrame[int(f)%Window] == f {
				pc.Cmd = p.bundles[int(f)%Window][c]
			}
		} else if s := p.slot(c, f); s.frame == f {
			pc.Cmd = s.cmd
		}
		p.tick.Cmds[c] = pc
	}
	sortCmds(p.tick.Cmds)
	p.tick.Frame = f
	p.g.RunFrame(&p.tick)
	p.stats.Frames = f
	if int(f)%p.cfg.HashEvery == 0 {
		p.hashes[int(f)%Window].frame = f
		p.hashes[int(f)%Window].hash = p.stateHash()
		p.lastHash = f
	}
}

func sortCmds(c []game.PlayerCmd) {
	for i := 1; i < len(c); i++ {
		for j := i; j > 0 && c[j].Entity < c[j-1].Entity; j-- {
			c[j], c[j-1] = c[j-1], c[j]
		}
	}
}

// stateHash hashes the snapshot encoding of every entity and state
// (stateHasher); a state that cannot be encoded hashes to 0.
func (p *Peer) stateHash() uint64 {
	h, err := p.hasher.hash(p.g)
	if err != nil {
		return 0
	}
	return h
}

// send builds and sends one packet to every other peer: our commands it
// has not acknowledged, its ack, and our latest hash.
func (p *Peer) send() {
	for c := range p.cfg.Peers + 1 {
		if c == p.cfg.Me || (c == p.cfg.Peers) != p.cfg.ViaServer {
			continue // to every other peer, or to the server only
		}
		b := p.seal.header(p.out[min(c, MaxPeers-1)], 'L', p.wireID(c))
		ack, first := p.bundled, p.srvAcked+1
		if !p.cfg.ViaServer {
			ack, first = p.contiguous[c], p.acked[c]+1
		}
		b = binary.LittleEndian.AppendUint32(b, uint32(ack))
		n := min(int(p.sampled-first+1), MaxCmdsPerPacket)
		if n < 0 {
			n = 0
		}
		b = binary.LittleEndian.AppendUint32(b, uint32(first))
		b = append(b, byte(n))
		for f := first; f < first+game.Frame(n); f++ {
			b = appendCmd(b, p.slot(p.cfg.Me, f).cmd)
		}
		b = binary.LittleEndian.AppendUint32(b, uint32(p.lastHash))
		b = binary.LittleEndian.AppendUint64(b, p.hashes[int(p.lastHash)%Window].hash)
		b = p.seal.seal(b)
		p.out[min(c, MaxPeers-1)] = b
		p.stats.PacketsOut++
		p.stats.BytesOut += uint64(len(b))
		p.sendFn(c, b)
	}
}

func appendCmd(b []byte, c game.UserCmd) []byte {
	b = binary.LittleEndian.AppendUint16(b, uint16(c.Buttons))
	b = append(b, byte(c.Forward), byte(c.Right), byte(c.Up))
	b = binary.LittleEndian.AppendUint16(b, c.Yaw)
	b = binary.LittleEndian.AppendUint16(b, c.Pitch)
	return append(b, 0, 0)
}

func readCmd(b []byte, f game.Frame) game.UserCmd {
	return game.UserCmd{Frame: f, Buttons: game.Buttons(binary.LittleEndian.Uint16(b)),
		Forward: int8(b[2]), Right: int8(b[3]), Up: int8(b[4]),
		Yaw: binary.LittleEndian.Uint16(b[5:]), Pitch: binary.LittleEndian.Uint16(b[7:])}
}

// HandlePacket takes a packet that came from peer from (the transport
// knows which address is which peer; Config.Peers is the packet server).
// A packet naming another sender or receiver, malformed, forged or
// replayed is dropped and counted, and changes nothing.
func (p *Peer) HandlePacket(from int, pkt []byte) error {
	p.stats.PacketsIn++
	p.stats.BytesIn += uint64(len(pkt))
	if p.err != nil {
		return p.err
	}
	if from < 0 || from > p.cfg.Peers || from == p.cfg.Me || (from == p.cfg.Peers) != p.cfg.ViaServer {
		p.stats.Malformed++
		return ErrMalformed
	}
	kinds := "LQ"
	if p.cfg.ViaServer {
		kinds = "SQ"
	}
	kind, body, err := p.seal.open(pkt, p.wireID(from), kinds)
	if err != nil {
		countDrop(err, &p.stats.Malformed, &p.stats.AuthFailures, &p.stats.Replayed)
		return err
	}
	if kind == 'Q' && len(body) == 0 {
		p.err = &PeerGoneError{Peer: from, Server: from == p.cfg.Peers, Left: true}
		return p.err
	}
	if p.cfg.ViaServer {
		err := p.handleBundles(body)
		if err == nil {
			p.heard[from] = true
		}
		return err
	}
	pp, ok := parsePeerBody(body)
	if !ok || kind != 'L' {
		p.stats.Malformed++
		return ErrMalformed
	}
	p.heard[from] = true
	ack, first, n, cmds := pp.ack, pp.first, pp.n, pp.cmds
	// Their ack of our commands only moves forward, and never past what we
	// sampled.
	if ack > p.acked[from] && ack <= p.sampled {
		p.acked[from] = ack
	}
	// Their commands: keep those within our window, fill the contiguous run.
	for i := range n {
		f := first + game.Frame(i)
		if f <= p.contiguous[from] || f < p.next || f >= p.next+Window {
			continue
		}
		s := p.slot(from, f)
		s.frame, s.cmd = f, readCmd(cmds[i*cmdBytes:], f)
	}
	for p.contiguous[from]+1 < p.next+Window && p.slot(from, p.contiguous[from]+1).frame == p.contiguous[from]+1 {
		p.contiguous[from]++
	}
	// Their latest hash against ours for the same frame.
	hf, hv := pp.hashFrame, pp.hash
	if hf > 0 && hf <= p.lastHash && hf+Window > p.lastHash {
		if ours := p.hashes[int(hf)%Window]; ours.frame == hf {
			p.stats.HashesChecked++
			if ours.hash != hv {
				p.err = &DesyncError{Peer: from, Frame: hf, LastEqual: p.lastEqual[from], Ours: ours.hash, Them: hv}
				return p.err
			}
			p.lastEqual[from] = max(p.lastEqual[from], hf)
		}
	}
	return nil
}

// handleBundles takes a packet of the server (packet-server mode): its
// ack of our commands and the frames' commands it decided.
func (p *Peer) handleBundles(body []byte) error {
	ack, first, n, peers, cmds, ok := parseBundles(body)
	if !ok || peers != p.cfg.Peers {
		p.stats.Malformed++
		return ErrMalformed
	}
	if ack > p.srvAcked && ack <= p.sampled {
		p.srvAcked = ack
	}
	for i := range n {
		f := first + game.Frame(i)
		if f <= p.bundled || f >= p.next+Window {
			continue
		}
		k := int(f) % Window
		for c := range peers {
			p.bundles[k][c] = readCmd(cmds[(i*peers+c)*cmdBytes:], f)
		}
		p.bundleFrame[k] = f
	}
	for p.bundled+1 < p.next+Window && p.bundleFrame[int(p.bundled+1)%Window] == p.bundled+1 {
		p.bundled++
	}
	return nil
}

// peerPacket is a parsed peer packet.
type peerPacket struct {
	ack, first, hashFrame game.Frame
	n                     int
	cmds                  []byte // n commands of cmdBytes
	hash                  uint64
}

// countDrop counts a packet dropped by sealer.open.
func countDrop(err error, malformed, auth, replayed *uint64) {
	switch err {
	case ErrAuth:
		*auth++
	case ErrReplay:
		*replayed++
	default:
		*malformed++
	}
}

// appendPeerBody appends a peer packet's body.
func appendPeerBody(b []byte, pp *peerPacket) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(pp.ack))
	b = binary.LittleEndian.AppendUint32(b, uint32(pp.first))
	b = append(b, byte(pp.n))
	b = append(b, pp.cmds...)
	b = binary.LittleEndian.AppendUint32(b, uint32(pp.hashFrame))
	return binary.LittleEndian.AppendUint64(b, pp.hash)
}

// parsePeerBody checks and reads an opened peer packet's body; every
// length and count is checked against the body.
func parsePeerBody(body []byte) (peerPacket, bool) {
	if len(body) < bodyHeader+hashBytes {
		return peerPacket{}, false
	}
	pp := peerPacket{
		ack:   game.Frame(binary.LittleEndian.Uint32(body)),
		first: game.Frame(binary.LittleEndian.Uint32(body[4:])),
		n:     int(body[8]),
	}
	if pp.n > MaxCmdsPerPacket || len(body) != bodyHeader+pp.n*cmdBytes+hashBytes || pp.first < 1 || pp.first > 1<<30 {
		return peerPacket{}, false
	}
	pp.cmds = body[bodyHeader : bodyHeader+pp.n*cmdBytes]
	h := body[bodyHeader+pp.n*cmdBytes:]
	pp.hashFrame, pp.hash = game.Frame(binary.LittleEndian.Uint32(h)), binary.LittleEndian.Uint64(h[4:])
	return pp, true
}
