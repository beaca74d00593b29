package netsim

import (
	"errors"
	"math/rand/v2"
	"time"

	"github.com/snapwire/snapwire/internal/netsimhook"
)

// LinkConfig describes one direction of a link: what happens to a packet
// sent from one address to another. The zero value is a perfect link
// (instant, lossless, unlimited).
type LinkConfig struct {
	Latency   time.Duration // one way
	Jitter    time.Duration // uniform +/- around Latency (a delay never goes below zero); keeps order unless JitterReorders
	Loss      float64       // 0..1
	Duplicate float64       // 0..1 chance a packet is delivered twice
	Reorder   float64       // 0..1 chance a packet is held back an extra random delay
	Bandwidth int           // bytes per second, 0 = unlimited (queued, tail-dropped past a buffer)
	MTU       int           // packets larger are dropped and counted, 0 = unlimited

	// JitterReorders lets each packet's jitter be drawn on its own, so a
	// packet may overtake an earlier one whenever the jitter exceeds the
	// gap between them (Linux netem's behaviour). By default jitter models
	// queueing delay: the delay varies, but as in a FIFO queue no packet
	// arrives before one sent earlier on the same link; overtaking is then
	// only what Reorder asks for.
	JitterReorders bool

	// ReorderDelay bounds the extra hold-back of a reordered packet: it is
	// uniform in (0, ReorderDelay]. 0 means DefaultReorderDelay.
	ReorderDelay time.Duration
	// QueueBytes bounds the bandwidth queue (bytes waiting to be
	// serialized) when Bandwidth > 0; a packet that would make the backlog
	// exceed it is tail-dropped. 0 means the bytes the link carries in
	// 250 ms, at least 4096 bytes.
	QueueBytes int
}

const (
	// DefaultReorderDelay is the extra hold-back bound of a reordered
	// packet when LinkConfig.ReorderDelay is 0.
	DefaultReorderDelay = 20 * time.Millisecond
	// defaultQueueTime sizes the bandwidth queue when LinkConfig.QueueBytes
	// is 0: the backlog may hold this much time of transmission.
	defaultQueueTime = 250 * time.Millisecond
	// defaultMinQueueBytes is the smallest default bandwidth queue.
	defaultMinQueueBytes = 4096
)

// Validate reports a configuration outside its ranges: a negative
// duration, size or rate, or a probability outside 0..1.
func (c LinkConfig) Validate() error {
	switch {
	case c.Latency < 0, c.Jitter < 0, c.ReorderDelay < 0:
		return errors.New("netsim: negative duration in link config")
	case !(c.Loss >= 0 && c.Loss <= 1), !(c.Duplicate >= 0 && c.Duplicate <= 1), !(c.Reorder >= 0 && c.Reorder <= 1):
		return errors.New("netsim: probability outside 0..1 in link config")
	case c.Bandwidth < 0, c.MTU < 0, c.QueueBytes < 0:
		return errors.New("netsim: negative size in link config")
	}
	return nil
}

func (c *LinkConfig) reorderDelay() time.Duration {
	if c.ReorderDelay > 0 {
		return c.ReorderDelay
	}
	return DefaultReorderDelay
}

func (c *LinkConfig) queueBytes() int64 {
	if c.QueueBytes > 0 {
		return int64(c.QueueBytes)
	}
	q := int64(c.Bandwidth) * int64(defaultQueueTime) / int64(time.Second)
	return max(q, defaultMinQueueBytes)
}

