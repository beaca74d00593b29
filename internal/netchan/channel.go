package netchan

import (
	"encoding/binary"
	"math"
	"time"

	"github.com/snapwire/snapwire/internal/entropy"
	"github.com/snapwire/snapwire/internal/zrle"
)

// Sequence numbers a channel message (and, separately, a reliable
// message). The API counts in 32 bits from 1; the wire carries the low 16
// bits, extended on receipt to the value nearest the last one seen (serial
// number arithmetic), so up to 32767 messages may be lost or reordered in a
// row. That saves 4 bytes per packet (sequence and ack) over 32-bit fields.
type Sequence uint32

// ConnID identifies a connection independently of the peer's address. The
// server picks a random one per connection and both ends carry it in every
// packet, so a NAT that changes the client's port does not break the
// connection (DOOM III §3; Quake 3's qport, Quake 3 protocol description).
type ConnID uint16

// MessageType is the type of an unreliable message, carried in every
// header (DOOM III §3.1: "the server also sends the type of the unreliable
// message"). Its meaning belongs to the layer above.
type MessageType uint8

// TypeNone with an empty payload makes a packet that carries only the ack
// and the outstanding reliable messages; it is not passed to
// Handler.Unreliable.
const TypeNone MessageType = 0

// Limits of the wire format.
const (
	// MaxReliableMessageBytes is the largest reliable message. Reliable
	// messages ride in every packet until acknowledged, so they are meant to
	// be small (DOOM III §3: "reliable messages that are very small compared
	// to unreliable messages").
	MaxReliableMessageBytes = 4096
	// MaxReliableMessages is the most unacknowledged reliable messages (the
	// count field is one byte).
	MaxReliableMessages = 255
	// MaxFragments is the most packets one message is split into.
	MaxFragments = 255
	// UDPIPOverhead is the per-packet overhead counted by rate control:
	// 20 bytes of IPv4 header and 8 of UDP header.
	UDPIPOverhead = 28
	// MinMTU is the smallest MTU accepted; smaller values are raised to it.
	MinMTU = 64
)

const (
	defaultMTU              = 1400
	defaultMaxReliableBytes = 16384
	defaultMaxMessageBytes  = 65536
	sentRing                = 1024 // sent-message records kept for acks (17 s at 60 Hz)
	lossAlpha               = 1.0 / 32
)

// Config sets a channel's limits. Zero fields take their defaults.
type Config struct {
	MTU                int // max UDP payload bytes, default 1400
	Rate               int // bytes per second incl. 28 bytes UDP/IP per packet; 0 = unlimited
	MaxReliableBytes   int // outstanding (unacknowledged) reliable bytes; default 16384
	MaxMessageBytes    int // largest unreliable message, fragmented above MTU; default 65536
	DisableCompression bool
	// Huffman, when set, is the static Huffman table (ours, not the
	// paper's; package internal/entropy) both ends use: the sender codes a body with it instead of
	// DOOM III's zrle when that gives a shorter stream, and the receiver
	// decodes H packets with it (and rejects them, ErrNoHuffmanTable,
	// when it has none). Both ends must hold the same table. The default
	// is the paper's pipeline, zrle only.
	Huffman *entropy.HuffmanTable
	// Entropy, when set, is the prior of the adaptive entropy stage (ours,
	// not the paper's; package internal/entropy's range coder) both ends use: the sender range codes a
	// body with it when that is shorter than zrle and Huffman, and the
	// receiver decodes such packets with it (ErrNoEntropyModel when it has
	// none). Both ends must hold the same model. Default off.
	Entropy *entropy.Model
	// Burst is the depth of the rate limiter's token bucket in bytes;
	// 0 means max(Rate/10, 2*(MTU+28)).
	Burst int
	// Keys, when set, authenticate and encrypt every packet both ways
	// (crypto.go); both ends must have them, with Send and Recv swapped.
	Keys *Keys
}

