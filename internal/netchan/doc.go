// Package netchan is snapwire's message channel, the layer between the bit
// message layer (snapshots and user commands, packages bitmsg and snapshot)
// and the transport (a UDP socket or package netsim). It follows DOOM III
// §3: one Channel is one connection, client to server or back, carrying
//
//   - unreliable messages, delivered in order and without duplicates; a
//     message older than the last one delivered is dropped;
//   - reliable messages, small, queued and copied, sent with every packet
//     until the peer acknowledges a packet that carried them ("brute force"
//     piggy-backing), delivered exactly once, in order, and before the
//     unreliable payload of the packet they arrive in.
//
// Every packet has an 8-byte header (sequence, ack of the peer's last
// message, connection id, message type, flags); docs/PROTOCOL.md draws it
// bit by bit, as does header.go. The connection id replaces the source port
// for telling peers apart (PeekConnID), because "some routers may
// periodically change the IP port" (DOOM III §3, Quake 3's qport). The body
// (reliable section and unreliable payload) is compressed with package zrle
// (DOOM III §4.3) when that makes it smaller, or, with Config.Huffman, with
// a static Huffman table the game supplies (entropy.HuffmanTable, built
// from the game's measured traffic; snapwire's addition, not in the paper)
// or, with Config.Entropy, with an adaptive range coder from a prior the
// game supplies (entropy.Model; ours too) when that is smaller still (the
// two coders are package internal/entropy, as zrle is its own package); a message larger than the
// MTU is split into up to 255 fragments that each carry the header. A
// fragmented message is delivered whole or not at all, reliables included;
// since reliables ride on every message they come with the next one that
// gets through.
//
// Rate control (Config.Rate, counting 28 bytes of UDP/IP per packet) is a
// token bucket; CanSend tells the layer above whether a message fits now,
// and Send always sends. Out-of-band packets for handshakes start with
// 0xFFFFFFFF as in Quake 3 (IsConnectionless, AppendConnectionless); a
// channel packet never does.
//
// The channel is I/O-free: Send hands packets to a callback, Receive takes
// one packet, and both take the current virtual time. In steady state they
// allocate nothing: buffers grow once to the largest message seen (bounded
// by the configured limits) and are reused.
package netchan
