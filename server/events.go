package server

// Events (DOOM III §5, §8): each frame's reliable events sent to every
// client in the game, the saved ones kept for late joiners, the unreliable
// ones logged for each client's next snapshot.

import (
	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/bitlayout"
	"github.com/snapwire/snapwire/internal/events"
	"github.com/snapwire/snapwire/internal/session"
)

// bitops rolls the event message back to a mark (bitmsg hands that plumbing to
// internal/bitlayout).
var bitops = bitlayout.Get[bitmsg.Writer, bitmsg.DeltaWriter, bitmsg.DeltaReader, bitmsg.Reader]()

// savedEvent is a saved event with its own copy of the payload. ev.Data is
// left nil: entries move inside s.saved (removals shift them, appends may
// reallocate), so a slice into data would point at another entry's bytes.
// savedMessages rebuilds Data from the entry itself.
type savedEvent struct {
	ev   game.Event
	n    int // payload bytes in data
	data [game.MaxEventBytes]byte
}

// dispatchEvents sends this frame's reliable events to every client in
// the game, keeps the saved ones for late joiners and logs the unreliable
// ones for each client's next snapshot (DOOM III §5, §8).
func (s *Server) dispatchEvents() {
	evs := s.events.Events()
	if len(evs) == 0 {
		return
	}
	rel := s.relEvs[:0]
	for i := range evs {
		ev := evs[i]
		if !ev.Reliable {
			s.stats.UnreliableEvents++
			s.logUnreliable(ev)
			continue
		}
		s.stats.ReliableEvents++
		rel = append(rel, ev)
		if ev.Save {
			s.save(ev)
		}
	}
	s.relEvs = rel
	// Trim the unreliable log: nobody needs entries older than every
	// client's cursor; past 4096 entries the oldest are dropped anyway.
	min := s.unrelAt + uint64(len(s.unrel))
	for _, c := range s.slots {
		if c != nil && c.evCursor < min {
			min = c.evCursor
		}
	}
	if len(s.unrel) > maxUnreliableLog {
		min = max(min, s.unrelAt+uint64(len(s.unrel))-maxUnreliableLog)
	}
	if k := int(min - s.unrelAt); k > 0 {
		s.unrel = append(s.unrel[:0], s.unrel[k:]...)
		copy(s.unrelData, s.unrelData[k:k+len(s.unrel)])
		for i := range s.unrel {
			s.unrel[i].Data = s.unrelData[i][:len(s.unrel[i].Data)]
		}
		s.unrelAt = min
	}
	if len(rel) == 0 {
		return
	}
	msgs := s.eventMessages(rel)
	for _, c := range s.slots {
		if c != nil && c.inGame {
			for _, m := range msgs {
				if !c.queueReliable(m) {
					break
				}
			}
		}
	}
}

// maxUnreliableLog bounds the unreliable event log: a client whose
// snapshots were skipped for that many events loses the oldest.
const maxUnreliableLog = 4096

// logUnreliable appends a copy of ev to the unreliable event log; its
// payload lives in unrelData, reused, so logging allocates nothing once
// the log has reached its working size.
func (s *Server) logUnreliable(ev game.Event) {
	i := len(s.unrel)
	if i == len(s.unrelData) {
		s.unrelData = append(s.unrelData, [game.MaxEventBytes]byte{})
		s.unrelData = s.unrelData[:cap(s.unrelData)]
		for j := range s.unrel { // the arrays moved
			s.unrel[j].Data = s.unrelData[j][:len(s.unrel[j].Data)]
		}
	}
	n := copy(s.unrelData[i][:], ev.Data)
	ev.Data = s.unrelData[i][:n]
	s.unrel = append(s.unrel, ev)
}

// save keeps ev for late joiners. Only the latest saved event per (entity,
// event id) is kept: each saved event is expected to carry the state it
// leads to (a door's "now open"), so replaying the latest reproduces the
// state; at most MaxSavedEvents are kept, the oldest dropped first.
func (s *Server) save(ev game.Event) {
	for i := range s.saved {
		if s.saved[i].ev.Entity == ev.Entity && s.saved[i].ev.ID == ev.ID {
			s.saved = append(s.saved[:i], s.saved[i+1:]...)
			break
		}
	}
	if len(s.saved) >= s.cfg.MaxSavedEvents {
		s.saved = append(s.saved[:0], s.saved[1:]...)
	}
	s.saved = append(s.saved, savedEvent{ev: ev})
	se := &s.saved[len(s.saved)-1]
	se.n = copy(se.data[:], ev.Data)
	se.ev.Data = nil
}

// eventMessages packs events into reliable events messages of at most
// session.MaxEventsMessageBytes bytes each. The result aliases s until the
// next call.
func (s *Server) eventMessages(evs []game.Event) [][]byte {
	s.relMsgs = s.relMsgs[:0]
	s.relArena = s.relArena[:0]
	s.relEnds = s.relEnds[:0]
	i := 0
	for i < len(evs) {
		s.evw.Reset(s.evbuf[session.EventsHeaderLen:])
		n := 0
		for i < len(evs) && n < 255 {
			before := s.evw.Len()
			if events.WireBits(evs[i].Bits) > s.evw.BitsLeft() || events.Write(&s.evw, &evs[i]) != nil {
				bitops.Truncate(&s.evw, before)
				if n == 0 { // cannot happen: an event is at most 296 bytes
					i++
				}
				break
			}
			n++
			i++
		}
		if n == 0 {
			continue
		}
		body := s.evw.Bytes()
		start := len(s.relArena)
		s.relArena = session.AppendEventsHeader(s.relArena, s.gameID, n)
		s.relArena = append(s.relArena, body...)
		s.relEnds = append(s.relEnds, [2]int{start, len(s.relArena)})
	}
	// The arena may have moved while growing: slice it once it is whole.
	for _, e := range s.relEnds {
		s.relMsgs = append(s.relMsgs, s.relArena[e[0]:e[1]:e[1]])
	}
	return s.relMsgs
}

func (s *Server) savedMessages() [][]byte {
	evs := s.savedEvs[:0]
	for i := range s.saved {
		se := &s.saved[i]
		ev := se.ev
		ev.Data = se.data[:se.n]
		evs = append(evs, ev)
	}
	s.savedEvs = evs
	return s.eventMessages(evs)
}
