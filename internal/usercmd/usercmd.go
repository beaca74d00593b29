// Package usercmd is the wire codec of user commands (DOOM III §3.3, fig.
// 11): a game.UserCmd delta-compressed against the one before, and the
// user command message a client sends, which the server parses. Games never
// call it: they fill in game.UserCmd and read it in Game.RunFrame.
package usercmd

import (
	"fmt"
	"time"

	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/game"
)

// MaxCmds bounds the number of commands in one user command message:
// about a second at 60 Hz, far more than the few frames a client sends per
// packet (with the earlier unacknowledged ones for redundancy).
const MaxCmds = 64

// maxLeadMS bounds the lead time field (16 bits signed).
const maxLeadMS = 32767

// userCmdField is one entry of the user command field table; the table order
// is the wire order (like ioq3 msg.c's field tables). The values
// are reached through field / setField (a switch on the index, so
// that no pointer escapes through a func value and nothing allocates).
type userCmdField struct {
	name   string
	bits   int
	signed bool // an int8 movement: -128 is outside -127..127 and rejected
}

// userCmdFields lists every game.UserCmd field except Frame, which is implied.
// TestUserCmdFieldTable fails if the struct and the table drift apart.
var userCmdFields = [...]userCmdField{
	{"Buttons", 16, false},
	{"Forward", 8, true},
	{"Right", 8, true},
	{"Up", 8, true},
	{"Yaw", 16, false},
	{"Pitch", 16, false},
}

// field returns the wire value of table field i.
func field(c *game.UserCmd, i int) uint32 {
	switch i {
	case 0:
		return uint32(c.Buttons)
	case 1:
		return uint32(uint8(c.Forward))
	case 2:
		return uint32(uint8(c.Right))
	case 3:
		return uint32(uint8(c.Up))
	case 4:
		return uint32(c.Yaw)
	case 5:
		return uint32(c.Pitch)
	}
	panic("usercmd: field index")
}

// setField stores the wire value v into table field i.
func setField(c *game.UserCmd, i int, v uint32) {
	switch i {
	case 0:
		c.Buttons = game.Buttons(v)
	case 1:
		c.Forward = int8(v)
	case 2:
		c.Right = int8(v)
	case 3:
		c.Up = int8(v)
	case 4:
		c.Yaw = uint16(v)
	case 5:
		c.Pitch = uint16(v)
	default:
		panic("usercmd: field index")
	}
}

// int8Min is the encoding of -128 in an 8-bit signed field.
const int8Min = 0x80

// WriteDelta writes cmd delta-compressed against base (DOOM III §4.2):
// for each field of the table (Buttons 16, Forward 8, Right 8, Up 8, Yaw 16,
// Pitch 16 bits) a 0 bit if it equals base's, else a 1 bit and the value.
// Frame is not written. A movement of -128 is an game.ErrRange error and nothing
// is written.
func WriteDelta(w *bitmsg.Writer, base, cmd *game.UserCmd) error {
	if err := checkUserCmd(cmd); err != nil {
		return err
	}
	for i := range userCmdFields {
		f := &userCmdFields[i]
		v := field(cmd, i)
		if v == field(base, i) {
			w.WriteBool(false)
			continue
		}
		w.WriteBool(true)
		w.WriteBits(v, f.bits)
	}
	return nil
}

// DeltaBits returns the number of bits WriteDelta writes.
func DeltaBits(base, cmd *game.UserCmd) int {
	n := 0
	for i := range userCmdFields {
		f := &userCmdFields[i]
		n++
		if field(cmd, i) != field(base, i) {
			n += f.bits
		}
	}
	return n
}

// ReadDelta reads a command written by WriteDelta into cmd;
// cmd.Frame is left unchanged (the caller knows it).
func ReadDelta(r *bitmsg.Reader, base, cmd *game.UserCmd) error {
	frame := cmd.Frame
	*cmd = *base
	cmd.Frame = frame
	for i := range userCmdFields {
		f := &userCmdFields[i]
		if !r.ReadBool() {
			continue
		}
		v := r.ReadBits(f.bits)
		if f.signed && v == int8Min {
			return fmt.Errorf("%w: usercmd %s -128 outside -127..127", game.ErrCorrupt, f.name)
		}
		setField(cmd, i, v)
	}
	if err := r.Err(); err != nil {
		return fmt.Errorf("%w: usercmd: %w", game.ErrCorrupt, err)
	}
	return nil
}

