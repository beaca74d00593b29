package lockstep

// Packet authentication (issue 22 item 7). Every packet of a match, peer
// to peer, peer to server and server to peer, starts with the same clear
// header and, unless the match is insecure, ends with a Poly1305 tag:
//
//	kind 1 | version 1 | from 1 | to 1 | counter 8 | body | tag 16
//
// kind is 'L' (peer packet), 'S' (server packet) or 'Q' (leave); from and
// to are peer indexes, 0xFF for the packet server; counter is the sender's
// packet counter, one more for every packet it sends to anyone. The body
// is sealed with ChaCha20-Poly1305 (RFC 8439) under the sender's key,
// with the 12-byte header as associated data and the nonce
//
//	4 zero bytes | counter 8 (little-endian)
//
// so no nonce travels besides the counter. The sender's key is derived
// from the 32-byte match key K that whoever starts the match hands to
// every peer (and to the packet server):
//
//	key(sender) = HMAC-SHA256(K, "snapwire lockstep sender" | sender 1 | 0x01)
//
// (HKDF-Expand, RFC 5869 §2.3, one block; K is uniformly random, so it
// serves as the PRK without Extract, as tokenwire.SessionKeys does). One key
// per sender and one counter per sender make every nonce unique under its
// key; the counter starts at a random value below 2^62 (crypto/rand), so
// two runs that reuse a match key (a restarted peer, a key file kept for
// a second match) almost never reuse a nonce.
//
// A receiver keeps, per sender, the highest counter it authenticated and
// a 64-bit bitmap of the 64 counters below it (RFC 6479's sliding window,
// as WireGuard and DTLS do): a packet whose counter is older than the
// window or already marked is a replay (Stats.Replayed), dropped. A
// packet that fails to open is dropped and counted (Stats.AuthFailures)
// before it changes any state: no ack, command, hash, leave or "heard
// from" comes from it. The window moves only for authenticated packets,
// so a forged counter cannot push genuine packets out of it.
//
// Insecure matches (Config.Insecure) use the same header, send the body in
// the clear and no tag; the replay window still drops duplicates.

import (
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"errors"

	"golang.org/x/crypto/chacha20poly1305"
)

// MatchKey is the secret every participant of a match shares: 32 random
// bytes (the format of "snapwire token keygen"'s key file).
type MatchKey [32]byte

// Errors of authentication.
var (
	// ErrAuth is a packet that does not open with its sender's key: forged
	// or corrupted. It is dropped and counted.
	ErrAuth = errors.New("lockstep: packet failed authentication")
	// ErrReplay is a packet whose counter was already seen or is older
	// than the replay window.
	ErrReplay = errors.New("lockstep: replayed packet")
)

const (
	clearHeader = 1 + 1 + 1 + 1 + 8
	tagBytes    = chacha20poly1305.Overhead
	serverID    = 0xFF // the packet server's index on the wire
	replayBits  = 64
)

// senderKey derives sender's key from the match key.
func senderKey(k *MatchKey, sender byte) [32]byte {
	m := hmac.New(sha256.New, k[:])
	m.Write([]byte("snapwire lockstep sender"))
	m.Write([]byte{sender, 1})
	var out [32]byte
	copy(out[:], m.Sum(nil))
	return out
}

func newAEAD(k *MatchKey, sender byte) cipher.AEAD {
	key := senderKey(k, sender)
	a, err := chacha20poly1305.New(key[:])
	if err != nil {
		panic(err) // 32-byte key: cannot fail
	}
	return a
}

// replayWindow is one sender's sliding window of counters seen.
type replayWindow struct {
	top  uint64 // highest counter authenticated
	bits uint64 // bit i: counter top-i seen
	seen bool
}

func (w *replayWindow) fresh(c uint64) bool {
	if !w.seen || c > w.top {
		return true
	}
	d := w.top - c
	return d < replayBits && w.bits&(1<<d) == 0
}

