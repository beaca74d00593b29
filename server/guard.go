package server

import (
	"net/netip"
	"time"

	"github.com/snapwire/snapwire/internal/session"
)

// Bounds of the handshake's tables. Entries are only made for sources
// whose cookie proved their address (and, on a secure server, whose token
// opened), so a spoofer cannot fill them from random addresses; a full
// table stays at its bound by forgetting its oldest entries, never by
// refusing a connect.
const (
	maxUsedTokens = 8192
	maxAttempts   = 4096
)

type tokenUse struct {
	addr    netip.AddrPort
	nonce   uint64
	expires time.Time
	opened  bool // a session was opened with it
	// resumed holds the nonces of its recent resumes (resume.go).
	resumed [resumeNonces]resumeNonce
}

// tokenTable remembers the connect tokens used, by their MAC: a token
// binds to the first address and handshake nonce that use it
// (netcode.io's "connect token entries") and opens at most one session.
// When full, the oldest entry makes room; a token forgotten that way and
// accepted again still gets session keys of its own (tokenwire.SessionKeys).
type tokenTable struct {
	m    map[[16]byte]tokenUse
	ring [][16]byte // insertion order
	head int
}

// use records a token's use by from with handshake nonce, or says why it
// is refused. The same address and nonce again is the same connect
// retried after a refusal that came before any session (server full,
// say); once a session has been opened with the token, every connect
// with it is refused, whatever its address and nonce (a connect repeated
// while its session lives is answered before it gets here). Refusing
// only a different nonce let a connect replayed after its session ended
// open a second session with the first one's keys (issue 22, item 3).
func (t *tokenTable) use(mac [16]byte, from netip.AddrPort, nonce uint64, expires time.Time) session.Reason {
	if t.m == nil {
		t.m = make(map[[16]byte]tokenUse)
	}
	if e, ok := t.m[mac]; ok {
		switch {
		case e.addr != from:
			return session.ReasonTokenOtherAddress
		case e.opened || e.nonce != nonce:
			return session.ReasonTokenReused
		}
		return session.ReasonNone
	}
	if len(t.ring) < maxUsedTokens {
		t.ring = append(t.ring, mac)
	} else {
		delete(t.m, t.ring[t.head])
		t.ring[t.head] = mac
		t.head = (t.head + 1) % maxUsedTokens
	}
	t.m[mac] = tokenUse{addr: from, nonce: nonce, expires: expires}
	return session.ReasonNone
}

// opened records that a session was opened with the token.
func (t *tokenTable) opened(mac [16]byte) {
	if e, ok := t.m[mac]; ok {
		e.opened = true
		t.m[mac] = e
	}
}

type attempt struct {
	bucket int64
	n      int
}

// attemptTable counts events per IP address in a cookie time bucket:
// connects on an insecure server (Config.MaxConnectAttempts) and wrong
// passwords (MaxPasswordFailures). It holds at most maxAttempts addresses;
// when full, the address entered longest ago makes room, so a flood of
// addresses can reset its own counters but never refuses another address
// (a full table once refused every connect: issue 22, item 1).
type attemptTable struct {
	m    map[netip.Addr]*attempt
	ring []netip.Addr // insertion order, the keys of m
	head int
}

// count returns addr's count in bucket without making an entry.
func (t *attemptTable) count(addr netip.Addr, bucket int64) int {
	if a := t.m[addr]; a != nil && a.bucket == bucket {
		return a.n
	}
	return 0
}

// add counts one event of addr in bucket and returns its new count.
func (t *attemptTable) add(addr netip.Addr, bucket int64) int {
	if t.m == nil {
		t.m = make(map[netip.Addr]*attempt)
	}
	a := t.m[addr]
	switch {
	case a != nil:
		if a.bucket != bucket {
			*a = attempt{bucket: bucket}
		}
	case len(t.ring) < maxAttempts:
		a = &attempt{bucket: bucket}
		t.m[addr] = a
		t.ring = append(t.ring, addr)
	default:
		old := t.ring[t.head]
		a = t.m[old]
		delete(t.m, old)
		*a = attempt{bucket: bucket}
		t.m[addr] = a
		t.ring[t.head] = addr
		t.head = (t.head + 1) % maxAttempts
	}
	a.n++
	return a.n
}
