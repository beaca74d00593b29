package netchan

import "fmt"

// Chan is one end of a netchan (ioq3 netchan_t, Netchan_Transmit /
// Netchan_TransmitNextFragment / Netchan_Process): sequencing, the qport,
// the optional checksum, and fragmentation of messages of FragmentSize
// bytes or more into FragmentSize pieces (a final piece shorter than
// FragmentSize, possibly empty, ends the message). It does no I/O and no
// XOR: callers apply ServerXOR / ClientXOR around it in Legacy framing.
type Chan struct {
	// Sends is the direction of the packets this end sends: a client's
	// Chan sends ClientToServer and processes ServerToClient.
	Sends     Direction
	Framing   Framing
	QPort     uint16 // sent by a client; ignored (not checked) by a server, as in ioq3
	Challenge int32  // checksum key (Checksummed framing)

	OutgoingSequence int32 // next sequence to send (starts at 1)
	IncomingSequence int32 // last sequence processed
	Dropped          int32 // packets missed before the last one processed

	fragmentSequence int32
	fragmentBuf      []byte

	unsent          []byte
	unsentStart     int
	unsentFragments bool
}

// NewChan returns a channel with fresh sequences (ioq3 Netchan_Setup).
func NewChan(sends Direction, f Framing, qport uint16, challenge int32) *Chan {
	return &Chan{Sends: sends, Framing: f, QPort: qport, Challenge: challenge, OutgoingSequence: 1}
}

func (c *Chan) receives() Direction {
	if c.Sends == ClientToServer {
		return ServerToClient
	}
	return ClientToServer
}

// Transmit appends to dst the packet carrying msg, or its first fragment
// when msg is FragmentSize bytes or longer; then send the rest with
// TransmitNextFragment while UnsentFragments. A 0-length msg still makes a
// packet.
func (c *Chan) Transmit(dst, msg []byte) ([]byte, error) {
	if len(msg) > MaxMsgLen {
		return dst, fmt.Errorf("%w: %d bytes", ErrTooLong, len(msg))
	}
	c.unsentStart = 0
	if len(msg) >= FragmentSize {
		c.unsentFragments = true
		c.unsent = append(c.unsent[:0], msg...)
		return c.TransmitNextFragment(dst), nil
	}
	h := Header{Sequence: c.OutgoingSequence, QPort: c.QPort, Checksum: GenChecksum(c.Challenge, c.OutgoingSequence)}
	dst = AppendHeader(dst, &h, c.Sends, c.Framing)
	c.OutgoingSequence++
	return append(dst, msg...), nil
}

// UnsentFragments reports whether a fragmented message is partly sent.
func (c *Chan) UnsentFragments() bool { return c.unsentFragments }

// TransmitNextFragment appends the next fragment packet to dst (nothing if
// none is pending).
func (c *Chan) TransmitNextFragment(dst []byte) []byte {
	if !c.unsentFragments {
		return dst
	}
	n := FragmentSize
	if c.unsentStart+n > len(c.unsent) {
		n = len(c.unsent) - c.unsentStart
	}
	h := Header{
		Sequence: c.OutgoingSequence, Fragmented: true, QPort: c.QPort,
		Checksum:  GenChecksum(c.Challenge, c.OutgoingSequence),
		FragStart: uint16(c.unsentStart), FragLen: uint16(n),
	}
	dst = AppendHeader(dst, &h, c.Sends, c.Framing)
	dst = append(dst, c.unsent[c.unsentStart:c.unsentStart+n]...)
	c.unsentStart += n
	// A message of an exact multiple of FragmentSize ends with an empty fragment.
	if c.unsentStart == len(c.unsent) && n != FragmentSize {
		c.OutgoingSequence++
		c.unsentFragments = false
	}
	return dst
}

// Process handles one received packet (ioq3 Netchan_Process). It returns
// the message (without header; a reassembled one for fragments) and its
// sequence when there is one to parse. ok is false, with a nil error, for
// duplicates, out-of-order packets and fragments of an incomplete message;
// err reports malformed packets and checksum mismatches (which the engine
// also drops). The returned message aliases pkt or the channel's fragment
// buffer until the next call.
func (c *Chan) Process(pkt []byte) (msg []byte, seq int32, ok bool, err error) {
	h, n, err := ParseHeader(pkt, c.receives(), c.Framing)
	if err != nil {
		return nil, 0, false, err
	}
	if c.Framing == Checksummed && h.Checksum != GenChecksum(c.Challenge, h.Sequence) {
		return nil, h.Sequence, false, ErrChecksum
	}
	if h.Sequence <= c.IncomingSequence {
		return nil, h.Sequence, false, nil
	}
	c.Dropped = h.Sequence - (c.IncomingSequence + 1)
	if !h.Fragmented {
		c.IncomingSequence = h.Sequence
		return pkt[n:], h.Sequence, true, nil
	}
	if h.Sequence != c.fragmentSequence {
		c.fragmentSequence = h.Sequence
		c.fragmentBuf = c.fragmentBuf[:0]
	}
	if int(h.FragStart) != len(c.fragmentBuf) { // a missed fragment: wait for a resend
		return nil, h.Sequence, false, nil
	}
	// The engine reads start and length as signed shorts.
	fl := int(int16(h.FragLen))
	if fl < 0 || n+fl > len(pkt) || len(c.fragmentBuf)+fl > MaxMsgLen {
		return nil, h.Sequence, false, fmt.Errorf("%w: %s in %d-byte packet", ErrFragment, h, len(pkt))
	}
	c.fragmentBuf = append(c.fragmentBuf, pkt[n:n+fl]...)
	if fl == FragmentSize {
		return nil, h.Sequence, false, nil
	}
	msg = c.fragmentBuf
	c.fragmentBuf = c.fragmentBuf[:0] // as the engine's fragmentLength = 0; msg stays valid until the next call
	c.IncomingSequence = h.Sequence
	return msg, h.Sequence, true, nil
}
