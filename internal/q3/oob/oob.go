package oob

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/snapwire/snapwire/internal/q3/huffman"
)

// Marker is the four 0xff bytes that start every connectionless packet.
var Marker = []byte{0xff, 0xff, 0xff, 0xff}

// MaxMsgLen bounds a decompressed connect packet (ioq3 MAX_MSGLEN).
const MaxMsgLen = 16384

// Errors.
var (
	ErrNotOOB = errors.New("oob: not a connectionless packet")
	ErrBad    = errors.New("oob: malformed packet")
)

// IsOOB reports whether a UDP payload is connectionless (sequence -1).
func IsOOB(b []byte) bool { return len(b) >= 4 && bytes.Equal(b[:4], Marker) }

// Message is one connectionless message.
type Message interface {
	// Command is the first token ("getinfo", "connectResponse", ...).
	Command() string
	// Append appends the packet, marker included, in the form ioq3 sends.
	Append(b []byte) ([]byte, error)
}

// GetInfo asks a server for its info string (client and tools to server).
//
//	"getinfo" [challenge]
type GetInfo struct{ Challenge string }

// GetStatus asks for the serverinfo and the player list.
//
//	"getstatus" [challenge]
type GetStatus struct{ Challenge string }

// GetChallenge starts a connection.
//
//	"getchallenge" [clientChallenge [gamename]]   (ioq3 sends both; 1.32 neither)
type GetChallenge struct {
	ClientChallenge string
	GameName        string
}

// ChallengeResponse answers getchallenge.
//
//	"challengeResponse" challenge [clientChallenge [protocol]]
type ChallengeResponse struct {
	Challenge       int32
	ClientChallenge int32
	Protocol        int32
	NArgs           int // arguments present: 1 (id 1.32) or 3 (ioq3)
}

// Connect carries the userinfo (adaptive-Huffman compressed on the wire
// from byte 12: ioq3 NET_OutOfBandData + Huff_Compress).
//
//	"connect " [u16 BE length] [compressed: "\"" userinfo "\""]
type Connect struct{ Userinfo string }

// ConnectResponse accepts a connection.
//
//	"connectResponse" [challenge]
type ConnectResponse struct {
	Challenge    int32
	HasChallenge bool
}

// InfoResponse answers getinfo.
//
//	"infoResponse\n" info
type InfoResponse struct{ Info string }

// StatusResponse answers getstatus.
//
//	"statusResponse\n" serverinfo "\n" { score ping "name" "\n" }
type StatusResponse struct {
	Info    string
	Players []Player
}

// Player is one line of a statusResponse.
type Player struct {
	Score, Ping int
	Name        string
}

// Print is a message for the console (refusals, errors).
//
//	"print\n" text
type Print struct{ Text string }

// Disconnect tells a client it was dropped.
type Disconnect struct{}

// Unknown is any other command, kept as its tokens and raw text.
type Unknown struct {
	Args []string
	Raw  string
}

func (*GetInfo) Command() string           { return "getinfo" }
func (*GetStatus) Command() string         { return "getstatus" }
func (*GetChallenge) Command() string      { return "getchallenge" }
func (*ChallengeResponse) Command() string { return "challengeResponse" }
func (*Connect) Command() string           { return "connect" }
func (*ConnectResponse) Command() string   { return "connectResponse" }
func (*InfoResponse) Command() string      { return "infoResponse" }
func (*StatusResponse) Command() string    { return "statusResponse" }
func (*Print) Command() string             { return "print" }
func (*Disconnect) Command() string        { return "disconnect" }
func (u *Unknown) Command() string {
	if len(u.Args) == 0 {
		return ""
	}
	return u.Args[0]
}

func appendText(b []byte, s string) []byte {
	b = append(b, Marker...)
	return append(b, s...)
}

func (m *GetInfo) Append(b []byte) ([]byte, error) {
	if m.Challenge == "" {
		return appendText(b, "getinfo"), nil
	}
	return appendText(b, "getinfo "+m.Challenge), nil
}

