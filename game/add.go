package game

import "fmt"

// AddEntity is Add with an entity the game built: it stores e, whose Go
// type must be the one typ's EntityType.New returns (as for Put), at the
// lowest free number and returns the number. A game spawns a player with
// its fields set in one call:
//
//	_, err := g.AddEntity(dotType, &Dot{Client: c})
func (t *EntityTable) AddEntity(typ TypeID, e Entity) (EntityNum, error) {
	n, ok := t.nums.free()
	if !ok {
		return 0, fmt.Errorf("%w: no free entity number (%d live)", ErrRange, t.count)
	}
	return n, t.Put(n, typ, e)
}
