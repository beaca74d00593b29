package session

// The registry digest: what a refusal for a wrong registry (reason 3)
// carries so that the client can name the entity type, or state, and the
// first field where its registry differs from the server's (issue 24
// part 1). The registry hash in connect decides the refusal
// (game.Registry.Hash); the digest only names the difference.
//
// Layout (after the refusal's text; docs/PROTOCOL.md, "Handshake"):
//
//	level        u8   DigestTypes (1) or DigestFields (2)
//	count        u16  entries that follow, ids strictly ascending
//	per entry:
//	  id         u16  entity TypeID 1..4095, or 0x8000 | StateID
//	  name hash  u32  FNV-1a 32 of the type's name
//	  flags      u8   bit 7: declared (SnapFields); bits 0..6: the
//	                  prediction mode (0 for a state)
//	  declared only:
//	  layout     u32  FNV-1a 32 of SnapFields
//	  declared and DigestFields only:
//	  fields     u8   fields listed: the first 255 at most
//	  field hash u16  per listed field: FNV-1a 32 of its "name kind"
//	                  entry, low 16 bits
//
// The server sends the finest level that fits MaxRegistryDigestLen, and no
// digest when not even the types fit; the client then names the type only,
// or nothing beyond "wrong entity registry". The client builds the same
// entries from its own registry and reports the first that differs, in its
// own names: the digest carries hashes, never text, so a forged refusal
// cannot put words in the client's error.

import (
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/snapwire/snapwire/game"
)

// MaxRegistryDigestLen bounds a registry digest: a refuse carrying one is
// at most 1,163 bytes and a sealed refuse 1,074, under ConnectLen, so no
// answer is larger than its connect.
const MaxRegistryDigestLen = 1024

// Digest levels.
const (
	DigestTypes  = 1 // per type: name, mode, whether declared, layout hash
	DigestFields = 2 // and per declared type, a hash of each field
)

const (
	digestStateBit = 0x8000 // an entry's id: a state, StateID in the low bits
	digestDeclared = 0x80   // an entry's flags: SnapFields hashed
	digestHead     = 3      // level u8, count u16
	digestEntryMin = 7      // id, name hash, flags
	maxDigestField = 255
)

// digestEntry is one type or state: hashes only (parsed from a digest),
// or with its names (built from the client's own registry).
type digestEntry struct {
	id     uint16
	name   uint32
	flags  uint8
	layout uint32
	fields []uint16 // at most maxDigestField

	// The client's own names.
	typeName string
	entries  []string // SnapFields split at ";"
}

func fnv32(s string) uint32 {
	h := uint32(2166136261)
	for i := range len(s) {
		h = (h ^ uint32(s[i])) * 16777619
	}
	return h
}

// registryEntries lists reg's types in TypeID order, then its states in
// StateID order, with the fields of each declared one (a fresh instance
// implementing game.Declared, as game.Registry.Hash takes them).
func registryEntries(reg *game.Registry) []digestEntry {
	var es []digestEntry
	add := func(id uint16, name string, mode game.PredictionMode, fresh any) {
		e := digestEntry{id: id, name: fnv32(name), flags: uint8(mode), typeName: name}
		if d, ok := fresh.(game.Declared); ok && d.SnapFields() != "" {
			l := d.SnapFields()
			e.flags |= digestDeclared
			e.layout = fnv32(l)
			e.entries = strings.Split(l, ";")
			for _, f := range e.entries[:min(len(e.entries), maxDigestField)] {
				e.fields = append(e.fields, uint16(fnv32(f)))
			}
		}
		es = append(es, e)
	}
	for id := game.TypeID(1); id <= game.MaxTypeID; id++ {
		if t, ok := reg.Type(id); ok {
			add(uint16(id), t.Name, t.Mode, t.New())
		}
	}
	for id := range reg.NumStates() {
		if s, ok := reg.State(game.StateID(id)); ok {
			add(digestStateBit|uint16(id), s.Name, 0, s.New())
		}
	}
	return es
}

func appendDigest(b []byte, es []digestEntry, level uint8) []byte {
	b = append(b, level)
	b = binary.LittleEndian.AppendUint16(b, uint16(len(es)))
	for _, e := range es {
		b = binary.LittleEndian.AppendUint16(b, e.id)
		b = binary.LittleEndian.AppendUint32(b, e.name)
		b = append(b, e.flags)
		if e.flags&digestDeclared == 0 {
			continue
		}
		b = binary.LittleEndian.AppendUint32(b, e.layout)
		if level == DigestFields {
			b = append(b, byte(len(e.fields)))
			for _, f := range e.fields {
				b = binary.LittleEndian.AppendUint16(b, f)
			}
		}
	}
	return b
}

// RegistryDigest returns reg's digest at the finest level that fits
// MaxRegistryDigestLen, or nil if none does. A server computes it once.
func RegistryDigest(reg *game.Registry) []byte {
	es := registryEntries(reg)
	for _, level := range [...]uint8{DigestFields, DigestTypes} {
		if b := appendDigest(nil, es, level); len(b) <= MaxRegistryDigestLen {
			return b
		}
	}
	return nil
}

