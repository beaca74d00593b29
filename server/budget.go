package server

import (
	"errors"
	"math"
	"slices"
	"time"

	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/snapshot"
)

// The bandwidth budget by priority (Config.Rate; issue 25). When a client's
// snapshot would not fit in the bytes its rate allows now, the server sends
// the entities of its PVS that matter most and holds the others at their
// base states (snapshot.Input.Hold): the common base stays exact on both
// ends, and the client keeps predicting what it was not sent from the state
// it has (DOOM III §4.2). An entity's priority is an accumulator, Glenn
// Fiedler's ("State Synchronization", 2015): each snapshot adds the entity's
// relevance to this client, sending it sets it back to zero, so priority
// grows with the time since the entity was last sent and with its
// relevance, as Unreal's prioritizers weigh time since the last update by
// distance (NetPriority). Relevance is the game's (relevancer), or else the
// inverse square of the distance from the client's player entity (both
// entities implementing Positioner), or else 1 for all. The inverse square
// keeps the nearest entities in every snapshot of a crowd that does not fit
// (TestCrowdWithinRate: the 8 nearest of 256 at a fifth of the crowd per
// snapshot; with 1/distance one of them was held 462 to 691 times in some
// 380 snapshots a client). The whole snapshot is skipped only when not
// even its other parts fit.

// relevancer is an optional interface of a Game: Relevance returns how much
// entity n matters to client c, >= 0 (NaN and negative count as 0). Its
// scale is free: priorities compare relevances summed over snapshots. A
// game implements it when distance from the player is not what matters
// (a teammate across the map, a boss, the ball).
type relevancer interface {
	Relevance(c game.ClientNum, n game.EntityNum) float32
}

// budgetMaxBuilds bounds the builds of one snapshot under a budget: the
// first with the count the measured costs (or the last snapshot) say fits,
// smaller ones after an overflow, the last holding every entity it may.
const budgetMaxBuilds = 4

// budgetRelax: until the costs are measured (priorityBudget.bitsPerEnt), a
// count of entities that overflowed is tried again after this many
// snapshots that fit (TestCrowdWithinRate: one snapshot in 4 was built
// twice when it was tried again after every one, one in 10 with 8; with
// the measured costs, one in 12 to one in 33).
const budgetRelax = 8

// errNothingFits: not even the snapshot with every entity held fits in the
// client's budget; the snapshot is skipped (counted in SnapshotsSkipped).
var errNothingFits = errors.New("server: the snapshot does not fit in the client's rate")

// priorityBudget is one client's state for the budget by priority.
type priorityBudget struct {
	// bytes is the payload the snapshot being built may take (the channel's
	// SendBudget at prepareSnapshot, at now), -1 without a rate.
	bytes int
	now   time.Duration
	// acc holds the priority accumulated per entity number since it was last
	// sent; rank the entity's place in this snapshot's order (0 first),
	// valid for the members of order.
	acc   []float32
	rank  []int32
	order []rankedEnt
	// send is how many of order this build sends (the others are held),
	// next the count the next snapshot starts from, ceil the least count
	// that overflowed lately (raised by one every budgetRelax snapshots
	// that fit, fits counting them, so that the count follows the
	// entities' sizes).
	send, next, ceil, fits int
	// hold is Input.Hold for a budgeted build: made once (no allocation
	// per snapshot).
	hold func(n game.EntityNum) bool
	// roomy: the last snapshot held nothing and took at most half its
	// budget, so this one is built whole first, without ordering the PVS
	// (ordered false); onMatch: the build runs on the match's goroutine
	// (not a SnapshotWorkers worker), where the game may be asked.
	roomy, ordered, onMatch bool
	// floorBits is the length of the last snapshot that did not fit with
	// every entity held (0 after one that fit): while the budget stays
	// below it, the snapshot is skipped without building (the bucket
	// refills meanwhile).
	floorBits int
	// bitsPerEnt and fixedBits are the snapshot's measured costs (measure):
	// once known (bitsPerEnt > 0), a build sends the count they say fits
	// in its budget instead of the count learned from the last snapshot.
	bitsPerEnt, fixedBits float64
}