func (m *GetStatus) Append(b []byte) ([]byte, error) {
	if m.Challenge == "" {
		return appendText(b, "getstatus"), nil
	}
	return appendText(b, "getstatus "+m.Challenge), nil
}

func (m *GetChallenge) Append(b []byte) ([]byte, error) {
	s := "getchallenge"
	if m.ClientChallenge != "" {
		s += " " + m.ClientChallenge
		if m.GameName != "" {
			s += " " + m.GameName
		}
	}
	return appendText(b, s), nil
}

func (m *ChallengeResponse) Append(b []byte) ([]byte, error) {
	switch m.NArgs {
	case 1:
		return appendText(b, fmt.Sprintf("challengeResponse %d", m.Challenge)), nil
	case 2:
		return appendText(b, fmt.Sprintf("challengeResponse %d %d", m.Challenge, m.ClientChallenge)), nil
	}
	return appendText(b, fmt.Sprintf("challengeResponse %d %d %d", m.Challenge, m.ClientChallenge, m.Protocol)), nil
}

func (m *Connect) Append(b []byte) ([]byte, error) {
	if len(m.Userinfo) >= MaxInfoString {
		return b, fmt.Errorf("%w: userinfo of %d bytes", ErrInfo, len(m.Userinfo))
	}
	b = appendText(b, "connect ")
	return huffman.Compress(b, []byte("\""+m.Userinfo+"\""))
}

func (m *ConnectResponse) Append(b []byte) ([]byte, error) {
	if !m.HasChallenge {
		return appendText(b, "connectResponse"), nil
	}
	return appendText(b, fmt.Sprintf("connectResponse %d", m.Challenge)), nil
}

func (m *InfoResponse) Append(b []byte) ([]byte, error) {
	return appendText(b, "infoResponse\n"+m.Info), nil
}

func (m *StatusResponse) Append(b []byte) ([]byte, error) {
	var sb strings.Builder
	sb.WriteString("statusResponse\n")
	sb.WriteString(m.Info)
	sb.WriteByte('\n')
	for _, p := range m.Players {
		fmt.Fprintf(&sb, "%d %d \"%s\"\n", p.Score, p.Ping, p.Name)
	}
	return appendText(b, sb.String()), nil
}

func (m *Print) Append(b []byte) ([]byte, error) { return appendText(b, "print\n"+m.Text), nil }

func (m *Disconnect) Append(b []byte) ([]byte, error) { return appendText(b, "disconnect"), nil }

func (m *Unknown) Append(b []byte) ([]byte, error) { return appendText(b, m.Raw), nil }

// oobText is the engine's view of the packet text after the marker: bytes
// up to the first NUL, with '%' and bytes above 127 read as '.'
// (MSG_ReadString* in OOB mode).
func oobText(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	out := []byte(string(b))
	for i, c := range out {
		if c == '%' || c > 127 {
			out[i] = '.'
		}
	}
	return string(out)
}

// firstLine splits the text at the first '\n' (MSG_ReadStringLine), the
// line capped at MAX_STRING_CHARS-1 as in the engine.
func firstLine(s string) (line, rest string) {
	line, rest, _ = strings.Cut(s, "\n")
	if len(line) >= maxStringChars {
		line = line[:maxStringChars-1]
	}
	return line, rest
}

func atoi(s string) int32 {
	// C atoi: leading spaces, sign, digits, stop at the first non-digit.
	s = strings.TrimLeft(s, " \t")
	neg := false
	if s != "" && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		s = s[1:]
	}
	var v int64
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			break
		}
		v = v*10 + int64(c-'0')
		if v > 1<<32 {
			break
		}
	}
	if neg {
		v = -v
	}
	return int32(v)
}

