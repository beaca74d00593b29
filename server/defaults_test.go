package server

import (
	"bytes"
	"net/netip"
	"testing"

	"github.com/snapwire/snapwire/internal/serverhook"
	"github.com/snapwire/snapwire/internal/testgame"
)

// The zero-value Config draws the cookie secret and the connection ids from crypto/rand: two
// servers made alike have different secrets and different id sequences, and neither secret is
// the deterministic test secret. Deterministic (tests) derives both from Seed instead, the
// same for two servers. Guards against (tried): the secret left to the fixed key of
// Deterministic, or the ids' generator seeded from Config.Seed, when Deterministic is off.
func TestZeroConfigDrawsSecretAndIDsFromCryptoRand(t *testing.T) {
	mk := func(cfg Config) *Server {
		s, err := New(cfg, testgame.New(), testgame.DefaultSettings, SendFunc(func(netip.AddrPort, []byte) {}))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	ids := func(s *Server) [4]uint32 {
		return [4]uint32{s.ids.Uint32(), s.ids.Uint32(), s.ids.Uint32(), s.ids.Uint32()}
	}
	a, b := mk(Config{}), mk(Config{})
	det := mk(serverhook.With(Config{}, serverhook.Hooks{Deterministic: true}))
	if len(a.cfg.Secret) != 32 || bytes.Equal(a.cfg.Secret, b.cfg.Secret) || bytes.Equal(a.cfg.Secret, det.cfg.Secret) {
		t.Errorf("zero-value secrets %x and %x (deterministic %x)", a.cfg.Secret, b.cfg.Secret, det.cfg.Secret)
	}
	if ids(a) == ids(b) {
		t.Error("two zero-value servers hand out the same connection ids")
	}
	d1, d2 := mk(serverhook.With(Config{}, serverhook.Hooks{Deterministic: true, Seed: 5})), mk(serverhook.With(Config{}, serverhook.Hooks{Deterministic: true, Seed: 5}))
	if !bytes.Equal(d1.cfg.Secret, d2.cfg.Secret) || ids(d1) != ids(d2) {
		t.Error("Deterministic servers with one seed differ")
	}
}