func (c Config) withDefaults() Config {
	if c.MTU <= 0 {
		c.MTU = defaultMTU
	}
	c.MTU = min(max(c.MTU, MinMTU), 65507)
	if c.MaxReliableBytes <= 0 {
		c.MaxReliableBytes = defaultMaxReliableBytes
	}
	if c.MaxMessageBytes <= 0 {
		c.MaxMessageBytes = defaultMaxMessageBytes
	}
	if c.Rate > 0 && c.Burst <= 0 {
		c.Burst = max(c.Rate/10, 2*(c.MTU+UDPIPOverhead))
	}
	return c
}

// Handler receives what a packet delivers. The slices are valid only
// during the call.
type Handler interface {
	// Reliable is called for each reliable message, in order, exactly
	// once, before the unreliable payload of the same packet.
	Reliable(msg []byte)
	// Unreliable is called for each unreliable message, in order of
	// sequence, never twice; lost and late messages are skipped.
	Unreliable(typ MessageType, msg []byte)
}

// Stats are a channel's counters and estimates.
type Stats struct {
	PacketsOut, PacketsIn uint64 // UDP packets sent / given to Receive
	BytesOut, BytesIn     uint64 // their UDP payload bytes (without the 28 of UDP/IP)
	MessagesOut           uint64 // Send calls that sent
	MessagesIn            uint64 // messages accepted (complete, in order, valid)
	Compressed            uint64 // messages sent compressed (zrle or Huffman)
	FragmentsOut          uint64 // packets sent as fragments
	FragmentsIn           uint64 // fragments stored for reassembly
	ReassemblyFailures    uint64 // incomplete reassemblies given up (a newer message arrived)
	DroppedLate           uint64 // packets older than the last delivered message, never delivered
	DroppedDuplicate      uint64 // packets (or fragments) already received
	MessagesLost          uint64 // sequence numbers skipped by delivered messages
	Rejected              uint64 // packets that failed validation (Receive returned an error)
	AuthFailures          uint64 // of those, packets that failed authentication (Config.Keys)
	ReliablesQueued       uint64 // QueueReliable calls accepted
	ReliablesDelivered    uint64 // reliable messages passed to Handler.Reliable
	ReliableResends       uint64 // reliable messages carried again after their first packet
	ReliableOutstanding   int    // bytes queued and not yet acknowledged
	// Loss is the smoothed fraction of the peer's messages lost (sequence
	// gaps, late ones included), an exponential average over ~32 messages.
	Loss float64
	// RTT is the smoothed time from sending message s to receiving an ack
	// >= s (RFC 6298 smoothing); it includes the time the peer waits before
	// its next packet. RTTVar is its mean deviation. Zero until an ack.
	RTT, RTTVar time.Duration
}

type sentRecord struct {
	seq    Sequence
	relEnd Sequence // reliable messages below this were in the packet
	at     time.Duration
}

// Channel is one end of a connection (DOOM III §3): unreliable messages in
// order without duplicates, reliable messages piggy-backed on every packet
// until acknowledged, fragmentation, compression, rate control. It is
// I/O-free: Send hands packets to a callback, Receive takes a packet, both
// take the current virtual time. A Channel is not safe for concurrent use.
type Channel struct {
	cfg     Config
	id      ConnID
	maxBody int // largest body: unreliable payload plus a full reliable section

	// Sending.
	outSeq     Sequence
	lastAck    Sequence // highest of our sequences the peer acknowledged
	sent       [sentRing]sentRecord
	rel        reliableQueue
	relSentEnd Sequence // reliable messages below this have been sent at least once
	body       []byte
	stream     []byte
	hstream    []byte // the body Huffman coded (Config.Huffman), after its length
	estream    []byte // the body range coded (Config.Entropy), after its length
	rcEnc      *entropy.RangeEncoder
	rcDec      *entropy.RangeDecoder // the entropy decoder's probabilities
	packet     []byte
	clear      time.Duration // rate control: when the bytes sent so far have drained
	burst      time.Duration

	// Receiving.
	lastRecv Sequence // last delivered message sequence (0: none)
	window   uint64   // bit i: message lastRecv-i was delivered
	relNext  Sequence // next reliable sequence to deliver
	reasm    reassembly
	rbody    []byte

	crypto *channelCrypto // nil without Config.Keys

	rttSet bool
	stats  Stats
}

