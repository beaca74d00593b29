package client

// The client core: its configuration, phases and counters, the Client, and
// the driver's calls (HandlePacket, Advance, Disconnect). The handshake is
// in handshake.go, server message parsing in parse.go, what the client
// sends in send.go, demo recording in record.go, the UDP runner in run.go.

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/snapwire/snapwire/internal/q3/msg"
	"github.com/snapwire/snapwire/internal/q3/netchan"
	"github.com/snapwire/snapwire/internal/q3/oob"
)

// Defaults and limits (ioq3 cl_main.c, cl_input.c).
const (
	DefaultPacketRate = 60    // packets a second (cl_maxpackets is 30 in ioq3; the brief's default is 60)
	MinPacketRate     = 15    // cl_maxpackets lower bound
	MaxPacketRate     = 125   // cl_maxpackets upper bound
	DefaultPacketDup  = 1     // cl_packetdup
	MaxPacketDup      = 5     // cl_packetdup upper bound
	DefaultSnaps      = 20    // snaps userinfo
	DefaultRate       = 25000 // rate userinfo
	DefaultGameName   = "Quake3Arena"

	ResendInterval  = 3 * time.Second // RETRANSMIT_TIMEOUT
	MaxResends      = 5               // getchallenge / connect attempts before giving up
	DefaultTimeout  = 15 * time.Second
	connectedPeriod = time.Second // CL_ReadyToSendPacket before the gamestate
	cmdBackup       = 64          // CMD_BACKUP
	cmdMask         = cmdBackup - 1
	maxErrors       = 20
)

// Errors.
var (
	ErrDisconnected = errors.New("client: disconnected")
	ErrTimeout      = errors.New("client: server timed out")
	ErrRefused      = errors.New("client: server refused the connection")
	ErrNoAnswer     = errors.New("client: no answer to the handshake")
	ErrOverflow     = errors.New("client: reliable command overflow")
	ErrConfig       = errors.New("client: bad configuration")
)

// Phase is the connection state (ioq3 connstate_t, CA_CHALLENGING..CA_ACTIVE).
type Phase uint8

// Phases.
const (
	Challenging  Phase = iota + 1 // sending getchallenge
	Connecting                    // sending connect
	Connected                     // netchan up, waiting for the gamestate
	Primed                        // gamestate received, no valid snapshot yet
	Active                        // snapshots arriving, user commands going out
	Disconnected                  // dropped, refused, timed out or quit
)

func (p Phase) String() string {
	switch p {
	case Challenging:
		return "challenging"
	case Connecting:
		return "connecting"
	case Connected:
		return "connected"
	case Primed:
		return "primed"
	case Active:
		return "active"
	case Disconnected:
		return "disconnected"
	}
	return "phase(" + strconv.Itoa(int(p)) + ")"
}

// Sender sends one UDP payload to the server. pkt is valid only during the
// call.
type Sender func(pkt []byte)

// Config configures a Client. The zero value of every field means its
// default.
type Config struct {
	Name string // userinfo name (default "snapwire")
	// Protocol is the protocol number announced in the userinfo: 68 or 71.
	// 0 takes the one the server reports in challengeResponse (ioq3 falls
	// back the same way).
	Protocol int
	// Framing of the netchan. Auto picks Legacy (with XOR) for 68 and,
	// for 71, detects it from the server's first packet (detectFraming):
	// a dual-mode ioq3 server checksums protocol 71, Debian's stock
	// openarena-server (com_protocol 71, com_legacyprotocol 71) frames it
	// the legacy way.
	Framing    FramingChoice
	PacketRate int // packets a second once primed, MinPacketRate..MaxPacketRate (default 60)
	PacketDup  int // cl_packetdup: earlier packets' commands repeated (default 1; -1 for 0)
	Snaps      int // snaps userinfo (default 20)
	Rate       int // rate userinfo (default 25000)
	GameName   string
	// Seed makes the client challenge and qport; QPort and ClientChallenge
	// override them when not zero.
	Seed            uint64
	QPort           uint16
	ClientChallenge int32
	// Userinfo holds extra or overriding userinfo pairs.
	Userinfo oob.Info
	// Commands are reliable commands ("say hello") queued CommandDelay after
	// the client becomes Active, when the game has put the player in the
	// world (the game ignores commands of a client not yet in it).
	Commands     []string
	CommandDelay time.Duration // default 1 s
	// Input fills each new user command (ServerTime is already set); nil
	// sends no movement.
	Input   func(cmd *msg.UserCmd)
	Timeout time.Duration // no server packet for this long: disconnect (default 15 s)
	// Log receives a cl_shownet-like line per message and op when set.
	Log io.Writer
}

