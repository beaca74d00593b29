// Package clienthook reaches the parts of a client.Client that are no game
// developer's business: the snapshots and common base it decodes against,
// and its message channel's settings and figures.
// The tests, the match harness (internal/matchsim) and the tools use it to
// check a client against the server; a game reads none of it.
//
// Package client installs the accessors in its init (Install); the
// functions here take a *client.Config or a *client.Client as an any,
// because package client imports this one and this one cannot name its
// types. Passing anything else panics.
package clienthook

import (
	"github.com/snapwire/snapwire/internal/netchan"
	"github.com/snapwire/snapwire/internal/snapshot"
)

// Hooks are the internal settings and callbacks of the clients built from
// one client.Config (Set). The zero value changes nothing.
type Hooks struct {
	// Channel configures the message channel (netchan.Config).
	Channel netchan.Config
	// OnSnapshot, if set, is called after a snapshot has been written into
	// the world and before re-prediction: the world holds the server's
	// states of frame s.Header.Frame for the entities in s.PVS. s is valid
	// only during the call.
	OnSnapshot func(s *snapshot.Snapshot)
	// OnApply, if set, is called after each "apply S" with the client's
	// base.
	OnApply func(seq snapshot.Seq, base *snapshot.CommonBase)
	// OnSnapshotData, if set, is called with each snapshot's bit stream
	// as received (the snapshot layout of docs/PROTOCOL.md, after the game
	// id, padded to a byte) and the base it is about to be decoded
	// against, before decoding: for tools that measure or dump what
	// snapshots spend. Both are valid only during the call.
	OnSnapshotData func(data []byte, base *snapshot.CommonBase)
}

// Access is what package client installs: the accessors behind the
// functions of this package.
type Access struct {
	SetHooks     func(cfg any, h Hooks)
	GetHooks     func(cfg any) Hooks
	PVS          func(c any) snapshot.PVS
	CopyBase     func(c any, dst *snapshot.CommonBase) bool
	ChannelStats func(c any) netchan.Stats
}

var access Access

// Install is called once, by package client's init.
func Install(a Access) { access = a }

// Set gives the clients built from cfg (a *client.Config) the hooks h,
// replacing any set before.
func Set(cfg any, h Hooks) { access.SetHooks(cfg, h) }

// Get returns the hooks set on cfg (a *client.Config).
func Get(cfg any) Hooks { return access.GetHooks(cfg) }

// PVS is a copy of the PVS of client c's last snapshot (c is a
// *client.Client).
func PVS(c any) snapshot.PVS { return access.PVS(c) }

// CopyBase copies client c's common base into dst (false, dst untouched,
// before the game is loaded). The base itself stays the client's: a caller
// that changed it would break the common base both ends keep in step
// (DOOM III §4.2).
func CopyBase(c any, dst *snapshot.CommonBase) bool { return access.CopyBase(c, dst) }

// ChannelStats are the figures of client c's message channel (zero before
// it connects).
func ChannelStats(c any) netchan.Stats { return access.ChannelStats(c) }
