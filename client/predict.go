package client

// Prediction (DOOM III §2, §3.3): the game clock steered by the server's
// lead reports, each frame's own command sampled and the entities in the
// PVS predicted (or interpolated, per type), snapshots written into the
// world and re-predicted from their frame, the prediction error measured,
// the render smoothing that blends out corrections, and the command
// messages.

import (
	"fmt"
	"math"
	"time"

	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/session"
	"github.com/snapwire/snapwire/internal/snapshot"
	"github.com/snapwire/snapwire/internal/usercmd"
)

// maxBurst bounds the frames one Advance runs; beyond it the clock jumps
// (the frames are skipped: never more than 2 s of game per call).
const maxBurst = 120

// advanceClock moves the game clock with real time, dilated by at most
// MaxSlew while a correction is pending, and runs the frames that became
// due.
func (c *Client) advanceClock(now time.Duration) {
	elapsed := now - c.lastNow
	c.lastNow = now
	if !c.clockSet || elapsed <= 0 {
		return
	}
	lim := time.Duration(float64(elapsed) * c.cfg.hooks.MaxSlew)
	adj := min(max(c.pending, -lim), lim)
	c.pending -= adj
	c.shift += adj
	c.clock += elapsed + adj
	due := game.Frame(c.clock / c.frameDur)
	if due-c.cf > maxBurst {
		c.cf = due - maxBurst
	}
	for c.cf < due {
		c.stepFrame()
	}
}

// stepFrame samples the command for the next frame and predicts it.
func (c *Client) stepFrame() {
	f := c.cf + 1
	cmd := c.input.Command(c.inputFor(f))
	cmd.Frame = f
	c.cmds[int(f)%cmdRing] = ownCmd{cmd: cmd, shift: c.shift, valid: true}
	c.lastCmd = cmd
	if c.firstCmd == 0 {
		c.firstCmd = f
	}
	c.predict(f)
	c.cf = f
	c.recordPrediction(f)
	c.decayOffsets()
}

// ownCommand is the command sampled for frame f (the last one if f was
// skipped).
func (c *Client) ownCommand(f game.Frame) game.UserCmd {
	if o := c.cmds[int(f)%cmdRing]; o.valid && o.cmd.Frame == f {
		return o.cmd
	}
	cmd := c.lastCmd
	cmd.Frame = f
	return cmd
}

// predict runs frame f with the game code (DOOM III §2): the local
// player's own command and the other players' latest commands from the
// last snapshot, events discarded; then the interpolated entities take
// their interpolated states.
func (c *Client) predict(f game.Frame) {
	c.prepareTick(f)
	c.g.RunFrame(&c.tick)
	c.interpolate(f)
}

// prepareTick fills c.tick for predicting frame f.
func (c *Client) prepareTick(f game.Frame) {
	cmds := c.tickCmds[:0]
	mine, hasMine := c.g.PlayerEntity(c.me)
	if hasMine {
		cmds = append(cmds, game.PlayerCmd{Entity: mine, Cmd: c.ownCommand(f)})
	}
	for _, o := range c.others {
		if hasMine && o.Entity == mine {
			continue
		}
		o.Cmd.Frame = f
		cmds = append(cmds, o)
	}
	for i := 1; i < len(cmds); i++ {
		for j := i; j > 0 && cmds[j].Entity < cmds[j-1].Entity; j-- {
			cmds[j], cmds[j-1] = cmds[j-1], cmds[j]
		}
	}
	c.tickCmds = cmds
	c.tick = game.Tick{Frame: f, Cmds: cmds, Events: game.Discard, Predicting: true}
}

