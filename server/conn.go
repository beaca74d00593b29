package server

import (
	crand "crypto/rand"
	"encoding/binary"
	"errors"
	"net/netip"
	"time"

	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/netchan"
	"github.com/snapwire/snapwire/internal/serverhook"
	"github.com/snapwire/snapwire/internal/session"
	"github.com/snapwire/snapwire/internal/snapshot"
	"github.com/snapwire/snapwire/internal/tokenwire"
	"github.com/snapwire/snapwire/internal/usercmd"
)

// ClientStats are one client's figures on the server, those an operator
// reads.
type ClientStats struct {
	Num    game.ClientNum
	Name   string
	Addr   netip.AddrPort
	ConnID uint16 // the connection's id, unique among the connected clients
	InGame bool   // its messages carry the current game id
	// Lead is the latest reported lead (minimum over a snapshot interval of
	// how early commands arrived, DOOM III §3.2); Duplicated counts the
	// frames that reused its previous command, its own having not arrived
	// in time (§2), and LateCmds the commands that arrived after their
	// frame ran.
	Lead                 time.Duration
	Duplicated, LateCmds uint64
	// SnapshotsSent counts the snapshots sent; SnapshotsSkipped those
	// skipped because its byte rate was used up (Config.Rate).
	SnapshotsSent, SnapshotsSkipped uint64
	// Secure reports whether the session is encrypted (it connected with
	// a token); TokenClientID and UserData come from its token.
	Secure        bool
	TokenClientID uint64
	UserData      []byte
	// RTT is the smoothed round trip, Loss the fraction of its packets
	// lost on the way in (recent), BytesIn and BytesOut the UDP payload
	// bytes each way.
	RTT               time.Duration
	Loss              float64
	BytesIn, BytesOut uint64
}

type client struct {
	s   *Server
	num game.ClientNum
	id  netchan.ConnID
	// addr is where the client's packets go: its validated address
	// (validAddr), or a new one that packets delivering new messages came
	// from (addrPending) and that has not yet echoed the path challenge
	// sent there (QUIC's path validation, RFC 9000 §8.2). Until it does,
	// the server sends there at most 3 times the bytes it received from it
	// and at most maxUnvalidatedBytes, and the client's packets do not
	// keep the session alive (so a session whose address cannot be
	// validated times out).
	addr        netip.AddrPort
	validAddr   netip.AddrPort
	addrPending bool
	// pathRecv and pathSent count the bytes received from and sent to addr
	// while it is pending; challenge is the value sent there (0: none)
	// and challengeAt when it may be sent again; echo is the challenge the
	// packet being handled echoed.
	pathRecv, pathSent int
	challenge          uint64
	challengeAt        time.Duration
	echo               uint64
	pathBuf            [session.ServerHeaderLen + session.PathChallengeLen]byte
	// connAddr and nonce are the connect's address and handshake nonce: a
	// connect repeating them is answered with the accept again.
	connAddr netip.AddrPort
	nonce    uint64
	// random is the server's random value for this session, from which
	// the channel keys derive (tokenwire.SessionKeys), and acceptKey the
	// token's server→client key that seals the accept (secure sessions).
	random    [session.SessionRandomLen]byte
	acceptKey [tokenwire.KeyLen]byte
	name      string
	ch        *netchan.Channel
	enc       *snapshot.Encoder
	// baseFrame is the frame of the world the client's base holds for
	// recycling entity numbers (the last applied snapshot's; on the map
	// base, the first frame after it entered the game), snapFrames the
	// frames of the snapshots built, by sequence number (recycle.go).
	baseFrame  game.Frame
	snapFrames [snapshot.RingSize]sentSnapshot
	// lastApply is the sequence of the last "apply S" queued in this game:
	// applies are sent as the distance from it (session.Apply).
	lastApply snapshot.Seq
	emit      func([]byte)
	inGame    bool
	leaving   bool

	lastRecv     time.Duration
	timeout      time.Duration // Config.Timeout, or its token's
	cmds         [cmdRing]cmdSlot
	lastCmd      game.UserCmd
	gotCmd       bool
	dupSinceSnap int
	leadMin      time.Duration
	leadHave     bool
	lead         time.Duration

	snapInterval  time.Duration
	nextSnap      time.Duration
	lastSnapBytes int
	evCursor      uint64

	pvs    snapshot.PVS
	states []game.Snapshotter
	// in is the snapshot being sent (prepareSnapshot), evStart the index
	// of its first event in the server's unreliable events.
	in      snapshot.Input
	evStart int
	// snapW and snapBuf hold the client's snapshot while parallel workers
	// build the frame's snapshots (Advanced.SnapshotWorkers).
	snapW    bitmsg.Writer
	snapBuf  []byte
	buildErr error
	msg      usercmd.Message
	r        bitmsg.Reader
	h        chanHandler // reused for every packet: no allocation per Receive
	stats    serverhook.ClientStats
	inMsgs   clientMessages // its game messages (messages.go)
	reserve  reservation    // its token and reserved slot (resume.go)
	prio     priorityBudget // the budget by priority (budget.go)
}

