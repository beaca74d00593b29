// Package client is the predicting end of snapwire's DOOM III network
// architecture (DOOM III network architecture, van Waveren 2006, §2, §3; Fiedler, "What Every Programmer Needs To Know About Game Networking", on rewind and replay): an
// I/O-free core that connects to a server, samples the local player's
// commands, predicts every entity in its PVS with the game code, and
// re-predicts from each snapshot; plus a UDP Runner that drives it in real
// time.
//
// Layers (docs/ARCHITECTURE.md): the core drives the same game.Game as the server,
// decodes snapshots with a snapshot.Decoder (its common base), frames the
// session messages of package session and carries them on a netchan.Channel.
// It takes now from the caller and sends through a Sender. Dial runs it on
// a UDP socket; DialSim on the link simulator (package netsim), returning
// the netsim.Node that Network.Run drives, beside server.ListenSim.
//
// # Commands (§3.3)
//
// Each client frame samples a command from the InputSource. Command
// messages (CmdRate, 60 Hz by default) carry the game id and the last
// snapshot received (the acknowledgement for the common base, §4.2), then a
// usercmd.Message: the commands from the oldest not known to have
// arrived (a command is known to have arrived when the server acknowledged
// a channel message that carried it) to the newest, limited to the last
// PacketDup+1 packets' worth (Quake 3's cl_packetdup), each
// delta-compressed against the one before.
//
// # Clock (§2, fig. 4)
//
// The client runs ahead of the server so that its commands arrive just
// before the server needs them. The first snapshot starts the clock one
// round trip plus the target lead ahead of the snapshot's frame; then the
// server's lead reports steer it (see steer in predict.go for the control
// law): the lowest lead over the last second (LeadWindow), corrected for
// the clock shifts made since those commands were sampled, is driven to one
// frame (TargetLead) by time dilation of at most ±20% (MaxSlew), or a jump
// for a large forward correction. The margin over the target therefore
// follows the jitter. Settling takes LeadWindow plus the change divided by
// MaxSlew: under 2 s for latency changes up to 200 ms. The controller's
// settings are the tests' (internal/clienthook's Hooks), not a game's.
//
// # Prediction (§2, fig. 5; Fiedler 2010)
//
// Every client frame runs Game.RunFrame with Tick.Predicting set, the
// local command, and the other players' latest commands from the last
// snapshot. On a snapshot, after any pending "apply S" (a reliable, which
// the channel delivers first), the client decodes it and overwrites every
// entity in its PVS (spawning it when new or of another type), loads the
// non-PVS states, then re-predicts from the snapshot's frame to its own
// with its stored commands. Entities that leave the PVS are taken out of
// the world and kept aside (dormant) with their last state, so events
// still reach them: a late joiner's doors out of sight follow the saved
// events. Entities of game.Interpolate types are not left to the game
// code: after every predicted frame they take the state between the last
// two snapshots that carried them (Interpolator), moving from the older to
// the newer over the snapshot interval after the newer arrived. Entities
// of game.PredictOwner types are predicted by the client that owns them
// (game.Owned, a field of their snapshot state) and interpolated by every
// other client, entity by entity (Netcode for Entities' owner-predicted
// ghosts): a player's vehicle or projectile responds at once to its
// owner's input and moves smoothly, one snapshot interval in the past, on
// the other screens.
//
// # Smoothing and statistics
//
// VisualOffset returns, per entity, the accumulated jump its shown
// position made at snapshots, decaying by SmoothDecay per frame (and
// dropped once below 0.001): the renderer adds it to blend corrections out.
// Interpolated entities get offsets too, when a snapshot arriving early
// restarts their interpolation from a point other than the one on screen.
// Positions come from the optional Positioner interface. ShownTime returns
// the time of the state the client showed for an entity at a frame (the
// last 256 frames), and Stats the prediction error at each snapshot frame
// (self and others), the lead, snapshots received and lost, the round-trip
// time and bytes. The tests read more through internal/clienthook: the
// positions shown, duplicated commands, re-prediction work, and the live
// invariant checks: BaseMismatches (the server's base hash in each "apply
// S", Config.VerifyBase) and decode/apply errors, all of which must stay 0. Entity states are compared with the server's by the
// tests, not on the wire: package internal/clienthook gives them the
// decoded snapshots, the common base and the channel's figures, and shows
// each snapshot's bit stream before decoding to tools that measure what it
// spends.
//
// # Game messages (§3)
//
// The game's own reliable messages (game.Message types registered with
// game.Registry.RegisterMessage): SendMessage queues one for the server on
// the channel's reliable stream (at most 8 KiB unacknowledged, then it
// refuses), and Config.OnMessage receives the server's, in order, after
// the packet that completes them. A message from the server that does not
// decode ends the session with ErrProtocol naming its type (messages.go;
// docs/PROTOCOL.md, "Game messages").
//
// # Reading a running client from another goroutine
//
// One goroutine owns a client (docs/ARCHITECTURE.md): a Runner's Run
// goroutine owns the Client and the game.Game it predicts, and calls the
// InputSource there too (which may therefore read the world directly).
// Runner.Do is the one race-free way in from another goroutine (a
// renderer, an HTTP handler): f runs on the owner between two packets or
// frames, with the Client, and Do waits for it. Inside f read the world
// (Client.Entity, Visible, VisualOffset, FrameFraction, or the game's own
// entities), Stats, ShownTime, or change a setting (SetTypeMode); copy out
// what is drawn or served (values, not pointers into the world, nor the
// iterators it returns), return quickly (the client's frames wait) and do
// not call Do from f. Do waits for Run to start; it returns false, without
// running f, when ctx is done or Run has returned before f's turn
// (Runner.After then reads the client's last state and error), and once
// it returns f never runs (what f wrote is the caller's). The core without a Runner needs none of this: its
// caller's goroutine is the owner. See the Runner.Do example.
//
// # Allocation
//
// Advance and HandlePacket (snapshots with re-prediction, events,
// entities leaving and re-entering the PVS) allocate nothing in steady
// state when the game's World stores the entity objects it is given (a
// Put method, as game.EntityTable): an entity that leaves the PVS is moved
// aside as it is and put back when it re-enters. Other worlds get a kept
// copy and a Spawn on re-entry. Connecting and loading a game allocate.
package client