// FramingChoice selects the netchan framing.
type FramingChoice uint8

// Framing choices.
const (
	FramingAuto FramingChoice = iota
	FramingLegacy
	FramingChecksummed
)

// Stats is what a session saw; its JSON form is the CLI summary.
type Stats struct {
	Phase            string `json:"phase"`
	Protocol         int    `json:"protocol"`
	Framing          string `json:"framing"`
	ClientNum        int32  `json:"client_num"`
	Map              string `json:"map"`
	ServerID         int32  `json:"server_id"`
	Snapshots        int    `json:"snapshots"`
	InvalidSnapshots int    `json:"invalid_snapshots"`
	// TimeNotRising counts valid snapshots whose server time was not
	// above the previous one's.
	TimeNotRising int   `json:"time_not_rising"`
	ParseErrors   int   `json:"parse_errors"`
	NetchanErrors int   `json:"netchan_errors"`
	Dropped       int   `json:"dropped"` // server packets the netchan saw missing
	EntitiesSeen  int   `json:"entities_seen"`
	EntitiesMoved int   `json:"entities_moved"` // distinct entities whose pos.trBase changed between snapshots
	PlayersMoved  int   `json:"players_moved"`  // of which ET_PLAYER entities
	BytesIn       int64 `json:"bytes_in"`
	BytesOut      int64 `json:"bytes_out"`
	PacketsIn     int   `json:"packets_in"`
	PacketsOut    int   `json:"packets_out"`
	// ServerMessages counts netchan messages parsed.
	ServerMessages   int      `json:"server_messages"`
	ServerTimeFirst  int32    `json:"server_time_first"`
	ServerTimeLast   int32    `json:"server_time_last"`
	CommandTimeLast  int32    `json:"command_time_last"` // playerstate commandTime: our last usercmd the server ran
	ServerCommands   int      `json:"server_commands"`
	ClientCommands   int32    `json:"client_commands"`    // reliable commands queued
	ClientCommandAck int32    `json:"client_command_ack"` // of which the server acknowledged
	Usercmds         int32    `json:"usercmds"`
	PingMs           int      `json:"ping_ms"`
	Reason           string   `json:"reason,omitempty"`
	Errors           []string `json:"errors,omitempty"`
}

// outPacket is ioq3 outPacket_t: what each sent packet carried, for
// cl_packetdup and the ping.
type outPacket struct {
	cmdNumber  int32
	serverTime int32
	realtime   time.Duration
}

// Client is the I/O-free core of a Quake 3 client.
type Client struct {
	cfg   Config
	send  Sender
	phase Phase
	err   error

	clientChallenge int32
	qport           uint16
	guid            string
	challenge       int32
	protocol        int
	framing         netchan.Framing
	// framingOpen: Auto with protocol 71, and no server packet accepted
	// yet; the first one decides the framing (detectFraming).
	framingOpen bool
	resendAt    time.Duration
	resends     int

	ch     *netchan.Chan
	st     msg.ClientState
	rbuf   []byte // received message, unscrambled in place
	lastRx time.Duration

	serverID     int32
	executed     int32 // last server command handled (cgame's serverCommandSequence)
	activeSince  time.Duration
	commandsSent bool

	reliableSeq int32
	reliableAck int32
	reliable    [msg.MaxReliableCommands]string

	cmdNumber  int32
	cmds       [cmdBackup]msg.UserCmd
	outPackets [msg.PacketBackup]outPacket
	nextPacket time.Duration

	timeDelta     int32 // server time minus our clock, ms
	haveTimeDelta bool
	lastCmdTime   int32

	// entity tracking
	seenEnt  [msg.MaxGEntities]bool
	movedEnt [msg.MaxGEntities]bool
	prevSnap int32 // message number of the last valid snapshot tracked

	// outgoing scratch
	w      msg.Writer
	wbuf   []byte
	pkt    []byte
	cm     msg.ClientMessage
	ccs    [msg.MaxReliableCommands]msg.ClientCommand
	move   msg.Move
	ops    []msg.ClientOp
	outBuf []byte

	rec *recorder

	stats Stats
}

