// Package server is the authoritative end of snapwire's DOOM III network
// architecture (DOOM III network architecture, van Waveren 2006, §2-§5, §8): an I/O-free core that runs the game
// at a fixed frame rate and sends each client its snapshots, plus a UDP
// Runner that drives the core in real time.
//
// Layers (docs/ARCHITECTURE.md): the core drives a game.Game, builds snapshots with
// internal/snapshot (one Encoder, hence one common base, per client), frames
// the session messages of internal/session, and carries them on one
// internal/netchan channel per client. It never reads a clock or a socket:
// the caller passes now (virtual time since start) to HandlePacket and
// Advance and gives a Sender for outgoing datagrams; tests drive it over
// package netsim in virtual time. ListenSim binds a server on a
// netsim.Network and returns the netsim.Node that Network.Run drives, as
// Listen binds one on a UDP socket (client.DialSim is the client's half).
//
// # Configuration and figures
//
// Config holds the everyday settings and embeds Advanced, the rarely
// changed ones (per-address limits, cookie lifetime, saved events,
// VerifyBase, SnapshotWorkers). Stats, Totals and
// ClientStats are what an operator reads; the test hooks and every
// counter the core keeps are reached through internal/serverhook, by
// snapwire's tests, harnesses and metrics only. Reason names why a client
// was refused or dropped, as the log reports it.
//
// # Frames and commands (DOOM III §2)
//
// Frame f is due at f frame durations after start. Advance runs every frame
// due, never waiting for input: each client's command for the frame if it
// arrived, else its previous command duplicated and counted. For every
// command the server records how early it arrived (the time the frame was
// due minus the arrival time; a command that arrives after its frame
// counts with a negative lead, once). The minimum over a snapshot interval
// is the snapshot header's Lead, with Duplicated the duplicates since the
// previous snapshot (§3.2); the client steers its clock with it.
// HandlePacket first runs the frames due strictly before now, so leads do
// not depend on how often the driver calls Advance.
//
// # Snapshots and the common base (§3.2, §4.2, §8)
//
// After a frame, each client whose snapshot interval (SnapshotRate, 20 Hz
// by default, 10-60 per client with SetSnapshotRate) has elapsed gets a
// snapshot: its PVS from Game.Visible, every non-PVS state, the latest
// commands of the other players in the game, and the unreliable events
// logged since its previous snapshot (each written once). Within the
// client's byte rate (Config.Rate) a snapshot is built to the bytes the
// rate allows at that moment, by priority: the entities of the PVS that
// matter most are written and the others held at their base states, which
// the common base keeps exact on both ends while the client predicts them
// on (budget.go; Glenn Fiedler's priority accumulator: an entity's
// priority grows each snapshot by its relevance to the client and returns
// to zero when it is sent). Relevance is the game's when it has a method
// Relevance(c game.ClientNum, n game.EntityNum) float32 (>= 0, any
// scale), else 1/distance² from the client's player entity when both
// implement Positioner, else equal. Only when not even the snapshot with
// every entity held fits is it skipped and counted; its events wait for
// the next one. Each client's base starts as a copy of the map base,
// initialised from the map's entities right after Game.Load (§8; non-PVS
// states start empty on both ends). Every client message acknowledges the
// last snapshot it received; the ack applies that snapshot to the server's
// base and queues the reliable "apply S", which the channel delivers before
// any later snapshot. With Advanced.VerifyBase the apply carries the low 32
// bits of the server's base hash, which the client checks.
//
// # Events (§5, §8)
//
// Reliable events a frame sends go to every client in the game as reliable
// events messages (packed, up to 1 KiB each). Saved events are kept for
// late joiners, bounded: the latest per (entity, event id), at most
// MaxSavedEvents (oldest dropped); each saved event is meant to carry the
// state it leads to, so replaying the latest is enough. A client entering
// the game (connect, or answering a map change) gets them all. Unreliable
// events go into each client's next snapshot only.
//
// # Game messages (§3)
//
// The game's own reliable messages (game.Message types registered with
// game.Registry.RegisterMessage): SendMessage and BroadcastMessage queue
// one for a client or all on the channel's reliable stream, and
// Config.OnMessage receives each client's, in order, as its packets are
// handled. Each client is held to Advanced's size, burst and rate limits
// and dropped beyond them (ReasonMessageFlood); each client's queue holds
// at most 8 KiB of unacknowledged reliable messages, beyond which
// SendMessage refuses (messages.go; docs/PROTOCOL.md, "Game messages").
//
// # Sessions
//
// The connectionless handshake (docs/PROTOCOL.md, session protocol): getchallenge ->
// challenge with a stateless cookie, HMAC-SHA256(secret, address, port,
// time bucket) truncated to 16 bytes, valid in its bucket and the next;
// nothing is stored for an address until its connect returns a valid
// cookie. Connect is checked for its token (a secure server: nothing is
// counted or stored for a connect whose token does not open, and a token
// opens one session), version, registry hash, password and a free slot,
// and answered with accept (connection id, client number, game id, frame
// duration, settings; a secure server seals it with the token's key and
// adds the random value the session's keys derive from) or refuse (a
// reason). Channel packets are routed by connection id
// (netchan.PeekConnID), not by address; a packet that delivers a new
// message updates the reply address, so a NAT port change keeps the
// connection (§3), but a new address gets at most 3 times what came from
// it until it echoes a path challenge (QUIC's path validation, RFC 9000
// §8.2). A client silent for Timeout is dropped; on a secure server its
// slot, player entity and score are held for Advanced.ReconnectGrace
// first, and a connect with the same token resumes them (the game's
// ClientDisconnected runs only when the grace ends; docs/PROTOCOL.md,
// "Reconnection");
// a reliable disconnect message from it removes it; Kick and Shutdown send
// it one, three times, and forget it (a client that loses all three times
// out). Connectionless packets that are not handshake messages (first
// payload byte 0x20 or above: Quake 3's text queries "getinfo",
// "getstatus") go to a query handler, which may reply (snapwire serve
// sets one through internal/serverhook, Hooks.OnConnectionless).
//
// # Many matches on one socket
//
// A Host serves many matches in one process on one socket, as Colyseus
// and Nakama host many rooms (host.go; ListenHost serves one over UDP, and
// Listen is a Host whose one match is the default, named ""). Each match
// is a Server of its own: its game, map, game id, players, common bases,
// events and messages; Host.Create starts one while the host runs, its
// frame 0 due at that moment, and Host.End drops its clients with a
// disconnect. A connect joins the match its connect token names
// (token.Params.Match) or, on an insecure host, the match the request
// names (client.Config.Match); a match refuses a connect for another
// (ReasonNoSuchMatch), so a Server of its own admits only connects for
// "". Channel packets go to their match by connection id, unique across
// the host. What guards the socket is the host's: the cookie secret, the
// table of used tokens (a token opens one session on the socket), the
// per-address counts and attempt limits (MaxClientsPerIP holds across
// matches), and the settings NewHost lists. The matches run on the one
// goroutine that owns the host, in creation order.
//
// # Reading a running server from another goroutine
//
// One goroutine owns a match (docs/ARCHITECTURE.md): a Runner's Run
// goroutine owns the Server and the game.Game it drives, and nothing else
// may touch either while Run runs, not even to read. Runner.Do is the one
// way in from another goroutine (an HTTP handler, a console, a metrics
// scraper): f runs on the owner between two packets or frames, with the
// Server, and Do waits for it. Inside f read anything: Stats,
// AppendClients, the game's entities through the Game value given to
// Listen; and change things (ChangeMap, Kick). Copy out what is needed
// after f returns (values, not pointers into the world, nor the iterators
// the world returns); f must return quickly (the frames wait for it) and
// must not call Do. Do waits for Run to start; it returns false, without
// running f, when ctx is done or Run has returned before f's turn, and
// once it returns f never runs (what f wrote is the caller's). The core without a Runner needs none of
// this: its caller's goroutine is the owner. See the Runner.Do example.
//
// # Allocation
//
// Advance and HandlePacket allocate nothing in steady state (clients
// connected, commands arriving, snapshots, acks, events): buffers are
// reused and grow only at a new high (larger snapshots, more events).
// Connects, map changes and query replies may allocate.
//
// # Game id (§3.1)
//
// Every server message carries the game id; a client whose messages carry
// another id is sent TypeLoadGame (id and settings) at its snapshot rate
// instead of snapshots until it answers with the right id, when both ends
// restart from the map base. ChangeMap loads a new game with a new id and
// takes every client along that way.
package server
