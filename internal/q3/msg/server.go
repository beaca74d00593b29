package msg

import (
	"errors"
	"fmt"
)

// ErrBadServerMessage is a malformed server-to-client message.
var ErrBadServerMessage = errors.New("msg: bad server message")

// ServerMessage is one server-to-client message after the netchan (and, in
// the legacy protocol, the XOR) is removed (Quake 3 protocol description, Fedoryński:
// "Server-to-client packet"):
//
//	reliableAcknowledge (32) | { op (8) | op body } | svc_EOF (8)
type ServerMessage struct {
	// Sequence is the netchan sequence the message arrived with (the
	// client's serverMessageSequence); demos store it next to the message.
	Sequence    int32
	ReliableAck int32 // last client command the server has received
	Ops         []ServerOp
}

// ServerOp is one operation of a ServerMessage: *Gamestate, *ServerCommand,
// *Snapshot, *Download, *Voip or Nop.
type ServerOp interface{ Op() SvcOp }

// Nop is svc_nop.
type Nop struct{}

// Op implements ServerOp.
func (Nop) Op() SvcOp { return SvcNop }

// ServerCommand is svc_serverCommand: a reliable text command.
//
//	seq (32) | text (string)
type ServerCommand struct {
	Seq  int32
	Text string
}

// Op implements ServerOp.
func (*ServerCommand) Op() SvcOp { return SvcServerCommand }

// Configstring is one configstring of a gamestate.
type Configstring struct {
	Index int
	Value string
}

// Gamestate is svc_gamestate: every configstring and entity baseline.
//
//	commandSeq (32) | { svc_configstring (8) | index (16) | bigstring
//	                  | svc_baseline (8) | entity delta from all-zero, number first } |
//	svc_EOF (8) | clientNum (32) | checksumFeed (32)
type Gamestate struct {
	CommandSeq    int32 // the server's reliable command sequence
	Configstrings []Configstring
	Baselines     []EntityState
	ClientNum     int32
	ChecksumFeed  int32
}

// Op implements ServerOp.
func (*Gamestate) Op() SvcOp { return SvcGamestate }

// Snapshot is svc_snapshot, and the resolved snapshot a client keeps.
//
//	serverTime (32) | deltaNum (8) | snapFlags (8) | areamaskLen (8) | areamask |
//	playerstate delta | entity deltas, each number first | number 1023 (10)
type Snapshot struct {
	MessageNum int32 // the message it came in (not sent: the netchan sequence)
	ServerTime int32
	DeltaNum   int32 // message number it is delta-compressed from; -1 = none
	Flags      uint8
	AreaMask   []byte
	PS         PlayerState
	Entities   []EntityState // every entity in the snapshot, by number
	// Valid is false when the delta base was missing or stale (the engine
	// parses such a snapshot and then drops it).
	Valid bool
}

// Op implements ServerOp.
func (*Snapshot) Op() SvcOp { return SvcSnapshot }

// Download is svc_download: one block of a file the client asked for.
//
//	block (16) | [block 0: size (32) | [size < 0: error string]] | len (16) | data
type Download struct {
	Block    uint16
	Size     int32  // total size, in block 0 only
	ErrorMsg string // block 0 with a negative size: the server's reason
	Data     []byte
}

// Op implements ServerOp.
func (*Download) Op() SvcOp { return SvcDownload }

// Voip is svc_voipSpeex / svc_voipOpus (ioq3 only).
//
//	sender (16) | generation (8) | sequence (32) | frames (8) | len (16) | flags (2) | data
type Voip struct {
	Opus       bool
	Sender     int16
	Generation uint8
	Sequence   int32
	Frames     uint8
	Flags      uint8
	Data       []byte
}

// Op implements ServerOp.
func (v *Voip) Op() SvcOp {
	if v.Opus {
		return SvcVoipOpus
	}
	return SvcVoipSpeex
}

// ParseServerMessage parses one server message that arrived with netchan
// sequence seq, updating the state the way ioq3 CL_ParseServerMessage does
// (server commands, gamestate, baselines, the snapshot ring). The returned
// message holds the ops parsed before any error.
func (st *ClientState) ParseServerMessage(data []byte, seq int32) (*ServerMessage, error) {
	r := &st.reader
	r.Reset(data)
	st.ServerMessageSequence = seq
	m := &ServerMessage{Sequence: seq}
	m.ReliableAck = r.ReadInt32()
	st.ReliableAck = m.ReliableAck
	for {
		if r.err != nil {
			return m, r.err
		}
		if r.AtEnd() {
			return m, fmt.Errorf("%w: read past end of server message", ErrBadServerMessage)
		}
		op := SvcOp(r.ReadUint8())
		if r.err != nil {
			return m, r.err
		}
		if op == SvcEOF {
			return m, nil
		}
		var o ServerOp
		switch op {
		case SvcNop:
			o = Nop{}
		case SvcServerCommand:
			o = st.parseServerCommand(r)
		case SvcGamestate:
			o = st.parseGamestate(r)
		case SvcSnapshot:
			o = st.parseSnapshot(r)
		case SvcDownload:
			o = st.parseDownload(r)
		case SvcVoipSpeex, SvcVoipOpus:
			o = parseVoip(r, op == SvcVoipOpus)
		default:
			return m, fmt.Errorf("%w: illegible server message op %d", ErrBadServerMessage, op)
		}
		if r.err != nil {
			return m, r.err
		}
		m.Ops = append(m.Ops, o)
	}
}

