package netchan

import (
	"encoding/binary"
	"errors"
)

// Packet layout (docs/PROTOCOL.md, "Message channel"). Bit 0 is the least
// significant bit of a byte; multi-byte fields are little-endian.
//
//	 0                   1                   2                   3
//	 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//	+-+-+-+-+-+-----+---------------+-------------------------------+
//	|C|F|R|A|H|E|0 0| message type  |       connection id           |
//	+-+-+-+-+-+-----+---------------+-------------------------------+
//	|           sequence            |             ack               |
//	+---------------+---------------+-------------------------------+
//	| frag index    | frag count    | stream length (uvarint) ...     only if F
//	+---------------+---------------+-------------------------------+
//	| stream (whole, or this fragment's share of it) ...            |
//	+---------------------------------------------------------------+
//
//	C  compressed: the stream is a uvarint body length then the body
//	   zero-run-length compressed with 3-bit words (DOOM III §4.3).
//	F  fragment: the stream is split over frag count (2..255) packets.
//	R  reliable: the body starts with the reliable section.
//	A  ack valid: ack holds the low 16 bits of the last sequence this
//	   side received from the peer (unset until it received one).
//	H  Huffman: the stream is a uvarint body length then the body coded
//	   with snapwire's static Huffman table (internal/entropy huffman.go;
//	   ours, not the paper's). C and H together: the stream is a uvarint
//	   body length then the body range coded with the entropy model
//	   (internal/entropy rangecoder.go; ours).
//	E  encrypted: everything after the header and, if F, the fragment
//	   header is ChaCha20-Poly1305 ciphertext followed by a 16-byte tag
//	   (crypto.go); a channel with Config.Keys sends and accepts only
//	   these, a channel without accepts none.
//	The two high bits are reserved and zero, so byte 0 is never 0xFF and
//	a channel packet is never taken for a connectionless one.
//
// Body (after decompression, if C):
//
//	+---------------+-----------------------------------------
//	| count | first | count x (length uvarint, bytes) ...       only if R, count 1..15
//	+---------------+-----------------------------------------
//	|  0x00 | first mod 256 | count (16..255) | count x (...)   only if R, count 16..255
//	+-------+---------------+-----------------+---------------
//	| unreliable payload (the rest of the body) ...
//	+-----------------------------------------------
//
//	In the 1-byte form count is the high nibble and first the low 4 bits of
//	the first reliable sequence (reliable.go).
//
// HeaderLen is the size of the fixed header of every channel packet; a
// packet's stream (payload bytes) is everything after it.
const HeaderLen = headerLen

const (
	headerLen = 8

	flagCompressed = 1 << 0
	flagFragment   = 1 << 1
	flagReliable   = 1 << 2
	flagAck        = 1 << 3
	flagHuffman    = 1 << 4
	flagEncrypted  = 1 << 5
	flagsReserved  = 0xC0

	// fragment index and count bytes, plus up to 3 bytes of uvarint length.
	fragHeaderMax = 2 + 3
)

// header is the fixed part of every channel packet.
type header struct {
	flags uint8
	typ   MessageType
	conn  ConnID
	seq   uint16
	ack   uint16
}

func (h *header) put(b []byte) {
	b[0] = h.flags
	b[1] = uint8(h.typ)
	binary.LittleEndian.PutUint16(b[2:], uint16(h.conn))
	binary.LittleEndian.PutUint16(b[4:], h.seq)
	binary.LittleEndian.PutUint16(b[6:], h.ack)
}

func (h *header) parse(b []byte) error {
	if IsConnectionless(b) {
		return ErrConnectionless
	}
	if len(b) < headerLen {
		return ErrShortPacket
	}
	h.flags = b[0]
	if h.flags&flagsReserved != 0 {
		return ErrBadFlags
	}
	h.typ = MessageType(b[1])
	h.conn = ConnID(binary.LittleEndian.Uint16(b[2:]))
	h.seq = binary.LittleEndian.Uint16(b[4:])
	h.ack = binary.LittleEndian.Uint16(b[6:])
	return nil
}

// Errors returned by Receive for packets that fail validation (they deliver
// nothing), and by the sending side.
var (
	ErrShortPacket     = errors.New("netchan: packet shorter than the 8-byte header")
	ErrConnectionless  = errors.New("netchan: connectionless packet given to a channel")
	ErrBadFlags        = errors.New("netchan: reserved flag bits set")
	ErrWrongConnID     = errors.New("netchan: packet for another connection id")
	ErrBadFragment     = errors.New("netchan: bad fragment geometry")
	ErrBadLength       = errors.New("netchan: length field out of range")
	ErrBadReliable     = errors.New("netchan: malformed reliable section")
	ErrReliableGap     = errors.New("netchan: reliable sequence skips undelivered messages")
	ErrDecompress      = errors.New("netchan: payload decompression failed")
	ErrNoHuffmanTable  = errors.New("netchan: Huffman-coded packet on a channel without a Huffman table (Config.Huffman)")
	ErrNoEntropyModel  = errors.New("netchan: entropy-coded packet on a channel without an entropy model (Config.Entropy)")
	ErrReliableFull    = errors.New("netchan: too many outstanding reliable bytes or messages")
	ErrReliableTooBig  = errors.New("netchan: reliable message larger than MaxReliableMessageBytes")
	ErrMessageTooLarge = errors.New("netchan: message larger than MaxMessageBytes or 255 fragments")
	ErrAuth            = errors.New("netchan: packet failed authentication (forged, corrupted or replayed)")
	ErrNotEncrypted    = errors.New("netchan: plaintext packet on an encrypted channel, or the reverse")
	ErrSequenceJump    = errors.New("netchan: sequence jumps further ahead than MaxSequenceJump")
)

// connectionlessMarker starts every out-of-band packet, as in Quake 3
// (Quake 3 protocol description: "\xff\xff\xff\xff" then a text command).
var connectionlessMarker = [4]byte{0xFF, 0xFF, 0xFF, 0xFF}

// IsConnectionless reports whether packet is an out-of-band packet (first
// four bytes 0xFFFFFFFF), used for handshakes before a channel exists.
func IsConnectionless(packet []byte) bool {
	return len(packet) >= 4 && [4]byte(packet[:4]) == connectionlessMarker
}

// AppendConnectionless appends an out-of-band packet carrying payload to dst.
func AppendConnectionless(dst []byte, payload []byte) []byte {
	dst = append(dst, connectionlessMarker[:]...)
	return append(dst, payload...)
}

// PeekConnID returns the connection id of a channel packet without
// validating the rest, so a server can find the channel by id instead of by
// source address: "some routers may periodically change the IP port"
// (DOOM III §3; Quake 3's qport, Quake 3 protocol description).
func PeekConnID(packet []byte) (ConnID, bool) {
	if len(packet) < headerLen || IsConnectionless(packet) || packet[0]&flagsReserved != 0 {
		return 0, false
	}
	return ConnID(binary.LittleEndian.Uint16(packet[2:])), true
}

// uvarintLen is the length of v as a uvarint.
func uvarintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

// readUvarint reads a uvarint of at most maxBytes bytes whose value is at
// most limit, returning the value and its length, or n = 0 if malformed.
func readUvarint(b []byte, maxBytes int, limit uint64) (v uint64, n int) {
	v, n = binary.Uvarint(b)
	if n <= 0 || n > maxBytes || v > limit || n != uvarintLen(v) {
		return 0, 0 // truncated, overlong (non-minimal) or too large
	}
	return v, n
}
