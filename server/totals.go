package server

// Totals are server-wide sums of the per-client counters, the clients
// that left included, so every field only grows: what an operator graphs
// as rates (the Prometheus counters of `snapwire serve --metrics`).
type Totals struct {
	SnapshotsSent    uint64
	SnapshotsSkipped uint64 // the client's byte rate was used up
	SnapshotBytes    uint64 // snapshot bodies built, whole bytes
	LoadGameSent     uint64
	AcksApplied      uint64 // snapshots applied to a common base (DOOM III §4.2)
	// Commands: frames run with a command that had arrived in time, frames
	// that duplicated the previous command (DOOM III §2), and commands that
	// came after their frame had run.
	CmdsEarly, DuplicatedCmds, LateCmds uint64
	// The channels' UDP payload bytes and packets each way, and the
	// client messages lost on the way in (sequence gaps).
	BytesIn, BytesOut, PacketsIn, PacketsOut uint64
	MessagesLostIn                           uint64
	ReliableResends                          uint64
}

func (t *Totals) add(c *client) {
	s, ch := &c.stats, c.ch.Stats()
	t.SnapshotsSent += s.SnapshotsSent
	t.SnapshotsSkipped += s.SnapshotsSkipped
	t.SnapshotBytes += s.SnapshotBits / 8
	t.LoadGameSent += s.LoadGameSent
	t.AcksApplied += s.AcksApplied
	t.CmdsEarly += s.CmdsEarly
	t.DuplicatedCmds += s.Duplicated
	t.LateCmds += s.LateCmds
	t.BytesIn += ch.BytesIn
	t.BytesOut += ch.BytesOut
	t.PacketsIn += ch.PacketsIn
	t.PacketsOut += ch.PacketsOut
	t.MessagesLostIn += ch.MessagesLost
	t.ReliableResends += ch.ReliableResends
}

// Totals returns the sums over the connected clients and those that left.
// It allocates nothing.
func (s *Server) Totals() Totals {
	t := s.departed
	for _, c := range s.slots {
		if c != nil {
			t.add(c)
		}
	}
	return t
}

// AppendClients appends the statistics of every connected client to dst,
// by slot, and returns it (AppendClients(nil) for a new slice; a metrics
// scrape reuses its slice and allocates nothing once it has room).
func (s *Server) AppendClients(dst []ClientStats) []ClientStats {
	for _, c := range s.slots {
		if c != nil && !c.reserve.reserved {
			dst = append(dst, c.publicStats())
		}
	}
	return dst
}