func (st *ClientState) parseServerCommand(r *Reader) *ServerCommand {
	c := &ServerCommand{Seq: r.ReadInt32(), Text: r.ReadString()}
	if r.err == nil && st.ServerCommandSequence < c.Seq { // ioq3 CL_ParseCommandString
		st.ServerCommandSequence = c.Seq
		st.ServerCommands[c.Seq&(MaxReliableCommands-1)] = c.Text
	}
	return c
}

func (st *ClientState) parseGamestate(r *Reader) *Gamestate {
	st.clearGameState()
	g := &Gamestate{CommandSeq: r.ReadInt32()}
	st.ServerCommandSequence = g.CommandSeq
	dataCount := 1 // ioq3 leaves a 0 at the start of the string data
	for r.err == nil {
		cmd := SvcOp(r.ReadUint8())
		if r.err != nil || cmd == SvcEOF {
			break
		}
		switch cmd {
		case SvcConfigstring:
			i := int(r.ReadInt16())
			if r.err != nil {
				break
			}
			if i < 0 || i >= MaxConfigstrings {
				r.fail(fmt.Errorf("%w: configstring %d > MAX_CONFIGSTRINGS", ErrBadServerMessage, i))
				break
			}
			s := r.ReadBigString()
			if len(s)+1+dataCount > MaxGamestateChars {
				r.fail(fmt.Errorf("%w: MAX_GAMESTATE_CHARS exceeded", ErrBadServerMessage))
				break
			}
			dataCount += len(s) + 1
			g.Configstrings = append(g.Configstrings, Configstring{Index: i, Value: s})
			st.Configstrings[i] = s
			st.ConfigstringSet[i] = true
		case SvcBaseline:
			n := EntityNum(r.ReadBits(GEntityNumBits))
			if r.err != nil {
				break
			}
			if n >= MaxGEntities { // possible when a NYT symbol spills (see Reader.ReadBits)
				r.fail(fmt.Errorf("%w: baseline number out of range: %d", ErrBadServerMessage, n))
				break
			}
			var null EntityState
			es := &st.baselines[n]
			ReadDeltaEntity(r, &null, es, n)
			g.Baselines = append(g.Baselines, *es)
		default:
			r.fail(fmt.Errorf("%w: CL_ParseGamestate: bad command byte %d", ErrBadServerMessage, cmd))
		}
	}
	g.ClientNum = r.ReadInt32()
	g.ChecksumFeed = r.ReadInt32()
	st.ClientNum = g.ClientNum
	st.ChecksumFeed = g.ChecksumFeed
	st.HaveGamestate = r.err == nil
	return g
}

func (st *ClientState) parseDownload(r *Reader) *Download {
	d := &Download{Block: uint16(r.ReadInt16())}
	if d.Block == 0 && st.DownloadBlock == 0 { // ioq3: block zero carries the size
		d.Size = r.ReadInt32()
		if d.Size < 0 {
			d.ErrorMsg = r.ReadString()
			return d
		}
	}
	n := int(r.ReadInt16())
	if r.err != nil {
		return d
	}
	if n < 0 || n > MaxMsgLen {
		r.fail(fmt.Errorf("%w: invalid size %d for download chunk", ErrBadServerMessage, n))
		return d
	}
	d.Data = make([]byte, n)
	r.ReadData(d.Data)
	return d
}

func parseVoip(r *Reader, opus bool) *Voip {
	v := &Voip{Opus: opus}
	v.Sender = r.ReadInt16()
	v.Generation = r.ReadUint8()
	v.Sequence = r.ReadInt32()
	v.Frames = r.ReadUint8()
	n := int(r.ReadInt16())
	v.Flags = uint8(r.ReadBits(2)) // VOIP_FLAGCNT
	if r.err != nil {
		return v
	}
	if n < 0 {
		r.fail(fmt.Errorf("%w: invalid voip packet size %d", ErrBadServerMessage, n))
		return v
	}
	v.Data = make([]byte, n)
	r.ReadData(v.Data)
	return v
}

// WriteServerMessage writes m the way the ioq3 server does (SV_SendClientGameState,
// SV_UpdateServerCommandsToClient, SV_WriteSnapshotToClient, SV_Netchan_Transmit's
// svc_EOF). Snapshots are delta-compressed against src: the snapshot
// numbered DeltaNum and the baselines, as the receiving client holds them.
func WriteServerMessage(w *Writer, m *ServerMessage, src DeltaSource) error {
	w.WriteInt32(m.ReliableAck)
	for _, o := range m.Ops {
		if err := WriteServerOp(w, o, src, m.Sequence); err != nil {
			return err
		}
	}
	w.WriteUint8(uint8(SvcEOF))
	return w.Err()
}

