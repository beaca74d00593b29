package proxy

import (
	"fmt"
	"io"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/snapwire/snapwire/internal/q3/internal/follow"
	"github.com/snapwire/snapwire/internal/q3/msg"
	"github.com/snapwire/snapwire/internal/q3/netchan"
	"github.com/snapwire/snapwire/internal/q3/oob"
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
	qport    int
	protocol int
	f        follow.Conn
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
	if c == nil || !c.f.Ready {
		t.stats.Undecoded++
		t.logf("%s %d bytes (no handshake seen)", prefix, len(pkt))
		return
	}
	p, err := c.f.Process(d, pkt)
	if err != nil {
		t.stats.NetchanErrors++
		t.logf("%s %d bytes: %v", prefix, len(pkt), err)
		return
	}
	if !p.Complete {
		if p.HeaderErr == nil && p.Header.Fragmented {
			t.logf("%s %s fragment %d+%d", prefix, c.f.Framing, p.Header.FragStart, p.Header.FragLen)
		} else {
			t.logf("%s %d bytes: dropped by the netchan (duplicate or out of order)", prefix, len(pkt))
		}
		return
	}
	if d == netchan.ServerToClient {
		t.serverMessage(prefix, &p)
	} else {
		t.clientMessage(prefix, &p)
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
			c.f.Challenge = m.Challenge
		}
	case *oob.ConnectResponse:
		detail = strconv.Itoa(int(m.Challenge))
		if c != nil {
			if m.HasChallenge {
				c.f.Challenge = m.Challenge
			}
			c.f.Setup(uint16(c.qport)) // Netchan_Setup on both ends: fresh sequences and state

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

func (t *Tap) serverMessage(prefix string, p *follow.Packet) {
	t.stats.ServerMessages++
	sm, err := p.Server, p.ParseErr
	if sm != nil {
		t.logf("%s seq=%d len=%d dropped=%d reliableAck=%d", prefix, p.Seq, len(p.Data), p.Dropped, sm.ReliableAck)
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

func (t *Tap) clientMessage(prefix string, p *follow.Packet) {
	t.stats.ClientMessages++
	cm, err := p.Client, p.ParseErr
	if cm != nil {
		t.logf("%s seq=%d len=%d dropped=%d serverId=%d messageAck=%d reliableAck=%d", prefix, p.Seq, len(p.Data), p.Dropped, cm.ServerID, cm.MessageAck, cm.ReliableAck)
		for _, o := range cm.Ops {
			switch o := o.(type) {
			case *msg.ClientCommand:
				t.stats.ClientCommands++
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
