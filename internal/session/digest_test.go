package session

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/game"
)

// layoutEnt stands for an entity or state with a declared codec: its
// SnapFields is written by hand here, as the generator would write it.
type layoutEnt struct{ layout string }

func (e *layoutEnt) WriteSnapshot(*bitmsg.DeltaWriter) {}
func (e *layoutEnt) ReadSnapshot(*bitmsg.DeltaReader)  {}
func (e *layoutEnt) SnapFields() string                { return e.layout }

// handEnt is a hand-written codec (no SnapFields).
type handEnt struct{}

func (handEnt) WriteSnapshot(*bitmsg.DeltaWriter) {}
func (handEnt) ReadSnapshot(*bitmsg.DeltaReader)  {}

const (
	playerFields = "X float[-4096,4096]/0.125;Y float[-4096,4096]/0.125;Health int[0,100];Alive bool"
	scoreFields  = "Time uint32;Frags [4]int[0,255]"
)

// digestRegistry is a small game: a declared player, a hand-written
// rocket, a declared score state; edit changes it before registration.
type digestRegistry struct {
	player, score string
	rocketMode    game.PredictionMode
	rocketName    string
	extraType     bool
	handPlayer    bool
}

func (d digestRegistry) build() *game.Registry {
	if d.player == "" {
		d.player = playerFields
	}
	if d.score == "" {
		d.score = scoreFields
	}
	if d.rocketName == "" {
		d.rocketName = "arena.Rocket"
	}
	r := game.NewRegistry()
	player := func() game.Entity { return &layoutEnt{d.player} }
	if d.handPlayer {
		player = func() game.Entity { return handEnt{} }
	}
	r.MustRegister(game.EntityType{Name: "arena.Player", New: player})
	r.MustRegister(game.EntityType{Name: d.rocketName, New: func() game.Entity { return handEnt{} }, Mode: d.rocketMode})
	if d.extraType {
		r.MustRegister(game.EntityType{Name: "arena.Door", New: func() game.Entity { return handEnt{} }})
	}
	r.MustRegisterState(game.StateType{Name: "arena.score", New: func() game.Snapshotter { return &layoutEnt{d.score} }})
	return r
}

// Each difference is named in the client's words from the server's
// digest, and the two registries' hashes differ.
func TestExplainRegistry(t *testing.T) {
	server := digestRegistry{}.build()
	digest := RegistryDigest(server)
	if digest[0] != DigestFields {
		t.Fatalf("level %d", digest[0])
	}
	cases := []struct {
		client digestRegistry
		want   string
	}{
		{digestRegistry{player: strings.Replace(playerFields, "Health int[0,100]", "Health int[0,200]", 1)},
			`entity type "arena.Player" field "Health" differs (client: "Health int[0,200]")`},
		{digestRegistry{player: playerFields + ";Armor int[0,100]"},
			`entity type "arena.Player" field "Armor" is not on the server (client: "Armor int[0,100]")`},
		{digestRegistry{player: strings.TrimSuffix(playerFields, ";Alive bool")},
			`entity type "arena.Player": the server has 4 fields, the client 3`},
		{digestRegistry{score: "Time uint16;Frags [4]int[0,255]"},
			`state "arena.score" field "Time" differs (client: "Time uint16")`},
		{digestRegistry{rocketMode: game.Interpolate},
			`entity type "arena.Rocket": prediction mode differs (client: interpolate)`},
		{digestRegistry{rocketName: "arena.Grenade"},
			`entity type id 2 is "arena.Grenade" on the client and another type on the server`},
		{digestRegistry{extraType: true},
			`entity type "arena.Door" is not registered on the server`},
		{digestRegistry{handPlayer: true},
			`entity type "arena.Player": its codec is hand-written on the client and declared (SnapFields) on the server`},
	}
	for _, c := range cases {
		reg := c.client.build()
		if reg.Hash() == server.Hash() {
			t.Errorf("%q: hashes equal", c.want)
		}
		got, err := ExplainRegistry(reg, digest)
		if err != nil || got != c.want {
			t.Errorf("got %q, %v\nwant %q", got, err, c.want)
		}
	}
	// The other way round: the server has what the client lacks.
	if got, _ := ExplainRegistry(server, RegistryDigest(digestRegistry{extraType: true}.build())); got != "the server registers entity type id 3, the client does not" {
		t.Errorf("server's extra type: %q", got)
	}
	// A forged digest carries hashes only: the text is the client's own.
	evil := game.NewRegistry()
	evil.MustRegister(game.EntityType{Name: "click http://evil.example", New: func() game.Entity { return &layoutEnt{"Pay int[0,9]"} }})
	if got, _ := ExplainRegistry(server, RegistryDigest(evil)); strings.Contains(got, "evil") || strings.Contains(got, "Pay") || got == "" {
		t.Errorf("forged digest: %q", got)
	}
	if got, err := ExplainRegistry(server, digest); got != "" || err != nil {
		t.Errorf("equal registries: %q %v", got, err)
	}
	if got, err := ExplainRegistry(server, nil); got != "" || err != nil {
		t.Errorf("no digest: %q %v", got, err)
	}
}