// WriteServerOp writes one op; seq is the message's sequence (needed for a
// snapshot's delta number).
func WriteServerOp(w *Writer, o ServerOp, src DeltaSource, seq int32) error {
	switch o := o.(type) {
	case Nop:
		w.WriteUint8(uint8(SvcNop))
	case *ServerCommand:
		w.WriteUint8(uint8(SvcServerCommand))
		w.WriteInt32(o.Seq)
		w.WriteString(o.Text)
	case *Gamestate:
		WriteGamestate(w, o)
	case *Snapshot:
		var from *Snapshot
		if o.DeltaNum >= 0 {
			if src != nil {
				from = src.DeltaSnapshot(o.DeltaNum)
			}
			if from == nil {
				return fmt.Errorf("%w: no delta base %d for snapshot %d", ErrBadServerMessage, o.DeltaNum, seq)
			}
		}
		var baselines *[MaxGEntities]EntityState
		if src != nil {
			baselines = src.Baselines()
		}
		WriteSnapshot(w, o, seq, from, baselines)
	case *Download:
		w.WriteUint8(uint8(SvcDownload))
		w.WriteInt16(int16(o.Block))
		if o.Block == 0 {
			w.WriteInt32(o.Size)
			if o.Size < 0 {
				w.WriteString(o.ErrorMsg)
				return w.Err()
			}
		}
		w.WriteInt16(int16(len(o.Data)))
		w.WriteData(o.Data)
	case *Voip:
		w.WriteUint8(uint8(o.Op()))
		w.WriteInt16(o.Sender)
		w.WriteUint8(o.Generation)
		w.WriteInt32(o.Sequence)
		w.WriteUint8(o.Frames)
		w.WriteInt16(int16(len(o.Data)))
		w.WriteBits(uint32(o.Flags), 2)
		w.WriteData(o.Data)
	default:
		return fmt.Errorf("%w: unknown op %T", ErrBadServerMessage, o)
	}
	return w.Err()
}

// WriteGamestate writes svc_gamestate with its configstrings and baselines
// in the given order (the engine sends them by increasing index).
func WriteGamestate(w *Writer, g *Gamestate) {
	w.WriteUint8(uint8(SvcGamestate))
	w.WriteInt32(g.CommandSeq)
	for _, cs := range g.Configstrings {
		w.WriteUint8(uint8(SvcConfigstring))
		w.WriteInt16(int16(cs.Index))
		w.WriteBigString(cs.Value)
	}
	var null EntityState
	for i := range g.Baselines {
		w.WriteUint8(uint8(SvcBaseline))
		WriteDeltaEntity(w, &null, &g.Baselines[i], true)
	}
	w.WriteUint8(uint8(SvcEOF))
	w.WriteInt32(g.ClientNum)
	w.WriteInt32(g.ChecksumFeed)
}

// WriteSnapshot writes svc_snapshot for message seq, delta-compressed from
// from (nil: from nothing, against the baselines), as ioq3
// SV_WriteSnapshotToClient and SV_EmitPacketEntities do. s.Entities must be
// sorted by number; so must from's.
func WriteSnapshot(w *Writer, s *Snapshot, seq int32, from *Snapshot, baselines *[MaxGEntities]EntityState) {
	w.WriteUint8(uint8(SvcSnapshot))
	w.WriteInt32(s.ServerTime)
	if from != nil {
		w.WriteUint8(uint8(seq - from.MessageNum))
	} else {
		w.WriteUint8(0)
	}
	w.WriteUint8(s.Flags)
	w.WriteUint8(uint8(len(s.AreaMask)))
	w.WriteData(s.AreaMask)
	var fromEnts []EntityState
	if from != nil {
		WriteDeltaPlayerstate(w, &from.PS, &s.PS)
		fromEnts = from.Entities
	} else {
		WriteDeltaPlayerstate(w, nil, &s.PS)
	}
	var null EntityState
	ni, oi := 0, 0
	for ni < len(s.Entities) || oi < len(fromEnts) {
		newnum, oldnum := EntityNum(9999), EntityNum(9999)
		if ni < len(s.Entities) {
			newnum = s.Entities[ni].Number
		}
		if oi < len(fromEnts) {
			oldnum = fromEnts[oi].Number
		}
		switch {
		case newnum == oldnum:
			// unchanged entities cost nothing (force = false)
			WriteDeltaEntity(w, &fromEnts[oi], &s.Entities[ni], false)
			oi++
			ni++
		case newnum < oldnum:
			if newnum < 0 || newnum >= MaxGEntities {
				if w.err == nil {
					w.err = fmt.Errorf("%w: entity number %d", ErrBadEntity, newnum)
				}
				return
			}
			base := &null
			if baselines != nil {
				base = &baselines[newnum]
			}
			WriteDeltaEntity(w, base, &s.Entities[ni], true)
			ni++
		default:
			WriteDeltaEntity(w, &fromEnts[oi], nil, true)
			oi++
		}
	}
	w.WriteBits(EntityNumNone, GEntityNumBits)
}