func newClient(s *Server, num game.ClientNum, id netchan.ConnID, from netip.AddrPort, m session.Connect, now time.Duration, tok *tokenwire.Private) *client {
	cfg := s.cfg.Channel
	c := &client{
		s: s, num: num, id: id, addr: from, validAddr: from, connAddr: from, nonce: m.Nonce, name: m.Name,
		lastRecv:     now,
		timeout:      s.cfg.Timeout,
		snapInterval: time.Second / time.Duration(s.cfg.SnapshotRate),
		nextSnap:     now,
		states:       make([]game.Snapshotter, s.reg.NumStates()),
	}
	if tok != nil {
		// Keys of this session alone, from the token's and a fresh random
		// value (tokenwire.SessionKeys); the server sends with the
		// server→client one.
		crand.Read(c.random[:])
		c.acceptKey = tok.ServerToClientKey
		c2s, s2c := tokenwire.SessionKeys(&tok.ClientToServerKey, &tok.ServerToClientKey, &c.random, m.Nonce)
		cfg.Keys = &netchan.Keys{Send: s2c, Recv: c2s}
		c.stats.Secure, c.stats.TokenClientID = true, tok.ClientID
		c.reserve.mac = tok.MAC
		c.stats.UserData = tok.UserData
		if tok.Timeout > 0 {
			c.timeout = tok.Timeout // the backend's choice (package token)
		}
	}
	c.ch = netchan.New(cfg, id)
	c.inMsgs.bucket = s.cfg.newMessageBucket()
	c.emit = func(p []byte) {
		if c.addrPending {
			if c.pathSent+len(p) > min(unvalidatedFactor*c.pathRecv, maxUnvalidatedBytes) {
				c.s.stats.UnconfirmedDrops++
				return
			}
			c.pathSent += len(p)
		}
		c.s.send.Send(c.addr, p)
	}
	c.h.c = c
	return c
}

// enterGame starts (or restarts) the client in the current game: a fresh
// encoder whose base is the map base, the saved events, the command
// history forgotten.
func (c *client) enterGame() {
	c.enc = snapshot.NewEncoder(c.s.reg)
	c.enc.Base().CopyFrom(c.s.mapBase)
	c.lastApply = 0 // the client resets its own when it loads the game
	c.resetBase()
	c.inGame = true
	c.resetCmds()
	c.evCursor = c.s.unrelAt + uint64(len(c.s.unrel))
	for _, m := range c.s.savedMessages() {
		if !c.queueReliable(m) {
			return
		}
	}
}

// leaveGame marks the client as not in the current game (map change or a
// message with another game id): it is sent "load game" until it answers
// with the right id.
func (c *client) leaveGame() {
	c.inGame = false
	c.resetCmds()
	c.enc = snapshot.NewEncoder(c.s.reg)
	c.enc.Base().CopyFrom(c.s.mapBase)
	c.lastApply = 0 // the client resets its own when it loads the game
	c.resetBase()
}

func (c *client) resetCmds() {
	c.cmds = [cmdRing]cmdSlot{}
	c.lastCmd = game.UserCmd{}
	c.gotCmd = false
	c.dupSinceSnap = 0
	c.leadHave = false
}

// queueReliable queues m, or drops the client when its reliable queue is
// full (it does not acknowledge: it cannot keep up) and returns false.
func (c *client) queueReliable(m []byte) bool {
	if err := c.ch.QueueReliable(m); err != nil {
		c.s.drop(c, session.ReasonProtocolError, false)
		return false
	}
	return true
}