// New returns a client that will connect through send; call Advance to
// start the handshake.
func New(cfg Config, send Sender) (*Client, error) {
	if cfg.Name == "" {
		cfg.Name = "snapwire"
	}
	if cfg.Protocol != 0 && cfg.Protocol != 68 && cfg.Protocol != 71 {
		return nil, fmt.Errorf("%w: protocol %d (68 or 71)", ErrConfig, cfg.Protocol)
	}
	if cfg.PacketRate == 0 {
		cfg.PacketRate = DefaultPacketRate
	}
	if cfg.PacketRate < MinPacketRate || cfg.PacketRate > MaxPacketRate {
		return nil, fmt.Errorf("%w: packet rate %d (%d..%d)", ErrConfig, cfg.PacketRate, MinPacketRate, MaxPacketRate)
	}
	switch {
	case cfg.PacketDup == 0:
		cfg.PacketDup = DefaultPacketDup
	case cfg.PacketDup < 0:
		cfg.PacketDup = 0
	case cfg.PacketDup > MaxPacketDup:
		return nil, fmt.Errorf("%w: packetdup %d (0..%d)", ErrConfig, cfg.PacketDup, MaxPacketDup)
	}
	if cfg.Snaps == 0 {
		cfg.Snaps = DefaultSnaps
	}
	if cfg.Rate == 0 {
		cfg.Rate = DefaultRate
	}
	if cfg.GameName == "" {
		cfg.GameName = DefaultGameName
	}
	if cfg.CommandDelay == 0 {
		cfg.CommandDelay = time.Second
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultTimeout
	}
	if send == nil {
		return nil, fmt.Errorf("%w: nil sender", ErrConfig)
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x71c11e47))
	c := &Client{cfg: cfg, send: send, phase: Challenging, prevSnap: -1}
	c.clientChallenge = cfg.ClientChallenge
	if c.clientChallenge == 0 {
		c.clientChallenge = int32(rng.Uint32() & 0x7fffffff) // ioq3: ((rand() << 16) ^ rand()) ^ Com_Milliseconds()
	}
	c.qport = cfg.QPort
	if c.qport == 0 {
		c.qport = uint16(rng.UintN(65535) + 1)
	}
	// cl_guid: 32 upper-case hex digits (ioq3 CL_UpdateGUID makes an MD5
	// of the cd key file; any such string passes OpenArena's check).
	c.guid = fmt.Sprintf("%016X%016X", rng.Uint64(), rng.Uint64())
	c.protocol = cfg.Protocol
	c.stats.Protocol = cfg.Protocol
	return c, nil
}

// Phase is the connection state.
func (c *Client) Phase() Phase { return c.phase }

// Err is why the client is Disconnected (nil while connected, and after a
// clean Disconnect).
func (c *Client) Err() error { return c.err }

// State is the parse state: configstrings, baselines, the snapshot ring.
func (c *Client) State() *msg.ClientState { return &c.st }

// Snapshot is the latest valid snapshot: its player state and entities.
func (c *Client) Snapshot() *msg.Snapshot { return &c.st.Snap }

// QPort is the qport the client sends.
func (c *Client) QPort() uint16 { return c.qport }

// ClientChallenge is the challenge the client sends in getchallenge.
func (c *Client) ClientChallenge() int32 { return c.clientChallenge }

// Stats returns the counters so far.
func (c *Client) Stats() Stats {
	s := c.stats
	s.Phase = c.phase.String()
	s.Protocol = c.protocol
	if c.ch != nil {
		s.Framing = c.framing.String()
	}
	s.ClientNum = c.st.ClientNum
	s.ServerID = c.serverID
	s.ClientCommands = c.reliableSeq
	s.ClientCommandAck = c.reliableAck
	s.Usercmds = c.cmdNumber
	s.Errors = append([]string(nil), c.stats.Errors...)
	return s
}

func (c *Client) addError(counter *int, err error) {
	*counter++
	if len(c.stats.Errors) < maxErrors {
		c.stats.Errors = append(c.stats.Errors, err.Error())
	}
}