// New returns a channel for connection id. Both ends use the same id.
func New(cfg Config, id ConnID) *Channel {
	cfg = cfg.withDefaults()
	c := &Channel{
		cfg:     cfg,
		id:      id,
		relNext: 1,
		packet:  make([]byte, cfg.MTU),
		clear:   math.MinInt64 / 2,
	}
	c.maxBody = cfg.MaxMessageBytes + relHeaderMaxLen + cfg.MaxReliableBytes +
		MaxReliableMessages*uvarintLen(MaxReliableMessageBytes)
	c.rel.init(cfg.MaxReliableBytes)
	if cfg.Keys != nil {
		c.crypto = newChannelCrypto(cfg.Keys)
	}
	if cfg.Entropy != nil {
		c.rcEnc, c.rcDec = &entropy.RangeEncoder{}, &entropy.RangeDecoder{}
	}
	if cfg.Rate > 0 {
		c.burst = time.Duration(int64(cfg.Burst) * int64(time.Second) / int64(cfg.Rate))
	}
	return c
}

// ID is the connection id.
func (c *Channel) ID() ConnID { return c.id }

// Config is the channel's configuration with defaults filled in.
func (c *Channel) Config() Config { return c.cfg }

// OutgoingSequence is the sequence of the last message sent (0 before the first).
func (c *Channel) OutgoingSequence() Sequence { return c.outSeq }

// LastReceivedSequence is the sequence of the last message delivered from
// the peer (0 before the first); it is the ack this side sends.
func (c *Channel) LastReceivedSequence() Sequence { return c.lastRecv }

// LastAcknowledged is the highest of this side's sequences the peer has
// acknowledged (0 before the first ack).
func (c *Channel) LastAcknowledged() Sequence { return c.lastAck }

// ReliableSectionLen is the number of body bytes the reliable section takes
// in the next packet Send builds (before compression): 0 when no reliable
// message is outstanding. Benchmarks and rate estimates use it to charge
// exactly what the channel sends.
func (c *Channel) ReliableSectionLen() int {
	return c.rel.wireLen()
}

// Stats returns the counters and estimates.
func (c *Channel) Stats() Stats {
	s := c.stats
	s.ReliableOutstanding = c.rel.bytes()
	return s
}

// QueueReliable copies msg into the reliable queue. It is sent with every
// following packet until the peer acknowledges a packet that carried it
// (DOOM III §3: "each reliable message is sent with every unreliable
// message until the reliable message has been acknowledged").
func (c *Channel) QueueReliable(msg []byte) error {
	if len(msg) > MaxReliableMessageBytes {
		return ErrReliableTooBig
	}
	if !c.rel.push(msg) {
		return ErrReliableFull
	}
	c.stats.ReliablesQueued++
	return nil
}

// Send builds the packets of one message: the header, every unacknowledged
// reliable message, and payload, compressed if that makes it smaller and
// split into fragments if it exceeds the MTU. emit is called once per
// packet; its slice is valid only during the call and emit must not call
// into the channel. An empty payload is allowed (acks and reliables only).
// Send always sends: the caller asks CanSend first if it wants to respect
// the rate.
func (c *Channel) Send(now time.Duration, typ MessageType, payload []byte, emit func(packet []byte)) error {
	if len(payload) > c.cfg.MaxMessageBytes {
		return ErrMessageTooLarge
	}
	nrel := c.rel.n
	bodyLen := len(payload)
	bodyLen += c.rel.wireLen()
	c.body = grow(c.body, bodyLen)
	body := c.body[:0]
	var flags uint8
	if nrel > 0 {
		flags |= flagReliable
		body = c.rel.appendSection(body)
	}
	body = append(body, payload...)

	stream := body
	if !c.cfg.DisableCompression {
		stream, flags = c.compress(body, flags)
	}

	total := len(stream)
	tag := 0
	if c.crypto != nil {
		tag = TagLen
		flags |= flagEncrypted
	}
	frags, chunk := 1, total
	if headerLen+total+tag > c.cfg.MTU {
		fragHdr := 2 + uvarintLen(uint64(total))
		maxData := c.cfg.MTU - headerLen - fragHdr - tag
		frags = (total + maxData - 1) / maxData
		if frags > MaxFragments {
			return ErrMessageTooLarge
		}
		chunk = (total + frags - 1) / frags
		flags |= flagFragment
	}

	// Commit: nothing below fails.
	seq, flags := c.commitSend(now, nrel, flags)
	h := header{flags: flags, typ: typ, conn: c.id, seq: uint16(seq), ack: uint16(c.lastRecv)}
	wire := c.emitPackets(h, seq, stream, frags, chunk, emit)
	c.stats.MessagesOut++
	c.charge(now, wire)
	return nil
}

