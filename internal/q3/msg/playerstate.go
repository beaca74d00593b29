package msg

import (
	"errors"
	"fmt"
)

// PlayerState is the networked part of ioq3 playerState_t: the state of the
// player a client controls. The engine-local fields (ping,
// pmove_framecount, jumppad_frame, entityEventSequence, externalEventTime)
// are not sent and not kept.
type PlayerState struct {
	CommandTime       int32
	PMType            int32
	BobCycle          int32
	PMFlags           int32
	PMTime            int32
	Origin            [3]float32
	Velocity          [3]float32
	WeaponTime        int32
	Gravity           int32
	Speed             int32
	DeltaAngles       [3]int32
	GroundEntityNum   int32
	LegsTimer         int32
	LegsAnim          int32
	TorsoTimer        int32
	TorsoAnim         int32
	MovementDir       int32
	GrapplePoint      [3]float32
	EFlags            int32
	EventSequence     int32
	Events            [MaxPSEvents]int32
	EventParms        [MaxPSEvents]int32
	ExternalEvent     int32
	ExternalEventParm int32
	ClientNum         int32
	Weapon            int32
	WeaponState       int32
	ViewAngles        [3]float32
	ViewHeight        int32
	DamageEvent       int32
	DamageYaw         int32
	DamagePitch       int32
	DamageCount       int32
	Stats             [MaxStats]int32      // sent as 16 bits each
	Persistant        [MaxPersistant]int32 // sent as 16 bits each
	Powerups          [MaxPowerups]int32   // sent as 32 bits each
	Ammo              [MaxWeapons]int32    // sent as 16 bits each
	Generic1          int32
	LoopSound         int32
	JumppadEnt        int32
}

type psField = netField[PlayerState]

func psI(name string, bits int, p func(*PlayerState) *int32) psField {
	return psField{name: name, bits: bits, i: p}
}
func psF(name string, p func(*PlayerState) *float32) psField {
	return psField{name: name, f: p}
}