func checkUserCmd(c *game.UserCmd) error {
	if c.Forward == -128 || c.Right == -128 || c.Up == -128 {
		return fmt.Errorf("%w: usercmd movement -128 outside -127..127", game.ErrRange)
	}
	return nil
}

// Message is the body of a client's user command message (DOOM III
// §3.3, fig. 11).
//
// Wire layout (bitmsg, LSB first):
//
//	lead      16 bits  signed milliseconds the client predicts ahead of the
//	                   server, clamped to -32767..32767
//	frame     32 bits  frame of the first command (0..2^31-1)
//	count-1    6 bits  number of commands, 1..MaxCmds
//	commands           count × WriteDelta: the first against the
//	                   caller's base, each next one against the one before
//
// Command i is for frame+i.
type Message struct {
	// Lead is how far the client predicts ahead of the server; whole
	// milliseconds on the wire. The server only displays it (§3.3).
	Lead time.Duration
	// Cmds holds consecutive commands: Cmds[i].Frame == Cmds[0].Frame+i.
	Cmds []game.UserCmd
}

// userCmdHeaderBits is the size of the message before the commands.
const userCmdHeaderBits = 16 + 32 + 6

// Append writes the message to w, the first command delta-compressed
// against base (for example the zero command, or the last command the
// server is known to have). It returns an error, having written nothing, if
// the message is invalid; w's own error (overflow) is w.Err().
func (m *Message) Append(w *bitmsg.Writer, base game.UserCmd) error {
	n := len(m.Cmds)
	if n < 1 || n > MaxCmds {
		return fmt.Errorf("%w: %d user commands, want 1..%d", game.ErrRange, n, MaxCmds)
	}
	first := m.Cmds[0].Frame
	if first < 0 || int64(first)+int64(n-1) > 1<<31-1 {
		return fmt.Errorf("%w: first command frame %d", game.ErrRange, first)
	}
	for i := range m.Cmds {
		if m.Cmds[i].Frame != first+game.Frame(i) {
			return fmt.Errorf("%w: command %d is for frame %d, want %d", game.ErrRange, i, m.Cmds[i].Frame, first+game.Frame(i))
		}
		if err := checkUserCmd(&m.Cmds[i]); err != nil {
			return err
		}
	}
	ms := m.Lead.Milliseconds()
	ms = min(max(ms, -maxLeadMS), maxLeadMS)
	w.WriteInt(int32(ms), 16)
	w.WriteBits(uint32(first), 32)
	w.WriteBits(uint32(n-1), 6)
	prev := &base
	for i := range m.Cmds {
		_ = WriteDelta(w, prev, &m.Cmds[i]) // checked above
		prev = &m.Cmds[i]
	}
	return nil
}

// Bits returns the encoded size of the message against base.
func (m *Message) Bits(base game.UserCmd) int {
	n := userCmdHeaderBits
	prev := &base
	for i := range m.Cmds {
		n += DeltaBits(prev, &m.Cmds[i])
		prev = &m.Cmds[i]
	}
	return n
}

// Parse reads a message written by Append against the same base. It reuses
// m.Cmds' memory (at most MaxCmds commands are ever stored).
func (m *Message) Parse(r *bitmsg.Reader, base game.UserCmd) error {
	m.Cmds = m.Cmds[:0]
	lead := r.ReadInt(16)
	first := int32(r.ReadBits(32))
	n := int(r.ReadBits(6)) + 1
	if err := r.Err(); err != nil {
		return fmt.Errorf("%w: usercmd header: %w", game.ErrCorrupt, err)
	}
	if lead < -maxLeadMS {
		return fmt.Errorf("%w: usercmd lead %d ms", game.ErrCorrupt, lead)
	}
	if first < 0 || int64(first)+int64(n-1) > 1<<31-1 {
		return fmt.Errorf("%w: usercmd first frame %d with %d commands", game.ErrCorrupt, first, n)
	}
	m.Lead = time.Duration(lead) * time.Millisecond
	prev := base
	for i := 0; i < n; i++ {
		c := game.UserCmd{Frame: game.Frame(first) + game.Frame(i)}
		if err := ReadDelta(r, &prev, &c); err != nil {
			m.Cmds = m.Cmds[:0]
			return fmt.Errorf("command %d of %d: %w", i, n, err)
		}
		m.Cmds = append(m.Cmds, c)
		prev = c
	}
	return nil
}
