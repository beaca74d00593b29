package msg

import "fmt"

// maxParseEntities is ioq3 client.h MAX_PARSE_ENTITIES (PACKET_BACKUP *
// MAX_SNAPSHOT_ENTITIES): how far back the engine's entity ring reaches.
const maxParseEntities = PacketBackup * MaxSnapshotEntities

// DeltaSource is what a snapshot writer deltas against: what the receiving
// client holds. ClientState implements it.
type DeltaSource interface {
	// DeltaSnapshot returns the valid snapshot of message num, or nil.
	DeltaSnapshot(num int32) *Snapshot
	Baselines() *[MaxGEntities]EntityState
}

// ClientState is what a Quake 3 client keeps between server messages
// (the parts of ioq3 clientActive_t cl and clientConnection_t clc that
// message parsing reads and writes): server commands, the gamestate's
// configstrings and baselines, and the ring of the last PacketBackup
// snapshots that deltas refer to. Feed it every server message in order
// with ParseServerMessage; the zero value is ready to use.
type ClientState struct {
	ServerMessageSequence int32 // sequence of the message being / last parsed
	ReliableAck           int32 // last client command the server acknowledged

	ServerCommandSequence int32
	ServerCommands        [MaxReliableCommands]string // by seq & (MaxReliableCommands-1)

	HaveGamestate   bool
	ClientNum       int32
	ChecksumFeed    int32
	Configstrings   [MaxConfigstrings]string
	ConfigstringSet [MaxConfigstrings]bool
	baselines       [MaxGEntities]EntityState

	// DownloadBlock is the download block the client expects next (ioq3
	// clc.downloadBlock); block 0 carries the file size only while it is 0.
	DownloadBlock int32

	Snap      Snapshot               // latest valid snapshot
	Snapshots [PacketBackup]Snapshot // by MessageNum & PacketMask

	parseEntitiesNum int // ioq3 cl.parseEntitiesNum
	snapParseNum     [PacketBackup]int
	scratch          []EntityState
	reader           Reader
}

// Baselines returns the entity baselines of the current gamestate.
func (st *ClientState) Baselines() *[MaxGEntities]EntityState { return &st.baselines }

// DeltaSnapshot implements DeltaSource.
func (st *ClientState) DeltaSnapshot(num int32) *Snapshot {
	s := &st.Snapshots[num&PacketMask]
	if !s.Valid || s.MessageNum != num {
		return nil
	}
	return s
}

// ServerCommand returns the text of server command seq as the client stored
// it ("" if it never arrived or was overwritten).
func (st *ClientState) ServerCommand(seq int32) string {
	return st.ServerCommands[seq&(MaxReliableCommands-1)]
}

// ConfigstringMap returns the set configstrings by index.
func (st *ClientState) ConfigstringMap() map[int]string {
	m := make(map[int]string)
	for i, ok := range st.ConfigstringSet {
		if ok {
			m[i] = st.Configstrings[i]
		}
	}
	return m
}

// clearGameState is ioq3 CL_ClearState at a new gamestate.
func (st *ClientState) clearGameState() {
	st.HaveGamestate = false
	st.Configstrings = [MaxConfigstrings]string{}
	st.ConfigstringSet = [MaxConfigstrings]bool{}
	st.baselines = [MaxGEntities]EntityState{}
	for i := range st.Snapshots {
		st.Snapshots[i].Valid = false
		st.Snapshots[i].Entities = st.Snapshots[i].Entities[:0]
	}
	st.Snap = Snapshot{}
	st.parseEntitiesNum = 0
}