// rankedEnt is a PVS member and its priority.
type rankedEnt struct {
	num game.EntityNum
	pri float32
}

// prioritize sets the snapshot's budget and, when there is one and the
// last snapshot did not leave room to spare, orders the client's PVS
// (c.pvs, just filled) by priority. It runs on the match's goroutine, so
// that the game is asked from there.
func (c *client) prioritize(now time.Duration) {
	p := &c.prio
	p.bytes, p.now = c.ch.SendBudget(now), now
	if p.bytes < 0 {
		return
	}
	if p.acc == nil {
		p.acc = make([]float32, game.MaxEntities)
		p.rank = make([]int32, game.MaxEntities)
		p.next, p.ceil = math.MaxInt32, math.MaxInt32
		p.hold = func(n game.EntityNum) bool { return p.rank[n&(game.MaxEntities-1)] >= int32(p.send) }
	}
	if p.roomy {
		// Everything went last time with room to spare: built whole
		// first, ordered only if it does not fit (the order costs about
		// as much as the build: BenchmarkFrameWithinRate).
		p.ordered = false
		return
	}
	c.order()
}

// order orders the client's PVS by priority (p.order, p.rank), adding each
// member's relevance to its accumulator (all zero after snapshots that
// held nothing, when the PVS was not ordered).
func (c *client) order() {
	p := &c.prio
	if !p.ordered {
		clear(p.acc)
		p.ordered = true
	}
	s := c.s
	rel, byGame := s.g.(relevancer)
	var px, py, pz float32
	byDistance := false
	if !byGame {
		if ent, ok := s.g.PlayerEntity(c.num); ok {
			if e, _ := s.g.Entity(ent); e != nil {
				if pos, ok := e.(Positioner); ok {
					px, py, pz = pos.Position()
					byDistance = true
				}
			}
		}
	}
	p.order = p.order[:0]
	for n := range c.pvs.All() {
		e, _ := s.g.Entity(n)
		if e == nil {
			continue // not written: takes no place in the order
		}
		r := float32(1)
		switch {
		case byGame:
			r = rel.Relevance(c.num, n)
		case byDistance:
			if pos, ok := e.(Positioner); ok {
				x, y, z := pos.Position()
				dx, dy, dz := x-px, y-py, z-pz
				// 1/distance², finite at the player's own position.
				r = 1 / max(dx*dx+dy*dy+dz*dz, 1e-6)
			}
		}
		if !(r > 0) { // negative, or NaN (a NaN position too): would break the order
			r = 0
		}
		p.acc[n] += r
		p.order = append(p.order, rankedEnt{num: n, pri: p.acc[n]})
	}
	slices.SortFunc(p.order, func(a, b rankedEnt) int {
		switch {
		case a.pri > b.pri:
			return -1
		case a.pri < b.pri:
			return 1
		}
		return int(a.num) - int(b.num)
	})
	for i, m := range p.order {
		p.rank[m.num] = int32(i)
	}
}