// compress returns the stream Send puts on the wire for body and flags with
// the compression bits set: body itself, or the body's length as a uvarint
// followed by its zrle, Huffman or entropy coding, whichever is smallest
// and beats the body.
//
// DOOM III §4.3: "the message channel compresses all reliable and
// unreliable messages", here only when that makes the packet smaller;
// with Config.Huffman, by whichever of zrle and the static Huffman
// code is smaller (zrle on a tie).
func (c *Channel) compress(body []byte, flags uint8) ([]byte, uint8) {
	bodyLen := len(body)
	stream := body
	k := uvarintLen(uint64(bodyLen))
	room := bodyLen - 1 - k // the compressed stream must beat the body
	hbytes := -1
	if c.cfg.Huffman != nil && room > 0 {
		// Coded straight into its own buffer (room for the longest codes): the coder's
		// length is the size, with no counting pass before it. 16 bytes more let its
		// 16-byte loop, which needs that room, run to the last 16 bytes of the body.
		c.hstream = grow(c.hstream, k+(bodyLen*entropy.HuffmanMaxBits+7)/8+16)
		if hb := c.cfg.Huffman.Encode(c.hstream[k:], body); hb <= room {
			hbytes, room = hb, hb // zrle must now do at least as well
		}
	}
	if room > 0 {
		c.stream = grow(c.stream, bodyLen)
		binary.PutUvarint(c.stream, uint64(bodyLen))
		// Compress runs only when its output fits in room (it would otherwise fail with
		// ErrShortBuffer: same choice). zrle's lower bound, one pass of popcounts stopped
		// as soon as it passes room, rules out most bodies; its exact size, which also
		// counts the zero runs longer than one count covers, the rest. (An error is still
		// handled: the Huffman stream or the raw body goes instead.)
		cb, err := 0, zrle.ErrShortBuffer
		if !zrle.LowerBoundAbove(body, bodyLen*8, zrle.DefaultWordBits, room*8) &&
			!zrle.CompressedBitsAbove(body, bodyLen*8, zrle.DefaultWordBits, room*8) {
			cb, err = zrle.Compress(c.stream[k:k+room], body, bodyLen*8, zrle.DefaultWordBits)
		}
		if err == nil {
			stream = c.stream[:k+(cb+7)/8]
			flags |= flagCompressed
		} else if hbytes >= 0 {
			binary.PutUvarint(c.hstream, uint64(bodyLen))
			stream = c.hstream[:k+hbytes]
			flags |= flagHuffman
		}
	}
	// The entropy stage must beat whatever was chosen (the raw body included).
	limit := bodyLen - 1 - k
	if flags&(flagCompressed|flagHuffman) != 0 {
		limit = len(stream) - k - 1
	}
	if c.cfg.Entropy != nil && limit > 0 {
		c.estream = grow(c.estream, k+limit)
		if n := c.rcEnc.Encode(c.cfg.Entropy, c.estream[k:k+limit], body); n >= 0 {
			binary.PutUvarint(c.estream, uint64(bodyLen))
			stream = c.estream[:k+n]
			flags = flags&^(flagCompressed|flagHuffman) | flagCompressed | flagHuffman
		}
	}
	return stream, flags
}

// commitSend takes the next outgoing sequence for a message carrying the
// first nrel queued reliable messages and records it: the sent ring (for
// the RTT and the reliable acknowledgement), the reliable resend and
// compression counters. It returns the sequence and flags with the ack bit
// set once a message from the peer has arrived.
func (c *Channel) commitSend(now time.Duration, nrel int, flags uint8) (Sequence, uint8) {
	c.outSeq++
	seq := c.outSeq
	relEnd := c.rel.first + Sequence(nrel)
	c.sent[seq%sentRing] = sentRecord{seq: seq, relEnd: relEnd, at: now}
	if nrel > 0 {
		if c.relSentEnd > c.rel.first {
			c.stats.ReliableResends += uint64(min(c.relSentEnd, relEnd) - c.rel.first)
		}
		c.relSentEnd = max(c.relSentEnd, relEnd)
	}
	if flags&(flagCompressed|flagHuffman) != 0 {
		c.stats.Compressed++
	}
	if c.lastRecv > 0 {
		flags |= flagAck
	}
	return seq, flags
}

