package capture

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"sort"
	"strconv"
	"strings"

	"github.com/snapwire/snapwire/internal/q3/demo"
	"github.com/snapwire/snapwire/internal/q3/internal/follow"
	"github.com/snapwire/snapwire/internal/q3/msg"
	"github.com/snapwire/snapwire/internal/q3/netchan"
	"github.com/snapwire/snapwire/internal/q3/oob"
)

// maxErrors caps the error texts a Summary keeps (the count is exact).
const maxErrors = 20

// Summary is what decoding one capture or demo found.
type Summary struct {
	File string `json:"file,omitempty"`
	Kind string `json:"kind"` // "pcap" or "demo"

	// Messages is the number of netchan messages (both directions, after
	// fragment reassembly) or demo records decoded.
	Messages       int `json:"messages"`
	ServerMessages int `json:"server_messages"`
	ClientMessages int `json:"client_messages"`
	ParseErrors    int `json:"parse_errors"`
	Snapshots      int `json:"snapshots"`
	// InvalidSnapshots were parsed but had a missing delta base.
	InvalidSnapshots int `json:"invalid_snapshots"`
	// Configstrings of the (last) gamestate, index -> value.
	Configstrings  map[int]string `json:"configstrings"`
	ServerCommands int            `json:"server_commands"`
	ClientCommands int            `json:"client_commands"`
	Usercmds       int            `json:"usercmds,omitempty"`

	Packets   int `json:"packets,omitempty"`
	OOB       int `json:"oob,omitempty"`
	Fragments int `json:"fragments,omitempty"`
	// Undecoded counts netchan packets of connections whose handshake the
	// capture does not hold (no challenge to derive keys from).
	Undecoded int `json:"undecoded,omitempty"`
	// Dropped counts packets the netchan refused: duplicates, out of order,
	// checksum mismatches.
	Dropped int `json:"dropped,omitempty"`

	Connections []Connection `json:"connections,omitempty"`
	OOBMessages []OOBMessage `json:"oob_messages,omitempty"`
	Errors      []string     `json:"errors,omitempty"`
}

// Connection is one client-server connection seen in a capture.
type Connection struct {
	Client          string            `json:"client"`
	Server          string            `json:"server"`
	Challenge       int32             `json:"challenge"`
	ClientChallenge int32             `json:"client_challenge"`
	Protocol        int               `json:"protocol"`
	Framing         string            `json:"framing"`
	QPort           int               `json:"qport"`
	Userinfo        map[string]string `json:"userinfo,omitempty"`
	ClientNum       int32             `json:"client_num"`
	ChecksumFeed    int32             `json:"checksum_feed"`
	ServerMessages  int               `json:"server_messages"`
	ClientMessages  int               `json:"client_messages"`
}

// OOBMessage is one connectionless message.
type OOBMessage struct {
	Time    float64 `json:"t"`
	Dir     string  `json:"dir"`
	Command string  `json:"command"`
	Detail  string  `json:"detail,omitempty"`
}

func (s *Summary) addError(err error) {
	s.ParseErrors++
	if len(s.Errors) < maxErrors {
		s.Errors = append(s.Errors, err.Error())
	}
}

// Options control decoding.
type Options struct {
	// Log, when set, receives a cl_shownet-like line per message.
	Log io.Writer
}

// DecodeDemo decodes a .dm_NN demo.
func DecodeDemo(r io.Reader, opt Options) (*Summary, error) {
	s := &Summary{Kind: "demo"}
	var st msg.ClientState
	dr := demo.NewReader(r)
	for {
		m, err := dr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return s, err
		}
		s.Messages++
		s.ServerMessages++
		sm, perr := st.ParseServerMessage(m.Data, m.Sequence)
		s.countServer(sm, &st)
		if opt.Log != nil {
			logServerMessage(opt.Log, "demo", len(m.Data), sm, &st, perr)
		}
		if perr != nil {
			s.addError(fmt.Errorf("message %d (seq %d): %w", s.Messages, m.Sequence, perr))
		}
	}
	if !dr.Terminated {
		s.addError(errors.New("demo: no -1 -1 end marker"))
	}
	s.Configstrings = st.ConfigstringMap()
	return s, nil
}

func (s *Summary) countServer(m *msg.ServerMessage, st *msg.ClientState) {
	if m == nil {
		return
	}
	for _, o := range m.Ops {
		switch o := o.(type) {
		case *msg.Snapshot:
			s.Snapshots++
			if !o.Valid {
				s.InvalidSnapshots++
			}
		case *msg.ServerCommand:
			s.ServerCommands++
		}
	}
}

