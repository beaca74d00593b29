package game

import (
	"iter"

	"github.com/snapwire/snapwire/bitmsg"
)

// Snapshotter is anything whose state travels in snapshots: entities and the
// states not tied to the PVS. It writes and reads its own variables through
// a delta writer/reader seeded with its state in the common base (DOOM III
// §5, WriteToSnapshot / ReadFromSnapshot with idBitMsgDelta).
//
// Contract: ReadSnapshot must read exactly the fields WriteSnapshot writes,
// in the same order, with the same widths, and the sequence of fields may
// depend only on values already read from the same DeltaReader (never on
// the object's previous contents). The snapshot decoder parses states with
// a scratch instance of the type, and a client applies the parsed state to
// its own instance later.
type Snapshotter interface {
	WriteSnapshot(w *bitmsg.DeltaWriter)
	ReadSnapshot(r *bitmsg.DeltaReader)
}

// Entity is a networked game object (DOOM III §1: "players, enemies,
// projectiles, doors etc. are all entities").
type Entity interface {
	Snapshotter
}

// EventReceiver is implemented by entities that handle events sent with
// ServerSendEvent (DOOM III §5, ClientReceiveEvent). frame is the server
// frame at which the event was sent; an entity may ignore events from too
// far back. r holds the event's bit-packed payload.
type EventReceiver interface {
	ReceiveEvent(ev EventID, frame Frame, r *bitmsg.Reader)
}

// PredictionMode says how a client advances an entity between snapshots
// (DOOM III §2 and §8).
type PredictionMode uint8

const (
	// Predict runs the game code on the client for the entity every frame
	// and re-predicts from each snapshot (DOOM III §2: "prediction on all
	// entities in the PVS"). The default.
	Predict PredictionMode = iota
	// Interpolate does not run the entity's game code on the client; the
	// client shows it between the last two snapshots (Quake 3 style, DOOM
	// III §8: "the prediction of the position of opponents could be disabled
	// and instead interpolation could be used").
	Interpolate
	// PredictOwner predicts the entity on the client that owns it and
	// interpolates it on the others, per entity (Netcode for Entities'
	// owner-predicted ghosts): the type's entities implement Owned, whose
	// owner travels in the snapshot like any other field.
	PredictOwner
)

func (m PredictionMode) String() string {
	switch m {
	case Predict:
		return "predict"
	case Interpolate:
		return "interpolate"
	case PredictOwner:
		return "predict-owner"
	}
	return "PredictionMode(?)"
}

// EntitySet receives entity numbers; Game.Visible fills one per client.
// *snapshot.PVS implements it.
type EntitySet interface {
	Add(n EntityNum)
}

// World is the table of live entities, numbered 0..MaxEntities-1.
// EntityTable is a ready implementation.
type World interface {
	// Entity returns the entity numbered n and its type, or (nil, NoType).
	Entity(n EntityNum) (Entity, TypeID)
	// Entities yields the live entities in ascending entity number order.
	Entities() iter.Seq2[EntityNum, Entity]
	// Spawn creates an entity of type t numbered n, replacing any entity
	// already there. The client calls it when an entity first appears in a
	// snapshot or its type changed.
	Spawn(n EntityNum, t TypeID) (Entity, error)
	// Remove deletes entity n if it exists.
	Remove(n EntityNum)
}

// PlayerCmd is the command a player's entity runs in one frame. The server
// maps clients to their player entities (Game.PlayerEntity); snapshots carry
// other players' latest commands keyed by entity (DOOM III §2: "the server
// sends the most recent input from other players with snapshots").
type PlayerCmd struct {
	Entity EntityNum
	Cmd    UserCmd
}

// Tick is the input of one fixed game frame.
type Tick struct {
	// Frame is the frame being run.
	Frame Frame
	// Cmds holds one command per player entity, in ascending Entity order.
	// On the server: each client's command for Frame (or its last one,
	// duplicated, DOOM III §2). On the client: its own command and the
	// latest known commands of the other players.
	Cmds []PlayerCmd
	// Events receives the events the frame sends. Never nil: the client
	// passes Discard while predicting.
	Events EventSink
	// Predicting is true on the client: the game must not spawn or remove
	// networked entities (the server does) and should skip effects that
	// must happen once (sounds are the client's business to de-duplicate).
	Predicting bool
}

// Game is what a game implements so that the server and the client can
// drive the same code (DOOM III §2: "the same module is used both at the
// server ... and at the client").
type Game interface {
	World

	// Registry returns the entity and state types; both ends must use
	// registries with equal hashes.
	Registry() *Registry

	// Load starts the game named by settings (map and options), spawning the
	// map's entities deterministically, so that the server and every client
	// get the same entities with the same states; the common base is
	// initialised from them right after (DOOM III §8).
	Load(settings string) error

	// ClientConnected adds a player for client c (server only); the game
	// spawns its entity. ClientDisconnected removes it.
	ClientConnected(c ClientNum) error
	ClientDisconnected(c ClientNum)

	// PlayerEntity returns the entity controlled by client c.
	PlayerEntity(c ClientNum) (EntityNum, bool)

	// RunFrame advances the game one fixed frame (DOOM III §2: "updated at a
	// fixed 60 frames per second").
	RunFrame(t *Tick)

	// Visible adds to set every entity in the PVS of client c (DOOM III §2,
	// §4.2). Numbers of entities that do not exist are ignored by the
	// snapshot writer.
	Visible(c ClientNum, set EntitySet)

	// State returns client c's instance of non-PVS state id (a game state
	// may be shared by all clients, a player state is per client). On the
	// client c is the local client.
	//
	// The server encodes each instance once per frame and shares the
	// encoding among the clients that get the same instance (keyed by the
	// instance: its type and pointer), as it does for entities. So between
	// RunFrame calls an instance's contents must not depend on which client
	// asked: return distinct instances for distinct contents, never one
	// scratch object refilled per client.
	State(c ClientNum, id StateID) Snapshotter
}
