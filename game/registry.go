package game

import (
	"fmt"
)

// MaxTypeID is the largest TypeID a registry accepts.
const MaxTypeID TypeID = 4095

// EntityType describes a registered entity type.
type EntityType struct {
	// Name identifies the type; it is part of the registry hash.
	Name string
	// New returns a fresh entity of the type with its default state.
	New func() Entity
	// Mode says how clients advance the type between snapshots.
	Mode PredictionMode
}

// StateType describes a registered state not tied to the PVS (DOOM III §3.2,
// §8): for example a game state (scores, time) and a player state (ammo,
// inventory of the local player).
type StateType struct {
	Name string
	// New returns a scratch instance; the snapshot decoder uses one to parse
	// the state's delta.
	New func() Snapshotter
}

// Registry holds the entity and state types shared by the server and the
// client. Both ends build it with the same registration calls in the same
// order (typically one function in the game package), and check Hash when a
// client connects. A Registry is built once at start-up and read-only after;
// it is not safe for concurrent registration.
type Registry struct {
	types  []EntityType // index TypeID; types[0] (NoType) is never set
	byName map[string]TypeID
	states []StateType
	msgs   []messageType // by message id (message.go)
	// layouts[id] and stateLayouts[id] hold the SnapFields of a type or
	// state whose fresh instance implements Declared ("" for hand-written
	// codecs), taken once at registration for Hash.
	layouts      []string
	stateLayouts []string
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{types: make([]EntityType, 1), layouts: make([]string, 1), byName: map[string]TypeID{}}
}

// Register adds an entity type with the next TypeID: one more than the
// largest registered so far (1 for the first). TypeIDs therefore follow
// registration order.
func (r *Registry) Register(t EntityType) (TypeID, error) {
	id := TypeID(len(r.types))
	if err := r.RegisterAs(id, t); err != nil {
		return NoType, err
	}
	return id, nil
}

// RegisterAs adds an entity type with an explicit TypeID in 1..MaxTypeID.
func (r *Registry) RegisterAs(id TypeID, t EntityType) error {
	switch {
	case id == NoType || id > MaxTypeID:
		return fmt.Errorf("%w: type id %d outside 1..%d", ErrRange, id, MaxTypeID)
	case t.Name == "" || len(t.Name) > 255:
		return fmt.Errorf("%w: type name %q must be 1..255 bytes", ErrRange, t.Name)
	case t.New == nil:
		return fmt.Errorf("game: type %q has no constructor", t.Name)
	case t.Mode > PredictOwner:
		return fmt.Errorf("%w: type %q has prediction mode %d", ErrRange, t.Name, t.Mode)
	case t.Mode == PredictOwner && !isOwned(t.New()):
		return fmt.Errorf("game: type %q is PredictOwner but its entities do not implement Owned", t.Name)
	}
	if _, dup := r.byName[t.Name]; dup {
		return fmt.Errorf("%w: name %q", ErrDuplicateType, t.Name)
	}
	if int(id) < len(r.types) && r.types[id].New != nil {
		return fmt.Errorf("%w: id %d (%q)", ErrDuplicateType, id, r.types[id].Name)
	}
	for int(id) >= len(r.types) {
		r.types = append(r.types, EntityType{})
		r.layouts = append(r.layouts, "")
	}
	r.types[id] = t
	r.layouts[id] = declaredLayout(t.New())
	r.byName[t.Name] = id
	return nil
}

// MustRegister is Register that panics on error, for registration at
// start-up from constant descriptions.
func (r *Registry) MustRegister(t EntityType) TypeID {
	id, err := r.Register(t)
	if err != nil {
		panic(err)
	}
	return id
}

// RegisterState adds a non-PVS state; StateIDs follow registration order
// from 0. At most MaxStates states.
func (r *Registry) RegisterState(t StateType) (StateID, error) {
	switch {
	case len(r.states) >= MaxStates:
		return 0, fmt.Errorf("%w: more than %d states", ErrRange, MaxStates)
	case t.Name == "" || len(t.Name) > 255:
		return 0, fmt.Errorf("%w: state name %q must be 1..255 bytes", ErrRange, t.Name)
	case t.New == nil:
		return 0, fmt.Errorf("game: state %q has no constructor", t.Name)
	}
	for _, s := range r.states {
		if s.Name == t.Name {
			return 0, fmt.Errorf("%w: state %q", ErrDuplicateType, t.Name)
		}
	}
	r.states = append(r.states, t)
	r.stateLayouts = append(r.stateLayouts, declaredLayout(t.New()))
	return StateID(len(r.states) - 1), nil
}