// session is one connection being followed.
type session struct {
	conn     Connection
	client   netip.AddrPort
	server   netip.AddrPort
	f        follow.Conn
	protocol int
}

// DecodePcap decodes every Quake 3 connection and query in a pcap stream:
// connectionless messages, and for each connection whose handshake it
// sees, the netchan (fragments, legacy XOR or ioq3 checksum) and every
// server and client message.
func DecodePcap(r io.Reader, opt Options) (*Summary, error) {
	pr, err := NewPcapReader(r)
	if err != nil {
		return nil, err
	}
	s := &Summary{Kind: "pcap"}
	sessions := map[[2]netip.AddrPort]*session{}
	servers := map[netip.AddrPort]bool{}
	var order []*session
	lookup := func(client, server netip.AddrPort) *session {
		k := [2]netip.AddrPort{client, server}
		ss := sessions[k]
		if ss == nil {
			ss = &session{client: client, server: server}
			ss.conn.Client, ss.conn.Server = client.String(), server.String()
			sessions[k] = ss
			order = append(order, ss)
		}
		return ss
	}
	var last *session
	for {
		d, err := pr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return s, err
		}
		s.Packets++
		p := d.Payload
		if oob.IsOOB(p) {
			s.OOB++
			// A server is whoever receives a request a client sends.
			fromClient := !servers[d.Src] && (servers[d.Dst] || looksLikeRequest(p))
			if fromClient {
				servers[d.Dst] = true
				s.oobFromClient(d, lookup(d.Src, d.Dst))
			} else {
				servers[d.Src] = true
				s.oobFromServer(d, lookup(d.Dst, d.Src))
			}
			continue
		}
		var ss *session
		dir := netchan.ClientToServer
		if servers[d.Dst] {
			ss = sessions[[2]netip.AddrPort{d.Src, d.Dst}]
		} else if servers[d.Src] {
			ss = sessions[[2]netip.AddrPort{d.Dst, d.Src}]
			dir = netchan.ServerToClient
		}
		if ss == nil || !ss.f.Ready {
			s.Undecoded++
			continue
		}
		last = ss
		s.netchanPacket(ss, dir, d, opt)
	}
	for _, ss := range order {
		if !ss.f.Ready {
			continue
		}
		ss.conn.Framing = ss.f.Framing.String()
		ss.conn.ClientNum = ss.f.State.ClientNum
		ss.conn.ChecksumFeed = ss.f.State.ChecksumFeed
		s.Connections = append(s.Connections, ss.conn)
	}
	if last != nil {
		s.Configstrings = last.f.State.ConfigstringMap()
	} else {
		s.Configstrings = map[int]string{}
	}
	return s, nil
}

// looksLikeRequest reports whether an OOB payload is a client request.
func looksLikeRequest(p []byte) bool {
	t := strings.ToLower(string(p[4:min(len(p), 20)]))
	for _, c := range []string{"getinfo", "getstatus", "getchallenge", "connect", "rcon", "ipauthorize"} {
		if strings.HasPrefix(t, c) && !strings.HasPrefix(t, "connectresponse") {
			return true
		}
	}
	return false
}

func (s *Summary) oobFromClient(d Datagram, ss *session) {
	m, err := oob.ParseClientPacket(d.Payload)
	if err != nil {
		s.addError(fmt.Errorf("%.3f C->S oob: %w", d.Time.Seconds(), err))
		return
	}
	e := OOBMessage{Time: d.Time.Seconds(), Dir: "C->S", Command: m.Command()}
	switch m := m.(type) {
	case *oob.GetChallenge:
		e.Detail = strings.TrimSpace(m.ClientChallenge + " " + m.GameName)
	case *oob.GetInfo:
		e.Detail = m.Challenge
	case *oob.GetStatus:
		e.Detail = m.Challenge
	case *oob.Connect:
		info, err := oob.ParseInfo(m.Userinfo, oob.MaxInfoString)
		if err != nil {
			s.addError(fmt.Errorf("%.3f connect userinfo: %w", d.Time.Seconds(), err))
			break
		}
		ss.conn.Userinfo = info.Map()
		ss.protocol, _ = strconv.Atoi(info.Value("protocol"))
		ss.conn.Protocol = ss.protocol
		q, _ := strconv.Atoi(info.Value("qport"))
		ss.conn.QPort = q
		e.Detail = fmt.Sprintf("name=%s protocol=%d qport=%d", info.Value("name"), ss.protocol, q)
	}
	s.OOBMessages = append(s.OOBMessages, e)
}

