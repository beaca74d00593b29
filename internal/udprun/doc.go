// Package udprun is the real-time UDP loop shared by server.Runner and
// client.Runner: the one place where snapwire's I/O-free cores meet a
// socket and the wall clock.
//
// Layers (docs/ARCHITECTURE.md): the protocol cores (package server, package client)
// never read a clock or a socket; they take now (time since start) and a
// Sender. A Loop owns one *net.UDPConn and one core and drives it in real
// time following docs/ARCHITECTURE.md's "one goroutine owns a match": the goroutine
// that calls Run is the only one that touches the core. It handles the
// packets a reader goroutine passes it, runs the functions given to Do, and
// calls the core's Advance on a timer set from the time Advance returns.
// The loop knows nothing of the protocol; a runner adapts its core to the
// Core interface (Start, HandlePacket, Advance, Stop).
//
// # Packet buffers
//
// The reader reads datagrams into a fixed pool of preallocated buffers
// (Config.Buffers of Config.BufferSize bytes, 256 of 2048 by default: the
// netchan default MTU is 1400) and passes each filled buffer to the
// owner, which returns it to the pool's free list once the core's
// HandlePacket has returned. Steady-state reception therefore allocates
// nothing per packet (TestNoAllocsPerPacket). This is sound because a core
// does not keep the packet slice after HandlePacket returns; Core documents
// the contract and server/runner.go and client/runner.go say why their
// cores keep it.
//
// When every buffer is queued for, or held by, a busy owner, the reader
// drops the datagram (it reads it into a private scratch buffer and counts
// it in Stats.Dropped) rather than waiting. Waiting would leave newer
// datagrams queued in the kernel behind older ones and have the kernel
// drop silently once its buffer fills; a real-time game would rather lose
// an old packet than act late on it, and snapwire's protocol is built to
// lose packets (DOOM III §3: unreliable snapshots against an acknowledged
// base, reliable messages resent until acknowledged). Dropping keeps the
// socket drained and the loss visible.
//
// # Shutdown
//
// Run returns when its context is cancelled (after calling the core's
// Stop, which sends disconnects) or when Advance reports the core done.
// Either way it then closes the socket, waits for the reader goroutine to
// exit and only then returns, so a returned Run leaves no goroutine
// behind (TestShutdownLeavesNoGoroutines).
package udprun