// publicStats returns the operator's part of statsCopy.
func (c *client) publicStats() ClientStats {
	ch := c.ch.Stats()
	st := &c.stats
	return ClientStats{
		Num: c.num, Name: c.name, Addr: c.addr, ConnID: uint16(c.id), InGame: c.inGame,
		Lead: c.lead, Duplicated: st.Duplicated, LateCmds: st.LateCmds, SnapshotsSent: st.SnapshotsSent, SnapshotsSkipped: st.SnapshotsSkipped,
		Secure: st.Secure, TokenClientID: st.TokenClientID, UserData: st.UserData,
		RTT: ch.RTT, Loss: ch.Loss, BytesIn: ch.BytesIn, BytesOut: ch.BytesOut,
	}
}

func (c *client) statsCopy() serverhook.ClientStats {
	st := c.stats
	st.Num, st.Name, st.Addr, st.ConnID, st.InGame = c.num, c.name, c.addr, c.id, c.inGame
	st.Lead, st.AddrPending = c.lead, c.addrPending
	st.Channel = c.ch.Stats()
	return st
}

func (c *client) leadSample(d time.Duration) {
	if !c.leadHave || d < c.leadMin {
		c.leadMin = d
	}
	c.leadHave = true
}

// commandFor returns the command for frame f, due at t: the client's own
// if it arrived, else its last one duplicated (DOOM III §2).
func (c *client) commandFor(f game.Frame, t time.Duration) game.UserCmd {
	sl := &c.cmds[int(f)%cmdRing]
	if c.inGame && sl.valid && sl.frame == f {
		c.lastCmd = sl.cmd
		c.leadSample(t - sl.arrival)
		c.stats.FramesRun++
		if sl.arrival < t || (sl.arrival == t) {
			c.stats.CmdsEarly++
		}
	} else {
		*sl = cmdSlot{frame: f, missed: true}
		if c.inGame && c.gotCmd {
			c.stats.FramesRun++
			c.stats.Duplicated++
			c.dupSinceSnap++
		}
	}
	cmd := c.lastCmd
	cmd.Frame = f
	return cmd
}

// storeCmd keeps a command that arrived at now.
func (c *client) storeCmd(now time.Duration, cmd game.UserCmd) {
	s := c.s
	f := cmd.Frame
	if f <= s.frame {
		sl := &c.cmds[int(f)%cmdRing]
		if sl.frame == f && sl.missed && !sl.valid {
			sl.valid = true // count the late arrival once
			c.stats.LateCmds++
			c.leadSample(s.frameTime(f) - now)
		}
		return
	}
	if f > s.frame+cmdRing-1 {
		return
	}
	sl := &c.cmds[int(f)%cmdRing]
	if sl.valid && sl.frame == f {
		return // first arrival counts
	}
	*sl = cmdSlot{frame: f, cmd: cmd, arrival: now, valid: true}
	c.gotCmd = true
}

type chanHandler struct {
	c   *client
	now time.Duration
}

func (h *chanHandler) Reliable(msg []byte) {
	k, _ := session.ReliableKind(msg)
	switch k {
	case session.RelDisconnect:
		h.c.leaving = true
	case session.RelGameMessage:
		if !h.c.leaving {
			h.c.receiveMessage(h.now, msg)
		}
	}
}

