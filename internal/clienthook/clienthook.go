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
	"time"

	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/netchan"
	"github.com/snapwire/snapwire/internal/snapshot"
)

// Hooks are the internal settings and callbacks of the clients built from
// one client.Config (Set). The zero value changes nothing.
type Hooks struct {
	// Channel configures the message channel (netchan.Config).
	Channel netchan.Config

	// The clock controller (DOOM III §2, fig. 4; client/doc.go "Clock").
	// TargetLead is the lead the controller aims at for the
	// earliest-arriving command in LeadWindow [one frame].
	TargetLead time.Duration
	// LeadWindow is the span of lead reports whose minimum the controller
	// steers [1s].
	LeadWindow time.Duration
	// MaxSlew bounds the clock's time dilation: it runs between 1-MaxSlew
	// and 1+MaxSlew times real time while correcting [0.2].
	MaxSlew float64
	// JumpThreshold: a forward correction larger than this is applied at
	// once (frames are run in a burst) [250ms].
	JumpThreshold time.Duration
	// PredictionWindow is the number of frames of recorded predicted
	// positions (PredictedPosition, client.Client.ShownTime) [256].
	PredictionWindow int
	// ConnectRetry is the resend interval of getchallenge/connect [500ms].
	ConnectRetry time.Duration
	// CoarseAfter: with client.Config.CoarseStep, re-predictions of up to
	// this many frames still run frame by frame [0: every re-prediction is
	// stepped].
	CoarseAfter int

	// OnEvent, if set, sees every event the client receives, before it is
	// passed to its entity.
	OnEvent func(ev *game.Event, reliable bool)
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

// Counters are a client's detailed counters, beyond the figures its Stats
// show a game: for the tests, the harnesses and the tools' net graphs.
type Counters struct {
	// ClockShift is the total correction applied to the clock.
	ClockShift time.Duration
	// Lead is the server's last report of how early commands arrive.
	Lead              time.Duration
	Duplicated        uint64 // commands the server duplicated (sum of snapshot headers)
	SnapshotsReceived uint64
	SnapshotsLost     uint64 // sequence gaps (lost or dropped late; the server counts skipped ones)
	WrongGame         uint64 // snapshots of another game id, ignored
	DecodeErrors      uint64
	ApplyErrors       uint64
	// BaseMismatches counts "apply S" whose server base hash differs from
	// the client's after applying (the server's Config.VerifyBase); it
	// must stay 0 (DOOM III §4.2).
	BaseMismatches, BaseChecks uint64
	CommandPackets             uint64
	CommandsSent               uint64 // commands written, repeats included
	ReliableEvents             uint64
	UnreliableEvents           uint64
	GameMessages               uint64 // the server's game messages handed to Config.OnMessage
	LoadGames                  uint64
	Repredicted                uint64 // frames re-run after snapshots
	ClockResets                uint64 // the clock restarted: a snapshot came more than the command ring behind it

	// RepredictedSteps counts the entity steps of re-prediction: for each
	// frame re-run, the entities of the PVS it advanced (all of them frame
	// by frame; with Config.CoarseStep the local player's every frame and
	// the others once per step). CoarseRepredictions counts the
	// re-predictions run in steps.
	RepredictedSteps    uint64
	CoarseRepredictions uint64

	// Corrections counts the entities whose shown position a snapshot
	// moved (after re-prediction), CorrectionSum the lengths of those
	// jumps in world units: what render smoothing (VisualOffset) blends out.
	Corrections   uint64
	CorrectionSum float64
	// Applies counts the "apply S" messages applied to the common base
	// (DOOM III §4.2); SnapshotBytes the bytes of the snapshots received
	// (after the game id, before decoding, as OnSnapshotData sees them).
	Applies       uint64
	SnapshotBytes uint64
	// Refusals counts the refusals of the handshake that matched its
	// nonce: those the client retried after, waited on, or believed.
	Refusals uint64
	// HandshakeAuthFailures counts sealed accepts for this handshake that
	// did not authenticate with the token's key (forged or corrupted).
	HandshakeAuthFailures uint64
	// PathResponses counts the server's path challenges echoed (its check
	// that the client receives at a new address).
	PathResponses uint64
}

// Access is what package client installs: the accessors behind the
// functions of this package.
type Access struct {
	SetHooks     func(cfg any, h Hooks)
	GetHooks     func(cfg any) Hooks
	PVS          func(c any) snapshot.PVS
	CopyBase     func(c any, dst *snapshot.CommonBase) bool
	ChannelStats func(c any) netchan.Stats
	Counters     func(c any) Counters
	// PredictedPosition is the client's record of what it showed
	// (client/predict.go).
	PredictedPosition func(c any, n game.EntityNum, f game.Frame) (x, y, z float32, ok bool)
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

// CountersOf returns client c's detailed counters (c is a *client.Client).
func CountersOf(c any) Counters { return access.Counters(c) }

// PredictedPosition returns where client c showed entity n at its frame f:
// the position predicted (or, for an interpolated entity, interpolated)
// when the client first reached f, within the last PredictionWindow
// frames; false when f is outside them or n had no position then.
func PredictedPosition(c any, n game.EntityNum, f game.Frame) (x, y, z float32, ok bool) {
	return access.PredictedPosition(c, n, f)
}

// ChannelStats are the figures of client c's message channel (zero before
// it connects).
func ChannelStats(c any) netchan.Stats { return access.ChannelStats(c) }