// A registry whose fields do not fit sends types only, and the client
// names the type; one whose types do not fit sends no digest.
func TestRegistryDigestDegrades(t *testing.T) {
	many := func(types, fields int, width string) *game.Registry {
		var l []string
		for i := range fields {
			l = append(l, fmt.Sprintf("F%d int[0,%s]", i, width))
		}
		layout := strings.Join(l, ";")
		r := game.NewRegistry()
		for i := range types {
			r.MustRegister(game.EntityType{Name: fmt.Sprintf("t%d", i), New: func() game.Entity { return &layoutEnt{layout} }})
		}
		return r
	}
	server := many(10, 60, "100") // 10 × (12 + 1 + 120) bytes: over the limit
	d := RegistryDigest(server)
	if len(d) > MaxRegistryDigestLen || d[0] != DigestTypes {
		t.Fatalf("%d bytes, level %d", len(d), d[0])
	}
	if got, _ := ExplainRegistry(many(10, 60, "200"), d); got != `entity type "t0": its fields differ` {
		t.Errorf("types only: %q", got)
	}
	if d := RegistryDigest(many(80, 1, "1")); d == nil || d[0] != DigestTypes { // 80 × 14 bytes with fields, 80 × 11 without
		t.Errorf("80 types of one field: %v", d)
	}
	if d := RegistryDigest(many(150, 0, "1")); d != nil { // 150 × 7 bytes
		t.Errorf("150 types: a digest of %d bytes", len(d))
	}
}