// interpolate sets every entity of an Interpolate type to its state
// between the last two snapshots that carried it (Quake 3 style, DOOM III
// §8): over the snapshot interval after snapshot b arrived, it moves from
// a's state to b's, so it is shown one snapshot interval plus the latency
// in the past.
func (c *Client) interpolate(f game.Frame) {
	for n, is := range c.interp {
		e, typ := c.g.Entity(n)
		if e == nil || typ != is.typ {
			continue
		}
		if is.have == 0 || c.mode(n, typ, e) != game.Interpolate {
			continue // switched back to prediction (SetTypeMode)
		}
		ip, ok := e.(Interpolator)
		if !ok || is.have < 2 || is.fb <= is.fa {
			if st, bits, err := c.codec.Save(is.b); err == nil {
				c.codec.Load(e, st, bits)
			}
			continue
		}
		frac := float32(f-is.arrived) / float32(is.fb-is.fa)
		frac = min(max(frac, 0), 1)
		ip.Interpolate(is.a, is.b, frac)
	}
}

func position(e game.Entity) (p [3]float32, ok bool) {
	if ps, ok := e.(Positioner); ok {
		p[0], p[1], p[2] = ps.Position()
		return p, true
	}
	return p, false
}

// recordPrediction keeps the predicted positions of frame f's PVS
// entities, for the error statistics and PredictedPosition.
func (c *Client) recordPrediction(f game.Frame) {
	if !c.haveSnap {
		return
	}
	pf := &c.preds[int(f)%len(c.preds)]
	pf.frame = f
	pf.pos = pf.pos[:0]
	for n := range c.pvs.All() {
		e, typ := c.g.Entity(n)
		if p, ok := position(e); ok {
			pf.pos = append(pf.pos, posRec{n: n, x: p[0], y: p[1], z: p[2], behind: c.behind(n, typ, e, f)})
		}
	}
}

// behind is how far before frame f the state shown for entity n at f is
// from, in frames: 0 when predicted; when interpolated, f less the point
// between the two snapshot frames interpolate placed it at.
func (c *Client) behind(n game.EntityNum, typ game.TypeID, e game.Entity, f game.Frame) float32 {
	if c.mode(n, typ, e) != game.Interpolate {
		return 0
	}
	is := c.interp[n]
	if is == nil || is.have == 0 {
		return 0
	}
	shown := float64(is.fb)
	if is.have == 2 && is.fb > is.fa {
		frac := min(max(float64(f-is.arrived)/float64(is.fb-is.fa), 0), 1)
		shown = float64(is.fa) + frac*float64(is.fb-is.fa)
	}
	return float32(float64(f) - shown)
}

// predictedPosition (clienthook.PredictedPosition) returns the position the client predicted for entity
// n at frame f when it first reached f (what it showed), if f is within
// the last clienthook.Hooks.PredictionWindow frames.
func (c *Client) predictedPosition(n game.EntityNum, f game.Frame) (x, y, z float32, ok bool) {
	pf := &c.preds[int(uint32(f))%len(c.preds)]
	if pf.frame != f {
		return 0, 0, 0, false
	}
	for _, p := range pf.pos {
		if p.n == n {
			return p.x, p.y, p.z, true
		}
	}
	return 0, 0, 0, false
}

// ShownTime returns the game time, in frames (fractional), of the state
// the client showed for entity n at frame f: f for a predicted entity (DOOM
// III §2), the point between two snapshots for an interpolated one (Quake
// 3 style), within the last clienthook.Hooks.PredictionWindow frames. It is the view
// time a client claims for a shot under lag compensation (DOOM III §1.1,
// server.History).
func (c *Client) ShownTime(n game.EntityNum, f game.Frame) (float64, bool) {
	pf := &c.preds[int(uint32(f))%len(c.preds)]
	if pf.frame != f {
		return 0, false
	}
	for _, p := range pf.pos {
		if p.n == n {
			return float64(f) - float64(p.behind), true
		}
	}
	return 0, false
}

// smoothing holds the render correction offsets (VisualOffset) in a table
// by entity number plus the list of those in use: nothing is allocated per
// correction.
type smoothing struct {
	off  [game.MaxEntities][3]float32
	on   [game.MaxEntities]bool
	list []game.EntityNum
}

