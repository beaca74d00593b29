package netchan

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Framing is the netchan packet layout.
type Framing uint8

const (
	// Legacy is the Quake III 1.32 layout that ioq3 keeps as "compat" mode
	// (protocol 68 here): no checksum; the message is XOR-scrambled.
	Legacy Framing = iota
	// Checksummed is ioq3's protocol-71 layout: a 32-bit checksum
	// challenge ^ (sequence * challenge) follows the qport; no XOR.
	Checksummed
)

func (f Framing) String() string {
	if f == Checksummed {
		return "ioq3-checksum"
	}
	return "legacy"
}

// Direction is who sent a packet.
type Direction uint8

const (
	ClientToServer Direction = iota
	ServerToClient
)

func (d Direction) String() string {
	if d == ServerToClient {
		return "S->C"
	}
	return "C->S"
}

// Sizes from ioq3 code/qcommon/net_chan.c.
const (
	MaxPacketLen = 1400               // MAX_PACKETLEN
	FragmentSize = MaxPacketLen - 100 // FRAGMENT_SIZE: a message this long or longer is fragmented
	MaxMsgLen    = 16384              // MAX_MSGLEN
	fragmentBit  = 1 << 31            // FRAGMENT_BIT
)

// Errors.
var (
	ErrShort    = errors.New("netchan: packet too short for its header")
	ErrOOB      = errors.New("netchan: connectionless packet (sequence -1)")
	ErrChecksum = errors.New("netchan: checksum mismatch")
	ErrFragment = errors.New("netchan: illegal fragment")
	ErrTooLong  = errors.New("netchan: message longer than MAX_MSGLEN")
)

// Header is a netchan packet header (ioq3 net_chan.c "packet header"):
//
//	0      4        6            10          12         14
//	+------+--------+------------+-----------+----------+---------
//	| seq  | qport  | checksum   | fragStart | fragLen  | message
//	+------+--------+------------+-----------+----------+---------
//	 u32 LE; bit 31 of seq = fragment
//	        C->S only
//	                 Checksummed framing only
//	                              fragment only (u16 LE each)
type Header struct {
	Sequence   int32
	Fragmented bool
	QPort      uint16 // client to server only
	Checksum   int32  // Checksummed framing only
	FragStart  uint16
	FragLen    uint16
}

// Len is the header length in bytes.
func (h *Header) Len(d Direction, f Framing) int {
	n := 4
	if d == ClientToServer {
		n += 2
	}
	if f == Checksummed {
		n += 4
	}
	if h.Fragmented {
		n += 4
	}
	return n
}

// GenChecksum is ioq3 NETCHAN_GENCHECKSUM: challenge ^ (sequence *
// challenge), in wrapping 32-bit arithmetic.
func GenChecksum(challenge, sequence int32) int32 {
	return int32(uint32(challenge) ^ uint32(sequence)*uint32(challenge))
}

// AppendHeader appends h in the layout of d and f.
func AppendHeader(b []byte, h *Header, d Direction, f Framing) []byte {
	seq := uint32(h.Sequence) &^ fragmentBit
	if h.Fragmented {
		seq |= fragmentBit
	}
	b = binary.LittleEndian.AppendUint32(b, seq)
	if d == ClientToServer {
		b = binary.LittleEndian.AppendUint16(b, h.QPort)
	}
	if f == Checksummed {
		b = binary.LittleEndian.AppendUint32(b, uint32(h.Checksum))
	}
	if h.Fragmented {
		b = binary.LittleEndian.AppendUint16(b, h.FragStart)
		b = binary.LittleEndian.AppendUint16(b, h.FragLen)
	}
	return b
}

// ParseHeader parses a header and returns it with its length. A packet
// whose sequence is -1 is connectionless: ErrOOB.
func ParseHeader(b []byte, d Direction, f Framing) (Header, int, error) {
	var h Header
	if len(b) < 4 {
		return h, 0, ErrShort
	}
	raw := binary.LittleEndian.Uint32(b)
	if raw == 0xffffffff {
		return h, 0, ErrOOB
	}
	h.Fragmented = raw&fragmentBit != 0
	h.Sequence = int32(raw &^ fragmentBit)
	if len(b) < h.Len(d, f) {
		return h, 0, ErrShort
	}
	n := 4
	if d == ClientToServer {
		h.QPort = binary.LittleEndian.Uint16(b[n:])
		n += 2
	}
	if f == Checksummed {
		h.Checksum = int32(binary.LittleEndian.Uint32(b[n:]))
		n += 4
	}
	if h.Fragmented {
		h.FragStart = binary.LittleEndian.Uint16(b[n:])
		h.FragLen = binary.LittleEndian.Uint16(b[n+2:])
		n += 4
	}
	return h, n, nil
}

func (h Header) String() string {
	if h.Fragmented {
		return fmt.Sprintf("seq=%d fragment=%d,%d", h.Sequence, h.FragStart, h.FragLen)
	}
	return fmt.Sprintf("seq=%d", h.Sequence)
}