func (w *replayWindow) mark(c uint64) {
	switch {
	case !w.seen:
		w.seen, w.top, w.bits = true, c, 1
	case c > w.top:
		if s := c - w.top; s >= replayBits {
			w.bits = 1
		} else {
			w.bits = w.bits<<s | 1
		}
		w.top = c
	default:
		w.bits |= 1 << (w.top - c)
	}
}

// sealer authenticates one participant's packets: it seals what it sends
// under its own key and opens what it receives under each sender's.
type sealer struct {
	insecure bool
	me       byte
	send     cipher.AEAD
	recv     [MaxPeers + 1]cipher.AEAD // by slot: peer index, MaxPeers for the server
	win      [MaxPeers + 1]replayWindow
	counter  uint64
	nonce    [chacha20poly1305.NonceSize]byte // a field: no escape per packet
	dec      []byte
}

// slotOf is the window and key slot of wire sender id.
func slotOf(id byte) int {
	if id == serverID {
		return MaxPeers
	}
	return int(id)
}

// newSealer returns the sealer of participant me (serverID for the
// server) of a match of peers; with a relay, peers hear the server only
// and the server every peer.
func newSealer(key *MatchKey, insecure bool, me byte, peers int, maxBody int) *sealer {
	s := &sealer{insecure: insecure, me: me, dec: make([]byte, 0, maxBody+tagBytes)}
	var r [8]byte
	rand.Read(r[:])
	s.counter = binary.LittleEndian.Uint64(r[:]) >> 2
	if insecure {
		return s
	}
	s.send = newAEAD(key, me)
	for c := range peers {
		if byte(c) != me {
			s.recv[c] = newAEAD(key, byte(c))
		}
	}
	if me != serverID {
		s.recv[MaxPeers] = newAEAD(key, serverID)
	}
	return s
}

// overhead is the bytes a packet adds to its body.
func (s *sealer) overhead() int {
	if s.insecure {
		return clearHeader
	}
	return clearHeader + tagBytes
}

// header starts a packet of kind to to in b (which has room for the
// body and the tag).
func (s *sealer) header(b []byte, kind byte, to byte) []byte {
	s.counter++
	b = append(b[:0], kind, version, s.me, to)
	return binary.LittleEndian.AppendUint64(b, s.counter)
}

func (s *sealer) setNonce(counter uint64) []byte {
	binary.LittleEndian.PutUint64(s.nonce[4:], counter)
	return s.nonce[:]
}

// seal seals b, a header and its body, in place (b has room for the tag).
func (s *sealer) seal(b []byte) []byte {
	if s.insecure {
		return b
	}
	c := binary.LittleEndian.Uint64(b[4:])
	return s.send.Seal(b[:clearHeader], s.setNonce(c), b[clearHeader:], b[:clearHeader])
}

// open checks pkt's header (kind one of kinds, from the sender the
// transport named, to us), drops a replay and authenticates it; it
// returns the kind and the body, in the sealer's buffer.
func (s *sealer) open(pkt []byte, from byte, kinds string) (kind byte, body []byte, err error) {
	if len(pkt) < s.overhead() || pkt[1] != version || pkt[2] != from || pkt[3] != s.me || from == s.me {
		return 0, nil, ErrMalformed
	}
	kind = pkt[0]
	known := false
	for i := range len(kinds) {
		known = known || kinds[i] == kind
	}
	slot := slotOf(from)
	if !known || slot > MaxPeers || (!s.insecure && s.recv[slot] == nil) {
		return 0, nil, ErrMalformed
	}
	c := binary.LittleEndian.Uint64(pkt[4:])
	if s.insecure {
		body = pkt[clearHeader:]
	} else {
		if len(pkt)-clearHeader > cap(s.dec) {
			return 0, nil, ErrMalformed
		}
		body, err = s.recv[slot].Open(s.dec[:0], s.setNonce(c), pkt[clearHeader:], pkt[:clearHeader])
		if err != nil {
			return 0, nil, ErrAuth
		}
	}
	// Opened first, so a forged packet counts as forged whatever counter
	// it claims, and only a genuine packet seen before counts as a replay.
	w := &s.win[slot]
	if !w.fresh(c) {
		return 0, nil, ErrReplay
	}
	w.mark(c)
	return kind, body, nil
}