func (s *smoothing) add(n game.EntityNum, d [3]float32) {
	if !s.on[n] {
		s.on[n] = true
		s.off[n] = [3]float32{}
		s.list = append(s.list, n)
	}
	s.off[n][0] += d[0]
	s.off[n][1] += d[1]
	s.off[n][2] += d[2]
}

func (s *smoothing) remove(n game.EntityNum) {
	if !s.on[n] {
		return
	}
	s.on[n] = false
	for i, m := range s.list {
		if m == n {
			s.list = append(s.list[:i], s.list[i+1:]...)
			break
		}
	}
}

func (s *smoothing) reset() {
	for _, n := range s.list {
		s.on[n] = false
	}
	s.list = s.list[:0]
}

// VisualOffset is the render correction for entity n: draw it at its
// predicted position plus this offset. When a snapshot moves an entity's
// prediction, the jump is added to the offset, which then decays by
// Config.SmoothDecay per frame, so corrections are blended out instead of
// popping.
func (c *Client) VisualOffset(n game.EntityNum) (dx, dy, dz float32) {
	if int(n) < game.MaxEntities && c.offsets.on[n] {
		o := &c.offsets.off[n]
		return o[0], o[1], o[2]
	}
	return 0, 0, 0
}

func (c *Client) decayOffsets() {
	s := c.offsets
	k := 0
	for _, n := range s.list {
		o := &s.off[n]
		o[0] *= c.cfg.SmoothDecay
		o[1] *= c.cfg.SmoothDecay
		o[2] *= c.cfg.SmoothDecay
		if abs32(o[0])+abs32(o[1])+abs32(o[2]) < 1e-3 {
			s.on[n] = false
			continue
		}
		s.list[k] = n
		k++
	}
	s.list = s.list[:k]
}

func abs32(v float32) float32 {
	if v < 0 {
		return -v
	}
	return v
}

// onSnapshot writes a decoded snapshot into the world and re-predicts up
// to the client's frame (DOOM III §2, fig. 5).
func (c *Client) onSnapshot(now time.Duration) {
	s := &c.snap
	h := s.Header
	if !c.acceptSnapshot(h) {
		return
	}
	for i := range s.Events {
		c.stats.UnreliableEvents++
		c.deliver(&s.Events[i], false)
	}
	c.recordShown(h.Frame)
	c.loadSnapshot(s)
	if c.cfg.hooks.OnSnapshot != nil {
		c.cfg.hooks.OnSnapshot(s)
	}
	c.measureError(h.Frame)
	c.haveSnap = true

	if !c.clockSet {
		// Start one round trip plus the target lead ahead of the snapshot
		// (fig. 4); the lead reports correct the estimate.
		rtt := c.ch.Stats().RTT
		c.clock = time.Duration(h.Frame)*c.frameDur + rtt + c.target
		c.cf = h.Frame
		c.clockSet = true
		c.lastSentLast = h.Frame
		c.knownArrived = h.Frame
		return
	}
	if c.cf-h.Frame >= cmdRing {
		// Further ahead than the command ring reaches: re-predicting is
		// capped by the commands kept, so start the clock again from this
		// snapshot, as at the first one.
		c.stats.ClockResets++
		c.clockSet = false
		c.clock = time.Duration(h.Frame)*c.frameDur + c.ch.Stats().RTT + c.target
		c.cf = h.Frame
		c.clockSet = true
		return
	}
	c.steer(now, h.Frame, h.Lead)
	if h.Frame >= c.cf {
		c.cf = h.Frame // behind the server: nothing to re-predict
		return
	}
	c.repredict(h.Frame)
	c.smoothCorrections()
}

