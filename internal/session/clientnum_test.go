package session

import (
	"errors"
	"testing"

	"github.com/snapwire/snapwire/game"
)

// Client numbers above 255 (version 5: a u16 on the wire) round-trip in
// accept and sealed accept, little-endian after the connection id; a
// number of game.MaxClients or more is malformed in both.
func TestAcceptClientNumbers(t *testing.T) {
	for _, n := range []game.ClientNum{0, 255, 256, 0x1ff, game.MaxClients - 1} {
		acc := Accept{Nonce: 1, ConnID: 2, Client: n, GameID: 3, FrameDur: 16666}
		b := acc.Append(nil)
		if b[11] != byte(n) || b[12] != byte(n>>8) {
			t.Errorf("client %d: bytes % x", n, b[11:13])
		}
		if got, err := ParseAccept(b); err != nil || got != acc {
			t.Errorf("accept of client %d: %+v %v", n, got, err)
		}
		sa := SealedAccept{Accept: acc}
		if got, err := OpenSealedAccept(sa.AppendSealed(nil, &sealKey, &sealXN), &sealKey); err != nil || got != sa {
			t.Errorf("sealed accept of client %d: %+v %v", n, got, err)
		}
	}
	for _, n := range []game.ClientNum{game.MaxClients, 0xffff} {
		acc := Accept{Nonce: 1, ConnID: 2, Client: n, GameID: 3, FrameDur: 16666}
		if _, err := ParseAccept(acc.Append(nil)); !errors.Is(err, ErrMalformed) {
			t.Errorf("accept of client %d: %v", n, err)
		}
		sa := SealedAccept{Accept: acc}
		if _, err := OpenSealedAccept(sa.AppendSealed(nil, &sealKey, &sealXN), &sealKey); !errors.Is(err, ErrMalformed) {
			t.Errorf("sealed accept of client %d: %v", n, err)
		}
	}
}