func (c *Client) logf(format string, args ...any) {
	if c.cfg.Log != nil {
		fmt.Fprintf(c.cfg.Log, format+"\n", args...)
	}
}

// fail ends the session.
func (c *Client) fail(err error) {
	if c.phase == Disconnected {
		return
	}
	c.phase = Disconnected
	c.err = err
	if err != nil {
		c.stats.Reason = err.Error()
		c.logf("disconnected: %v", err)
	}
}

// HandlePacket processes one UDP payload from the server at time now.
// Errors report what was wrong with the packet; the session goes on
// unless Phase says Disconnected.
func (c *Client) HandlePacket(now time.Duration, pkt []byte) error {
	c.stats.BytesIn += int64(len(pkt))
	c.stats.PacketsIn++
	if c.phase == Disconnected {
		return nil
	}
	if oob.IsOOB(pkt) {
		return c.handleOOB(now, pkt)
	}
	if c.ch == nil {
		return nil // netchan packet before connectResponse: ignored, as ioq3
	}
	if c.framingOpen {
		c.detectFraming(pkt)
	}
	m, seq, ok, err := c.ch.Process(pkt)
	if err != nil {
		c.addError(&c.stats.NetchanErrors, fmt.Errorf("netchan: %w", err))
		return err
	}
	if !ok {
		return nil
	}
	c.stats.Dropped += int(c.ch.Dropped)
	c.lastRx = now
	c.rbuf = append(c.rbuf[:0], m...)
	m = c.rbuf
	if c.framing == netchan.Legacy {
		// CL_Netchan_Decode reads the acknowledge from the still scrambled
		// message and keys on our command of that number.
		ack := readLong(m)
		netchan.ServerXOR(m, c.challenge, seq, c.reliable[ack&(msg.MaxReliableCommands-1)])
	}
	return c.parseServerMessage(now, m, seq)
}

// Advance sends whatever is due at now and returns the time it wants to
// be called again (a time in the past when disconnected: there is nothing
// left to do).
func (c *Client) Advance(now time.Duration) time.Duration {
	switch c.phase {
	case Challenging, Connecting:
		if now < c.resendAt {
			return c.resendAt
		}
		if c.resends >= MaxResends {
			c.fail(fmt.Errorf("%w: %d %s attempts", ErrNoAnswer, c.resends, c.phase))
			return now
		}
		c.resends++
		c.resendAt = now + ResendInterval
		var err error
		if c.phase == Challenging {
			gc := oob.GetChallenge{ClientChallenge: strconv.Itoa(int(c.clientChallenge)), GameName: c.cfg.GameName}
			c.outBuf, err = gc.Append(c.outBuf[:0])
		} else {
			var ui string
			if ui, err = c.userinfo(); err == nil {
				cn := oob.Connect{Userinfo: ui}
				c.outBuf, err = cn.Append(c.outBuf[:0])
			}
		}
		if err != nil {
			c.fail(err)
			return now
		}
		c.transmitRaw(c.outBuf)
		return c.resendAt
	case Connected, Primed, Active:
		if now-c.lastRx > c.cfg.Timeout {
			c.fail(ErrTimeout)
			return now
		}
		if c.phase == Active && !c.commandsSent && now-c.activeSince >= c.cfg.CommandDelay {
			c.commandsSent = true
			for _, t := range c.cfg.Commands {
				if err := c.AddCommand(t); err != nil {
					c.fail(err)
					return now
				}
			}
		}
		if now < c.nextPacket {
			return c.nextPacket
		}
		c.writePacket(now)
		if c.phase == Connected {
			c.nextPacket = now + connectedPeriod
		} else {
			c.nextPacket += time.Second / time.Duration(c.cfg.PacketRate)
			if c.nextPacket <= now { // fell behind: do not burst
				c.nextPacket = now + time.Second/time.Duration(c.cfg.PacketRate)
			}
		}
		return c.nextPacket
	}
	return now
}

// Disconnect sends the reliable "disconnect" three times, as ioq3
// CL_Disconnect does, and ends the session.
func (c *Client) Disconnect(now time.Duration) {
	if c.phase >= Connected && c.phase != Disconnected {
		if c.AddCommand("disconnect") == nil {
			for range 3 {
				c.writePacket(now)
			}
		}
	}
	if c.phase != Disconnected {
		c.phase = Disconnected
		c.stats.Reason = "quit"
	}
}