// parseDigest parses a digest from the network: level, entry count,
// ascending ids, flags and lengths are checked against what a digest can
// hold; the entries' field hashes alias nothing (at most
// MaxRegistryDigestLen bytes are read).
func parseDigest(p []byte) (uint8, []digestEntry, error) {
	if len(p) > MaxRegistryDigestLen {
		return 0, nil, fmt.Errorf("%w: registry digest of %d bytes, max %d", ErrMalformed, len(p), MaxRegistryDigestLen)
	}
	d := dec{b: p}
	level := d.u8()
	n := int(d.u16())
	if d.err == nil && level != DigestTypes && level != DigestFields {
		return 0, nil, fmt.Errorf("%w: registry digest level %d", ErrMalformed, level)
	}
	if d.err == nil && n > len(d.b)/digestEntryMin {
		return 0, nil, fmt.Errorf("%w: registry digest of %d entries in %d bytes", ErrMalformed, n, len(d.b))
	}
	es := make([]digestEntry, 0, n)
	for i := 0; i < n && d.err == nil; i++ {
		e := digestEntry{id: d.u16(), name: d.u32(), flags: d.u8()}
		switch {
		case d.err != nil:
		case e.id&digestStateBit == 0 && (e.id == 0 || game.TypeID(e.id) > game.MaxTypeID),
			e.id&digestStateBit != 0 && int(e.id&^digestStateBit) >= game.MaxStates:
			d.err = fmt.Errorf("%w: registry digest id %#x", ErrMalformed, e.id)
		case len(es) > 0 && e.id <= es[len(es)-1].id:
			d.err = fmt.Errorf("%w: registry digest ids not ascending", ErrMalformed)
		case e.flags&^digestDeclared > uint8(game.Interpolate), e.id&digestStateBit != 0 && e.flags&^digestDeclared != 0:
			d.err = fmt.Errorf("%w: registry digest flags %#x", ErrMalformed, e.flags)
		}
		if e.flags&digestDeclared != 0 {
			e.layout = d.u32()
			if level == DigestFields {
				k := int(d.u8())
				for f := d.need(2 * k); len(f) > 0; f = f[2:] {
					e.fields = append(e.fields, binary.LittleEndian.Uint16(f))
				}
			}
		}
		es = append(es, e)
	}
	if err := d.done(); err != nil {
		return 0, nil, err
	}
	return level, es, nil
}

// ExplainRegistry compares reg with the server's registry digest and
// describes the first difference in reg's names, for example
//
//	entity type "arena.Player" field "Health" differs (client: "Health int[0,100]")
//
// It returns "" when the digest is empty or shows no difference (hashes
// may collide; the registry hash decided the refusal), and an error for a
// digest that does not parse.
func ExplainRegistry(reg *game.Registry, digest []byte) (string, error) {
	if len(digest) == 0 {
		return "", nil
	}
	level, srv, err := parseDigest(digest)
	if err != nil {
		return "", err
	}
	own := registryEntries(reg)
	i, j := 0, 0
	for i < len(own) || j < len(srv) {
		switch {
		case j == len(srv) || (i < len(own) && own[i].id < srv[j].id):
			return fmt.Sprintf("%s is not registered on the server", own[i].what()), nil
		case i == len(own) || srv[j].id < own[i].id:
			if srv[j].id&digestStateBit != 0 {
				return fmt.Sprintf("the server registers state %d, the client does not", srv[j].id&^digestStateBit), nil
			}
			return fmt.Sprintf("the server registers entity type id %d, the client does not", srv[j].id), nil
		}
		if s := own[i].explain(&srv[j], level); s != "" {
			return s, nil
		}
		i, j = i+1, j+1
	}
	return "", nil
}

// what names the type or state: `entity type "arena.Player"`.
func (e *digestEntry) what() string {
	if e.id&digestStateBit != 0 {
		return fmt.Sprintf("state %q", e.typeName)
	}
	return fmt.Sprintf("entity type %q", e.typeName)
}

// explain describes how the server's entry s for the same id differs from
// e, or returns "".
func (e *digestEntry) explain(s *digestEntry, level uint8) string {
	kind := "entity type id"
	if e.id&digestStateBit != 0 {
		kind = "state"
	}
	switch {
	case e.name != s.name:
		return fmt.Sprintf("%s %d is %q on the client and another type on the server", kind, e.id&^digestStateBit, e.typeName)
	case e.flags&^digestDeclared != s.flags&^digestDeclared:
		return fmt.Sprintf("%s: prediction mode differs (client: %s)", e.what(), game.PredictionMode(e.flags&^digestDeclared))
	case e.flags&digestDeclared == 0 && s.flags&digestDeclared != 0:
		return fmt.Sprintf("%s: its codec is hand-written on the client and declared (SnapFields) on the server", e.what())
	case e.flags&digestDeclared != 0 && s.flags&digestDeclared == 0:
		return fmt.Sprintf("%s: its codec is declared (SnapFields) on the client and hand-written on the server", e.what())
	case e.layout == s.layout:
		return ""
	}
	if level == DigestFields {
		for k, f := range e.fields {
			if k == len(s.fields) {
				if len(s.fields) < maxDigestField {
					return fmt.Sprintf("%s field %q is not on the server (client: %q)", e.what(), fieldName(e.entries[k]), strings.TrimSpace(e.entries[k]))
				}
				break
			}
			if f != s.fields[k] {
				return fmt.Sprintf("%s field %q differs (client: %q)", e.what(), fieldName(e.entries[k]), strings.TrimSpace(e.entries[k]))
			}
		}
		if len(s.fields) > len(e.fields) {
			return fmt.Sprintf("%s: the server has %d fields, the client %d", e.what(), len(s.fields), len(e.fields))
		}
	}
	return fmt.Sprintf("%s: its fields differ", e.what())
}

// fieldName returns the name of a SnapFields entry ("Health int[0,100]"):
// the text before its first space.
func fieldName(entry string) string {
	name, _, _ := strings.Cut(strings.TrimSpace(entry), " ")
	return name
}
