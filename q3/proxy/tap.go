package proxy

import (
	"fmt"
	"io"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/snapwire/snapwire/q3/msg"
	"github.com/snapwire/snapwire/q3/netchan"
	"github.com/snapwire/snapwire/q3/oob"
)

// Direction of a packet.
type Direction = netchan.Direction

// TapStats counts what a Tap decoded.
type TapStats struct {
	OOB            int
	ServerMessages int
	ClientMessages int
	Snapshots      int
	ServerCommands int
	ClientCommands int
	Usercmds       int
	ParseErrors    int
	NetchanErrors  int
	Undecoded      int // netchan packets of a client whose handshake the tap missed
}

// conn is one client's connection as the tap follows it.
type conn struct {
	challenge int32
	qport     int
	protocol  int
	ready     bool
	framed    bool
	framing   netchan.Framing
	cl, sv    *netchan.Chan // cl processes server packets, sv client packets
	st        msg.ClientState
	cmds      [msg.MaxReliableCommands]string // client commands as the server stored them
	buf       []byte
}

// Tap decodes the traffic of every client of one server and logs it.
type Tap struct {
	Log   io.Writer // nil: decode and count only
	conns map[netip.AddrPort]*conn
	stats TapStats
	max   int
}

// NewTap returns a tap following at most maxClients clients (0: 256).
func NewTap(log io.Writer, maxClients int) *Tap {
	if maxClients <= 0 {
		maxClients = 256
	}
	return &Tap{Log: log, conns: make(map[netip.AddrPort]*conn), max: maxClients}
}

// Stats returns the counters.
func (t *Tap) Stats() TapStats { return t.stats }

// Forget drops the state of a client.
func (t *Tap) Forget(client netip.AddrPort) { delete(t.conns, client) }

func (t *Tap) logf(format string, args ...any) {
	if t.Log != nil {
		fmt.Fprintf(t.Log, format+"\n", args...)
	}
}

func (t *Tap) conn(client netip.AddrPort) *conn {
	c := t.conns[client]
	if c == nil {
		if len(t.conns) >= t.max {
			return nil
		}
		c = &conn{}
		t.conns[client] = c
	}
	return c
}

// Packet decodes one packet between client and the server, sent in
// direction d and delivered at now.
func (t *Tap) Packet(now time.Duration, client netip.AddrPort, d Direction, pkt []byte) {
	arrow := "C->S"
	if d == netchan.ServerToClient {
		arrow = "S->C"
	}
	prefix := fmt.Sprintf("%8.3f %s %s", now.Seconds(), client, arrow)
	c := t.conn(client)
	if oob.IsOOB(pkt) {
		t.stats.OOB++
		t.oob(prefix, c, d, pkt)
		return
	}
	if c == nil || !c.ready {
		t.stats.Undecoded++
		t.logf("%s %d bytes (no handshake seen)", prefix, len(pkt))
		return
	}
	if !c.framed {
		// The ioq3 checksum matches on the first netchan packet or not.
		c.framed, c.framing = true, netchan.Legacy
		if h, _, err := netchan.ParseHeader(pkt, d, netchan.Checksummed); err == nil && h.Checksum == netchan.GenChecksum(c.challenge, h.Sequence) {
			c.framing = netchan.Checksummed
		}
		c.cl.Framing, c.sv.Framing = c.framing, c.framing
	}
	h, _, herr := netchan.ParseHeader(pkt, d, c.framing)
	ch := c.cl
	if d == netchan.ClientToServer {
		ch = c.sv
	}
	m, seq, ok, err := ch.Process(pkt)
	if err != nil {
		t.stats.NetchanErrors++
		t.logf("%s %d bytes: %v", prefix, len(pkt), err)
		return
	}
	if !ok {
		if herr == nil && h.Fragmented {
			t.logf("%s %s fragment %d+%d", prefix, c.framing, h.FragStart, h.FragLen)
		} else {
			t.logf("%s %d bytes: dropped by the netchan (duplicate or out of order)", prefix, len(pkt))
		}
		return
	}
	c.buf = append(c.buf[:0], m...)
	m = c.buf
	if d == netchan.ServerToClient {
		t.serverMessage(prefix, c, m, seq, ch.Dropped)
	} else {
		t.clientMessage(prefix, c, m, seq, ch.Dropped)
	}
}