func (h *chanHandler) Unreliable(typ netchan.MessageType, msg []byte) {
	c := h.c
	hdr, body, err := session.ParseClientHeader(msg)
	if err != nil {
		c.s.stats.BadPackets++
		return
	}
	if typ == session.TypePathResponse {
		// Checked in handle once the packet is through; the game id does
		// not matter to it.
		if v, err := session.ParsePathResponse(body); err == nil {
			c.echo = v
		} else {
			c.s.stats.BadPackets++
		}
		return
	}
	if hdr.GameID != c.s.gameID {
		c.stats.WrongGame++
		if c.inGame {
			c.leaveGame()
		}
		return
	}
	if !c.inGame {
		c.enterGame()
		if c.s.slots[c.num] != c {
			return // its reliable queue could not take the saved events
		}
	}
	if hdr.Ack != 0 {
		if m, ok := c.enc.Ack(hdr.Ack); ok {
			c.stats.AcksApplied++
			c.applied(m.Seq)
			if c.s.cfg.OnApply != nil {
				c.s.cfg.OnApply(c.num, m.Seq, c.enc.Base())
			}
			a := session.Apply{Seq: m.Seq}
			if c.s.cfg.VerifyBase {
				a.BaseHash = uint32(c.enc.Base().Hash()) | 1 // 0 means "not sent"
			}
			var b [session.MaxApplyLen]byte
			c.queueReliable(a.Append(b[:0], c.lastApply))
			c.lastApply = m.Seq
		}
	}
	if typ != session.TypeCommands {
		return
	}
	c.r.Reset(body, len(body)*8)
	if err := c.msg.Parse(&c.r, game.UserCmd{}); err != nil {
		c.s.stats.BadPackets++
		return
	}
	c.stats.ClientLead = c.msg.Lead
	for _, cmd := range c.msg.Cmds {
		c.storeCmd(h.now, cmd)
	}
}

// handle processes one channel packet for this client.
func (c *client) handle(now time.Duration, from netip.AddrPort, pkt []byte) {
	if !c.stats.Secure && from.Addr() != c.addr.Addr() {
		// Insecure session: nothing proves the sender, so only the port
		// may change (Quake 3 does the same, Quake 3 protocol description: the qport).
		c.s.stats.WrongSource++
		return
	}
	before := c.ch.LastReceivedSequence()
	c.h.now = now
	c.echo = 0
	err := c.ch.Receive(now, pkt, &c.h)
	c.deliverMessages()
	if c.s.slots[c.num] != c {
		return // dropped for its game messages, or kicked by the game
	}
	if err != nil {
		if errors.Is(err, netchan.ErrAuth) {
			c.s.stats.AuthFailures++
		} else {
			c.s.stats.BadPackets++
		}
		return
	}
	if c.ch.LastReceivedSequence() != before {
		c.newPacket(now, from, len(pkt))
	}
	if c.leaving && c.s.slots[c.num] == c {
		c.s.drop(c, session.ReasonClientLeft, false)
	}
}

// Bounds of what is sent to an address that has not echoed its path
// challenge (RFC 9000 §8: three times the bytes received from it, QUIC's
// anti-amplification limit; and never more than maxUnvalidatedBytes).
const (
	unvalidatedFactor   = 3
	maxUnvalidatedBytes = 8192
	challengeInterval   = 100 * time.Millisecond
)

// newPacket follows the client to where a packet that delivered a new
// message (authenticated, on a secure session) came from. A NAT may have
// changed its address (DOOM III §3), but a token holder can also forge
// packets from anyone's address, so a new address is validated first: it
// gets a path challenge, and until the client echoes it (from any address:
// the echo proves the challenge was received there, RFC 9000 §8.2.2) the
// address gets little, and the client's packets do not keep the session
// alive. A packet from the validated address takes the session back.
func (c *client) newPacket(now time.Duration, from netip.AddrPort, n int) {
	if c.addrPending && c.challenge != 0 && c.echo == c.challenge {
		c.validAddr, c.addrPending, c.challenge = c.addr, false, 0
		c.s.stats.PathValidations++
	}
	switch {
	case from == c.addr:
		if c.addrPending {
			c.pathRecv += n
			c.sendChallenge(now)
		}
	case from == c.validAddr:
		c.moveTo(from)
		c.addrPending, c.challenge = false, 0
	default:
		c.moveTo(from)
		c.addrPending = true
		c.pathRecv, c.pathSent = n, 0
		c.challenge, c.challengeAt = 0, now
		c.s.stats.AddrChanges++
		c.sendChallenge(now)
	}
	if !c.addrPending {
		c.lastRecv = now // alive, at an address that receives
	}
}

// sendChallenge sends the pending address its path challenge (a new
// random value the first time), at most every challengeInterval.
func (c *client) sendChallenge(now time.Duration) {
	if now < c.challengeAt {
		return
	}
	for c.challenge == 0 {
		var b [8]byte
		crand.Read(b[:])
		c.challenge = binary.LittleEndian.Uint64(b[:])
	}
	c.challengeAt = now + challengeInterval
	c.s.stats.PathChallenges++
	c.ch.Send(now, session.TypePathChallenge, session.AppendPathChallenge(c.pathBuf[:0], c.s.gameID, c.challenge), c.emit)
}