// acceptSnapshot checks a snapshot's header against the last one and
// counts it; false (the client failed) for a snapshot a hostile server
// sent to steer the client into unbounded work.
func (c *Client) acceptSnapshot(h snapshot.Header) bool {
	// A hostile server must not steer the client into unbounded work:
	// snapshot frames never go back within a game, and never run further
	// ahead of the client's clock than its timeout (a jump there and back
	// once made the client re-predict 2^31 frames).
	if c.haveSnap && h.Frame < c.snapFrame {
		c.fail(fmt.Errorf("%w: snapshot frame went back from %d to %d", ErrProtocol, c.snapFrame, h.Frame))
		return false
	}
	if c.clockSet && int64(h.Frame)-int64(c.cf) > int64(c.cfg.Timeout/c.frameDur) {
		c.fail(fmt.Errorf("%w: snapshot frame %d is more than the %v timeout ahead of the client's frame %d",
			ErrProtocol, h.Frame, c.cfg.Timeout, c.cf))
		return false
	}
	if c.haveSnap && h.Seq > c.snapSeq+1 {
		c.stats.SnapshotsLost += uint64(h.Seq - c.snapSeq - 1)
	}
	c.stats.SnapshotsReceived++
	c.stats.Duplicated += uint64(h.Duplicated)
	c.stats.Lead = h.Lead
	c.snapSeq, c.snapFrame = h.Seq, h.Frame
	return true
}

// recordShown keeps where the entities of the PVS were shown before a
// snapshot of frame f corrects them (c.before), for smoothing.
func (c *Client) recordShown(f game.Frame) {
	c.before = c.before[:0]
	if c.clockSet && f < c.cf {
		for n := range c.pvs.All() {
			if e, _ := c.g.Entity(n); e != nil {
				if p, ok := position(e); ok {
					c.before = append(c.before, posRec{n: n, x: p[0], y: p[1], z: p[2]})
				}
			}
		}
	}
}

// loadSnapshot overwrites the world with the snapshot (the states of frame
// s.Header.Frame): the entities of its PVS are loaded, spawned or brought
// back from dormancy, the others leave the world, and the non-PVS states
// and the other players' commands are taken.
func (c *Client) loadSnapshot(s *snapshot.Snapshot) {
	h := s.Header
	c.pvs = s.PVS
	for i := range s.Entities {
		es := &s.Entities[i]
		e, typ := c.g.Entity(es.Num)
		d := &c.dormant[es.Num]
		if e == nil || typ != es.Type || es.Spawn {
			if p, ok := c.g.(putter); ok && e == nil && d.live && d.typ == es.Type && p.Put(es.Num, d.typ, d.ent) == nil {
				e, d.ent = d.ent, nil // back in the world (re-entered the PVS)
			} else {
				var err error
				if e, err = c.g.Spawn(es.Num, es.Type); err != nil {
					continue
				}
			}
		}
		c.codec.Load(e, es.State, es.Bits)
		d.live = false
		if c.mode(es.Num, es.Type, e) == game.Interpolate {
			c.pushInterp(es.Num, es.Type, es.State, es.Bits, h.Frame, h.Seq)
		} else if c.TypeMode(es.Type) == game.PredictOwner {
			// Owned by this client now: if it changes hands again, its
			// interpolation restarts from the snapshots after that.
			if is := c.interp[es.Num]; is != nil {
				is.have = 0
			}
		}
	}
	// Every entity of the world outside the PVS leaves it. Entity numbers
	// are scanned rather than ranging over Game.Entities: an iterator
	// called through an interface allocates its closures.
	c.scratch = c.scratch[:0]
	for n := game.EntityNum(0); n < game.MaxEntities; n++ {
		if !c.pvs.Has(n) {
			if e, _ := c.g.Entity(n); e != nil {
				c.scratch = append(c.scratch, n)
			}
		}
	}
	for _, n := range c.scratch {
		c.makeDormant(n)
	}
	for id := range s.States {
		if st := c.g.State(c.me, game.StateID(id)); st != nil {
			c.codec.Load(st, s.States[id].State, s.States[id].Bits)
		}
	}
	c.others = append(c.others[:0], s.Cmds...)
}

