// Package matchsim is the harness behind "snapwire demo": one authoritative
// server and N predicting bot clients of the reference game
// (internal/refgame) over a simulated network (package netsim), all in one
// goroutine and in virtual time, so twenty seconds of a match run in a
// couple of seconds of CPU. It sits on top of every layer of docs/ARCHITECTURE.md:
// server and client cores, snapshots, the message channel, netsim.
//
// Besides driving the match it measures it, the way DOOM III §6 reports
// its results, and checks the architecture's invariants live:
//
//   - bandwidth per client, snapshot sizes before and after zero-run-length
//     compression, the command lead the server reports (§3.2), duplicated
//     (late) commands, reliable resends, skipped snapshots;
//   - the savings of bit packing, delta compression and zrle (§6), measured
//     by re-encoding every snapshot a client receives with the real codec:
//     against the client's common base (which reproduces the server's
//     snapshot), against an empty base (every PVS entity in full, still bit
//     packed), and as 32 bits per variable (the naive in-memory layout);
//   - the prediction error (§2): the distance between where a client showed
//     an entity at frame f (client.PredictedPosition) and where the server
//     had it after running f, recorded in a bounded window of frames;
//   - base_mismatches: the client's live check of the server's base hash in
//     every "apply S" (§4.2, server.Config.VerifyBase) plus the harness's
//     own comparison of both ends' full 64-bit base hashes after each apply;
//   - state_mismatches: at every snapshot a client receives, each PVS
//     entity's state in the client's world, written with WriteSnapshot,
//     against the server's state of the same entity at the same frame.
//
// Options.Mode picks the bots' behaviour (deathmatch, or NeverTouch for
// exact-prediction runs); Options.Warmup leaves the first seconds, while
// the clients' clocks settle, out of the command shares, the lead and the
// prediction figures (never out of the invariant checks). arena_test.go
// shows the acceptance lines with the arena through this harness.
//
// Run returns a Result (the JSON of "snapshot demo --json", documented in
// README.md) with a per-second series; WriteHTML renders it as a
// self-contained page of inline SVG plots.
package matchsim