func (t *Tap) oob(prefix string, c *conn, d Direction, pkt []byte) {
	if d == netchan.ClientToServer {
		m, err := oob.ParseClientPacket(pkt)
		if err != nil {
			t.logf("%s oob: %v", prefix, err)
			return
		}
		detail := ""
		switch m := m.(type) {
		case *oob.GetChallenge:
			detail = m.ClientChallenge + " " + m.GameName
		case *oob.GetInfo:
			detail = m.Challenge
		case *oob.GetStatus:
			detail = m.Challenge
		case *oob.Connect:
			detail = m.Userinfo
			if info, err := oob.ParseInfo(m.Userinfo, oob.MaxInfoString); err == nil && c != nil {
				c.protocol, _ = strconv.Atoi(info.Value("protocol"))
				c.qport, _ = strconv.Atoi(info.Value("qport"))
			}
		case *oob.Unknown:
			detail = m.Raw
		}
		t.logf("%s oob %s %s", prefix, m.Command(), strings.TrimSpace(detail))
		return
	}
	m, err := oob.ParseServerPacket(pkt)
	if err != nil {
		t.logf("%s oob: %v", prefix, err)
		return
	}
	detail := ""
	switch m := m.(type) {
	case *oob.ChallengeResponse:
		detail = fmt.Sprintf("%d %d %d", m.Challenge, m.ClientChallenge, m.Protocol)
		if c != nil {
			c.challenge = m.Challenge
		}
	case *oob.ConnectResponse:
		detail = strconv.Itoa(int(m.Challenge))
		if c != nil {
			if m.HasChallenge {
				c.challenge = m.Challenge
			}
			// Netchan_Setup on both ends: fresh sequences and state.
			*c = conn{challenge: c.challenge, qport: c.qport, protocol: c.protocol, ready: true}
			c.cl = netchan.NewChan(netchan.ClientToServer, netchan.Legacy, uint16(c.qport), c.challenge)
			c.sv = netchan.NewChan(netchan.ServerToClient, netchan.Legacy, 0, c.challenge)
		}
	case *oob.InfoResponse:
		detail = m.Info
	case *oob.StatusResponse:
		detail = fmt.Sprintf("%s (%d players)", m.Info, len(m.Players))
	case *oob.Print:
		detail = strings.TrimSpace(m.Text)
	case *oob.Unknown:
		detail = m.Raw
	}
	t.logf("%s oob %s %s", prefix, m.Command(), detail)
}

func (t *Tap) serverMessage(prefix string, c *conn, m []byte, seq, dropped int32) {
	t.stats.ServerMessages++
	if c.framing == netchan.Legacy {
		// CL_Netchan_Decode: the key's command number is read from the
		// scrambled message.
		var r msg.Reader
		r.Reset(m)
		ack := r.ReadInt32()
		netchan.ServerXOR(m, c.challenge, seq, c.cmds[ack&(msg.MaxReliableCommands-1)])
	}
	sm, err := c.st.ParseServerMessage(m, seq)
	if sm != nil {
		t.logf("%s seq=%d len=%d dropped=%d reliableAck=%d", prefix, seq, len(m), dropped, sm.ReliableAck)
		for _, o := range sm.Ops {
			switch o := o.(type) {
			case *msg.ServerCommand:
				t.stats.ServerCommands++
				t.logf("    svc_serverCommand %d %q", o.Seq, o.Text)
			case *msg.Gamestate:
				t.logf("    svc_gamestate commandSeq=%d configstrings=%d baselines=%d clientNum=%d checksumFeed=%d",
					o.CommandSeq, len(o.Configstrings), len(o.Baselines), o.ClientNum, o.ChecksumFeed)
			case *msg.Snapshot:
				t.stats.Snapshots++
				t.logf("    svc_snapshot serverTime=%d delta=%d flags=%#x entities=%d valid=%v",
					o.ServerTime, o.DeltaNum, o.Flags, len(o.Entities), o.Valid)
			default:
				t.logf("    %v", o.Op())
			}
		}
	}
	if err != nil {
		t.stats.ParseErrors++
		t.logf("    ERROR %v", err)
	}
}

func (t *Tap) clientMessage(prefix string, c *conn, m []byte, seq, dropped int32) {
	t.stats.ClientMessages++
	if c.framing == netchan.Legacy {
		// SV_Netchan_Decode reads these three before unscrambling.
		var r msg.Reader
		r.Reset(m)
		serverID, msgAck, relAck := r.ReadInt32(), r.ReadInt32(), r.ReadInt32()
		netchan.ClientXOR(m, c.challenge, serverID, msgAck, c.st.ServerCommand(relAck))
	}
	cm, err := msg.ParseClientMessage(m, c.st.ChecksumFeed, c.st.ServerCommand)
	if cm != nil {
		t.logf("%s seq=%d len=%d dropped=%d serverId=%d messageAck=%d reliableAck=%d", prefix, seq, len(m), dropped, cm.ServerID, cm.MessageAck, cm.ReliableAck)
		for _, o := range cm.Ops {
			switch o := o.(type) {
			case *msg.ClientCommand:
				t.stats.ClientCommands++
				c.cmds[o.Seq&(msg.MaxReliableCommands-1)] = o.Text
				t.logf("    clc_clientCommand %d %q", o.Seq, o.Text)
			case *msg.Move:
				t.stats.Usercmds += len(o.Cmds)
				last := o.Cmds[len(o.Cmds)-1]
				t.logf("    %v cmds=%d serverTime=%d angles=%v move=%d,%d,%d buttons=%#x",
					o.Op(), len(o.Cmds), last.ServerTime, last.Angles, last.ForwardMove, last.RightMove, last.UpMove, last.Buttons)
			}
		}
	}
	if err != nil {
		t.stats.ParseErrors++
		t.logf("    ERROR %v", err)
	}
}