// playerStateFields is ioq3 code/qcommon/msg.c playerStateFields[] (same as
// id's 1.32): name and width, 0 = float, negative = signed.
var playerStateFields = [...]psField{
	psI("commandTime", 32, func(s *PlayerState) *int32 { return &s.CommandTime }),
	psF("origin[0]", func(s *PlayerState) *float32 { return &s.Origin[0] }),
	psF("origin[1]", func(s *PlayerState) *float32 { return &s.Origin[1] }),
	psI("bobCycle", 8, func(s *PlayerState) *int32 { return &s.BobCycle }),
	psF("velocity[0]", func(s *PlayerState) *float32 { return &s.Velocity[0] }),
	psF("velocity[1]", func(s *PlayerState) *float32 { return &s.Velocity[1] }),
	psF("viewangles[1]", func(s *PlayerState) *float32 { return &s.ViewAngles[1] }),
	psF("viewangles[0]", func(s *PlayerState) *float32 { return &s.ViewAngles[0] }),
	psI("weaponTime", -16, func(s *PlayerState) *int32 { return &s.WeaponTime }),
	psF("origin[2]", func(s *PlayerState) *float32 { return &s.Origin[2] }),
	psF("velocity[2]", func(s *PlayerState) *float32 { return &s.Velocity[2] }),
	psI("legsTimer", 8, func(s *PlayerState) *int32 { return &s.LegsTimer }),
	psI("pm_time", -16, func(s *PlayerState) *int32 { return &s.PMTime }),
	psI("eventSequence", 16, func(s *PlayerState) *int32 { return &s.EventSequence }),
	psI("torsoAnim", 8, func(s *PlayerState) *int32 { return &s.TorsoAnim }),
	psI("movementDir", 4, func(s *PlayerState) *int32 { return &s.MovementDir }),
	psI("events[0]", 8, func(s *PlayerState) *int32 { return &s.Events[0] }),
	psI("legsAnim", 8, func(s *PlayerState) *int32 { return &s.LegsAnim }),
	psI("events[1]", 8, func(s *PlayerState) *int32 { return &s.Events[1] }),
	psI("pm_flags", 16, func(s *PlayerState) *int32 { return &s.PMFlags }),
	psI("groundEntityNum", GEntityNumBits, func(s *PlayerState) *int32 { return &s.GroundEntityNum }),
	psI("weaponstate", 4, func(s *PlayerState) *int32 { return &s.WeaponState }),
	psI("eFlags", 16, func(s *PlayerState) *int32 { return &s.EFlags }),
	psI("externalEvent", 10, func(s *PlayerState) *int32 { return &s.ExternalEvent }),
	psI("gravity", 16, func(s *PlayerState) *int32 { return &s.Gravity }),
	psI("speed", 16, func(s *PlayerState) *int32 { return &s.Speed }),
	psI("delta_angles[1]", 16, func(s *PlayerState) *int32 { return &s.DeltaAngles[1] }),
	psI("externalEventParm", 8, func(s *PlayerState) *int32 { return &s.ExternalEventParm }),
	psI("viewheight", -8, func(s *PlayerState) *int32 { return &s.ViewHeight }),
	psI("damageEvent", 8, func(s *PlayerState) *int32 { return &s.DamageEvent }),
	psI("damageYaw", 8, func(s *PlayerState) *int32 { return &s.DamageYaw }),
	psI("damagePitch", 8, func(s *PlayerState) *int32 { return &s.DamagePitch }),
	psI("damageCount", 8, func(s *PlayerState) *int32 { return &s.DamageCount }),
	psI("generic1", 8, func(s *PlayerState) *int32 { return &s.Generic1 }),
	psI("pm_type", 8, func(s *PlayerState) *int32 { return &s.PMType }),
	psI("delta_angles[0]", 16, func(s *PlayerState) *int32 { return &s.DeltaAngles[0] }),
	psI("delta_angles[2]", 16, func(s *PlayerState) *int32 { return &s.DeltaAngles[2] }),
	psI("torsoTimer", 12, func(s *PlayerState) *int32 { return &s.TorsoTimer }),
	psI("eventParms[0]", 8, func(s *PlayerState) *int32 { return &s.EventParms[0] }),
	psI("eventParms[1]", 8, func(s *PlayerState) *int32 { return &s.EventParms[1] }),
	psI("clientNum", 8, func(s *PlayerState) *int32 { return &s.ClientNum }),
	psI("weapon", 5, func(s *PlayerState) *int32 { return &s.Weapon }),
	psF("viewangles[2]", func(s *PlayerState) *float32 { return &s.ViewAngles[2] }),
	psF("grapplePoint[0]", func(s *PlayerState) *float32 { return &s.GrapplePoint[0] }),
	psF("grapplePoint[1]", func(s *PlayerState) *float32 { return &s.GrapplePoint[1] }),
	psF("grapplePoint[2]", func(s *PlayerState) *float32 { return &s.GrapplePoint[2] }),
	psI("jumppad_ent", GEntityNumBits, func(s *PlayerState) *int32 { return &s.JumppadEnt }),
	psI("loopSound", 16, func(s *PlayerState) *int32 { return &s.LoopSound }),
}

// NumPlayerFields is the length of the playerstate field table (48).
const NumPlayerFields = len(playerStateFields)

// PlayerFieldName returns the engine's name of playerstate field i.
func PlayerFieldName(i int) string { return playerStateFields[i].name }

// ErrBadPlayerState is a malformed playerstate delta.
var ErrBadPlayerState = errors.New("msg: bad playerstate delta")

// psArray is one of the four arrays sent after the fields: a 16-bit change
// mask, then each changed element in 16 (stats, persistant, ammo) or 32
// (powerups) bits.
type psArray struct {
	name string
	bits int
	a    func(*PlayerState) *[16]int32
}

