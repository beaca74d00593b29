package server

import (
	"net/netip"
	"time"

	"github.com/snapwire/snapwire/proto"
)

// Bounds of the handshake's tables. Entries are only made for sources
// whose cookie proved their address, so a spoofer cannot fill them from
// random addresses; a full table still stays at its bound.
const (
	maxUsedTokens = 8192
	maxAttempts   = 4096
)

type tokenUse struct {
	addr    netip.AddrPort
	nonce   uint64
	expires time.Time
}

// tokenTable remembers the connect tokens used, by their MAC, until they
// expire: a token binds to the first address that uses it and serves one
// handshake (netcode.io's "connect token entries"). When full, the oldest
// entry makes room.
type tokenTable struct {
	m    map[[16]byte]tokenUse
	ring [][16]byte // insertion order
	head int
}

// use records a token's use by from with handshake nonce, or says why it
// is refused.
func (t *tokenTable) use(mac [16]byte, from netip.AddrPort, nonce uint64, expires time.Time) proto.Reason {
	if t.m == nil {
		t.m = make(map[[16]byte]tokenUse)
	}
	if e, ok := t.m[mac]; ok {
		switch {
		case e.addr != from:
			return proto.ReasonTokenOtherAddress
		case e.nonce != nonce:
			return proto.ReasonTokenReused
		}
		return proto.ReasonNone // the same request again (lost answer)
	}
	if len(t.ring) < maxUsedTokens {
		t.ring = append(t.ring, mac)
	} else {
		delete(t.m, t.ring[t.head])
		t.ring[t.head] = mac
		t.head = (t.head + 1) % maxUsedTokens
	}
	t.m[mac] = tokenUse{addr: from, nonce: nonce, expires: expires}
	return proto.ReasonNone
}

type attempt struct {
	bucket            int64
	connects, pwFails int
}

// attemptTable counts connects per cookie (its address and port,
// Config.MaxConnectAttempts) or wrong passwords per IP address
// (MaxPasswordFailures) in a cookie time bucket.
type attemptTable[K comparable] struct {
	m map[K]*attempt
}

// get returns the counters of addr in bucket, or nil when the table is
// full of the current buckets' entries (the connect is then refused).
func (t *attemptTable[K]) get(addr K, bucket int64) *attempt {
	if t.m == nil {
		t.m = make(map[K]*attempt)
	}
	if a := t.m[addr]; a != nil {
		if a.bucket != bucket {
			*a = attempt{bucket: bucket}
		}
		return a
	}
	if len(t.m) >= maxAttempts {
		for k, a := range t.m {
			if a.bucket != bucket {
				delete(t.m, k)
			}
		}
		if len(t.m) >= maxAttempts {
			return nil
		}
	}
	a := &attempt{bucket: bucket}
	t.m[addr] = a
	return a
}