// ParseClientPacket parses a connectionless packet sent by a client (or a
// query tool) to a server, as ioq3 SV_ConnectionlessPacket reads it.
func ParseClientPacket(b []byte) (Message, error) {
	if !IsOOB(b) {
		return nil, ErrNotOOB
	}
	if len(b) >= 11 && string(b[4:11]) == "connect" { // Q_strncmp(..., 7)
		if len(b) < 12 {
			return nil, fmt.Errorf("%w: short connect", ErrBad)
		}
		data, err := huffman.Decompress(nil, b[12:], MaxMsgLen-12)
		if err != nil {
			return nil, fmt.Errorf("%w: connect: %v", ErrBad, err)
		}
		line, _ := firstLine(oobText(append([]byte(string(b[4:12])), data...)))
		args := Tokenize(line)
		if len(args) < 2 || args[0] != "connect" {
			return &Unknown{Args: args, Raw: string(b[4:])}, nil
		}
		return &Connect{Userinfo: args[1]}, nil
	}
	line, _ := firstLine(oobText(b[4:]))
	args := Tokenize(line)
	arg := func(i int) string {
		if i < len(args) {
			return args[i]
		}
		return ""
	}
	switch strings.ToLower(arg(0)) {
	case "getinfo":
		return &GetInfo{Challenge: arg(1)}, nil
	case "getstatus":
		return &GetStatus{Challenge: arg(1)}, nil
	case "getchallenge":
		return &GetChallenge{ClientChallenge: arg(1), GameName: arg(2)}, nil
	}
	return &Unknown{Args: args, Raw: string(b[4:])}, nil
}

// ParseServerPacket parses a connectionless packet sent by a server, as
// ioq3 CL_ConnectionlessPacket reads it.
func ParseServerPacket(b []byte) (Message, error) {
	if !IsOOB(b) {
		return nil, ErrNotOOB
	}
	text := oobText(b[4:])
	line, rest := firstLine(text)
	args := Tokenize(line)
	arg := func(i int) string {
		if i < len(args) {
			return args[i]
		}
		return ""
	}
	switch strings.ToLower(arg(0)) {
	case "challengeresponse":
		if len(args) < 2 {
			return nil, fmt.Errorf("%w: challengeResponse without a challenge", ErrBad)
		}
		m := &ChallengeResponse{Challenge: atoi(arg(1)), NArgs: min(len(args)-1, 3)}
		if len(args) > 2 {
			m.ClientChallenge = atoi(arg(2))
		}
		if len(args) > 3 {
			m.Protocol = atoi(arg(3))
		}
		return m, nil
	case "connectresponse":
		m := &ConnectResponse{}
		if len(args) > 1 {
			m.Challenge, m.HasChallenge = atoi(arg(1)), true
		}
		return m, nil
	case "inforesponse":
		if len(rest) >= MaxInfoString {
			return nil, fmt.Errorf("%w: infoResponse of %d bytes", ErrInfo, len(rest))
		}
		return &InfoResponse{Info: rest}, nil
	case "statusresponse":
		info, players, _ := strings.Cut(rest, "\n")
		if len(info) >= BigInfoString {
			return nil, fmt.Errorf("%w: statusResponse info of %d bytes", ErrInfo, len(info))
		}
		m := &StatusResponse{Info: info}
		for _, l := range strings.Split(players, "\n") {
			if l == "" {
				continue
			}
			if len(m.Players) >= 256 {
				return nil, fmt.Errorf("%w: too many players", ErrBad)
			}
			var p Player
			f := strings.SplitN(l, " ", 3)
			if len(f) != 3 {
				return nil, fmt.Errorf("%w: player line %q", ErrBad, l)
			}
			sc, err1 := strconv.Atoi(f[0])
			pi, err2 := strconv.Atoi(f[1])
			if err1 != nil || err2 != nil {
				return nil, fmt.Errorf("%w: player line %q", ErrBad, l)
			}
			p.Score, p.Ping = sc, pi
			p.Name = strings.TrimSuffix(strings.TrimPrefix(f[2], "\""), "\"")
			m.Players = append(m.Players, p)
		}
		return m, nil
	case "print":
		return &Print{Text: rest}, nil
	case "disconnect":
		return &Disconnect{}, nil
	}
	return &Unknown{Args: args, Raw: string(b[4:])}, nil
}