// sendSnapshot sends the client's snapshot for the frame just run (DOOM
// III §3.2), or "load game" when the client is in another game (§3.1).
func (c *client) sendSnapshot(now time.Duration) {
	if !c.prepareSnapshot(now) {
		return
	}
	s := c.s
	var t0 time.Duration
	if s.cfg.Stopwatch != nil {
		t0 = s.cfg.Stopwatch()
	}
	c.prio.onMatch = true
	err := c.buildSnapshot(&s.w, s.buf, &s.snapCache)
	if s.cfg.Stopwatch != nil {
		s.stats.SnapshotBuildTime.Observe(s.cfg.Stopwatch() - t0)
	}
	c.finishSnapshot(now, &s.w, err)
}

// prepareSnapshot gathers what the client's snapshot of the frame just run
// holds (its PVS, non-PVS states, the other players' commands, the events)
// into c.in, asking the game; it sends "load game" instead, or skips the
// snapshot when the rate does not allow it, and then returns false.
func (c *client) prepareSnapshot(now time.Duration) bool {
	s := c.s
	if !c.inGame {
		p := session.AppendLoadGame(s.buf[:0], s.gameID, s.settings)
		c.stats.LoadGameSent++
		c.ch.Send(now, session.TypeLoadGame, p, c.emit)
		return false
	}
	if c.ch.SendBudget(now) == 0 { // not even the headers fit (Config.Rate)
		c.stats.SnapshotsSkipped++
		return false
	}
	c.pvs.Clear()
	s.g.Visible(c.num, &c.pvs)
	c.prioritize(now)
	for i := range c.states {
		c.states[i] = s.g.State(c.num, game.StateID(i))
	}
	own, hasOwn := s.g.PlayerEntity(c.num)
	start := int(c.evCursor - s.unrelAt)
	if start < 0 {
		start = 0
	}
	evs := s.unrel[start:]
	if len(evs) > snapshot.MaxEvents {
		evs = evs[:snapshot.MaxEvents]
	}
	c.evStart = start
	c.in = snapshot.Input{
		Frame: s.frame, Time: s.gameTime(s.frame),
		Duplicated: c.dupSinceSnap, Lead: c.lead,
		PVS: &c.pvs, World: s.g, States: c.states, Cmds: s.relayCmds, Own: own, HasOwn: hasOwn, Events: evs,
	}
	if c.leadHave {
		c.in.Lead = c.leadMin
	}
	return true
}

// buildSnapshot writes the game id and the client's snapshot of c.in into
// buf through w, the entities' encodings shared through cache, within the
// client's rate by priority when it has one (budget.go). It touches only the
// client's own encoder, channel and w, and reads the cache, so clients may build at
// once on several goroutines through views of one prepared cache
// (Advanced.SnapshotWorkers).
func (c *client) buildSnapshot(w *bitmsg.Writer, buf []byte, cache *snapshot.FrameCache) error {
	c.in.Cache = cache
	var h snapshot.Header
	var err error
	if c.prio.bytes >= 0 { // within the client's rate, by priority (budget.go)
		h, err = c.buildWithin(w, buf)
	} else {
		w.Reset(buf)
		w.WriteUint32(uint32(c.s.gameID))
		h, err = c.enc.Build(w, &c.in)
	}
	c.in.Cache = nil
	if err == nil {
		c.sent(h)
	}
	return err
}

// finishSnapshot sends the snapshot buildSnapshot wrote into w and keeps
// the client's counters.
func (c *client) finishSnapshot(now time.Duration, w *bitmsg.Writer, err error) {
	s := c.s
	if err == errNothingFits {
		c.stats.SnapshotsSkipped++
		return
	}
	if err != nil || w == nil {
		s.stats.BadPackets++
		return
	}
	c.lead = c.in.Lead
	c.leadHave = false
	c.dupSinceSnap = 0
	c.evCursor = s.unrelAt + uint64(c.evStart+len(c.in.Events))
	c.stats.SnapshotBits += uint64(w.Len() - 32)
	p := w.Bytes()
	c.lastSnapBytes = len(p)
	c.stats.SnapshotsSent++
	c.ch.Send(now, session.TypeSnapshot, p, c.emit)
}
