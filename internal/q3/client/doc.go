// Package client is a Quake 3 client without renderer or game code: the
// engine side of ioq3 code/client (cl_main.c CL_CheckForResend and
// CL_ConnectionlessPacket, cl_input.c CL_WritePacket, cl_parse.c,
// cl_net_chan.c) on top of packages oob, netchan and msg. It connects to a
// real server, follows the gamestate and the snapshots, acknowledges
// server commands, sends reliable client commands until the server
// acknowledges them and user commands at a fixed packet rate with
// cl_packetdup redundancy (Quake 3 protocol description, Fedoryński: "Initial handshake",
// "Client-to-server packet", "XOR keys").
//
// Client is the I/O-free core. HandlePacket(now, pkt) takes every UDP
// payload from the server; Advance(now) sends what is due (challenge and
// connect resends, netchan packets) through the Sender given to New and
// returns when it wants to be called again. Time is the caller's virtual
// time, so tests feed recorded server packets (the session pcaps) at their
// recorded times. Run is the real-time UDP runner.
//
// Handshake: getchallenge with a client challenge (ioq3 form, resent every
// 3 s) -> challengeResponse -> connect with the adaptive-Huffman userinfo
// (resent every 3 s) -> connectResponse. Then the netchan: Legacy framing
// with the XOR of both directions for protocol 68, Checksummed framing for
// protocol 71. The client sends one packet a second until the gamestate
// arrives (the server sends the gamestate in answer to the first netchan
// packet), then PacketRate packets a second. It creates a user command
// from the first valid snapshot on; the server puts the client in the
// world at the first user command it receives for the current serverId
// (ioq3 SV_UserMove -> SV_ClientEnterWorld; Quake 3 has no "begin"
// client command, that is Quake 2).
//
// Record (record.go) writes what the client receives as a .dm_68/.dm_71
// demo the way ioq3 CL_Record_f does: a rebuilt gamestate first, tagged
// with the message sequence minus one, then every server message after the
// first uncompressed snapshot.
package client