// buildWithin builds the client's snapshot of c.in into buf within its
// budget (c.prio.bytes): first sending as many entities as the measured
// costs say fit (or, before they are measured, as the last snapshot
// learned fit), fewer after one that does not (retracted: the encoder
// keeps nothing of it), then none but the spawns; if even that does
// not fit, the snapshot is skipped, unless the channel's limiter allows it
// whole (a message larger than the bucket goes when the bucket is full: a
// spawn burst on entering the game). It learns the count for the next
// snapshot: more when this one left room.
func (c *client) buildWithin(w *bitmsg.Writer, buf []byte) (snapshot.Header, error) {
	p := &c.prio
	budgetBits := p.bytes * 8
	defer func() { c.in.Hold = nil }()
	if !p.ordered {
		w.Reset(buf)
		w.WriteUint32(uint32(c.s.gameID))
		h, err := c.enc.Build(w, &c.in)
		if err != nil || w.Len() <= budgetBits {
			p.roomy = err == nil && w.Len() <= budgetBits/2
			return h, err
		}
		// It grew past the budget: ordered now on the match's goroutine;
		// in a worker, ranked as the last ordered snapshot ranked them.
		c.enc.Retract(h)
		c.stats.BudgetRebuilds++
		p.roomy = false
		if p.onMatch {
			c.order()
		}
	}
	if budgetBits < p.floorBits && !c.ch.CanSend(p.now, (p.floorBits+7)/8) {
		return snapshot.Header{}, errNothingFits
	}
	n := len(p.order)
	send := min(p.next, n)
	if p.bitsPerEnt > 0 {
		send = p.fitting(budgetBits, n)
	}
	prevSend, prevLen := -1, 0 // the build before, retracted
	for build := 1; ; build++ {
		if build == budgetMaxBuilds {
			send = 0
		}
		p.send = send
		c.in.Hold = p.hold
		if send == n && p.ordered {
			c.in.Hold = nil // nothing held: the FrameCache's runs stay usable
		}
		w.Reset(buf)
		w.WriteUint32(uint32(c.s.gameID))
		h, err := c.enc.Build(w, &c.in)
		if err != nil {
			return h, err
		}
		p.measure(prevSend, prevLen, send, w.Len())
		if w.Len() <= budgetBits {
			c.budgetSent(send, w.Len(), budgetBits)
			return h, nil
		}
		if send == 0 {
			// Nothing fits: the limiter's own rule for a message larger
			// than the bucket (allowed when the bucket is full), with
			// every entity held that may be; else the snapshot is skipped.
			if c.ch.CanSend(p.now, (w.Len()+7)/8) {
				c.budgetSent(0, w.Len(), w.Len())
				return h, nil
			}
			c.enc.Retract(h)
			p.floorBits = w.Len()
			return h, errNothingFits
		}
		c.enc.Retract(h)
		c.stats.BudgetRebuilds++
		p.ceil = send
		prevSend, prevLen = send, w.Len()
		if p.bitsPerEnt > 0 {
			send = min(p.fitting(budgetBits, n), send-1)
		} else {
			send = min(send*7/8, send-1)
		}
	}
}

// measure learns the snapshot's cost from a build of send entities that
// took bits, and the build before it of the same snapshot (prevSend
// entities in prevBits; prevSend -1: none): the bits an entity sent adds
// (a moving average of the difference between two builds), and the bits
// of the rest (headers, PVS, states, commands, events, spawns).
func (p *priorityBudget) measure(prevSend, prevBits, send, bits int) {
	if prevSend > send && prevBits > bits {
		sample := float64(prevBits-bits) / float64(prevSend-send)
		if p.bitsPerEnt == 0 {
			p.bitsPerEnt = sample
		} else {
			p.bitsPerEnt += (sample - p.bitsPerEnt) / 4
		}
	}
	if p.bitsPerEnt > 0 {
		p.fixedBits = max(float64(bits)-float64(send)*p.bitsPerEnt, 0)
	}
}

// fitting returns how many of the n entities of the order the measured
// costs say fit in budgetBits, less one: entities differ in size, and one
// too few costs less than a build again.
func (p *priorityBudget) fitting(budgetBits, n int) int {
	k := (float64(budgetBits)-p.fixedBits)/p.bitsPerEnt - 1
	return int(min(max(k, 0), float64(n)))
}

// budgetSent records a snapshot built with the first send entities of the
// order in usedBits of capBits: their accumulators start again, the held
// ones are counted, and the count for the next snapshot is learned (grown
// by half the room left in proportion, Fiedler's "packet budget" filled
// from the top of the priority order).
func (c *client) budgetSent(send, usedBits, capBits int) {
	p := &c.prio
	p.floorBits = 0
	for _, m := range p.order[:send] {
		p.acc[m.num] = 0
	}
	n := len(p.order)
	if send < n {
		c.stats.SnapshotsTrimmed++
		c.stats.EntitiesHeld += uint64(n - send)
	}
	next := send
	if room := capBits - usedBits; room > capBits/32 && usedBits > 0 {
		next += max(1, send*room/(2*usedBits))
	}
	if p.ceil > send {
		next = min(next, p.ceil-1)
	}
	if p.fits++; p.fits%budgetRelax == 0 && p.ceil < math.MaxInt32 {
		p.ceil++
	}
	p.next = min(next, n+1)
	p.roomy = send == n && usedBits <= capBits/2
}
