// Package game holds what the game code and the engine share: the domain
// types (Frame, EntityNum, TypeID, UserCmd, ...), the interfaces a game
// implements so that the server and the client drive the same code, the
// entity type registry, events, and the user command codec.
//
// A game embeds *EntityTable, which holds the entities and hands out their
// numbers and also gives the Game methods most games leave as they are:
// Load empties the table, State returns nil, Visible adds every entity,
// PlayerEntity is the entity client c owns (Owned) and ClientDisconnected
// removes c's entities. The game writes New, ClientConnected and RunFrame
// and overrides the others where it needs more (docs/GUIDE.md).
//
// It is the top layer of snapwire (docs/ARCHITECTURE.md, "Layers"): game code sits on
// it; package snapshot writes the entities and states it describes; the
// server and client cores drive a Game.
//
// How it maps to the DOOM III paper (DOOM III network architecture, van Waveren 2006):
//
//   - §2: one game module runs on both ends. Game.RunFrame advances the game
//     one fixed frame (60 Hz) from each player's UserCmd (Tick.Cmds); the
//     server runs it for real, the client runs it to predict (Tick.Predicting).
//   - §3.2, §8: entities are synchronised when in the client's PVS
//     (Game.Visible fills it); one or more states not tied to the PVS
//     (registered with Registry.RegisterState, reached with Game.State), for
//     example a game state and a player state, are synchronised always.
//   - §5: entities write and read their own variables (Snapshotter:
//     WriteSnapshot / ReadSnapshot through bitmsg.DeltaWriter /
//     DeltaReader, the paper's idBitMsgDelta) instead of a fixed entity
//     state (Quake 3). The Registry gives each entity class a TypeID, so the
//     client can create the right type when an entity first appears in a
//     snapshot; both ends compare Registry.Hash.
//   - §5 ServerSendEvent: EventSink.ServerSendEvent sends a reliable,
//     bit-packed Event for an entity, optionally saved for late joiners;
//     EventReceiver.ReceiveEvent handles it on the client. §8 unreliable
//     events: EventSink.SendUnreliableEvent, written to the next snapshot only.
//   - §8 prediction per entity: EntityType.Mode is Predict (default) or
//     Interpolate (Quake 3 style, for example for opponents).
//   - §4.2 entity numbers: an entity's number is its bit in the PVS bit
//     string. A server-side game spawns at a number it chooses
//     (World.Spawn) or at the lowest free one (EntityTable.Add), and
//     despawns with Remove. A removed entity's number is not handed out
//     again until every client's common base has applied a snapshot
//     without it: the server reports that frame before each frame
//     (EntityTable.Recycle), so a client never takes a new entity for the
//     old one that moved.
//   - §3.3 user commands (fig. 11): UserCmd is what a player's input gives
//     for a frame; the client sends them in its command messages, each
//     delta-compressed against the one before (internal/usercmd), and
//     Tick.Cmds hands them to RunFrame.
package game