// emitPackets builds and emits the frags packets of message seq's stream:
// each is h, then, when frags > 1, a fragment header and a piece of chunk
// bytes, sealed when the channel encrypts. It returns the wire bytes sent,
// UDP/IP included.
func (c *Channel) emitPackets(h header, seq Sequence, stream []byte, frags, chunk int, emit func(packet []byte)) int {
	total := len(stream)
	wire := 0
	for i := range frags {
		p := c.packet[:headerLen]
		h.put(p)
		data := stream
		if frags > 1 {
			off := i * chunk
			data = stream[off:min(off+chunk, total)]
			p = append(p, byte(i), byte(frags))
			p = binary.AppendUvarint(p, uint64(total))
			c.stats.FragmentsOut++
		}
		if c.crypto != nil {
			// Compression came first: ciphertext does not compress.
			p = c.crypto.send.Seal(p, c.crypto.setNonce(seq, i), data, p)
		} else {
			p = append(p, data...)
		}
		emit(p)
		c.stats.PacketsOut++
		c.stats.BytesOut += uint64(len(p))
		wire += len(p) + UDPIPOverhead
	}
	return wire
}

// charge records wire bytes sent at now against the rate.
func (c *Channel) charge(now time.Duration, wire int) {
	if c.cfg.Rate <= 0 {
		return
	}
	c.clear = max(c.clear, now-c.burst) + time.Duration(int64(wire)*int64(time.Second)/int64(c.cfg.Rate))
}

// CanSend reports whether a message of the given payload size can be sent
// at now without exceeding Config.Rate (DOOM III §3: the channel "can
// notify higher layers when the network connection becomes saturated").
// The limiter is a token bucket of Config.Burst bytes refilled at Rate; a
// message larger than the bucket is allowed when the bucket is full. The
// estimate adds the outstanding reliable messages, headers and 28 bytes of
// UDP/IP per packet, and ignores compression, so it errs on the safe side.
func (c *Channel) CanSend(now time.Duration, bytes int) bool {
	if c.cfg.Rate <= 0 {
		return true
	}
	if c.clear <= now-c.burst {
		return true // bucket full
	}
	cost := time.Duration(int64(c.wireEstimate(bytes)) * int64(time.Second) / int64(c.cfg.Rate))
	return max(c.clear, now-c.burst)+cost <= now
}

func (c *Channel) wireEstimate(payload int) int {
	body := max(payload, 0) + c.rel.wireLen()
	tag := 0
	if c.crypto != nil {
		tag = TagLen
	}
	if headerLen+body+tag <= c.cfg.MTU {
		return body + headerLen + tag + UDPIPOverhead
	}
	maxData := c.cfg.MTU - headerLen - fragHeaderMax - tag
	frags := (body + maxData - 1) / maxData
	return body + frags*(headerLen+fragHeaderMax+tag+UDPIPOverhead)
}

// Receive processes one packet from the peer: it checks every field,
// applies the ack, reassembles fragments, and passes the new reliable
// messages and then the unreliable payload to h. Late and duplicate
// packets are counted and dropped without error. A malformed packet
// returns an error and delivers nothing; the only state it can change
// besides the counters is a reassembly it completes or is part of.
func (c *Channel) Receive(now time.Duration, packet []byte, h Handler) error {
	c.stats.PacketsIn++
	c.stats.BytesIn += uint64(len(packet))
	err := c.receive(now, packet, h)
	if err != nil {
		c.stats.Rejected++
	}
	return err
}