// smoothCorrections turns the jump each entity's shown position made at
// the snapshot (after re-prediction) into a render offset to blend out.
func (c *Client) smoothCorrections() {
	for _, b := range c.before {
		e, _ := c.g.Entity(b.n)
		if e == nil {
			continue
		}
		a, ok := position(e)
		if !ok || a == [3]float32{b.x, b.y, b.z} {
			continue
		}
		d := [3]float32{b.x - a[0], b.y - a[1], b.z - a[2]}
		c.offsets.add(b.n, d)
		c.stats.Corrections++
		c.stats.CorrectionSum += math.Sqrt(float64(d[0])*float64(d[0]) + float64(d[1])*float64(d[1]) + float64(d[2])*float64(d[2]))
	}
}

// measureError compares the snapshot's positions (now in the world) with
// the predictions recorded for frame f.
func (c *Client) measureError(f game.Frame) {
	mine, hasMine := c.g.PlayerEntity(c.me)
	for n := range c.pvs.All() {
		px, py, pz, ok := c.predictedPosition(n, f)
		if !ok {
			continue
		}
		e, typ := c.g.Entity(n)
		p, ok := position(e)
		if !ok || c.mode(n, typ, e) == game.Interpolate {
			continue // interpolated entities are not predicted
		}
		dx, dy, dz := float64(p[0]-px), float64(p[1]-py), float64(p[2]-pz)
		d := math.Sqrt(dx*dx + dy*dy + dz*dz)
		if c.owns(n, typ, e, mine, hasMine) {
			c.predSelf.add(d)
		} else {
			c.predOthers.add(d)
		}
	}
}

// makeDormant takes entity n out of the world (it left the PVS) and keeps
// a copy of its last state aside, so events still reach it (a late
// joiner's doors out of sight, DOOM III §5 saved events). An entity that
// re-enters the PVS comes back with the snapshot's state.
func (c *Client) makeDormant(n game.EntityNum) {
	e, typ := c.g.Entity(n)
	if e == nil {
		return
	}
	d := &c.dormant[n]
	d.live = false
	if _, ok := c.g.(putter); ok {
		// The world only holds the object: take it out as it is.
		d.ent, d.typ, d.live = e, typ, true
	} else {
		if d.ent == nil || d.typ != typ {
			d.ent, d.typ = nil, typ
			if ne, err := c.reg.New(typ); err == nil {
				d.ent = ne
			}
		}
		if d.ent != nil {
			if st, bits, err := c.codec.Save(e); err == nil && c.codec.Load(d.ent, st, bits) == nil {
				d.live = true
			}
		}
	}
	c.g.Remove(n)
	if is := c.interp[n]; is != nil {
		is.have = 0 // kept for reuse; restarts when the entity re-enters
	}
	c.offsets.remove(n)
}

// pushInterp records snapshot state st of an Interpolate entity: the older
// of the two kept states is replaced.
func (c *Client) pushInterp(n game.EntityNum, typ game.TypeID, st []byte, bits int, f game.Frame, seq snapshot.Seq) {
	is := c.interp[n]
	if is == nil || is.typ != typ {
		a, err := c.reg.New(typ)
		if err != nil {
			return
		}
		b, _ := c.reg.New(typ)
		is = &interpState{a: a, b: b, typ: typ}
		c.interp[n] = is
	}
	if is.have > 0 {
		is.a, is.b = is.b, is.a
		is.fa = is.fb
	}
	if c.codec.Load(is.b, st, bits) != nil {
		delete(c.interp, n)
		return
	}
	is.fb, is.arrived, is.lastUpdate = f, c.cf, seq
	is.have = min(is.have+1, 2)
}

