package msg

import (
	"errors"
	"fmt"
)

// EntityNum is an entity number, 0..MaxGEntities-1.
type EntityNum int32

// TrajectoryType is how a trajectory evolves over time (bg_public.h trType_t).
type TrajectoryType int32

// Trajectory is trajectory_t: position or angles as a function of time.
type Trajectory struct {
	Type     TrajectoryType
	Time     int32
	Duration int32
	Base     [3]float32
	Delta    [3]float32
}

// EntityState is the networked part of an entity (ioq3 entityState_t).
// Number is not in the field table: it is sent before every delta.
type EntityState struct {
	Number          EntityNum
	EType           int32
	EFlags          int32
	Pos             Trajectory
	APos            Trajectory
	Time            int32
	Time2           int32
	Origin          [3]float32
	Origin2         [3]float32
	Angles          [3]float32
	Angles2         [3]float32
	OtherEntityNum  int32
	OtherEntityNum2 int32
	GroundEntityNum int32
	ConstantLight   int32
	LoopSound       int32
	ModelIndex      int32
	ModelIndex2     int32
	ClientNum       int32
	Frame           int32
	Solid           int32
	Event           int32
	EventParm       int32
	Powerups        int32
	Weapon          int32
	LegsAnim        int32
	TorsoAnim       int32
	Generic1        int32
}

type esField = netField[EntityState]

func esI(name string, bits int, p func(*EntityState) *int32) esField {
	return esField{name: name, bits: bits, i: p}
}
func esF(name string, p func(*EntityState) *float32) esField {
	return esField{name: name, f: p}
}

// entityStateFields is ioq3 code/qcommon/msg.c entityStateFields[] (the same
// as id's 1.32 table): name, width in bits (0 = float). The order is the
// wire order and was chosen by the engine's authors by change frequency.
var entityStateFields = [...]esField{
	esI("pos.trTime", 32, func(s *EntityState) *int32 { return &s.Pos.Time }),
	esF("pos.trBase[0]", func(s *EntityState) *float32 { return &s.Pos.Base[0] }),
	esF("pos.trBase[1]", func(s *EntityState) *float32 { return &s.Pos.Base[1] }),
	esF("pos.trDelta[0]", func(s *EntityState) *float32 { return &s.Pos.Delta[0] }),
	esF("pos.trDelta[1]", func(s *EntityState) *float32 { return &s.Pos.Delta[1] }),
	esF("pos.trBase[2]", func(s *EntityState) *float32 { return &s.Pos.Base[2] }),
	esF("apos.trBase[1]", func(s *EntityState) *float32 { return &s.APos.Base[1] }),
	esF("pos.trDelta[2]", func(s *EntityState) *float32 { return &s.Pos.Delta[2] }),
	esF("apos.trBase[0]", func(s *EntityState) *float32 { return &s.APos.Base[0] }),
	esI("event", 10, func(s *EntityState) *int32 { return &s.Event }),
	esF("angles2[1]", func(s *EntityState) *float32 { return &s.Angles2[1] }),
	esI("eType", 8, func(s *EntityState) *int32 { return &s.EType }),
	esI("torsoAnim", 8, func(s *EntityState) *int32 { return &s.TorsoAnim }),
	esI("eventParm", 8, func(s *EntityState) *int32 { return &s.EventParm }),
	esI("legsAnim", 8, func(s *EntityState) *int32 { return &s.LegsAnim }),
	esI("groundEntityNum", GEntityNumBits, func(s *EntityState) *int32 { return &s.GroundEntityNum }),
	esI("pos.trType", 8, func(s *EntityState) *int32 { return (*int32)(&s.Pos.Type) }),
	esI("eFlags", 19, func(s *EntityState) *int32 { return &s.EFlags }),
	esI("otherEntityNum", GEntityNumBits, func(s *EntityState) *int32 { return &s.OtherEntityNum }),
	esI("weapon", 8, func(s *EntityState) *int32 { return &s.Weapon }),
	esI("clientNum", 8, func(s *EntityState) *int32 { return &s.ClientNum }),
	esF("angles[1]", func(s *EntityState) *float32 { return &s.Angles[1] }),
	esI("pos.trDuration", 32, func(s *EntityState) *int32 { return &s.Pos.Duration }),
	esI("apos.trType", 8, func(s *EntityState) *int32 { return (*int32)(&s.APos.Type) }),
	esF("origin[0]", func(s *EntityState) *float32 { return &s.Origin[0] }),
	esF("origin[1]", func(s *EntityState) *float32 { return &s.Origin[1] }),
	esF("origin[2]", func(s *EntityState) *float32 { return &s.Origin[2] }),
	esI("solid", 24, func(s *EntityState) *int32 { return &s.Solid }),
	esI("powerups", MaxPowerups, func(s *EntityState) *int32 { return &s.Powerups }),
	esI("modelindex", 8, func(s *EntityState) *int32 { return &s.ModelIndex }),
	esI("otherEntityNum2", GEntityNumBits, func(s *EntityState) *int32 { return &s.OtherEntityNum2 }),
	esI("loopSound", 8, func(s *EntityState) *int32 { return &s.LoopSound }),
	esI("generic1", 8, func(s *EntityState) *int32 { return &s.Generic1 }),
	esF("origin2[2]", func(s *EntityState) *float32 { return &s.Origin2[2] }),
	esF("origin2[0]", func(s *EntityState) *float32 { return &s.Origin2[0] }),
	esF("origin2[1]", func(s *EntityState) *float32 { return &s.Origin2[1] }),
	esI("modelindex2", 8, func(s *EntityState) *int32 { return &s.ModelIndex2 }),
	esF("angles[0]", func(s *EntityState) *float32 { return &s.Angles[0] }),
	esI("time", 32, func(s *EntityState) *int32 { return &s.Time }),
	esI("apos.trTime", 32, func(s *EntityState) *int32 { return &s.APos.Time }),
	esI("apos.trDuration", 32, func(s *EntityState) *int32 { return &s.APos.Duration }),
	esF("apos.trBase[2]", func(s *EntityState) *float32 { return &s.APos.Base[2] }),
	esF("apos.trDelta[0]", func(s *EntityState) *float32 { return &s.APos.Delta[0] }),
	esF("apos.trDelta[1]", func(s *EntityState) *float32 { return &s.APos.Delta[1] }),
	esF("apos.trDelta[2]", func(s *EntityState) *float32 { return &s.APos.Delta[2] }),
	esI("time2", 32, func(s *EntityState) *int32 { return &s.Time2 }),
	esF("angles[2]", func(s *EntityState) *float32 { return &s.Angles[2] }),
	esF("angles2[0]", func(s *EntityState) *float32 { return &s.Angles2[0] }),
	esF("angles2[2]", func(s *EntityState) *float32 { return &s.Angles2[2] }),
	esI("constantLight", 32, func(s *EntityState) *int32 { return &s.ConstantLight }),
	esI("frame", 16, func(s *EntityState) *int32 { return &s.Frame }),
}

