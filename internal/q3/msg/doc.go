// Package msg is the Quake 3 message layer (Quake 3 protocol description: "Server-to-client
// packet", "Client-to-server packet"; ioq3 code/qcommon/msg.c,
// code/client/cl_parse.c, code/server/sv_snapshot.c), above package huffman
// and below package netchan's framing.
//
// Reader and Writer are the message bit stream: a value of n bits is sent
// as its n%8 low bits raw, then its bytes, each coded with the fixed
// Huffman code. Both keep a sticky error; the Writer emits the engine's
// length (bits/8 + 1) and the Reader fails, like the engine, on any read
// that reaches the message's last bit.
//
// On top of it: entity and playerstate deltas driven by the engine's field
// tables (entityStateFields, playerStateFields, with their widths, the
// 13-bit integral floats and the stats/persistant/ammo/powerups arrays),
// usercmd deltas with their XOR key (UsercmdKey, HashKey), the server ops
// (gamestate, configstring, baseline, serverCommand, download, snapshot,
// voip, EOF) and the client ops (clientCommand, move, moveNoDelta, EOF),
// each readable and writable.
//
// ClientState is what a client keeps between server messages and what
// parsing needs: server commands, configstrings, baselines and the ring of
// PacketBackup snapshots deltas refer to. A live client feeds every
// unscrambled server message to ClientState.ParseServerMessage and builds
// its replies with WriteClientMessage, using ChecksumFeed and
// ServerCommand(reliableAck) for the usercmd key. A server or a demo writer
// uses WriteServerMessage with a DeltaSource (a ClientState mirroring the
// receiver works).
package msg
