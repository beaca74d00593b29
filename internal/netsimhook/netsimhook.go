// Package netsimhook reaches what package netsim keeps out of its public
// API for the real-time UDP proxy (internal/udpproxy): the link model that
// decides each packet's fate (LinkConfig: latency, jitter, loss,
// duplication, reordering, bandwidth queue, MTU) and the schedule of
// packets in flight both netsim.Network and the proxy deliver from. A game
// developer never uses it.
//
// Package netsim registers NewLink when it is initialised (it imports
// this package, so this one cannot name its types): cfg is a
// netsim.LinkConfig and st a *netsim.Stats.
package netsimhook

import (
	"math/rand/v2"
	"net/netip"
	"time"
)

// Plan decides the fate of one packet of size bytes sent at now on one
// direction of a link: how many copies to deliver (0, 1 or 2) and when
// each arrives. It counts the outcome in the *netsim.Stats given to
// NewLink. The random draws depend only on the configuration and the
// sequence of calls, so a seeded r gives a reproducible schedule.
type Plan func(r *rand.Rand, now time.Duration, size int) (n int, at [2]time.Duration)

// Funcs are what package netsim registers.
type Funcs struct {
	NewLink func(cfg, st any) Plan
}

var funcs Funcs

// Register is called by package netsim's init.
func Register(f Funcs) { funcs = f }

// NewLink returns the planner of a new link direction configured by cfg
// (a netsim.LinkConfig, already validated) that counts in st (a
// *netsim.Stats). The planner keeps the link's state (bandwidth queue,
// latest in-order arrival) and is not safe for concurrent use.
func NewLink(cfg, st any) Plan { return funcs.NewLink(cfg, st) }

// Packet is one packet in flight or waiting in an inbox.
type Packet struct {
	At       time.Duration
	Seq      uint64 // send order: ties in At are delivered first-in first-out
	From, To netip.AddrPort
	Down     bool // proxy only: server -> client
	Buf      []byte
}

// Schedule is a binary min-heap of packets ordered by (At, Seq).
type Schedule []*Packet

func (h Schedule) less(i, j int) bool {
	if h[i].At != h[j].At {
		return h[i].At < h[j].At
	}
	return h[i].Seq < h[j].Seq
}

// Push adds p.
func (h *Schedule) Push(p *Packet) {
	*h = append(*h, p)
	s := *h
	i := len(s) - 1
	for i > 0 {
		parent := (i - 1) / 2
		if !s.less(i, parent) {
			break
		}
		s[i], s[parent] = s[parent], s[i]
		i = parent
	}
}

// Pop removes and returns the first packet; the schedule must not be
// empty.
func (h *Schedule) Pop() *Packet {
	s := *h
	top := s[0]
	last := len(s) - 1
	s[0] = s[last]
	s[last] = nil
	s = s[:last]
	i := 0
	for {
		l := 2*i + 1
		if l >= len(s) {
			break
		}
		m := l
		if r := l + 1; r < len(s) && s.less(r, l) {
			m = r
		}
		if !s.less(m, i) {
			break
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
	*h = s
	return top
}

// Peek returns the first packet, and false when the schedule is empty.
func (h Schedule) Peek() (*Packet, bool) {
	if len(h) == 0 {
		return nil, false
	}
	return h[0], true
}