var playerStateArrays = [4]psArray{
	{"stats", 16, func(s *PlayerState) *[16]int32 { return &s.Stats }},
	{"persistant", 16, func(s *PlayerState) *[16]int32 { return &s.Persistant }},
	{"ammo", 16, func(s *PlayerState) *[16]int32 { return &s.Ammo }},
	{"powerups", 32, func(s *PlayerState) *[16]int32 { return &s.Powerups }},
}

// WriteDeltaPlayerstate writes the delta from from (nil: all zero) to to
// (ioq3 MSG_WriteDeltaPlayerstate):
//
//	lc (8) | per field i < lc: changed (1) | int: value (|bits|)
//	                                       | float: isFull (1) | full ? 32 raw : 13 biased int
//	arraysChanged (1) | [for stats, persistant, ammo, powerups:
//	    changed (1) | [mask (16) | each set element: 16 bits (powerups: 32)]]
func WriteDeltaPlayerstate(w *Writer, from, to *PlayerState) {
	var zero PlayerState
	if from == nil {
		from = &zero
	}
	lc := 0
	for i := range playerStateFields {
		f := &playerStateFields[i]
		if f.raw(from) != f.raw(to) {
			lc = i + 1
		}
	}
	w.WriteUint8(uint8(lc))
	for i := 0; i < lc; i++ {
		f := &playerStateFields[i]
		v := f.raw(to)
		if f.raw(from) == v {
			w.WriteBits(0, 1)
			continue
		}
		w.WriteBits(1, 1)
		if f.bits == 0 {
			writeFloatField(w, *f.f(to), false)
			continue
		}
		w.WriteBits(v, absBits(f.bits))
	}
	var masks [4]uint32
	changed := false
	for k, a := range playerStateArrays {
		fa, ta := a.a(from), a.a(to)
		for i := range fa {
			if fa[i] != ta[i] {
				masks[k] |= 1 << uint(i)
			}
		}
		changed = changed || masks[k] != 0
	}
	if !changed {
		w.WriteBits(0, 1)
		return
	}
	w.WriteBits(1, 1)
	for k, a := range playerStateArrays {
		if masks[k] == 0 {
			w.WriteBits(0, 1)
			continue
		}
		w.WriteBits(1, 1)
		w.WriteBits(masks[k], 16)
		ta := a.a(to)
		for i := range ta {
			if masks[k]&(1<<uint(i)) != 0 {
				w.WriteBits(uint32(ta[i]), a.bits)
			}
		}
	}
}

// ReadDeltaPlayerstate reads a playerstate delta from from (nil: all zero)
// into to (ioq3 MSG_ReadDeltaPlayerstate). It returns lc, the number of
// fields sent.
func ReadDeltaPlayerstate(r *Reader, from, to *PlayerState) (lc int) {
	if from == nil {
		*to = PlayerState{}
	} else if to != from {
		*to = *from
	}
	lc = int(r.ReadUint8())
	if r.err != nil {
		return 0
	}
	if lc > NumPlayerFields {
		r.fail(fmt.Errorf("%w: invalid playerState field count %d", ErrBadPlayerState, lc))
		return 0
	}
	for i := 0; i < lc; i++ {
		f := &playerStateFields[i]
		if r.ReadBits(1) == 0 {
			continue
		}
		if f.bits == 0 {
			f.setRaw(to, readFloatField(r, false))
			continue
		}
		f.setRaw(to, readIntField(r, f.bits))
	}
	if r.ReadBits(1) == 0 {
		return lc
	}
	for _, a := range playerStateArrays {
		if r.ReadBits(1) == 0 {
			continue
		}
		mask := r.ReadBits(16)
		ta := a.a(to)
		for i := range ta {
			if mask&(1<<uint(i)) == 0 {
				continue
			}
			if a.bits == 16 {
				ta[i] = int32(r.ReadInt16())
			} else {
				ta[i] = r.ReadInt32()
			}
		}
	}
	return lc
}