// parseSnapshot is ioq3 CL_ParseSnapshot + CL_ParsePacketEntities.
func (st *ClientState) parseSnapshot(r *Reader) *Snapshot {
	s := &Snapshot{MessageNum: st.ServerMessageSequence, DeltaNum: -1}
	s.ServerTime = r.ReadInt32()
	if d := r.ReadUint8(); d != 0 {
		s.DeltaNum = s.MessageNum - int32(d)
	}
	s.Flags = r.ReadUint8()
	var old *Snapshot
	if s.DeltaNum <= 0 {
		s.Valid = true // uncompressed frame
		s.DeltaNum = -1
	} else {
		old = &st.Snapshots[s.DeltaNum&PacketMask]
		switch {
		case !old.Valid: // "Delta from invalid frame (not supposed to happen!)"
		case old.MessageNum != s.DeltaNum: // "Delta frame too old."
		case st.parseEntitiesNum-st.snapParseNum[s.DeltaNum&PacketMask] > maxParseEntities-MaxSnapshotEntities:
			// "Delta parseEntitiesNum too old."
		default:
			s.Valid = true
		}
	}
	n := int(r.ReadUint8())
	if r.err != nil {
		return s
	}
	if n > MaxMapAreaBytes {
		r.fail(fmt.Errorf("%w: invalid size %d for areamask", ErrBadServerMessage, n))
		return s
	}
	s.AreaMask = make([]byte, n)
	r.ReadData(s.AreaMask)
	if old != nil {
		ReadDeltaPlayerstate(r, &old.PS, &s.PS)
	} else {
		ReadDeltaPlayerstate(r, nil, &s.PS)
	}
	if r.err != nil {
		return s
	}
	var oldEnts []EntityState
	if old != nil {
		oldEnts = old.Entities
	}
	ents := st.parsePacketEntities(r, oldEnts)
	if r.err != nil {
		return s
	}
	s.Entities = append([]EntityState(nil), ents...)
	if !s.Valid {
		return s
	}
	// Invalidate skipped slots so a dropped message cannot be a delta base
	// after the ring wraps.
	oldNum := st.Snap.MessageNum + 1
	if s.MessageNum-oldNum >= PacketBackup {
		oldNum = s.MessageNum - (PacketBackup - 1)
	}
	for ; oldNum < s.MessageNum; oldNum++ {
		st.Snapshots[oldNum&PacketMask].Valid = false
	}
	slot := &st.Snapshots[s.MessageNum&PacketMask]
	keep := slot.Entities[:0]
	*slot = *s
	slot.Entities = append(keep, s.Entities...)
	st.snapParseNum[s.MessageNum&PacketMask] = st.parseEntitiesNum - len(s.Entities)
	st.Snap = *s
	return s
}

// parsePacketEntities reads the entity deltas of a snapshot against the old
// snapshot's entities (sorted by number) and the baselines. The result is
// valid until the next call.
func (st *ClientState) parsePacketEntities(r *Reader, old []EntityState) []EntityState {
	out := st.scratch[:0]
	add := func(es EntityState) {
		if es.Number == EntityNumNone { // delta removed
			return
		}
		out = append(out, es)
		st.parseEntitiesNum++
	}
	oi := 0
	oldnum := func() EntityNum {
		if oi >= len(old) {
			return 99999
		}
		return old[oi].Number
	}
	for {
		newnum := EntityNum(r.ReadBits(GEntityNumBits))
		if r.err != nil {
			break
		}
		if newnum == EntityNumNone {
			break
		}
		if newnum >= MaxGEntities { // a NYT symbol spilled (see Reader.ReadBits)
			r.fail(fmt.Errorf("%w: bad delta entity number %d", ErrBadEntity, newnum))
			break
		}
		if r.AtEnd() {
			r.fail(fmt.Errorf("%w: CL_ParsePacketEntities: end of message", ErrBadServerMessage))
			break
		}
		for oldnum() < newnum { // unchanged from the old snapshot
			add(old[oi])
			oi++
		}
		var es EntityState
		if oldnum() == newnum { // delta from the old snapshot
			ReadDeltaEntity(r, &old[oi], &es, newnum)
			oi++
		} else { // delta from the baseline
			ReadDeltaEntity(r, &st.baselines[newnum], &es, newnum)
		}
		if r.err != nil {
			break
		}
		add(es)
	}
	for oi < len(old) { // the rest are unchanged
		add(old[oi])
		oi++
	}
	st.scratch = out
	return out
}
