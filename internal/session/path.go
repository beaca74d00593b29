package session

// Address validation (issue 22, item 2): the server checks that a client
// receives at a new address before it sends there freely, as QUIC's
// PATH_CHALLENGE and PATH_RESPONSE frames do (RFC 9000 §8.2).

import (
	"encoding/binary"
	"fmt"

	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/netchan"
)

// Unreliable message types of address validation.
const (
	// TypePathChallenge (server → client): game id u32, challenge u64. The
	// server sends it to a client's new, unvalidated address.
	TypePathChallenge netchan.MessageType = 3
	// TypePathResponse (client → server): the client header, then the
	// challenge u64 echoed, sent as soon as a challenge arrives.
	TypePathResponse netchan.MessageType = 3
)

// PathChallengeLen is the size of a challenge value.
const PathChallengeLen = 8

// AppendPathChallenge appends a TypePathChallenge message:
// game id u32 | challenge u64.
func AppendPathChallenge(b []byte, id game.GameID, challenge uint64) []byte {
	b = AppendServerHeader(b, id)
	return binary.LittleEndian.AppendUint64(b, challenge)
}

// ParsePathChallenge parses the body of a TypePathChallenge message after
// the server header: exactly PathChallengeLen bytes.
func ParsePathChallenge(body []byte) (uint64, error) {
	if len(body) != PathChallengeLen {
		return 0, fmt.Errorf("%w: path challenge of %d bytes", ErrMalformed, len(body))
	}
	return binary.LittleEndian.Uint64(body), nil
}

// AppendPathResponse appends a TypePathResponse message:
// game id u32 | snapshot ack u32 | challenge u64.
func AppendPathResponse(b []byte, h ClientHeader, challenge uint64) []byte {
	b = h.Append(b)
	return binary.LittleEndian.AppendUint64(b, challenge)
}

// ParsePathResponse parses the body of a TypePathResponse message after
// the client header: exactly PathChallengeLen bytes.
func ParsePathResponse(body []byte) (uint64, error) {
	if len(body) != PathChallengeLen {
		return 0, fmt.Errorf("%w: path response of %d bytes", ErrMalformed, len(body))
	}
	return binary.LittleEndian.Uint64(body), nil
}
