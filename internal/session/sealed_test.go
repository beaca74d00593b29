package session

import (
	"bytes"
	"errors"
	"testing"
)

var (
	sealKey = [32]byte{1: 1, 31: 31}
	sealXN  = [XNonceLen]byte{2: 2, 23: 23}
)

func sealedExample(settings string) SealedAccept {
	return SealedAccept{Accept: Accept{Nonce: 0x0102030405060708, ConnID: 0xBEEF, Client: 3, GameID: 0xCAFE, FrameDur: 16666, Settings: settings},
		Random: [SessionRandomLen]byte{0: 9, 31: 7}}
}

// A sealed accept opens with its key to what was sealed; its clear head
// is kind 6, the nonce and the XChaCha20 nonce; every truncated prefix,
// every flipped bit and another key fail; the largest one is
// MaxSealedAcceptLen, under ConnectLen.
func TestSealedAccept(t *testing.T) {
	m := sealedExample("map=one")
	b := m.AppendSealed(nil, &sealKey, &sealXN)
	if want := 1 + 8 + XNonceLen + 2 + 2 + 4 + 4 + SessionRandomLen + 2 + len("map=one") + 16; len(b) != want {
		t.Errorf("%d bytes, want %d", len(b), want)
	}
	if b[0] != byte(KindSealedAccept) || !bytes.Equal(b[1:9], []byte{8, 7, 6, 5, 4, 3, 2, 1}) || !bytes.Equal(b[9:33], sealXN[:]) {
		t.Errorf("clear head % x", b[:33])
	}
	if n, ok := SealedAcceptNonce(b); !ok || n != m.Nonce {
		t.Errorf("nonce %x %v", n, ok)
	}
	got, err := OpenSealedAccept(b, &sealKey)
	if err != nil || got != m {
		t.Fatalf("open: %+v %v", got, err)
	}
	for i := range len(b) {
		if _, err := OpenSealedAccept(b[:i], &sealKey); err == nil {
			t.Errorf("prefix %d opens", i)
		}
	}
	for i := range len(b) * 8 {
		c := bytes.Clone(b)
		c[i/8] ^= 1 << (i % 8)
		if _, err := OpenSealedAccept(c, &sealKey); err == nil {
			t.Errorf("bit %d flipped: opens", i)
		}
	}
	other := sealKey
	other[0] ^= 1
	if _, err := OpenSealedAccept(b, &other); !errors.Is(err, ErrAuth) {
		t.Errorf("another key: %v", err)
	}
	big := sealedExample(string(bytes.Repeat([]byte{'s'}, MaxSettingsLen)))
	bb := big.AppendSealed(nil, &sealKey, &sealXN)
	if len(bb) != MaxSealedAcceptLen || len(bb) >= ConnectLen {
		t.Errorf("largest sealed accept %d bytes, MaxSealedAcceptLen %d, ConnectLen %d", len(bb), MaxSealedAcceptLen, ConnectLen)
	}
	if got, err := OpenSealedAccept(bb, &sealKey); err != nil || got != big {
		t.Errorf("largest: %v", err)
	}
}

// FuzzOpenSealedAccept: no panic on any input; what opens seals again,
// with its own XChaCha20 nonce, to the same bytes, and opens to the same
// message.
func FuzzOpenSealedAccept(f *testing.F) {
	f.Add(sealedExample("map=one").AppendSealed(nil, &sealKey, &sealXN))
	f.Add(sealedExample("").AppendSealed(nil, &sealKey, &sealXN))
	f.Add(sealedExample(string(bytes.Repeat([]byte{'s'}, MaxSettingsLen))).AppendSealed(nil, &sealKey, &sealXN))
	f.Add([]byte{byte(KindSealedAccept)})
	f.Fuzz(func(t *testing.T, b []byte) {
		SealedAcceptNonce(b)
		m, err := OpenSealedAccept(b, &sealKey)
		if err != nil {
			return
		}
		var xn [XNonceLen]byte
		copy(xn[:], b[9:])
		again := m.AppendSealed(nil, &sealKey, &xn)
		if !bytes.Equal(again, b) {
			t.Fatalf("resealed differs:\n% x\n% x", b, again)
		}
		if m2, err := OpenSealedAccept(again, &sealKey); err != nil || m2 != m {
			t.Fatalf("round trip: %+v %+v %v", m, m2, err)
		}
	})
}

// A sealed refuse is 50 bytes, opens with its key to its nonce and reason,
// and fails on every prefix, flipped bit and other key.
func TestSealedRefuse(t *testing.T) {
	m := Refuse{Nonce: 0x0102030405060708, Reason: ReasonWrongPassword}
	b := m.AppendSealed(nil, &sealKey, &sealXN)
	if len(b) != SealedRefuseLen || SealedRefuseLen != 50 || b[0] != byte(KindSealedRefuse) || !bytes.Equal(b[1:9], []byte{8, 7, 6, 5, 4, 3, 2, 1}) {
		t.Fatalf("% x", b)
	}
	if got, err := OpenSealedRefuse(b, &sealKey); err != nil || got != m {
		t.Fatalf("open: %+v %v", got, err)
	}
	for i := range len(b) {
		if _, err := OpenSealedRefuse(b[:i], &sealKey); err == nil {
			t.Errorf("prefix %d opens", i)
		}
	}
	for i := range len(b) * 8 {
		c := bytes.Clone(b)
		c[i/8] ^= 1 << (i % 8)
		if _, err := OpenSealedRefuse(c, &sealKey); err == nil {
			t.Errorf("bit %d flipped: opens", i)
		}
	}
	if _, err := OpenSealedAccept(b, &sealKey); err == nil {
		t.Error("a sealed refuse opens as an accept")
	}
}

// FuzzOpenSealedRefuse: no panic; what opens seals again to the same bytes.
func FuzzOpenSealedRefuse(f *testing.F) {
	f.Add(Refuse{Nonce: 1, Reason: ReasonServerFull}.AppendSealed(nil, &sealKey, &sealXN))
	f.Add(Refuse{Nonce: 2, Reason: 255}.AppendSealed(nil, &sealKey, &sealXN))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := OpenSealedRefuse(b, &sealKey)
		if err != nil {
			return
		}
		var xn [XNonceLen]byte
		copy(xn[:], b[9:])
		if again := m.AppendSealed(nil, &sealKey, &xn); !bytes.Equal(again, b) {
			t.Fatalf("resealed differs:\n% x\n% x", b, again)
		}
	})
}
