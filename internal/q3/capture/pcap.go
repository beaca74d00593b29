package capture

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"time"
)

// Errors of the pcap reader.
var (
	ErrPcap     = errors.New("capture: not a classic pcap file")
	ErrLinkType = errors.New("capture: unsupported link type")
	ErrRecord   = errors.New("capture: bad pcap record")
)

// maxRecord bounds a record's captured length (tcpdump's default snaplen).
const maxRecord = 262144

// Link types (tcpdump.org/linktypes.html).
const (
	LinkNull     = 0   // BSD loopback: 4-byte address family, host byte order
	LinkEthernet = 1   // Ethernet II, optional 802.1Q tag
	LinkRaw      = 101 // raw IPv4/IPv6
	LinkSLL      = 113 // Linux cooked capture v1
	LinkSLL2     = 276 // Linux cooked capture v2
)

// Datagram is one UDP/IPv4 datagram from a capture.
type Datagram struct {
	Time    time.Duration // since the first record
	Src     netip.AddrPort
	Dst     netip.AddrPort
	Payload []byte
}

// PcapReader reads UDP over IPv4 datagrams from a classic pcap stream
// (magic a1b2c3d4 or a1b23c4d, either byte order). Records that are not
// IPv4/UDP, or are IP fragments, are skipped and counted.
type PcapReader struct {
	r        io.Reader
	order    binary.ByteOrder
	nanos    bool
	LinkType uint32
	first    time.Duration
	started  bool
	buf      []byte
	Skipped  int // records that were not whole IPv4/UDP datagrams
}

// NewPcapReader reads and checks the file header.
func NewPcapReader(r io.Reader) (*PcapReader, error) {
	var h [24]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return nil, fmt.Errorf("%w: short header", ErrPcap)
	}
	p := &PcapReader{r: r}
	switch binary.LittleEndian.Uint32(h[:4]) {
	case 0xa1b2c3d4:
		p.order = binary.LittleEndian
	case 0xa1b23c4d:
		p.order, p.nanos = binary.LittleEndian, true
	case 0xd4c3b2a1:
		p.order = binary.BigEndian
	case 0x4d3cb2a1:
		p.order, p.nanos = binary.BigEndian, true
	default:
		return nil, fmt.Errorf("%w: magic % x", ErrPcap, h[:4])
	}
	p.LinkType = p.order.Uint32(h[20:]) & 0x0fffffff
	switch p.LinkType {
	case LinkNull, LinkEthernet, LinkRaw, LinkSLL, LinkSLL2:
	default:
		return nil, fmt.Errorf("%w: %d", ErrLinkType, p.LinkType)
	}
	return p, nil
}

// Next returns the next UDP datagram, or io.EOF. The payload is valid
// until the next call.
func (p *PcapReader) Next() (Datagram, error) {
	for {
		var h [16]byte
		n, err := io.ReadFull(p.r, h[:])
		if err == io.EOF && n == 0 {
			return Datagram{}, io.EOF
		}
		if err != nil {
			return Datagram{}, fmt.Errorf("%w: truncated record header", ErrRecord)
		}
		sec, frac := p.order.Uint32(h[0:]), p.order.Uint32(h[4:])
		incl := p.order.Uint32(h[8:])
		if incl > maxRecord {
			return Datagram{}, fmt.Errorf("%w: captured length %d", ErrRecord, incl)
		}
		if cap(p.buf) < int(incl) {
			p.buf = make([]byte, incl)
		}
		p.buf = p.buf[:incl]
		if _, err := io.ReadFull(p.r, p.buf); err != nil {
			return Datagram{}, fmt.Errorf("%w: truncated record", ErrRecord)
		}
		t := time.Duration(sec) * time.Second
		if p.nanos {
			t += time.Duration(frac)
		} else {
			t += time.Duration(frac) * time.Microsecond
		}
		if !p.started {
			p.first, p.started = t, true
		}
		d, ok := p.decode(p.buf)
		if !ok {
			p.Skipped++
			continue
		}
		d.Time = t - p.first
		return d, nil
	}
}

// decode strips the link layer, IPv4 and UDP headers.
func (p *PcapReader) decode(b []byte) (Datagram, bool) {
	var ip []byte
	switch p.LinkType {
	case LinkEthernet:
		if len(b) < 14 {
			return Datagram{}, false
		}
		et, off := binary.BigEndian.Uint16(b[12:]), 14
		if et == 0x8100 && len(b) >= 18 { // 802.1Q
			et, off = binary.BigEndian.Uint16(b[16:]), 18
		}
		if et != 0x0800 {
			return Datagram{}, false
		}
		ip = b[off:]
	case LinkNull:
		if len(b) < 4 {
			return Datagram{}, false
		}
		// AF_INET is 2 everywhere; the word is in the capturing host's order.
		if binary.LittleEndian.Uint32(b) != 2 && binary.BigEndian.Uint32(b) != 2 {
			return Datagram{}, false
		}
		ip = b[4:]
	case LinkRaw:
		ip = b
	case LinkSLL:
		if len(b) < 16 || binary.BigEndian.Uint16(b[14:]) != 0x0800 {
			return Datagram{}, false
		}
		ip = b[16:]
	case LinkSLL2:
		if len(b) < 20 || binary.BigEndian.Uint16(b[0:]) != 0x0800 {
			return Datagram{}, false
		}
		ip = b[20:]
	}
	return decodeIPv4UDP(ip)
}

