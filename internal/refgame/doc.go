// Package refgame is snapwire's reference game: a top-down deathmatch in a grid of rooms joined by
// doors, with rockets, lights, pickups and scores. It is the "game code" layer of docs/ARCHITECTURE.md: the
// same package runs on the server, which simulates every entity, and on the client, which
// predicts the entities in its PVS with the same code (DOOM III §2: "the same module is used both
// at the server to advance the state of entities, and is also used at the client to ... predict
// the state of entities"). *World implements game.Game; NewRegistry gives the entity and state
// types both ends register; Bot produces user commands.
//
// # Determinism
//
// The world is pure logic: no networking, clock or goroutines. It advances one fixed 60 Hz frame
// per RunFrame (DOOM III §2), in a fixed order (players, rockets, pickups, doors, props, match),
// never iterating a Go map. Random choices (spawn points, pickup respawn jitter, fill layout, bot
// decisions) are a stateless hash of (seed, frame, entity number), so a client predicting a
// subset of the entities draws the same numbers as the server. Floating point uses only basic
// IEEE operations with explicit float32 conversions wherever a product feeds a sum, so no
// compiler may fuse them into an FMA; directions come from a sine table built with the same
// operations, not from math.Sin.
//
// Every variable an entity writes in WriteSnapshot is kept in the game in the precision it is
// sent (DOOM III §4.1: positions as full floats, velocities as half floats quantised in the frame
// update, angles as 16-bit angles), and every variable the simulation reads is sent or derived
// from what is sent (a rocket's owner from its entity number, map geometry from the Config). A
// world rebuilt from snapshots therefore steps bit-identically to the server's. Fields are
// written in order of how often they change, rarely changing ones grouped last (§4.3).
//
// # Entities and numbers
//
// Entity numbers follow the map: [0, MaxPlayers) players (client c controls entity c), then
// RocketSlots rocket numbers per player (a player's next rocket takes slot ShotSeq%RocketSlots,
// so a shot gets the same number on the client that predicts it as on the server), then doors,
// lights, pickups and props. Doors cycle closed → opening → open → closing and are solid unless
// open; each transition is a saved reliable event (§5) that Door.ReceiveEvent replays. Lights
// toggle when used or caught in a blast (reliable events). Pickups give health or armor and come
// back after PickupRespawn frames plus a hashed jitter. Props are decoration; static props never
// change, for the "dense map of unchanging entities" scenario (Config.StaticFill).
//
// # Movement and combat
//
// UserCmd.Forward moves along the view yaw (yaw 0 looks along +X, 16384 along +Y), Right 90
// degrees clockwise of it, both scaled to MaxSpeed with Quake-style friction and acceleration.
// Players are boxes against walls (moved one axis at a time) and circles against each other.
// ButtonAttack fires a rocket every RocketCooldown frames; rockets fly straight and explode on a
// wall, a player or at the end of their life, with splash damage falling off linearly over
// SplashRadius, knockback, armor absorbing two thirds, frags, deaths and respawn at a hashed
// spawn point. ButtonUse opens the nearest door or toggles the nearest light within UseRange.
// While predicting (game.Tick.Predicting) the world spawns and removes nothing: a shot costs the
// cooldown but its rocket arrives with the server's snapshot, and an exploded rocket stays inert
// until the server removes it RocketLinger frames later.
//
// # PVS and non-PVS states
//
// A client sees its own room (both rooms when in a doorway), every room behind a door that is not
// closed, and the room straight beyond that one through its opposite door when that is not
// closed either; see World.VisibleRooms. The scoreboard (frags, deaths, frag limit, winner) is
// the shared non-PVS state StateScore; StateStats holds each player's own statistics (§8:
// several states not tied to the PVS).
//
// # Maps and bots
//
// Config selects the map: a RoomsX × RoomsY grid of square rooms, MaxPlayers slots, and Entities
// to pad the map with fill entities up to a total entity count (benchmarks use 500 and 4096).
// Config.String is the settings string Load parses. Bot plays a client from its world view:
// BotDeathmatch wanders, opens doors, chases and shoots; BotNeverTouch runs along its own row
// and never interacts, for exact-prediction tests.
package refgame