// NumEntityFields is the length of the entity field table (51).
const NumEntityFields = len(entityStateFields)

// EntityFieldName returns the engine's name of entity field i (for logs).
func EntityFieldName(i int) string { return entityStateFields[i].name }

// ErrBadEntity is a malformed entity delta.
var ErrBadEntity = errors.New("msg: bad entity delta")

// EntityChanges returns the number of the last field that differs between
// from and to, plus one (the engine's "lc"), or 0 if none differs.
func EntityChanges(from, to *EntityState) int {
	lc := 0
	for i := range entityStateFields {
		f := &entityStateFields[i]
		if f.raw(from) != f.raw(to) {
			lc = i + 1
		}
	}
	return lc
}

// WriteDeltaEntity writes the delta from from to to, including the entity
// number (ioq3 MSG_WriteDeltaEntity). A nil to is a removal of from. An
// unchanged entity writes nothing unless force is set, in which case it
// writes the number and two 0 bits.
//
//	number (10) | removed (1) | [changed (1) | [lc (8) | per field i < lc:
//	    changed (1) | int: nonzero (1) [value (bits)]
//	                | float: nonzero (1) [isFull (1) | full ? 32 raw : 13 biased int]]]
func WriteDeltaEntity(w *Writer, from, to *EntityState, force bool) {
	if to == nil {
		if from == nil {
			return
		}
		w.WriteBits(uint32(from.Number), GEntityNumBits)
		w.WriteBits(1, 1)
		return
	}
	if to.Number < 0 || to.Number >= MaxGEntities {
		if w.err == nil {
			w.err = fmt.Errorf("%w: entity number %d", ErrBadEntity, to.Number)
		}
		return
	}
	lc := EntityChanges(from, to)
	if lc == 0 {
		if !force {
			return
		}
		w.WriteBits(uint32(to.Number), GEntityNumBits)
		w.WriteBits(0, 1) // not removed
		w.WriteBits(0, 1) // no delta
		return
	}
	w.WriteBits(uint32(to.Number), GEntityNumBits)
	w.WriteBits(0, 1) // not removed
	w.WriteBits(1, 1) // we have a delta
	w.WriteUint8(uint8(lc))
	for i := 0; i < lc; i++ {
		f := &entityStateFields[i]
		v := f.raw(to)
		if f.raw(from) == v {
			w.WriteBits(0, 1)
			continue
		}
		w.WriteBits(1, 1)
		if f.bits == 0 {
			writeFloatField(w, *f.f(to), true)
			continue
		}
		if v == 0 {
			w.WriteBits(0, 1)
			continue
		}
		w.WriteBits(1, 1)
		w.WriteBits(v, f.bits)
	}
}

// ReadDeltaEntity reads the delta of entity number (already read) from
// from into to (ioq3 MSG_ReadDeltaEntity). It reports whether the entity
// was removed; then to is zeroed with Number = EntityNumNone, as in the
// engine. lc is the field count sent (0 when unchanged or removed).
func ReadDeltaEntity(r *Reader, from, to *EntityState, number EntityNum) (removed bool, lc int) {
	if number < 0 || number >= MaxGEntities {
		r.fail(fmt.Errorf("%w: entity number %d", ErrBadEntity, number))
		return false, 0
	}
	if r.ReadBits(1) == 1 {
		*to = EntityState{Number: EntityNumNone}
		return true, 0
	}
	if r.ReadBits(1) == 0 {
		*to = *from
		to.Number = number
		return false, 0
	}
	lc = int(r.ReadUint8())
	if r.err != nil {
		return false, 0
	}
	if lc > NumEntityFields {
		r.fail(fmt.Errorf("%w: invalid entityState field count %d", ErrBadEntity, lc))
		return false, 0
	}
	if to != from {
		*to = *from
	}
	to.Number = number
	for i := 0; i < lc; i++ {
		f := &entityStateFields[i]
		if r.ReadBits(1) == 0 {
			continue // unchanged: keeps from's value
		}
		if f.bits == 0 {
			f.setRaw(to, readFloatField(r, true))
			continue
		}
		if r.ReadBits(1) == 0 {
			f.setRaw(to, 0)
			continue
		}
		f.setRaw(to, r.ReadBits(f.bits))
	}
	return false, lc
}
