// Package loadgen is `snapwire load`: many light clients that connect to one
// server, send commands and acknowledge snapshots without predicting, so
// that a server can be measured with hundreds of players on one machine
// (issue 25, "A load generator and the figures").
//
// A light client (Client, client.go) does the least a client must do for
// the session and the common base to stay honest (DOOM III §3, §4.2, §5):
// the handshake (insecure, or sealed with a connect token), the channel
// with its reliable messages, every snapshot decoded against the client's
// own common base and acknowledged in the client header, every apply
// message applied and its base hash checked, and a command message at the
// command rate whose commands are for the frames the server is about to
// run. It runs no game code: no prediction, no interpolation, no events
// handed to entities. The map's base (DOOM III §8) is built once per game
// settings and copied into each client, as the server does (Bases).
//
// Like package client's core, a Client is I/O-free and driven by an
// injected now (tests run it through package netsim in virtual time).
// Run (run.go) drives many of them over real UDP: one socket per client,
// spread over source addresses of 127.0.0.0/8 when the server is on IPv4
// loopback (a server bounds the clients of one address), a reader
// goroutine per socket blocked in the runtime's network poller, and a few
// tick goroutines that advance the clients they own in turn; a client's
// mutex serialises its reader and its ticker.
package loadgen