func (c *Channel) receive(now time.Duration, packet []byte, h Handler) error {
	var hd header
	if err := hd.parse(packet); err != nil {
		return err
	}
	if hd.conn != c.id {
		return ErrWrongConnID
	}
	seq := extend(c.lastRecv, hd.seq)
	if seq > c.lastRecv+MaxSequenceJump {
		return ErrSequenceJump
	}
	if (hd.flags&flagEncrypted != 0) != (c.crypto != nil) {
		return ErrNotEncrypted
	}
	if c.crypto != nil {
		// Authenticate before anything changes (crypto.go).
		ad, frag := headerLen, 0
		if hd.flags&flagFragment != 0 {
			if len(packet) < headerLen+3 {
				return ErrBadFragment
			}
			_, n := readUvarint(packet[headerLen+2:], 3, uint64(c.maxBody))
			if n == 0 {
				return ErrBadLength
			}
			ad, frag = headerLen+2+n, int(packet[headerLen])
		}
		p, err := c.crypto.open(packet, ad, seq, frag)
		if err != nil {
			c.stats.AuthFailures++
			return err
		}
		packet = p
	}
	if seq <= c.lastRecv {
		c.dropOld(seq)
		return nil
	}
	stream := packet[headerLen:]
	if hd.flags&flagFragment != 0 {
		s, complete, err := c.fragment(&hd, seq, stream)
		if err != nil {
			return err
		}
		c.ack(now, &hd)
		if !complete {
			return nil
		}
		stream = s
	}
	body, err := c.decode(&hd, stream)
	if err != nil {
		return err
	}
	var rs relSection
	if hd.flags&flagReliable != 0 {
		if err := rs.parse(body, c.relNext, c.cfg.MaxReliableBytes); err != nil {
			return err
		}
	}
	if len(body)-rs.end > c.cfg.MaxMessageBytes {
		// A compressed stream may decode to more than a sender with this
		// configuration could send (the entropy stage makes a long run of
		// zeros nearly free); the payload is held to the same limit.
		return ErrMessageTooLarge
	}
	c.ack(now, &hd)
	c.accept(seq)
	if rs.count > 0 {
		// Reliable first (DOOM III §3: they "need to be processed before
		// any unreliable updates").
		off := rs.hdr
		for i := range rs.count {
			l, n := readUvarint(body[off:], 2, MaxReliableMessageBytes)
			off += n
			if rs.first+Sequence(i) == c.relNext {
				c.relNext++
				c.stats.ReliablesDelivered++
				h.Reliable(body[off : off+int(l)])
			}
			off += int(l)
		}
	}
	payload := body[rs.end:]
	if hd.typ != TypeNone || len(payload) > 0 {
		h.Unreliable(hd.typ, payload)
	}
	return nil
}

// extend widens a 16-bit wire sequence to the Sequence nearest ref.
func extend(ref Sequence, s uint16) Sequence {
	v := int64(ref) + int64(int16(s-uint16(ref)))
	if v < 0 {
		return 0
	}
	return Sequence(v)
}

// dropOld counts a packet whose message is not newer than the last one
// delivered.
func (c *Channel) dropOld(seq Sequence) {
	if off := c.lastRecv - seq; off < 64 && c.window&(1<<off) != 0 {
		c.stats.DroppedDuplicate++
	} else {
		c.stats.DroppedLate++
	}
}

// accept records the delivery of message seq > lastRecv.
func (c *Channel) accept(seq Sequence) {
	gap := seq - c.lastRecv - 1
	c.stats.MessagesLost += uint64(gap)
	if gap > 0 {
		c.stats.Loss = 1 - (1-c.stats.Loss)*math.Pow(1-lossAlpha, float64(gap))
	}
	c.stats.Loss *= 1 - lossAlpha
	if shift := seq - c.lastRecv; shift >= 64 {
		c.window = 1
	} else {
		c.window = c.window<<shift | 1
	}
	c.lastRecv = seq
	c.stats.MessagesIn++
	if c.reasm.active && c.reasm.seq <= seq {
		c.reasm.active = false // a newer message made it obsolete
		c.stats.ReassemblyFailures++
	}
}