// A digest parses back to the same bytes; every prefix and every
// inconsistent count, id, level and flag is refused.
func TestParseDigest(t *testing.T) {
	for _, reg := range []*game.Registry{digestRegistry{}.build(), digestRegistry{extraType: true, handPlayer: true}.build(), game.NewRegistry()} {
		d := RegistryDigest(reg)
		level, es, err := parseDigest(d)
		if err != nil || !bytes.Equal(appendDigest(nil, es, level), d) {
			t.Fatalf("round trip: %v", err)
		}
		for i := range len(d) {
			if _, _, err := parseDigest(d[:i]); !errors.Is(err, ErrMalformed) {
				t.Errorf("prefix %d: %v", i, err)
			}
		}
	}
	d := RegistryDigest(digestRegistry{}.build())
	bad := map[string]func(b []byte){
		"level 3":        func(b []byte) { b[0] = 3 },
		"count too high": func(b []byte) { b[1], b[2] = 0xFF, 0xFF },
		"type id 0":      func(b []byte) { b[3], b[4] = 0, 0 },
		"type id 4096":   func(b []byte) { b[3], b[4] = 0, 0x10 },
		"mode 5":         func(b []byte) { b[9] = digestDeclared | 5 },
		"ids descending": func(b []byte) { b[3] = 9 },
	}
	for name, edit := range bad {
		b := bytes.Clone(d)
		edit(b)
		if _, _, err := parseDigest(b); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, _, err := parseDigest(make([]byte, MaxRegistryDigestLen+1)); !errors.Is(err, ErrMalformed) {
		t.Errorf("oversized: %v", err)
	}
}

// A refuse carries a digest with reason 3 only, plain and sealed; without
// one its bytes are version 3's, so an older client reads its reason.
func TestRefuseDigest(t *testing.T) {
	d := string(RegistryDigest(digestRegistry{}.build()))
	m := Refuse{Nonce: 7, Reason: ReasonWrongRegistry, Digest: d}
	b := m.Append(nil)
	if got, err := ParseRefuse(b); err != nil || got != m {
		t.Fatalf("plain: %+v %v", got, err)
	}
	for i := range len(b) {
		got, err := ParseRefuse(b[:i])
		if i == 11 { // the refuse without its digest
			if err != nil || got.Digest != "" {
				t.Errorf("without digest: %+v %v", got, err)
			}
		} else if err == nil {
			t.Errorf("prefix %d parses", i)
		}
	}
	s := m.AppendSealed(nil, &sealKey, &sealXN)
	if len(s) != SealedRefuseLen+len(d) || len(s) > MaxSealedRefuseLen {
		t.Fatalf("sealed: %d bytes", len(s))
	}
	if got, err := OpenSealedRefuse(s, &sealKey); err != nil || got != m {
		t.Fatalf("sealed: %+v %v", got, err)
	}
	v3 := []byte{5, 7, 0, 0, 0, 0, 0, 0, 0, byte(ReasonWrongVersion), 0}
	if b := (Refuse{Nonce: 7, Reason: ReasonWrongVersion, Digest: d}).Append(nil); !bytes.Equal(b, v3) {
		t.Errorf("digest with another reason sent: % x", b)
	}
	wrong := append(bytes.Clone(v3), d...)
	if _, err := ParseRefuse(wrong); !errors.Is(err, ErrMalformed) {
		t.Errorf("digest with reason 2 parses: %v", err)
	}
	big := Refuse{Nonce: 7, Reason: ReasonWrongRegistry, Digest: strings.Repeat("x", MaxRegistryDigestLen+1)}
	if len(big.Append(nil)) != 11 || len(big.AppendSealed(nil, &sealKey, &sealXN)) != SealedRefuseLen {
		t.Error("an oversized digest is sent")
	}
	if n := len(Refuse{Reason: ReasonWrongRegistry, Text: strings.Repeat("t", MaxReasonLen), Digest: string(make([]byte, 0))}.Append(nil)) + MaxRegistryDigestLen; n >= ConnectLen || MaxSealedRefuseLen >= ConnectLen {
		t.Errorf("a refuse of %d bytes, sealed %d: not under ConnectLen", n, MaxSealedRefuseLen)
	}
}

// FuzzRegistryDigest: what parses appends back to the same bytes, and
// ExplainRegistry never panics on it.
func FuzzRegistryDigest(f *testing.F) {
	f.Add(RegistryDigest(digestRegistry{}.build()))
	f.Add(RegistryDigest(digestRegistry{extraType: true, handPlayer: true, rocketMode: game.Interpolate}.build()))
	f.Add(appendDigest(nil, registryEntries(digestRegistry{}.build()), DigestTypes))
	f.Add([]byte{DigestFields, 0, 0})
	reg := digestRegistry{player: playerFields + ";Armor int[0,100]"}.build()
	f.Fuzz(func(t *testing.T, b []byte) {
		level, es, err := parseDigest(b)
		if _, xerr := ExplainRegistry(reg, b); (xerr == nil) != (err == nil || len(b) == 0) {
			t.Fatalf("ExplainRegistry %v, parseDigest %v", xerr, err)
		}
		if err != nil {
			return
		}
		if again := appendDigest(nil, es, level); !bytes.Equal(again, b) {
			t.Fatalf("appended differs:\n% x\n% x", b, again)
		}
	})
}
