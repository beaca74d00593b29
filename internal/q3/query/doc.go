// Package query answers Quake 3 server queries (Quake 3 protocol
// description: connectionless packets "getinfo" and "getstatus"; ioq3
// code/server/sv_main.c SVC_Info, SVC_Status, SVC_RateLimit,
// SVC_RateLimitAddress) so that server browsers and qstat list a server.
//
// Responder is I/O-free: Handle(now, from, pkt, dst) answers one
// connectionless packet with an infoResponse or statusResponse built from
// a Source the game server implements (hostname, map, game, protocol, max
// clients, players with name, score and ping). It rate-limits as ioq3
// does: per source address a leaky bucket with a burst of 10 and one more
// request per second, kept in a fixed-size table indexed by a keyed hash
// of the address (memory never grows with the number of senders; a full
// probe window evicts its stalest bucket), plus one global bucket (10 per
// 100 ms) that caps the outbound bandwidth a flood of spoofed addresses
// can cause; the buckets are package internal/ratelimit's. Serve runs a
// Responder on a UDP socket.
//
// It sits beside package oob, whose message types it uses; a server
// routes a connectionless packet here when IsQuery says so.
package query