// Stats counts what happened to packets. Every packet handed to WriteTo
// (or received by the proxy) is counted once in Sent; it then ends in
// exactly one of Delivered, Lost, DroppedMTU, DroppedQueue, DroppedUnbound,
// DroppedInbox, Filtered or is still in flight; a duplicate adds one to
// Duplicated and its copy ends in one of the same outcomes.
type Stats struct {
	Sent           uint64 // packets handed to the network
	Delivered      uint64 // packets (copies included) placed in an inbox / written by the proxy
	Lost           uint64 // dropped by random loss
	Duplicated     uint64 // extra copies created
	Reordered      uint64 // packets held back an extra delay
	DroppedMTU     uint64 // larger than the link MTU
	DroppedQueue   uint64 // tail-dropped by a full bandwidth queue
	DroppedUnbound uint64 // addressed to an address nobody listens on (or a closed / expired mapping)
	DroppedInbox   uint64 // destination inbox full
	Filtered       uint64 // dropped by the drop filter (SetDropFilter)
	BytesSent      uint64 // payload bytes of Sent
	BytesDelivered uint64 // payload bytes of Delivered
}

// Dropped is the total of packets that did not arrive, for any reason.
func (s Stats) Dropped() uint64 {
	return s.Lost + s.DroppedMTU + s.DroppedQueue + s.DroppedUnbound + s.DroppedInbox + s.Filtered
}

// link is the state of one direction of a link: its configuration and the
// time its bandwidth-limited transmitter is busy until.
type link struct {
	cfg         LinkConfig
	custom      bool          // set by SetLink; SetDefault leaves it alone
	busyUntil   time.Duration // end of the last serialization on this link
	lastInOrder time.Duration // arrival of the latest packet not held back by Reorder
}

// plan decides the fate of one packet of size bytes sent at now. It returns
// how many copies to deliver (0, 1 or 2) and when each arrives, and counts
// the outcome in st. The random draws depend only on the configuration and
// the sequence of calls, so a seeded rng gives a reproducible schedule.
func (l *link) plan(r *rand.Rand, now time.Duration, size int, st *Stats) (n int, at [2]time.Duration) {
	cfg := &l.cfg
	if cfg.MTU > 0 && size > cfg.MTU {
		st.DroppedMTU++
		return 0, at
	}
	depart := now
	if cfg.Bandwidth > 0 {
		// Serialization: the transmitter sends one packet after another at
		// Bandwidth bytes per second; packets wait in a bounded FIFO queue.
		start := max(l.busyUntil, now)
		backlog := int64(start-now) * int64(cfg.Bandwidth) / int64(time.Second)
		if backlog > 0 && backlog+int64(size) > cfg.queueBytes() {
			st.DroppedQueue++
			return 0, at
		}
		l.busyUntil = start + time.Duration(int64(size)*int64(time.Second)/int64(cfg.Bandwidth))
		depart = l.busyUntil
	}
	if cfg.Loss > 0 && r.Float64() < cfg.Loss {
		st.Lost++
		return 0, at
	}
	n = 1
	if cfg.Duplicate > 0 && r.Float64() < cfg.Duplicate {
		st.Duplicated++
		n = 2
	}
	for i := range n {
		t := depart + cfg.Latency
		if cfg.Jitter > 0 {
			t += time.Duration(r.Int64N(2*int64(cfg.Jitter)+1)) - cfg.Jitter
		}
		t = max(t, depart)
		if !cfg.JitterReorders {
			// FIFO: never before a packet sent earlier on this link. The
			// bound on each delay still holds, since the earlier packet's
			// arrival is itself within its own (earlier) bound.
			t = max(t, l.lastInOrder)
			l.lastInOrder = t
		}
		if cfg.Reorder > 0 && r.Float64() < cfg.Reorder {
			st.Reordered++
			t += 1 + time.Duration(r.Int64N(int64(cfg.reorderDelay())))
		}
		at[i] = t
	}
	return n, at
}

// packet is one packet in flight or waiting in an inbox, and schedule the
// heap of packets in flight ordered by (At, Seq); the real-time proxy
// (internal/udpproxy) shares them through internal/netsimhook. Packets
// are pooled by the Network; Buf keeps its capacity across uses.
type (
	packet   = netsimhook.Packet
	schedule = netsimhook.Schedule
)