// steer is the clock control law (DOOM III §2, §3.2: the server reports
// how early commands arrive and "the client can adjust the prediction time
// accordingly").
//
// Each report L (the earliest arrival margin among the commands the server
// ran since its previous snapshot) is normalised by the clock shift in
// force when the command of the snapshot's frame was sampled:
// v = L - shift(frame). The lead the next commands will have is v plus
// the shift applied by then, so corrections still in flight are not
// counted twice (a Smith predictor for the round-trip delay). The
// controller keeps the v of the last LeadWindow and sets the total shift
// so that the lowest of them lands on the target:
//
//	shift* = TargetLead - min(v over LeadWindow)
//
// The difference to the shift applied so far is applied by time dilation
// of at most ±MaxSlew (20%: 50 ms take 250 ms), or at once when it is a
// forward jump above JumpThreshold. Using the window's minimum makes the
// margin above the target follow the jitter: with jitter the lowest
// arrival in the window sets the pace, so the mean lead is about
// TargetLead plus the jitter's spread. After a latency change the next
// report moves the minimum (a rise in latency) at once, or after the
// window (a fall), then dilation settles it: within LeadWindow +
// change/MaxSlew, under 2 s for changes up to 200 ms.
func (c *Client) steer(now time.Duration, f game.Frame, lead time.Duration) {
	if c.firstCmd == 0 || f < c.firstCmd+3 {
		return // the report covers frames from before our first commands
	}
	shiftAt := c.shift
	if o := c.cmds[int(f)%cmdRing]; o.valid && o.cmd.Frame == f {
		shiftAt = o.shift
	}
	c.leads = append(c.leads, leadSample{at: now, v: lead - shiftAt})
	k := 0
	for k < len(c.leads)-1 && c.leads[k].at < now-c.cfg.hooks.LeadWindow {
		k++
	}
	if k > 0 {
		c.leads = append(c.leads[:0], c.leads[k:]...)
	}
	minV := c.leads[0].v
	for _, l := range c.leads[1:] {
		minV = min(minV, l.v)
	}
	c.pending = c.target - minV - c.shift
	if c.pending > c.cfg.hooks.JumpThreshold {
		c.clock += c.pending
		c.shift += c.pending
		c.pending = 0
	}
}

// sendCommands sends one command message (DOOM III §3.3, fig. 11): the
// header (game id, last snapshot received), then the commands from the
// oldest not known to have arrived, limited to the last PacketDup+1
// packets' worth, to the newest, each delta-compressed against the one
// before. Before the first frame it sends the header alone.
func (c *Client) sendCommands(now time.Duration) {
	ack := c.ch.LastAcknowledged()
	for i := range min(c.sentN, sentRing) {
		if r := c.sent[i]; r.seq != 0 && r.seq <= ack && r.last > c.knownArrived {
			c.knownArrived = r.last
		}
	}
	c.w.Reset(c.buf)
	var ackSnap snapshot.Seq
	if c.haveSnap {
		ackSnap = c.snapSeq
	}
	c.w.WriteUint32(uint32(c.gameID))
	c.w.WriteUint32(uint32(ackSnap))
	hi := c.cf
	firstNew := c.lastSentLast + 1
	lo := firstNew
	for k := 1; k <= c.cfg.PacketDup && k <= c.sentN; k++ {
		lo = min(lo, c.sent[(c.sentN-k)%sentRing].firstNew)
	}
	lo = max(lo, c.knownArrived+1, hi-usercmd.MaxCmds+1, c.firstCmd)
	typ := session.TypeIdle
	if c.clockSet && c.firstCmd != 0 && lo <= hi {
		c.msg.Cmds = c.msg.Cmds[:0]
		for f := lo; f <= hi; f++ {
			c.msg.Cmds = append(c.msg.Cmds, c.ownCommand(f))
		}
		c.msg.Lead = time.Duration(c.cf-c.snapFrame) * c.frameDur
		if err := c.msg.Append(&c.w, game.UserCmd{}); err == nil {
			typ = session.TypeCommands
			c.stats.CommandsSent += uint64(len(c.msg.Cmds))
		}
	}
	if c.w.Err() != nil {
		return
	}
	c.ch.Send(now, typ, c.w.Bytes(), c.emitFn)
	c.stats.CommandPackets++
	if typ == session.TypeCommands {
		c.sent[c.sentN%sentRing] = sentRec{seq: c.ch.OutgoingSequence(), firstNew: max(firstNew, lo), last: hi}
		c.sentN++
		c.lastSentLast = max(c.lastSentLast, hi)
	}
}
