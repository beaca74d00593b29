package game

import (
	"fmt"
	"iter"
)

// EntityTable is a World backed by a fixed array of MaxEntities slots.
// Games embed it (or use it as their entity list) and add their own logic.
type EntityTable struct {
	reg   *Registry
	ents  [MaxEntities]Entity
	types [MaxEntities]TypeID
	count int
	nums  numbers // Add's free numbers (numbers.go)
}

// NewEntityTable returns an empty table creating entities from reg.
func NewEntityTable(reg *Registry) *EntityTable { return &EntityTable{reg: reg} }

// Registry returns the table's registry.
func (t *EntityTable) Registry() *Registry { return t.reg }

// Entity returns entity n and its type, or (nil, NoType).
func (t *EntityTable) Entity(n EntityNum) (Entity, TypeID) {
	if int(n) >= MaxEntities {
		return nil, NoType
	}
	return t.ents[n], t.types[n]
}

// Entities yields the live entities in ascending number order.
func (t *EntityTable) Entities() iter.Seq2[EntityNum, Entity] {
	return func(yield func(EntityNum, Entity) bool) {
		for i := range t.ents {
			if t.ents[i] != nil && !yield(EntityNum(i), t.ents[i]) {
				return
			}
		}
	}
}

// Spawn creates an entity of type typ numbered n, replacing any entity there.
func (t *EntityTable) Spawn(n EntityNum, typ TypeID) (Entity, error) {
	e, err := t.reg.New(typ)
	if err != nil {
		return nil, err
	}
	if err := t.Put(n, typ, e); err != nil {
		return nil, err
	}
	return e, nil
}

// Put stores e, of registered type typ, as entity n, replacing any entity
// there.
func (t *EntityTable) Put(n EntityNum, typ TypeID, e Entity) error {
	if int(n) >= MaxEntities {
		return fmt.Errorf("%w: entity number %d", ErrRange, n)
	}
	if e == nil || !t.reg.known(typ) {
		return fmt.Errorf("%w: %d for entity %d", ErrUnknownType, typ, n)
	}
	if t.ents[n] == nil {
		t.count++
		t.nums.take(n)
	}
	t.ents[n], t.types[n] = e, typ
	return nil
}

// Remove deletes entity n if it exists. Add does not hand out its number
// again before Recycle releases it.
func (t *EntityTable) Remove(n EntityNum) {
	if int(n) >= MaxEntities || t.ents[n] == nil {
		return
	}
	t.ents[n], t.types[n] = nil, NoType
	t.count--
	t.nums.hold(n)
}

// Len returns the number of live entities.
func (t *EntityTable) Len() int { return t.count }