func (s *Summary) oobFromServer(d Datagram, ss *session) {
	m, err := oob.ParseServerPacket(d.Payload)
	if err != nil {
		s.addError(fmt.Errorf("%.3f S->C oob: %w", d.Time.Seconds(), err))
		return
	}
	e := OOBMessage{Time: d.Time.Seconds(), Dir: "S->C", Command: m.Command()}
	switch m := m.(type) {
	case *oob.ChallengeResponse:
		ss.conn.Challenge, ss.conn.ClientChallenge = m.Challenge, m.ClientChallenge
		ss.f.Challenge = m.Challenge
		if m.NArgs >= 3 && ss.conn.Protocol == 0 {
			ss.conn.Protocol = int(m.Protocol)
		}
		e.Detail = fmt.Sprintf("%d %d %d", m.Challenge, m.ClientChallenge, m.Protocol)
	case *oob.ConnectResponse:
		if m.HasChallenge {
			ss.conn.Challenge, ss.f.Challenge = m.Challenge, m.Challenge
		}
		ss.f.Setup(uint16(ss.conn.QPort)) // ioq3 Netchan_Setup on both ends: fresh sequences
		e.Detail = strconv.Itoa(int(m.Challenge))
	case *oob.InfoResponse:
		info, err := oob.ParseInfo(m.Info, oob.MaxInfoString)
		if err != nil {
			s.addError(fmt.Errorf("%.3f infoResponse: %w", d.Time.Seconds(), err))
			break
		}
		e.Detail = fmt.Sprintf("hostname=%s mapname=%s clients=%s", info.Value("hostname"), info.Value("mapname"), info.Value("clients"))
	case *oob.StatusResponse:
		info, err := oob.ParseInfo(m.Info, oob.BigInfoString)
		if err != nil {
			s.addError(fmt.Errorf("%.3f statusResponse: %w", d.Time.Seconds(), err))
			break
		}
		names := make([]string, len(m.Players))
		for i, p := range m.Players {
			names[i] = p.Name
		}
		e.Detail = fmt.Sprintf("sv_hostname=%s players=%s", info.Value("sv_hostname"), strings.Join(names, ","))
	case *oob.Print:
		e.Detail = strings.TrimSpace(m.Text)
	}
	s.OOBMessages = append(s.OOBMessages, e)
}

func (s *Summary) netchanPacket(ss *session, dir netchan.Direction, d Datagram, opt Options) {
	p, err := ss.f.Process(dir, d.Payload)
	if p.HeaderErr == nil && p.Header.Fragmented {
		s.Fragments++
	}
	if err != nil {
		s.Dropped++
		s.addError(fmt.Errorf("%.3f %v netchan: %w", d.Time.Seconds(), dir, err))
		return
	}
	if !p.Complete {
		if p.HeaderErr == nil && !p.Header.Fragmented {
			s.Dropped++
		}
		return
	}
	s.Messages++
	if dir == netchan.ServerToClient {
		s.ServerMessages++
		ss.conn.ServerMessages++
		s.countServer(p.Server, &ss.f.State)
		if opt.Log != nil {
			logServerMessage(opt.Log, fmt.Sprintf("%7.3f S->C", d.Time.Seconds()), len(p.Data), p.Server, &ss.f.State, p.ParseErr)
		}
		if p.ParseErr != nil {
			s.addError(fmt.Errorf("%.3f S->C seq %d: %w", d.Time.Seconds(), p.Seq, p.ParseErr))
		}
		return
	}
	s.ClientMessages++
	ss.conn.ClientMessages++
	if cm := p.Client; cm != nil {
		for _, o := range cm.Ops {
			switch o := o.(type) {
			case *msg.ClientCommand:
				s.ClientCommands++
			case *msg.Move:
				s.Usercmds += len(o.Cmds)
			}
		}
	}
	if opt.Log != nil {
		logClientMessage(opt.Log, fmt.Sprintf("%7.3f C->S", d.Time.Seconds()), p.Seq, len(p.Data), p.Client, p.ParseErr)
	}
	if p.ParseErr != nil {
		s.addError(fmt.Errorf("%.3f C->S seq %d: %w", d.Time.Seconds(), p.Seq, p.ParseErr))
	}
}