// decodeIPv4UDP parses an IPv4 header and a UDP header. Fragments (MF set
// or a non-zero offset) are not reassembled: the Quake 3 engine never
// sends datagrams over 1400 bytes.
func decodeIPv4UDP(ip []byte) (Datagram, bool) {
	if len(ip) < 20 || ip[0]>>4 != 4 {
		return Datagram{}, false
	}
	ihl := int(ip[0]&0x0f) * 4
	total := int(binary.BigEndian.Uint16(ip[2:]))
	if ihl < 20 || total < ihl || total > len(ip) || ip[9] != 17 {
		return Datagram{}, false
	}
	if frag := binary.BigEndian.Uint16(ip[6:]); frag&0x3fff != 0 {
		return Datagram{}, false
	}
	src := netip.AddrFrom4([4]byte(ip[12:16]))
	dst := netip.AddrFrom4([4]byte(ip[16:20]))
	udp := ip[ihl:total]
	if len(udp) < 8 {
		return Datagram{}, false
	}
	ulen := int(binary.BigEndian.Uint16(udp[4:]))
	if ulen < 8 || ulen > len(udp) {
		return Datagram{}, false
	}
	return Datagram{
		Src:     netip.AddrPortFrom(src, binary.BigEndian.Uint16(udp[0:])),
		Dst:     netip.AddrPortFrom(dst, binary.BigEndian.Uint16(udp[2:])),
		Payload: udp[8:ulen],
	}, true
}

// AppendPcapHeader and AppendPcapRecord write a classic little-endian
// microsecond pcap with Ethernet framing (for tests and tools).
func AppendPcapHeader(b []byte) []byte {
	b = binary.LittleEndian.AppendUint32(b, 0xa1b2c3d4)
	b = binary.LittleEndian.AppendUint16(b, 2)
	b = binary.LittleEndian.AppendUint16(b, 4)
	b = binary.LittleEndian.AppendUint32(b, 0)
	b = binary.LittleEndian.AppendUint32(b, 0)
	b = binary.LittleEndian.AppendUint32(b, maxRecord)
	return binary.LittleEndian.AppendUint32(b, LinkEthernet)
}

// AppendPcapRecord appends one Ethernet/IPv4/UDP record.
func AppendPcapRecord(b []byte, d Datagram) []byte {
	n := 14 + 20 + 8 + len(d.Payload)
	b = binary.LittleEndian.AppendUint32(b, uint32(d.Time/time.Second))
	b = binary.LittleEndian.AppendUint32(b, uint32(d.Time%time.Second/time.Microsecond))
	b = binary.LittleEndian.AppendUint32(b, uint32(n))
	b = binary.LittleEndian.AppendUint32(b, uint32(n))
	b = append(b, make([]byte, 12)...)
	b = append(b, 0x08, 0x00)
	ipStart := len(b)
	b = append(b, 0x45, 0)
	b = binary.BigEndian.AppendUint16(b, uint16(20+8+len(d.Payload)))
	b = append(b, 0, 0, 0x40, 0, 64, 17, 0, 0)
	s4, d4 := d.Src.Addr().As4(), d.Dst.Addr().As4()
	b = append(b, s4[:]...)
	b = append(b, d4[:]...)
	var sum uint32
	for i := ipStart; i < ipStart+20; i += 2 {
		sum += uint32(b[i])<<8 | uint32(b[i+1])
	}
	for sum > 0xffff {
		sum = sum&0xffff + sum>>16
	}
	binary.BigEndian.PutUint16(b[ipStart+10:], ^uint16(sum))
	b = binary.BigEndian.AppendUint16(b, d.Src.Port())
	b = binary.BigEndian.AppendUint16(b, d.Dst.Port())
	b = binary.BigEndian.AppendUint16(b, uint16(8+len(d.Payload)))
	b = append(b, 0, 0)
	return append(b, d.Payload...)
}

// ReadDatagrams reads every UDP datagram of a classic pcap capture from r,
// each with its own copy of the payload (Next reuses its buffer).
func ReadDatagrams(r io.Reader) ([]Datagram, error) {
	pr, err := NewPcapReader(r)
	if err != nil {
		return nil, err
	}
	var out []Datagram
	for {
		d, err := pr.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		d.Payload = append([]byte(nil), d.Payload...)
		out = append(out, d)
	}
}