// MustRegisterState is RegisterState that panics on error.
func (r *Registry) MustRegisterState(t StateType) StateID {
	id, err := r.RegisterState(t)
	if err != nil {
		panic(err)
	}
	return id
}

// Type returns the registered type id.
func (r *Registry) Type(id TypeID) (EntityType, bool) {
	if int(id) >= len(r.types) || r.types[id].New == nil {
		return EntityType{}, false
	}
	return r.types[id], true
}

// known reports whether id is a registered type.
func (r *Registry) known(id TypeID) bool {
	return int(id) < len(r.types) && r.types[id].New != nil
}

// TypeByName returns the TypeID registered under name.
func (r *Registry) TypeByName(name string) (TypeID, bool) {
	id, ok := r.byName[name]
	return id, ok
}

// New creates an entity of type id.
func (r *Registry) New(id TypeID) (Entity, error) {
	if !r.known(id) {
		return nil, fmt.Errorf("%w: %d", ErrUnknownType, id)
	}
	return r.types[id].New(), nil
}

// Mode returns the prediction mode of type id (Predict if unknown).
func (r *Registry) Mode(id TypeID) PredictionMode {
	if !r.known(id) {
		return Predict
	}
	return r.types[id].Mode
}

// NumStates returns the number of registered non-PVS states.
func (r *Registry) NumStates() int { return len(r.states) }

// State returns the registered state id.
func (r *Registry) State(id StateID) (StateType, bool) {
	if int(id) >= len(r.states) {
		return StateType{}, false
	}
	return r.states[id], true
}

// Hash returns an FNV-1a 64-bit hash of the registry's contents: for each
// registered type in TypeID order its id (2 bytes little-endian), name
// length (1 byte), name and mode (1 byte); then a 0xFF byte; then for each
// state in StateID order its name length and name. Then, for every type and
// state whose codec is declared (its fresh instance implements Declared),
// in TypeID and then StateID order, its field layout: 'E' and the TypeID
// (2 bytes) or 'S' and the StateID (1 byte), the length of SnapFields (4
// bytes) and SnapFields itself (names, kinds, widths, order); a registry of
// hand-written codecs hashes by names and modes only. Then, if game
// messages are registered, a 0xFE byte and each message type's name length
// and name in id order. The client sends it when connecting; a mismatch
// means the two ends would misread each other's snapshots or messages.
func (r *Registry) Hash() uint64 {
	h := newFNV()
	h.bytes([]byte("snapwire registry 1"))
	for id, t := range r.types {
		if t.New == nil {
			continue
		}
		h.byte(byte(id))
		h.byte(byte(id >> 8))
		h.byte(byte(len(t.Name)))
		h.bytes([]byte(t.Name))
		h.byte(byte(t.Mode))
	}
	h.byte(0xFF)
	for _, s := range r.states {
		h.byte(byte(len(s.Name)))
		h.bytes([]byte(s.Name))
	}
	for id, l := range r.layouts {
		if l != "" {
			h.byte('E')
			h.byte(byte(id))
			h.byte(byte(id >> 8))
			h.layout(l)
		}
	}
	for id, l := range r.stateLayouts {
		if l != "" {
			h.byte('S')
			h.byte(byte(id))
			h.layout(l)
		}
	}
	r.hashMessages(&h)
	return uint64(h)
}

// declaredLayout returns e's SnapFields if it implements Declared, else "".
func declaredLayout(e any) string {
	if d, ok := e.(Declared); ok {
		return d.SnapFields()
	}
	return ""
}

// fnv is FNV-1a 64 without the hash.Hash interface (no allocation).
type fnv uint64

func newFNV() fnv { return 14695981039346656037 }

func (h *fnv) byte(b byte) { *h = (*h ^ fnv(b)) * 1099511628211 }

func (h *fnv) bytes(p []byte) {
	for _, b := range p {
		h.byte(b)
	}
}

// layout hashes a field layout: its length (4 bytes little-endian), then
// its bytes.
func (h *fnv) layout(l string) {
	for i := 0; i < 32; i += 8 {
		h.byte(byte(len(l) >> i))
	}
	for i := range len(l) {
		h.byte(l[i])
	}
}

// maxID returns the largest registered TypeID (NoType if none).
func (r *Registry) maxID() TypeID { return TypeID(len(r.types) - 1) }