// logServerMessage prints one line per message and one per op, in the
// spirit of cl_shownet 2.
func logServerMessage(w io.Writer, prefix string, n int, m *msg.ServerMessage, st *msg.ClientState, err error) {
	if m == nil {
		return
	}
	fmt.Fprintf(w, "%s seq=%d len=%d reliableAck=%d\n", prefix, m.Sequence, n, m.ReliableAck)
	for _, o := range m.Ops {
		switch o := o.(type) {
		case *msg.ServerCommand:
			fmt.Fprintf(w, "    %v %d %q\n", o.Op(), o.Seq, o.Text)
		case *msg.Gamestate:
			fmt.Fprintf(w, "    %v commandSeq=%d configstrings=%d baselines=%d clientNum=%d checksumFeed=%d\n",
				o.Op(), o.CommandSeq, len(o.Configstrings), len(o.Baselines), o.ClientNum, o.ChecksumFeed)
		case *msg.Snapshot:
			fmt.Fprintf(w, "    %v serverTime=%d delta=%d flags=%#x areabytes=%d entities=%d valid=%v%s\n",
				o.Op(), o.ServerTime, o.DeltaNum, o.Flags, len(o.AreaMask), len(o.Entities), o.Valid, snapshotChanges(o, st))
		case *msg.Download:
			fmt.Fprintf(w, "    %v block=%d size=%d len=%d\n", o.Op(), o.Block, o.Size, len(o.Data))
		default:
			fmt.Fprintf(w, "    %v\n", o.Op())
		}
	}
	if err != nil {
		fmt.Fprintf(w, "    ERROR %v\n", err)
	} else {
		fmt.Fprintf(w, "    %v\n", msg.SvcEOF)
	}
}

// snapshotChanges lists the entities that differ from the delta base, with
// the number of fields that changed.
func snapshotChanges(s *msg.Snapshot, st *msg.ClientState) string {
	var from []msg.EntityState
	if s.DeltaNum >= 0 {
		if b := st.DeltaSnapshot(s.DeltaNum); b != nil {
			from = b.Entities
		}
	}
	old := map[msg.EntityNum]*msg.EntityState{}
	for i := range from {
		old[from[i].Number] = &from[i]
	}
	var parts []string
	for i := range s.Entities {
		e := &s.Entities[i]
		base, ok := old[e.Number]
		if !ok {
			parts = append(parts, fmt.Sprintf("#%d new", e.Number))
			continue
		}
		delete(old, e.Number)
		if lc := msg.EntityChanges(base, e); lc > 0 {
			parts = append(parts, fmt.Sprintf("#%d:%d", e.Number, lc))
		}
	}
	var gone []int
	for n := range old {
		gone = append(gone, int(n))
	}
	sort.Ints(gone)
	for _, n := range gone {
		parts = append(parts, fmt.Sprintf("#%d remove", n))
	}
	if len(parts) == 0 {
		return ""
	}
	return " [" + strings.Join(parts, " ") + "]"
}

func logClientMessage(w io.Writer, prefix string, seq int32, n int, m *msg.ClientMessage, err error) {
	if m == nil {
		return
	}
	fmt.Fprintf(w, "%s seq=%d len=%d serverId=%d messageAck=%d reliableAck=%d\n",
		prefix, seq, n, m.ServerID, m.MessageAck, m.ReliableAck)
	for _, o := range m.Ops {
		switch o := o.(type) {
		case *msg.ClientCommand:
			fmt.Fprintf(w, "    %v %d %q\n", o.Op(), o.Seq, o.Text)
		case *msg.Move:
			last := o.Cmds[len(o.Cmds)-1]
			fmt.Fprintf(w, "    %v cmds=%d serverTime=%d angles=%v move=%d,%d,%d buttons=%#x weapon=%d\n",
				o.Op(), len(o.Cmds), last.ServerTime, last.Angles, last.ForwardMove, last.RightMove, last.UpMove, last.Buttons, last.Weapon)
		}
	}
	if err != nil {
		fmt.Fprintf(w, "    ERROR %v\n", err)
	} else {
		fmt.Fprintf(w, "    %v\n", msg.ClcEOF)
	}
}

// IsPcap reports whether b starts with a classic pcap magic number.
func IsPcap(b []byte) bool {
	if len(b) < 4 {
		return false
	}
	switch binary.LittleEndian.Uint32(b) {
	case 0xa1b2c3d4, 0xa1b23c4d, 0xd4c3b2a1, 0x4d3cb2a1:
		return true
	}
	return false
}