// ack applies the peer's acknowledgement: RTT sample and release of the
// reliable messages the acknowledged packet carried.
func (c *Channel) ack(now time.Duration, hd *header) {
	if hd.flags&flagAck == 0 || c.outSeq == 0 {
		return
	}
	diff := Sequence(uint16(c.outSeq) - hd.ack)
	if diff >= c.outSeq {
		return // refers to before our first message
	}
	ack := c.outSeq - diff
	if ack <= c.lastAck {
		return
	}
	c.lastAck = ack
	rec := &c.sent[ack%sentRing]
	if rec.seq != ack {
		return // too old to be remembered
	}
	sample := max(now-rec.at, 0)
	if !c.rttSet {
		c.rttSet = true
		c.stats.RTT, c.stats.RTTVar = sample, sample/2
	} else {
		d := c.stats.RTT - sample
		if d < 0 {
			d = -d
		}
		c.stats.RTTVar += (d - c.stats.RTTVar) / 4
		c.stats.RTT += (sample - c.stats.RTT) / 8
	}
	c.rel.release(rec.relEnd)
}

// decode returns the message body of a complete stream.
func (c *Channel) decode(hd *header, stream []byte) ([]byte, error) {
	if hd.flags&(flagCompressed|flagHuffman) == 0 {
		return stream, nil
	}
	bl, n := readUvarint(stream, 3, uint64(c.maxBody))
	if n == 0 || bl == 0 {
		return nil, ErrBadLength
	}
	c.rbody = grow(c.rbody, int(bl))
	src := stream[n:]
	if hd.flags&(flagCompressed|flagHuffman) == flagCompressed|flagHuffman {
		if c.cfg.Entropy == nil {
			return nil, ErrNoEntropyModel
		}
		if c.rcDec.Decode(c.cfg.Entropy, c.rbody[:bl], src) != nil {
			return nil, ErrDecompress
		}
		return c.rbody[:bl], nil
	}
	if hd.flags&flagHuffman != 0 {
		if c.cfg.Huffman == nil {
			return nil, ErrNoHuffmanTable
		}
		if c.cfg.Huffman.Decode(c.rbody[:bl], src) != nil {
			return nil, ErrDecompress
		}
		return c.rbody[:bl], nil
	}
	if err := zrle.Decompress(c.rbody, src, len(src)*8, zrle.DefaultWordBits, int(bl)*8); err != nil {
		return nil, ErrDecompress
	}
	return c.rbody[:bl], nil
}

// relSection is a validated reliable section of a body.
type relSection struct {
	first Sequence
	count int
	hdr   int // size of the section header
	end   int // offset of the unreliable payload in the body
}

// parse validates the reliable section at the start of body against next,
// the next reliable sequence to deliver. The header carries first's low 4
// bits (count <= 15) or 8 bits (count 16..255); first is the sequence with
// those low bits in [next-(count), next] (reliable.go): any other distance
// means the sender skipped or re-sent messages it must not have.
func (rs *relSection) parse(body []byte, next Sequence, maxBytes int) error {
	if len(body) < 1 {
		return ErrBadReliable
	}
	var low, mask Sequence
	var count, hdr int
	if body[0]>>4 != 0 {
		count, low, mask, hdr = int(body[0]>>4), Sequence(body[0]&0x0F), 0x0F, relHeaderShort
	} else {
		if body[0] != 0 || len(body) < relHeaderLong || body[2] <= relCompactMax {
			return ErrBadReliable // reserved bits, truncated, or a count the short form holds
		}
		count, low, mask, hdr = int(body[2]), Sequence(body[1]), 0xFF, relHeaderLong
	}
	d := (next - low) & mask // next - first
	if int(d) > count || d >= next {
		return ErrReliableGap
	}
	off, sum := hdr, 0
	for range count {
		l, n := readUvarint(body[off:], 2, MaxReliableMessageBytes)
		if n == 0 {
			return ErrBadReliable
		}
		off += n
		sum += int(l)
		if int(l) > len(body)-off || sum > maxBytes {
			return ErrBadReliable
		}
		off += int(l)
	}
	rs.first, rs.count, rs.hdr, rs.end = next-d, count, hdr, off
	return nil
}

// grow returns b resized to n bytes, reallocating only when its capacity
// is too small.
func grow(b []byte, n int) []byte {
	if cap(b) >= n {
		return b[:n]
	}
	return make([]byte, n, max(n, 2*cap(b)))
}
