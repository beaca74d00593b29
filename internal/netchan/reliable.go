package netchan

import "encoding/binary"

// Reliable section header (docs/PROTOCOL.md, "Body"). The receiver knows the
// next reliable sequence it expects (next); every packet's first reliable
// sequence lies in [next-count, next], because the queue's end (first +
// count) never decreases and the sender releases only messages the receiver
// delivered. So the low bits of first identify it when count is smaller
// than their range:
//
//	count 1..15:    1 byte   count<<4 | first mod 16
//	count 16..255:  3 bytes  0x00, first mod 256, count
const (
	relCompactMax   = 15 // most messages in the 1-byte header
	relHeaderShort  = 1
	relHeaderLong   = 3
	relHeaderMaxLen = relHeaderLong
)

// relHeaderLen is the size of the reliable section header for n messages.
func relHeaderLen(n int) int {
	if n <= relCompactMax {
		return relHeaderShort
	}
	return relHeaderLong
}

// appendRelHeader appends the section header for count messages from first.
func appendRelHeader(b []byte, first Sequence, count int) []byte {
	if count <= relCompactMax {
		return append(b, byte(count)<<4|byte(first)&0x0F)
	}
	return append(b, 0, byte(first), byte(count))
}

// reliableQueue holds the unacknowledged reliable messages of the sending
// side, copied into one buffer of at most MaxReliableBytes bytes.
type reliableQueue struct {
	first  Sequence // sequence of msgs[0]
	n      int
	msgs   [MaxReliableMessages]struct{ off, len int32 }
	buf    []byte // the messages back to back; len(buf) = bytes in use
	max    int
	msgLen int // bytes of the n messages with their lengths, without the section header
}

// wireLen is the size of the reliable section carrying all n messages (0 if none).
func (q *reliableQueue) wireLen() int {
	if q.n == 0 {
		return 0
	}
	return relHeaderLen(q.n) + q.msgLen
}

func (q *reliableQueue) init(maxBytes int) {
	q.first = 1
	q.max = maxBytes
}

func (q *reliableQueue) bytes() int { return len(q.buf) }

// push copies msg to the end of the queue; false if a bound is reached.
func (q *reliableQueue) push(msg []byte) bool {
	if q.n == MaxReliableMessages || len(q.buf)+len(msg) > q.max {
		return false
	}
	if q.buf == nil {
		q.buf = make([]byte, 0, q.max)
	}
	q.msgs[q.n] = struct{ off, len int32 }{int32(len(q.buf)), int32(len(msg))}
	q.n++
	q.buf = append(q.buf, msg...)
	q.msgLen += uvarintLen(uint64(len(msg))) + len(msg)
	return true
}

// release drops the messages with sequence below end (acknowledged).
func (q *reliableQueue) release(end Sequence) {
	if end <= q.first {
		return
	}
	d := min(int(end-q.first), q.n)
	var shift int32
	if d < q.n {
		shift = q.msgs[d].off
	} else {
		shift = int32(len(q.buf))
	}
	for i := range d {
		q.msgLen -= uvarintLen(uint64(q.msgs[i].len)) + int(q.msgs[i].len)
	}
	copy(q.msgs[:], q.msgs[d:q.n])
	q.n -= d
	for i := range q.n {
		q.msgs[i].off -= shift
	}
	q.buf = q.buf[:copy(q.buf, q.buf[shift:])]
	q.first += Sequence(d)
}

// appendSection appends the reliable section: the header (first sequence's
// low bits and the count), then each message with a uvarint length.
func (q *reliableQueue) appendSection(b []byte) []byte {
	b = appendRelHeader(b, q.first, q.n)
	for i := range q.n {
		m := q.msgs[i]
		b = binary.AppendUvarint(b, uint64(m.len))
		b = append(b, q.buf[m.off:m.off+m.len]...)
	}
	return b
}

// reassembly collects the fragments of one message (Quake 3 fragments,
// Quake 3 protocol description, with index and count instead of offset and length). Only the
// newest message is reassembled: a fragment of a newer message discards an
// incomplete older one, so a lost fragment loses that message only.
type reassembly struct {
	active bool
	seq    Sequence
	typ    MessageType
	flags  uint8 // compression (C, H) and reliable flags, equal in every fragment
	count  int
	total  int
	got    int
	have   [4]uint64 // bit i: fragment i stored
	buf    []byte
}

// fragment validates a fragment of message seq (newer than the last one
// delivered) and stores it; it returns the whole stream once every
// fragment is in.
func (c *Channel) fragment(hd *header, seq Sequence, data []byte) (stream []byte, complete bool, err error) {
	if len(data) < 3 {
		return nil, false, ErrBadFragment
	}
	idx, cnt := int(data[0]), int(data[1])
	total64, n := readUvarint(data[2:], 3, uint64(c.maxBody))
	if n == 0 || total64 == 0 {
		return nil, false, ErrBadLength
	}
	total := int(total64)
	if cnt < 2 || idx >= cnt {
		return nil, false, ErrBadFragment
	}
	// The stream is cut into cnt pieces of ceil(total/cnt) bytes, the last
	// one shorter but not empty.
	chunk := (total + cnt - 1) / cnt
	if (cnt-1)*chunk >= total {
		return nil, false, ErrBadFragment
	}
	off := idx * chunk
	frag := data[2+n:]
	if len(frag) != min(chunk, total-off) {
		return nil, false, ErrBadFragment
	}
	keep := hd.flags & (flagCompressed | flagHuffman | flagReliable)
	r := &c.reasm
	switch {
	case r.active && seq < r.seq:
		c.stats.DroppedLate++ // an older message than the one being reassembled
		return nil, false, nil
	case r.active && seq == r.seq:
		if cnt != r.count || total != r.total || hd.typ != r.typ || keep != r.flags {
			return nil, false, ErrBadFragment
		}
	default:
		if r.active {
			c.stats.ReassemblyFailures++
		}
		r.buf = grow(r.buf, total)
		r.active, r.seq, r.typ, r.flags = true, seq, hd.typ, keep
		r.count, r.total, r.got = cnt, total, 0
		r.have = [4]uint64{}
	}
	if r.have[idx/64]&(1<<(idx%64)) != 0 {
		c.stats.DroppedDuplicate++
		return nil, false, nil
	}
	r.have[idx/64] |= 1 << (idx % 64)
	r.got++
	c.stats.FragmentsIn++
	copy(r.buf[off:], frag)
	if r.got < r.count {
		return nil, false, nil
	}
	r.active = false
	return r.buf[:total], true, nil
}
